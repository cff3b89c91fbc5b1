import { OPERATIONS } from '../../../backend/operations.js';
import type { Backend, Settlement, SettlementPreview } from '../../../backend/types.js';
import { PremiaError } from '../../../domain/errors.js';
import type { Period } from '../../../domain/period.js';
import { verb, type CommandDeps } from '../../command.js';
import { askOrCancel, unlessUnsupported } from '../../confirm.js';
import { money } from '../../output/format.js';
import { plainSettlementQuestion, settlementQuestion } from '../../questions.js';
import { feeRuleWarnings, printSettlement, settlementNow } from './show.js';
import { checkPeriodOption } from '../../../domain/requests.js';
import { withOtherClients } from '../../other-clients.js';
import { askUnlessKeyed, replayedNow } from '../../keyed-write.js';

interface Flags {
  period: string;
}

export interface CreateOptions extends CommandDeps {
  period: Period;
}

export function createOptions(deps: CommandDeps, flags: Flags): CreateOptions {
  const period = checkPeriodOption(flags.period);
  return { ...deps, period };
}

export async function createRun(opts: CreateOptions): Promise<number> {
  try {
    return await create(opts);
  } catch (e) {
    // Local mode acting for the store's own client while the month is other clients': said.
    throw await withOtherClients(opts, opts.period, e);
  }
}

async function create(opts: CreateOptions): Promise<number> {
  const { ui, backend, period } = opts;
  const b = await backend();
  // A rerun with --idempotency-key whose key is on record is answered from it (or refused, the
  // key being another request's) and makes nothing: nothing to ask. Known before the preview,
  // which may show a new statement to make once the first run's was disputed.
  const keyed = await askUnlessKeyed(opts, b, OPERATIONS.createSettlement, [period], async () => {
    const preview = await previewOf(b, period, opts.globals.idempotencyKey);
    if (preview !== REPLAY) await askOrCancel(opts, preview ? settlementQuestion(preview) : plainSettlementQuestion(period));
  });
  const s = await b.createSettlement(period);
  // A rerun with --idempotency-key is answered with the first run's stored answer (pending), though
  // the statement may have been paid or disputed since: what it is now is read, never "to pay" again.
  const since = opts.globals.idempotencyKey !== undefined ? await changedSince(b, s) : null;
  if (since !== null) {
    ui.warn(replayedNote(s, since, opts.globals.idempotencyKey!));
    printSettlement(ui, ui.json ? s : since);
    return 0;
  }
  // Known from the key's record to repeat an earlier run's answer, the statement still as it was:
  // never "Created …" again, which read as a second statement made now.
  if ((keyed?.kind === 'replay' || replayedNow(b, OPERATIONS.createSettlement)) && s.status === 'pending' && s.period_month === period) {
    ui.warn(`${madeEarlier(s, opts.globals.idempotencyKey!)}; it is still pending, to pay by ${s.payment_date}: no statement was made now.`);
    printSettlement(ui, s);
    return 0;
  }
  // A new statement is pending (spec 3.3): another status is one the service had made before
  // (the spec leaves open what it answers for a period settled already), never one to pay now.
  if (s.period_month !== period) {
    // Another server's answer for another month (its previous statement, a mix-up of its own):
    // never "Created … to pay by" as if it were the statement asked for.
    ui.warn(
      `the service answered with ${s.settlement_number} for ${s.period_month}, not the period asked for (${period}): ` +
        `check with the service which statement was made before paying anything.`,
    );
  } else if (s.status !== 'pending' && !['paid', 'disputed'].includes(s.status)) {
    // A status the spec does not name (`PENDING`, `created`): what it means is the server's to say.
    ui.warn(
      `the service answered with ${s.settlement_number}, whose status is ${s.status}, not one of the spec's (pending, paid, disputed): ` +
        'check with the service whether it is a new statement to pay before paying anything.',
    );
  } else if (s.status !== 'pending') {
    const paid = s.status === 'paid' ? ': it is paid already, do not pay it again' : '';
    ui.warn(`the service answered with ${s.settlement_number}, whose status is ${s.status}: a statement it had made before, not a new one${paid}.`);
  } else if (!ui.json) {
    const replaces = s.supersedes ? ` (supersedes ${s.supersedes}; ${money(s.previously_paid ?? 0)} already paid for ${s.period_month})` : '';
    if (s.net_amount === 0) {
      // Nothing to transfer (nothing collected, or a regenerated statement the payment already covers).
      const more = (s.previously_paid ?? 0) > 0 ? 'more ' : '';
      ui.status(`Created ${s.settlement_number}${replaces}: net ${money(0)}: nothing ${more}to pay for ${s.period_month}${b.servedByPremia() ? ' (mark-paid records the period as settled)' : ''}.`);
    } else if (s.net_amount < 0) {
      const reference = s.payment_reference ? `, reference ${s.payment_reference}` : '';
      ui.status(`Created ${s.settlement_number}${replaces}: net ${money(s.net_amount)}: the client owes ${money(-s.net_amount)} back by ${s.payment_date}${pastDue(s)}${reference}.`);
    } else {
      const reference = s.payment_reference ? ` with reference ${s.payment_reference}` : '';
      ui.status(`Created ${s.settlement_number}${replaces}: net ${money(s.net_amount)} to pay by ${s.payment_date}${pastDue(s)}${reference}.`);
    }
  }
  printSettlement(ui, s);
  for (const w of statementWarnings(s)) ui.warn(w);
  return 0;
}

