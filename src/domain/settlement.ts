/**
 * Settlement statement rules (spec 2.5, 4.7–4.9, 8), next to the policy ones: the statement's
 * number, payment date and EFT reference, the amount due, when a statement may be made, and
 * how its status moves:
 *
 *   pending ──mark paid──▶ paid
 *      │                    │
 *      └──────dispute───────┴──▶ disputed (final; within DISPUTE_WINDOW_DAYS of the payment date,
 *                                           or of the day it was made when that is later)
 *
 * A disputed statement is replaced by a regenerated one for the same period, which nets out
 * what the period's statements were already paid and names the statement it supersedes; the
 * superseded one can move no further. Pure: "today" is passed in.
 */
import { conflict, type PremiaError } from './errors.js';
import { hashString32 } from './hash.js';
import { holdsApiKey } from './identifiers.js';
import type { Cents } from './money.js';
import { addDays, dateInPeriod, firstDay, lastDay, nextPeriod, periodOf, type IsoDate, type Period } from './period.js';

export const SETTLEMENT_STATUSES = ['pending', 'paid', 'disputed'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/** Payment (EFT) is due on this calendar day of the month after the period (spec 8). */
export const PAYMENT_DAY_OF_NEXT_MONTH = 3;
/**
 * A statement may be disputed until this many days after its payment date (spec 8: "30 days
 * from receipt"), or after the day it was made when that is later: a first statement made
 * late (its period settled weeks after the 3rd) is received when it is made, not before.
 */
export const DISPUTE_WINDOW_DAYS = 30;
/** Longest dispute reason, in characters (after trimming). */
export const DISPUTE_REASON_MAX = 500;
/** The reference of a payment made (what an EFT reference field carries): 1–35 of A-Z 0-9 - /. */
export const PAID_REFERENCE_MAX = 35;
export const PAID_REFERENCE_RE = /^[A-Z0-9/-]{1,35}$/;

// Crockford's base 32: no I, L, O, U, so a reference read over the phone survives.
const CHECK_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `SETTLE-YYYY-MM-NNN`: NNN counts the client's statements of the period, from 1. */
export function settlementNumber(period: Period, seq: number): string {
  return `SETTLE-${period}-${String(seq).padStart(3, '0')}`;
}

/**
 * The payment date of a period's statement: the 3rd of the following month (spec 8). A
 * statement regenerated after a dispute (seq > 1, made when that date may long have passed)
 * instead gets a fresh one, counted the same way from the day it is generated: the first 3rd
 * of a month after that day (a statement made on the 1st or 2nd is due on the 3rd, as a new
 * one is; made on the 3rd or later, on the 3rd of the next month), and never earlier than the
 * period's own date. So it is never overdue at birth, and its 30-day dispute window runs from
 * its own payment date.
 */
export function paymentDate(period: Period, regeneratedOn?: IsoDate): IsoDate {
  const due = dateInPeriod(nextPeriod(period), PAYMENT_DAY_OF_NEXT_MONTH);
  if (regeneratedOn === undefined) return due;
  const month = periodOf(regeneratedOn);
  const day = Number(regeneratedOn.slice(8, 10));
  const fresh = dateInPeriod(day < PAYMENT_DAY_OF_NEXT_MONTH ? month : nextPeriod(month), PAYMENT_DAY_OF_NEXT_MONTH);
  return fresh > due ? fresh : due;
}

/** The payment date of the statement numbered `seq` of a period, generated on `today`. */
export function paymentDateOf(period: Period, seq: number, today: IsoDate): IsoDate {
  return seq === 1 ? paymentDate(period) : paymentDate(period, today);
}

/** The last day a statement due on `payment` and made on `madeOn` may be disputed. */
export function lastDisputeDate(payment: IsoDate, madeOn?: IsoDate): IsoDate {
  return addDays(madeOn !== undefined && madeOn > payment ? madeOn : payment, DISPUTE_WINDOW_DAYS);
}

/**
 * The EFT reference of a statement: `PRM` + YYMM + NNN, a dash and an 8-character check code
 * (Crockford base 32) hashed from the store's id salt, the client and the settlement number;
 * at most 20 characters of A-Z 0-9 -. Deterministic, so a simulated run is byte-identical;
 * `attempt` > 0 derives another code in the (unlikely) case one is already taken.
 */
export function paymentReference(idSalt: number, clientId: number, number: string, period: Period, seq: number, attempt = 0): string {
  const key = `${clientId}:${number}:${attempt}`;
  const a = hashString32(key, idSalt);
  const b = hashString32(key, a ^ 0x5bd1e995);
  // 40 bits: 20 from each hash.
  const bits = [a & 0xfffff, b & 0xfffff];
  let code = '';
  for (const part of bits) {
    for (let shift = 15; shift >= 0; shift -= 5) code += CHECK_ALPHABET[(part >>> shift) & 31];
  }
  return `PRM${period.slice(2, 4)}${period.slice(5, 7)}${String(seq).padStart(3, '0')}-${code}`;
}

/**
 * What a statement asks to be paid: the fee rule's net of the period less what earlier
 * statements of the period were paid (the same on a first statement; negative when the client
 * was paid more than the period now comes to, which is money owed back).
 */
export function amountDue(periodNet: Cents, previouslyPaid: Cents): Cents {
  return (periodNet - previouslyPaid) as Cents;
}

// ---------------------------------------------------------------------------------------------
// When a statement may be made

/**
 * A period's statement is made once its last day has run. `queued`: whether the period has
 * collections (a run was queued); a month not begun, or with no run yet, is not called "still
 * open" alone, which reads as a month being collected.
 */
export function checkPeriodClosed(period: Period, today: IsoDate, queued = true): void {
  const closesOn = lastDay(period);
  if (today >= closesOn) return;
  const state = today < firstDay(period) ? `has not begun (the clock is at ${today})` : `is still open: its last day ${closesOn} has not run (the clock is at ${today})`;
  throw conflict(
    'PERIOD_OPEN',
    `Period ${period} ${state}${queued ? '' : ', and no collections run has been queued for it yet'}. ` +
      `Create the settlement once the clock has reached ${closesOn}.`,
    [{ period_month: period, closes_on: closesOn, today }],
  );
}

/** Only one live (pending or paid) statement per period. */
export function settlementExists(existing: { id: string; settlement_number: string; status: SettlementStatus; period_month: Period }): PremiaError {
  const { id, settlement_number, status, period_month } = existing;
  return conflict(
    'SETTLEMENT_EXISTS',
    `Period ${period_month} already has settlement ${settlement_number} (id ${id}, ${status}). ` +
      `Only one live statement is allowed per period; dispute it first if it must be regenerated.`,
    [{ id, settlement_number, status, period_month }],
  );
}

/**
 * A period that was never executed has nothing to settle (and, closed, can no longer be: its
 * collections are queued before its last day has run). `ranEmpty`: it was executed, but its runs
 * had no active policy to queue (said so: "never executed" would send the operator looking for a
 * run that is there).
 */
export function noCollections(period: Period, ranEmpty = false): PremiaError {
  const why = ranEmpty ? 'it was executed, but its run queued none (no policy was active to queue)' : 'it was never executed';
  return conflict(
    'NO_COLLECTIONS',
    `Period ${period} has no collections: ${why}, so there is nothing to settle ` +
      `(a period's collections can only be queued before its last day, ${lastDay(period)}, has run).`,
    [{ period_month: period }],
  );
}

// ---------------------------------------------------------------------------------------------
// Status moves

/** What a status move needs to know of the statement. */
export interface StatementState {
  settlement_number: string;
  period_month: Period;
  status: SettlementStatus;
  payment_date: IsoDate;
  /** When it was made (an ISO timestamp whose date is the clock's: the first 10 characters). */
  created_at: string;
  /** The number of the statement that replaced this one, or null. */
  superseded_by: string | null;
}

const NEXT: Record<SettlementStatus, readonly SettlementStatus[]> = {
  pending: ['paid', 'disputed'],
  paid: ['disputed'],
  disputed: [], // final: a new statement is generated for the period instead
};

/** Mark a statement paid: only a pending one. */
export function checkMarkPaid(s: StatementState): void {
  if (!NEXT[s.status].includes('paid')) throw invalidTransition(s, 'paid');
}

/** Dispute a statement: a pending or paid one, until DISPUTE_WINDOW_DAYS after its payment date (or the day it was made, if later). */
export function checkDispute(s: StatementState, today: IsoDate): void {
  if (!NEXT[s.status].includes('disputed')) throw invalidTransition(s, 'disputed');
  const madeOn = s.created_at.slice(0, 10);
  const lastAllowed = lastDisputeDate(s.payment_date, madeOn);
  if (today > lastAllowed) {
    const from = madeOn > s.payment_date ? `the day it was made, ${madeOn}, after its payment date ${s.payment_date}` : `its payment date ${s.payment_date}`;
    throw conflict(
      'DISPUTE_WINDOW_CLOSED',
      `The dispute window of ${s.settlement_number} closed on ${lastAllowed} (${DISPUTE_WINDOW_DAYS} days after ${from}); ` +
        `the clock is at ${today}. Raise the matter with the operator.`,
      [{ settlement_number: s.settlement_number, payment_date: s.payment_date, last_allowed_date: lastAllowed, today }],
    );
  }
}

function invalidTransition(s: StatementState, to: SettlementStatus): PremiaError {
  if (s.superseded_by !== null) {
    // Disputed and regenerated: the newer statement carries the period (and what was paid for it).
    return conflict(
      'INVALID_TRANSITION',
      `Settlement ${s.settlement_number} is ${s.status} and cannot become ${to}: it was superseded by ${s.superseded_by}, ` +
        `which nets out what was already paid for ${s.period_month}. ${to === 'paid' ? 'Pay or record that one instead.' : 'Dispute that one instead.'}`,
      [{ field: 'status', from: s.status, to, settlement_number: s.settlement_number, superseded_by: s.superseded_by }],
    );
  }
  const allowed =
    NEXT[s.status].length > 0 ? NEXT[s.status].join(' or ') : 'nothing (a disputed statement is final; create a new one for the period)';
  return conflict(
    'INVALID_TRANSITION',
    `Settlement ${s.settlement_number} is ${s.status} and cannot become ${to}; from ${s.status} it can become ${allowed}.`,
    [{ field: 'status', from: s.status, to, settlement_number: s.settlement_number }],
  );
}

// ---------------------------------------------------------------------------------------------
// Inputs of the moves (worded by domain/requests.ts, which the CLI, the server and the local
// backend all call)

/** Why a dispute reason (already trimmed and within length) cannot be stored, or null. */
export function disputeReasonProblem(text: string): string | null {
  if (holdsApiKey(text)) return 'holds an API key (pmk_ and 40 letters and digits), a secret never stored as data; write the reason without it';
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f]/.test(text) ? 'has a control character (such as a line break); write it on one line' : null;
}
