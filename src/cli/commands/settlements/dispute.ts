import { validateDisputeRequest } from '../../../domain/requests.js';
import { verb, type CommandDeps } from '../../command.js';
import { askOrCancel } from '../../confirm.js';
import { askUnlessKeyed, repeatedAnswerNote, replayedNow } from '../../keyed-write.js';
import { OPERATIONS } from '../../../backend/operations.js';
import { inOptionWords } from '../../option-errors.js';
import { disputeQuestion } from '../../questions.js';
import { printSettlement } from './show.js';

interface Flags {
  reason: string;
}

export interface DisputeOptions extends CommandDeps {
  /** A settlement id or settlement number. */
  ref: string;
  reason: string;
}

export function disputeOptions(deps: CommandDeps, flags: Flags, [ref]: string[]): DisputeOptions {
  // Said in the option's words, as mark-paid's --reference ("--reason must not be empty").
  return { ...deps, ref: ref!, reason: inOptionWords({ reason: '--reason' }, () => validateDisputeRequest({ reason: flags.reason })).reason };
}

export async function disputeRun(opts: DisputeOptions): Promise<number> {
  const { ui, backend, ref, reason } = opts;
  const b = await backend();
  // A rerun whose --idempotency-key repeats an earlier answer, or is refused, disputes nothing: not asked.
  const keyed = await askUnlessKeyed(opts, b, OPERATIONS.disputeSettlement, [ref, reason], async () => {
    // A statement already disputed is refused by the dispute itself: nothing to ask.
    const current = await b.getSettlement(ref);
    if (current.status !== 'disputed') await askOrCancel(opts, disputeQuestion(current, reason));
  });
  const s = await b.disputeSettlement(ref, reason);
  if (!ui.json) {
    ui.status(`${s.settlement_number} is disputed. 'premia settlements create --period ${s.period_month}' generates a new statement for the period.`);
  }
  // Known from the key's record before the write, or from the write's own answer.
  if (keyed?.kind === 'replay' || replayedNow(b, OPERATIONS.disputeSettlement)) ui.warn(repeatedAnswerNote(opts.globals.idempotencyKey!, 'nothing was disputed now'));
  printSettlement(ui, s);
  return 0;
}

export default verb(disputeOptions, disputeRun);
