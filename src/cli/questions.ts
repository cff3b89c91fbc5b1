/**
 * The words of the confirmations (see confirm.ts): what will happen, from the figures the
 * backend's previews give, worded so that every sentence is true when it is asked.
 */
import type { AdvancePreview, CancellationPreview, PlannedDebits, Settlement, SettlementPreview } from '../backend/types.js';
import { periodsClosedBetween } from '../domain/advance.js';
import { dayNumber, type IsoDate } from '../domain/period.js';
import type { Question } from './confirm.js';
import { nameList, periodList } from './confirm.js';
import { count, money, plural } from './output/format.js';

const span = (first: IsoDate | null, last: IsoDate | null) => (first === last ? `${first}` : `${first} to ${last}`);

function planned(p: PlannedDebits): string {
  return `${plural(p.count, 'debit')} for ${money(p.amount)} (${span(p.first_date, p.last_date)})`;
}

function advanceAsk(from: IsoDate, to: IsoDate, days: number, periods: string[]): { head: string; question: string } {
  const closing = periods.length === 1 ? periods[0]! : `${plural(periods.length, 'period')} (${periodList(periods)})`;
  return {
    head: `Advancing the clock ${plural(days, 'day')}, from ${from} to ${to}, closes ${periods.length === 1 ? `${periods[0]} for good` : `${plural(periods.length, 'period')} for good: ${periodList(periods)}`}.`,
    question: `Advance the clock ${plural(days, 'day')}, to ${to}, and close ${closing}?`,
  };
}

export function advanceQuestion(p: AdvancePreview): Question {
  const names = p.periods_closed.map((c) => c.period_month);
  const { head, question } = advanceAsk(p.from, p.to, p.days, names);
  const details = [head];
  const empty: string[] = [];
  for (const c of p.periods_closed) {
    if (c.collections === 0) {
      empty.push(c.period_month);
    } else if (c.open > 0) {
      const which =
        c.open < c.collections
          ? `${count(c.open)} of its ${plural(c.collections, 'collection')} ${c.open === 1 ? 'is' : 'are'} not fully paid yet`
          : c.collections === 1
            ? 'its one collection is not fully paid yet'
            : `none of its ${plural(c.collections, 'collection')} is fully paid yet`;
      details.push(
        `  ${c.period_month}: ${which} ` +
          `(${count(c.nothing_collected)} with nothing collected; ${money(c.amount_remaining)} still owed); ` +
          `what is not collected by ${c.last_day} stays unpaid for good (UNPAID or PAID_PARTIAL).`,
      );
    } else {
      details.push(`  ${c.period_month}: ${c.collections === 1 ? 'its one collection is' : `all ${count(c.collections)} of its collections are`} paid in full or cancelled.`);
    }
  }
  if (empty.length > 0) {
    details.push(`  ${periodList(empty)}: no collections queued; once closed, ${empty.length === 1 ? 'it' : 'they'} can no longer be run.`);
  }
  for (const c of p.periods_closed) {
    const n = c.policies_not_queued ?? 0; // a server of an earlier version does not say
    if (n === 0) continue;
    details.push(
      `  ${c.period_month}: ${notQueued(n)}; once closed, ${n === 1 ? 'its premium' : 'their premiums'} for it can no longer be collected ` +
        `(${queuesThem(c.period_month, n)}).`,
    );
  }
  for (const c of p.periods_closed) {
    const others = c.other_clients_not_run ?? []; // a server of an earlier version does not say
    if (others.length === 0) continue;
    details.push(
      `  ${c.period_month}, for the store's other clients: ${nameList(others)} ${others.length === 1 ? 'has' : 'have'} active policies and no collections queued; ` +
        `once closed, ${others.length === 1 ? 'its' : 'their'} premiums for it can no longer be collected.`,
    );
  }
  if (p.planned_debits.count > 0) details.push(`  Already planned in these days: ${planned(p.planned_debits)}.`);
  return { details, question };
}

/** A closing period's active policies with no collection (PeriodClosing.policies_not_queued), in words. */
export function notQueued(n: number): string {
  return `${n === 1 ? '1 active policy has' : `${count(n)} active policies have`} no collection queued (added after its run, or left out of it)`;
}

