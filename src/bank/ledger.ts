/**
 * An account living through days under the account rules (README, "The simulated bank"):
 *  - the balance is 0 before the account's first transaction;
 *  - each day: (1) the day's credits post; (2) premia's debits for the day are attempted in
 *    policy_number order, each succeeding when its amount is at most the balance (and taking
 *    it), else failing with INSUFFICIENT_FUNDS; (3) the day's other debits post in file order,
 *    each declined (skipped) when it exceeds the balance at that moment;
 *  - from the day of an ACCOUNT_CLOSED, ACCOUNT_FROZEN or PAYMENT_STOPPED event on, premia's
 *    debits fail with that reason (in that order of precedence when several apply). Events do
 *    not change how the account's own rows post.
 * The balance can therefore never go below zero.
 */
import type { AccountEvent, AccountSource, FailureReason } from './types.js';
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

/** The scratch buffer every ledger shares: living a day allocates nothing. */
const SCRATCH = new DayActivity();
const AMOUNTS: number[] = [];

export class Ledger {
  balance: number;
  /** The last day lived. */
  day: number;
  private readonly closedFrom: number;
  private readonly frozenFrom: number;
  private readonly stoppedFrom: number;

  /** An account that has lived through `lastDay` with `balance` (0 and the day before its start when new). */
  constructor(
    readonly source: AccountSource,
    lastDay: number,
    balance: number,
  ) {
    this.day = lastDay;
    this.balance = balance;
    let closed = Number.POSITIVE_INFINITY;
    let frozen = Number.POSITIVE_INFINITY;
    let stopped = Number.POSITIVE_INFINITY;
    for (const e of source.events()) {
      if (e.event === 'ACCOUNT_CLOSED') closed = Math.min(closed, e.day);
      else if (e.event === 'ACCOUNT_FROZEN') frozen = Math.min(frozen, e.day);
      else stopped = Math.min(stopped, e.day);
    }
    this.closedFrom = closed;
    this.frozenFrom = frozen;
    this.stoppedFrom = stopped;
  }

  /** Why premia's debits fail on `day` whatever the balance, or null. */
  blockedOn(day: number): FailureReason | null {
    if (this.closedFrom <= day) return 'ACCOUNT_CLOSED';
    if (this.frozenFrom <= day) return 'ACCOUNT_FROZEN';
    if (this.stoppedFrom <= day) return 'PAYMENT_STOPPED';
    return null;
  }

  /**
   * Live through the next day. After the day's credits have posted, `premia` supplies premia's
   * debits of the day; their outcomes are written to `outcomes[0..n-1]` (null = success).
   * Returns the day's facts in `facts` (overwritten each call).
   */
  live(premia: PremiaDebits | null, outcomes: Array<FailureReason | null>, facts: DayFacts, observer?: LedgerObserver): DayFacts {
    const day = this.day + 1;
    this.day = day;
    const act = SCRATCH;
    this.source.dayActivity(day, act);
    let balance = this.balance;
    let credits = 0;
    for (let i = 0; i < act.creditCount; i++) {
      const amount = act.credits[i]!;
      balance += amount;
      credits += amount;
      if (observer) observer.credit(day, amount, act.creditText[i]!, balance);
    }
    let collected = 0;
    let n = 0;
    if (premia !== null) {
      n = premia.debitsFor(balance, day, AMOUNTS);
      const blocked = n > 0 ? this.blockedOn(day) : null;
      for (let i = 0; i < n; i++) {
        const amount = AMOUNTS[i]!;
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
    }
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
    this.balance = balance;
    facts.credits = credits;
    facts.postedDebits = posted;
    facts.collected = collected;
    facts.premiaDebits = n;
    return facts;
  }
}