/**
 * A first statement made after its period's payment date (the 3rd of the month after it) keeps
 * that date, the agreement's: said, so "to pay by" a day gone by does not read as a mistake.
 */
function pastDue(s: Settlement): string {
  const madeOn = typeof s.created_at === 'string' ? s.created_at.slice(0, 10) : '';
  return /^\d{4}-\d{2}-\d{2}$/.test(madeOn) && s.payment_date < madeOn ? ` (already past: the statement was made on ${madeOn}; it is due now)` : '';
}

/**
 * What a careful reader of another server's statement would point out (premia's own never
 * warrant it): no id to read it again by, and figures that do not follow the spec's fee rule
 * from its own total (a cent either way is left alone: the spec does not state the rounding).
 */
export function statementWarnings(s: Settlement): string[] {
  const out: string[] = [];
  if (!s.id) {
    out.push(`the service gave no id for ${s.settlement_number}: 'settlements get' and 'export' take its id on a server that implements only the spec; ask the service's operator for it.`);
  }
  return [...out, ...feeRuleWarnings(s)];
}

/**
 * The statement as it is now, when that is no longer what the answer says (the stored answer of an
 * earlier run with the same idempotency key, replayed); null when it is the same, or it cannot be read.
 */
async function changedSince(b: Backend, s: Settlement): Promise<Settlement | null> {
  const now = s.id ? await settlementNow(b, s.id) : null;
  return now !== null && (now.status !== s.status || (now.superseded_by ?? null) !== (s.superseded_by ?? null)) ? now : null;
}

/** That `s` is the answer of an earlier run under `key`, repeated. */
function madeEarlier(s: Settlement, key: string): string {
  return `${s.settlement_number} was made by an earlier run with idempotency key '${key}' (that run's answer is repeated)`;
}

/** What a replayed create says instead of "Created … to pay": the statement was made before, and what it is now. */
function replayedNote(s: Settlement, now: Settlement, key: string): string {
  const made = madeEarlier(s, key);
  if (now.status === 'paid') {
    const reference = now.paid_reference ? ` with reference ${now.paid_reference}` : '';
    return `${made}, and it has been paid since${now.paid_on ? ` (on ${now.paid_on}${reference})` : ''}: it is not to be paid again.`;
  }
  if (now.status === 'disputed') {
    // The same key is answered so again, however often it is run: only another key makes one.
    const replaced = now.superseded_by
      ? `; ${now.superseded_by} replaced it.`
      : `. No new statement was made: 'premia settlements create --period ${s.period_month}' with a new idempotency key (or none) makes one.`;
    return `${made}, and it has been disputed since${now.disputed_on ? ` (on ${now.disputed_on})` : ''}: it can no longer be paid${replaced}`;
  }
  return `${made}; it is ${now.status} now.`;
}

/** What previewOf answers when there is nothing to ask: the create can only repeat an earlier run's answer, or refuse. */
const REPLAY = Symbol('replay');

/**
 * The statement as it would be made; null from a server that cannot say. A refusal (the period
 * open...) is reported at once, except SETTLEMENT_EXISTS under --idempotency-key: the live
 * statement may be the one this key's first run made, which the create then answers with (a
 * rerun by hand on a terminal); made by another run, the create refuses it as the preview did.
 * Either way the create makes nothing, so nothing is asked.
 */
async function previewOf(b: Backend, period: Period, idempotencyKey: string | undefined): Promise<SettlementPreview | null | typeof REPLAY> {
  try {
    return await unlessUnsupported(() => b.previewSettlement(period));
  } catch (e) {
    if (idempotencyKey !== undefined && e instanceof PremiaError && e.code === 'SETTLEMENT_EXISTS') return REPLAY;
    throw e;
  }
}

export default verb(createOptions, createRun);
