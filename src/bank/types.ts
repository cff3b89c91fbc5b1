/**
 * The simulated bank's vocabulary. An account's activity comes from a source (imported rows or
 * a generated profile); the ledger lives through days applying the account rules of docs/bank-and-clock.md.
 */

export const ACCOUNT_EVENTS = ['ACCOUNT_CLOSED', 'PAYMENT_STOPPED', 'ACCOUNT_FROZEN'] as const;
export type AccountEvent = (typeof ACCOUNT_EVENTS)[number];

export { FAILURE_REASONS, isRetryable, type FailureReason } from '../domain/debit-outcome.js';

export function isAccountEvent(s: string): s is AccountEvent {
  return (ACCOUNT_EVENTS as readonly string[]).includes(s);
}

const LONGEST_EVENT = Math.max(...ACCOUNT_EVENTS.map((e) => e.length));

/** The event `s` names in any letter case (`account_closed`: ACCOUNT_CLOSED), else null. */
export function eventNamed(s: string): AccountEvent | null {
  if (s.length > LONGEST_EVENT) return null; // a description of a statement line, not upper-cased
  const upper = s.toUpperCase();
  return isAccountEvent(upper) ? upper : null;
}

/**
 * One day's activity of an account, other than the engine's debits: a scratch buffer that an
 * account set reuses for all its accounts (millions of account-days are lived; nothing is
 * allocated per day). Entries 0..count-1 of each list are valid.
 */
export class DayActivity {
  credits: number[] = [];
  creditText: string[] = [];
  creditCount = 0;
  /** Other debits as positive cents, in file order. */
  debits: number[] = [];
  debitText: string[] = [];
  debitCount = 0;
  events: AccountEvent[] = [];
  eventCount = 0;

  clear(): void {
    this.creditCount = 0;
    this.debitCount = 0;
    this.eventCount = 0;
  }

  addCredit(amount: number, text: string): void {
    this.credits[this.creditCount] = amount;
    this.creditText[this.creditCount++] = text;
  }

  addDebit(amount: number, text: string): void {
    this.debits[this.debitCount] = amount;
    this.debitText[this.debitCount++] = text;
  }

  addEvent(event: AccountEvent): void {
    this.events[this.eventCount++] = event;
  }

  get empty(): boolean {
    return this.creditCount === 0 && this.debitCount === 0 && this.eventCount === 0;
  }
}

export interface Credit {
  day: number;
  amount: number;
}

/** Where an account's transactions come from. */
export interface AccountSource {
  readonly kind: 'imported' | 'generated';
  /** First day of activity: the balance is 0 before it. */
  readonly startDay: number;
  /** Fill `out` (cleared first) with the day's credits, other debits (file order) and events. */
  dayActivity(day: number, out: DayActivity): void;
  /** Credits of the days from..to inclusive (credits always post). */
  credits(from: number, to: number): Credit[];
  /** The day each account event takes effect (it holds from that day on). */
  events(): Array<{ event: AccountEvent; day: number }>;
}
