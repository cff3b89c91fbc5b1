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
}

/** Receives every movement of a day, for statements (`bank show`). */
export interface LedgerObserver {
  credit(day: number, amount: number, text: string, balance: number): void;
  premiaDebit(day: number, amount: number, reason: FailureReason | null, balance: number): void;
  debit(day: number, amount: number, text: string, posted: boolean, balance: number): void;
}

export class Ledger {
  balance: number;
  /** The last day lived. */
  day: number;
  private readonly closedFrom: number;
  private readonly frozenFrom: number;
  private readonly stoppedFrom: number;
  private readonly buf = new DayActivity();
  readonly facts: DayFacts = { credits: 0, postedDebits: 0, collected: 0 };

  /** An account that has lived through `lastDay` with `balance` (0 and the day before its start when new). */
  constructor(
    readonly source: AccountSource,
    lastDay: number,
    balance: number,
  ) {
    this.day = lastDay;
    this.balance = balance;
    const first = (event: AccountEvent) => {
      let day = Number.POSITIVE_INFINITY;
      for (const e of source.events()) if (e.event === event && e.day < day) day = e.day;
      return day;
    };
    this.closedFrom = first('ACCOUNT_CLOSED');
    this.frozenFrom = first('ACCOUNT_FROZEN');
    this.stoppedFrom = first('PAYMENT_STOPPED');
  }

  /** Why premia's debits fail on `day` whatever the balance, or null. */
  blockedOn(day: number): FailureReason | null {
    if (this.closedFrom <= day) return 'ACCOUNT_CLOSED';
    if (this.frozenFrom <= day) return 'ACCOUNT_FROZEN';
    if (this.stoppedFrom <= day) return 'PAYMENT_STOPPED';
    return null;
  }

  /**
   * Live through the next day. After the day's credits have posted, `decide` is asked for
   * premia's debits of the day (amounts in policy_number order; it sees the balance at that
   * moment, which only the oracle strategy may use); their outcomes are written to `outcomes`
   * (null = success). Returns the day's facts (the same object each call).
   */
  live(
    decide: ((balance: number, day: number) => readonly number[]) | null,
    outcomes: Array<FailureReason | null>,
    observer?: LedgerObserver,
  ): DayFacts {
    const day = this.day + 1;
    this.day = day;
    const act = this.buf;
    this.source.dayActivity(day, act);
    const facts = this.facts;
    facts.credits = 0;
    facts.postedDebits = 0;
    facts.collected = 0;
    for (let i = 0; i < act.credits.length; i++) {
      const amount = act.credits[i]!;
      this.balance += amount;
      facts.credits += amount;
      observer?.credit(day, amount, act.creditText[i]!, this.balance);
    }
    outcomes.length = 0;
    if (decide !== null) {
      const debits = decide(this.balance, day);
      const blocked = debits.length > 0 ? this.blockedOn(day) : null;
      for (const amount of debits) {
        let reason: FailureReason | null = blocked;
        if (reason === null) {
          if (amount <= this.balance) {
            this.balance -= amount;
            facts.collected += amount;
          } else reason = 'INSUFFICIENT_FUNDS';
        }
        outcomes.push(reason);
        observer?.premiaDebit(day, amount, reason, this.balance);
      }
    }
    for (let i = 0; i < act.debits.length; i++) {
      const amount = act.debits[i]!;
      const posted = amount <= this.balance;
      if (posted) {
        this.balance -= amount;
        facts.postedDebits += amount;
      }
      observer?.debit(day, amount, act.debitText[i]!, posted, this.balance);
    }
    return facts;
  }
}
