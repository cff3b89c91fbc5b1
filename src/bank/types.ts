/**
 * The simulated bank's vocabulary. An account's activity comes from a source (imported rows or
 * a generated profile); the ledger lives through days applying the account rules of the README.
 */

export const ACCOUNT_EVENTS = ['ACCOUNT_CLOSED', 'PAYMENT_STOPPED', 'ACCOUNT_FROZEN'] as const;
export type AccountEvent = (typeof ACCOUNT_EVENTS)[number];

export const FAILURE_REASONS = ['INSUFFICIENT_FUNDS', 'ACCOUNT_CLOSED', 'PAYMENT_STOPPED', 'ACCOUNT_FROZEN'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Only a lack of money is worth retrying; every other failure ends the period's attempts. */
export function isRetryable(reason: string | null): boolean {
  return reason === 'INSUFFICIENT_FUNDS';
}

export function isAccountEvent(s: string): s is AccountEvent {
  return (ACCOUNT_EVENTS as readonly string[]).includes(s);
}

/** One day's activity of an account, other than the engine's debits. Reused between days. */
export class DayActivity {
  credits: number[] = [];
  creditText: string[] = [];
  /** Other debits as positive cents, in file order. */
  debits: number[] = [];
  debitText: string[] = [];
  events: AccountEvent[] = [];

  clear(): void {
    this.credits.length = 0;
    this.creditText.length = 0;
    this.debits.length = 0;
    this.debitText.length = 0;
    this.events.length = 0;
  }

  get empty(): boolean {
    return this.credits.length === 0 && this.debits.length === 0 && this.events.length === 0;
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
  /** Fill `out` with the day's credits, other debits (file order) and events. */
  dayActivity(day: number, out: DayActivity): void;
  /** Credits of the days from..to inclusive (credits always post). */
  credits(from: number, to: number): Credit[];
  /** The day each account event takes effect (it holds from that day on). */
  events(): Array<{ event: AccountEvent; day: number }>;
}