/** The command that queues them. */
export function queuesThem(period: string, n: number): string {
  return `'premia collections execute --period ${period}' queues ${n === 1 ? 'it' : 'them'}`;
}

/** For a server that offers no preview: the dates alone. */
export function plainAdvanceQuestion(from: IsoDate, to: IsoDate, days: number): Question {
  const periods = periodsClosedBetween(from, to);
  const { head, question } = advanceAsk(from, to, days, periods);
  return { details: [head, '  (This server does not say how many of its collections are still open.)'], question };
}

const STAYS = 'A statement stays on record: it can be marked paid or disputed, never deleted.';

export function settlementQuestion(s: SettlementPreview): Question {
  const reference = s.payment_reference ? ` (reference ${s.payment_reference})` : '';
  // A regenerated statement nets out what the period was paid before (net = total − fees − VAT −
  // that): named, so the figures shown come to the net, and a net of 0.00 or below is not "to be paid".
  const paid = s.previously_paid ?? 0;
  const replaces = s.supersedes ? `; it supersedes ${s.supersedes}, and ${money(paid)} was already paid for ${s.period_month}` : '';
  const net =
    s.net_amount > 0
      ? `net ${money(s.net_amount)}, to be paid by ${s.payment_date}${reference}`
      : s.net_amount < 0
        ? `net ${money(s.net_amount)}: the client owes ${money(-s.net_amount)} back by ${s.payment_date}${reference}`
        : `net ${money(0)}: nothing ${paid > 0 ? 'more ' : ''}to pay for ${s.period_month}`;
  return {
    details: [
      `Settlement statement ${s.settlement_number} for ${s.period_month}: ${plural(s.collections_count, 'collection')}, ${money(s.total_collections)} collected; ` +
        `fees ${money(s.total_fees)} and VAT ${money(s.vat)}${replaces}; ${net}.`,
      STAYS,
    ],
    question: `Create ${s.settlement_number} (net ${money(s.net_amount)})?`,
  };
}

export function plainSettlementQuestion(period: string): Question {
  return {
    details: [`${STAYS} (This server does not show a statement's figures before it is made.)`],
    question: `Create the settlement statement for ${period}?`,
  };
}

export function cancellationQuestion(p: CancellationPreview): Question {
  const details = [`Cancelling policy ${p.policy_number} (customer ${p.customer_id}, ${money(p.collection_amount)} a month, ${p.status}) is final: it cannot be made active again.`];
  if (p.open_collections.length === 0) details.push('  It has no collection in a period still open.');
  for (const c of p.open_collections) {
    details.push(
      `  ${c.period_month}: its collection (${money(c.amount_due)} due, ${money(c.amount_collected)} collected, ${c.status}) becomes CANCELLED; what was collected stays collected.`,
    );
  }
  if (p.planned_debits.count > 0) details.push(`  Planned debits withdrawn: ${planned(p.planned_debits)}.`);
  else if (p.open_collections.length > 0) details.push('  No debit is planned for it yet.');
  return { details, question: `Cancel policy ${p.policy_number}?` };
}

/**
 * How far ahead `clock set` may move the clock at once before it asks (a mistyped year moves it by
 * years). A move back is not asked about: the clock moves only before a store's first run, when
 * setting it back to the month to simulate is the usual first step (a new store's clock starts at
 * the real date, which moves on, while the shipped fixtures stay in 2026), and a record stamped in
 * the past does not hold later stamps back as one stamped years ahead does (updated_at never goes back).
 */
const CLOCK_JUMP_DAYS = 366;

/** How far `to` is from `from`, in words: 40 days ahead · 13,149 days (about 36 years) ahead · 3,652 days (about 10 years) back. */
export function clockJump(from: IsoDate, to: IsoDate): string {
  const days = Math.abs(dayNumber(to) - dayNumber(from));
  const years = Math.round(days / 365.25);
  return `${plural(days, 'day')}${years >= 2 ? ` (about ${years} years)` : ''} ${to > from ? 'ahead' : 'back'}`;
}

/**
 * `clock set` more than CLOCK_JUMP_DAYS ahead of the clock's date (2062-11-30 typed for 2026-11-30):
 * the question, or null for a smaller move or one back. What is recorded while the clock is there
 * is dated by it for good: setting the clock back later does not change those dates.
 */
