import { validateMarkPaidRequest } from '../../../domain/requests.js';
import { verb, type CommandDeps } from '../../command.js';
import { inOptionWords } from '../../option-errors.js';
import { askOrCancel } from '../../confirm.js';
import { askUnlessKeyed, repeatedAnswerNote, replayedNow } from '../../keyed-write.js';
import { OPERATIONS } from '../../../backend/operations.js';
import { markPaidQuestion } from '../../questions.js';
import { printSettlement } from './show.js';

interface Flags {
  reference?: string;
}

export interface MarkPaidOptions extends CommandDeps {
  /** A settlement id or settlement number. */
  ref: string;
  /** The EFT's reference (default: the statement's payment reference). */
  input: { reference?: string };
}

export function markPaidOptions(deps: CommandDeps, flags: Flags, [ref]: string[]): MarkPaidOptions {
  // Checked as the service checks the request, so a bad reference reads the same in both modes
  // (named as the option).
  const input = inOptionWords({ reference: '--reference' }, () => validateMarkPaidRequest(flags.reference === undefined ? {} : { reference: flags.reference }));
  return { ...deps, ref: ref!, input };
}

export async function markPaidRun(opts: MarkPaidOptions): Promise<number> {
  const { ui, backend, ref, input } = opts;
  const b = await backend();
  // A rerun whose --idempotency-key repeats an earlier answer, or is refused, marks nothing: not asked.
  const keyed = await askUnlessKeyed(opts, b, OPERATIONS.markSettlementPaid, [ref, input], async () => {
    // A statement that is not pending is refused by the move itself: nothing to ask.
    const current = await b.getSettlement(ref);
    // "today", not the clock's date: a server that keeps no virtual clock (a spec-only one) has none to read.
    if (current.status === 'pending') await askOrCancel(opts, markPaidQuestion(current, input.reference ?? current.payment_reference));
  });
  const s = await b.markSettlementPaid(ref, input);
  if (!ui.json) ui.status(`${s.settlement_number} is paid (on ${s.paid_on}, reference ${s.paid_reference}).`);
  // Known from the key's record before the write, or from the write's own answer.
  if (keyed?.kind === 'replay' || replayedNow(b, OPERATIONS.markSettlementPaid)) ui.warn(repeatedAnswerNote(opts.globals.idempotencyKey!, 'nothing was marked paid now'));
  printSettlement(ui, s);
  return 0;
}

export default verb(markPaidOptions, markPaidRun);
