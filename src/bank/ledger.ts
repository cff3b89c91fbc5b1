/**
 * An account living through days under the account rules (docs/bank-and-clock.md, "The simulated bank"):
 *  - the balance is 0 before the account's first transaction;
 *  - each day: (1) the day's credits post; (2) premia's debits for the day are attempted in
 *    policy_number order, each succeeding when its amount is at most the balance (and taking
 *    it), else failing with INSUFFICIENT_FUNDS — on business days only: on a weekend or a
 *    holiday of the store's calendar premia's debits are not processed (the engine submits
 *    none for such a day); (3) the day's other debits post in file order, each declined
 *    (skipped) when it exceeds the balance at that moment;
 *  - from the day of an ACCOUNT_CLOSED, ACCOUNT_FROZEN or PAYMENT_STOPPED event on, premia's
 *    debits fail with that reason (in that order of precedence when several apply). Events do
 *    not change how the account's own rows post.
 * The balance can therefore never go below zero.
 */
import type { Calendar } from '../domain/calendar.js';
import type { AccountSource, FailureReason } from './types.js';
import { DayActivity } from './types.js';

export interface DayFacts {
  /** Sum of the day's credits. */
  credits: number;
  /** Sum of the other debits that posted. */
  postedDebits: number;
  /** Sum of premia's successful debits. */
  collected: number;
  /** How many premia debits were attempted (their outcomes are in the outcomes array). */
  premiaDebits: number;
}

/** Supplies premia's debits of a day, after the day's credits have posted. */
export interface PremiaDebits {
  /**
   * Write the day's debits (amounts in policy_number order) into `amounts` and return how many.
   * `balance` is the balance at that moment; only the oracle strategy may look at it.
   */
  debitsFor(balance: number, day: number, amounts: number[]): number;
}

/** Receives every movement of a day, for statements (`bank show`). */
export interface LedgerObserver {
  credit(day: number, amount: number, text: string, balance: number): void;
  premiaDebit(day: number, amount: number, reason: FailureReason | null, balance: number): void;
  debit(day: number, amount: number, text: string, posted: boolean, balance: number): void;
}

/**
 * The account rules of one day ("Account rules" in docs/bank-and-clock.md), the one implementation of them:
 * `act` holds the day's own activity, `blocked` why premia's debits fail whatever the balance
 * (or null). Returns the balance at the end of the day; outcomes and facts are written out.
 * `amounts` is the caller's scratch list for premia's debits of the day.
 */
export function applyDay(
  act: DayActivity,
  day: number,
  opening: number,
  blocked: FailureReason | null,
  premia: PremiaDebits | null,
  outcomes: Array<FailureReason | null>,
  facts: DayFacts,
  amounts: number[],
  observer?: LedgerObserver,
): number {
  let balance = opening;
  let credits = 0;
  for (let i = 0; i < act.creditCount; i++) {
    const amount = act.credits[i]!;
    balance += amount;
    credits += amount;
    if (observer) observer.credit(day, amount, act.creditText[i]!, balance);
  }
  facts.collected = 0;
  facts.premiaDebits = 0;
  if (premia !== null) balance = premiaDebits(premia, day, balance, blocked, outcomes, facts, amounts, observer);
  let posted = 0;
  for (let i = 0; i < act.debitCount; i++) {
    const amount = act.debits[i]!;
    const ok = amount <= balance;
    if (ok) {
      balance -= amount;
      posted += amount;
    }
    if (observer) observer.debit(day, amount, act.debitText[i]!, ok, balance);
  }
  facts.credits = credits;
  facts.postedDebits = posted;
  return balance;
}

/**
 * Step (2) of a day's account rules: premia's debits of the day from `premia`, attempted in
 * order on `balance` (after the day's credits), their outcomes into `outcomes`, their sum and
 * count into `facts` (collected, premiaDebits). Returns the balance after them.
 */
export function premiaDebits(
  premia: PremiaDebits,
  day: number,
  balance: number,
  blocked: FailureReason | null,
  outcomes: Array<FailureReason | null>,
  facts: DayFacts,
  amounts: number[],
  observer?: LedgerObserver,
): number {
  let collected = 0;
  const n = premia.debitsFor(balance, day, amounts);
  for (let i = 0; i < n; i++) {
    const amount = amounts[i]!;
    let reason: FailureReason | null = blocked;
    if (reason === null) {
      if (amount <= balance) {
        balance -= amount;
        collected += amount;
      } else reason = 'INSUFFICIENT_FUNDS';
    }
    outcomes[i] = reason;
    if (observer) observer.premiaDebit(day, amount, reason, balance);
  }
  facts.collected = collected;
  facts.premiaDebits = n;
  return balance;
}

/** The first day each event holds from (a large sentinel when never). */
export const NEVER = 0x7fffffff;

export function eventDays(source: AccountSource): { closed: number; frozen: number; stopped: number } {
  let closed = NEVER;
  let frozen = NEVER;
  let stopped = NEVER;
  for (const e of source.events()) {
    if (e.event === 'ACCOUNT_CLOSED') closed = Math.min(closed, e.day);
    else if (e.event === 'ACCOUNT_FROZEN') frozen = Math.min(frozen, e.day);
    else stopped = Math.min(stopped, e.day);
  }
  return { closed, frozen, stopped };
}

export function blockedReason(day: number, closed: number, frozen: number, stopped: number): FailureReason | null {
  if (closed <= day) return 'ACCOUNT_CLOSED';
  if (frozen <= day) return 'ACCOUNT_FROZEN';
  if (stopped <= day) return 'PAYMENT_STOPPED';
  return null;
}

/** One account living through days (for single-account uses and tests; the engine keeps a
 * million of these column-wise, on the same applyDay). */
export class Ledger {
  balance: number;
  /** The last day lived. */
  day: number;
  private readonly events: { closed: number; frozen: number; stopped: number };
  private readonly activity = new DayActivity();
  private readonly amounts: number[] = [];

  /**
   * An account that has lived through `lastDay` with `balance` (0 and the day before its start
   * when new). With a `calendar`, premia's debits are processed on its business days only;
   * without one (tests of a day's rules), every day.
   */
  constructor(
    readonly source: AccountSource,
    lastDay: number,
    balance: number,
    private readonly calendar: Calendar | null = null,
  ) {
    this.day = lastDay;
    this.balance = balance;
    this.events = eventDays(source);
  }

  /** Why premia's debits fail on `day` whatever the balance, or null. */
  blockedOn(day: number): FailureReason | null {
    return blockedReason(day, this.events.closed, this.events.frozen, this.events.stopped);
  }

  /**
   * Live through the next day. After the day's credits have posted, `premia` supplies premia's
   * debits of the day; their outcomes are written to `outcomes[0..n-1]` (null = success).
   * Returns the day's facts in `facts` (overwritten each call).
   */
  live(premia: PremiaDebits | null, outcomes: Array<FailureReason | null>, facts: DayFacts, observer?: LedgerObserver): DayFacts {
    const day = this.day + 1;
    this.day = day;
    this.source.dayActivity(day, this.activity);
    const debits = this.calendar === null || this.calendar.isBusinessDay(day) ? premia : null;
    this.balance = applyDay(this.activity, day, this.balance, this.blockedOn(day), debits, outcomes, facts, this.amounts, observer);
    return facts;
  }
}