export function clockSetQuestion(from: IsoDate, to: IsoDate): Question | null {
  if (dayNumber(to) - dayNumber(from) <= CLOCK_JUMP_DAYS) return null;
  return {
    details: [
      `Setting the clock from ${from} to ${to} moves it ${clockJump(from, to)}. Everything recorded while it is there (policies, premium and ` +
        'status changes, bank imports, keys) keeps that date for good: setting the clock back later does not change it.',
    ],
    question: `Set the clock to ${to}?`,
  };
}

/** How far a premium may move at once, either way, before a terminal asks (a slipped decimal point moves it a hundredfold). */
const PREMIUM_JUMP = 10;

/**
 * A premium set to ten times what it is or more, or a tenth or less (`--amount 94134` meant as
 * 941.34): the question, or null for a change within that. `from` and `to` in cents.
 */
export function premiumChangeQuestion(policyNumber: string, from: number | undefined, to: number): Question | null {
  // No premium to compare with (another server's policy lookup, premia's extension, may carry
  // it under a name of its own): nothing to ask, rather than a move from '-' by 1/NaN.
  if (from === undefined || !Number.isFinite(from)) return null;
  if (from <= 0 || (to < from * PREMIUM_JUMP && to * PREMIUM_JUMP > from)) return null;
  const how = to > from ? `${count(Math.round(to / from))} times the premium it has` : `1/${count(Math.round(from / to))} of the premium it has`;
  return {
    details: [
      `Policy ${policyNumber}'s premium would go from ${money(from)} to ${money(to)} a month, ${how}: from next month on, its collections debit the new amount.`,
    ],
    question: `Set the premium of policy ${policyNumber} to ${money(to)}?`,
  };
}

export function plainCancellationQuestion(ref: string): Question {
  return {
    details: [
      `Cancelling policy ${ref} is final: it cannot be made active again; its collections in open periods become CANCELLED and their planned debits are withdrawn. ` +
        '(This server does not show which ones beforehand.)',
    ],
    question: `Cancel policy ${ref}?`,
  };
}

export function disputeQuestion(s: Settlement, reason: string): Question {
  const state =
    s.status === 'paid'
      ? `paid on ${s.paid_on}${s.paid_reference ? ` with reference ${s.paid_reference}` : ''}`
      : `${s.status}, to be paid by ${s.payment_date}`;
  return {
    details: [
      `Disputing ${s.settlement_number} (${s.period_month}, net ${money(s.net_amount)}, ${state}) is final: it can no longer be paid or changed; ` +
        `'premia settlements create --period ${s.period_month}' then makes a new statement for the period.`,
      `  Reason: ${reason}`,
    ],
    question: `Dispute ${s.settlement_number}?`,
  };
}

export function markPaidQuestion(s: Settlement, reference: string): Question {
  // A regenerated statement's net may be 0.00 (mark-paid records the period as settled) or negative
  // (it records the refund received): neither is "to be paid".
  const net =
    s.net_amount > 0
      ? `net ${money(s.net_amount)}, to be paid by ${s.payment_date}) as paid`
      : s.net_amount < 0
        ? `net ${money(s.net_amount)}: the client owes ${money(-s.net_amount)} back by ${s.payment_date}) as paid (the refund received)`
        : `net ${money(0)}: nothing ${(s.previously_paid ?? 0) > 0 ? 'more ' : ''}to pay) as paid`;
  return {
    details: [
      `Marking ${s.settlement_number} (${s.period_month}, ${net} today ` +
        `with reference ${reference} is final: a paid statement can only be disputed, and a statement made for ${s.period_month} after that ` +
        'counts this payment as made (previously_paid).',
    ],
    question: `Mark ${s.settlement_number} as paid?`,
  };
}

export function revokeQuestion(key: { id: string; client: string; key: string; created_at: string }, otherActive: number): Question {
  const details = [
    `Revoking key ${key.id} (${key.key}) of ${key.client}, created ${key.created_at}: every request with it is refused from then on, and a revoked key cannot be restored.`,
  ];
  if (otherActive === 0) details.push(`  ${key.client} has no other active key: its requests all stop until premia keys create --client ${shellWord(key.client)} makes one.`);
  return { details, question: `Revoke key ${key.id} of ${key.client}?` };
}

/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
