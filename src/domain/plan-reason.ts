/**
 * Why a debit was planned: a code and the numbers behind it. Stored as numbers with each
 * submitted debit (the plan batches of the store), rendered in words by the strategy that owns
 * the code (`collections explain`), so a code, once used, keeps its number and meaning.
 */

export interface Why {
  code: WhyCode;
  /**
   * 0 none, 1 income observed, 2 income predicted, 3 income predicted on the action day itself,
   * the last business day before a weekend or holiday.
   */
  trigger: 0 | 1 | 2 | 3;
  /** Days between the income and the debit. */
  triggerDays: number;
  triggerDay: number;
  triggerAmount: number;
  /** The balance the engine expected at the debit (cents). */
  estimate: number;
  /** Irregular earners: which partial debit, of at most how many. */
  part: number;
  maxSplit: number;
  /** What was still due when planned (cents). */
  remaining: number;
  /** Last chance: 1 when the full amount due was planned, 0 when what the account can bear. */
  full: number;
  /** Naive retries: the day of the failed attempt. */
  lastAttemptDay: number;
}

export const WhyCode = {
  NAIVE_FIRST: 1,
  NAIVE_RETRY: 2,
  SMART_AFTER_INCOME: 3,
  SMART_PARTIAL: 4,
  SMART_REST: 5,
  SMART_IRREGULAR_MONTH_END: 6,
  SMART_NO_INCOME_ENOUGH: 7,
  SMART_NO_INCOME_MONTH_END: 8,
  SMART_LAST_CHANCE: 9,
  ORACLE: 10,
  SMART_BALANCE: 11,
  SMART_SEEN_BALANCE: 12,
  SMART_SEEN_BALANCE_SHARE: 13,
  SMART_PARTIAL_SHARE: 14,
  SMART_PARTIAL_BALANCE: 15,
  SMART_IRREGULAR_NO_DEPOSIT_DUE: 16,
  SMART_PAYDAY_BEFORE_CLOSED_DAYS: 17,
  SMART_MONTH_END_PAYDAY: 18,
} as const;
export type WhyCode = (typeof WhyCode)[keyof typeof WhyCode];

/** A reason with every number at zero but the code (strategies fill in what they know). */
export function blankWhy(code: WhyCode): Why {
  return {
    code,
    trigger: 0,
    triggerDays: 0,
    triggerDay: 0,
    triggerAmount: 0,
    estimate: 0,
    part: 0,
    maxSplit: 0,
    remaining: 0,
    full: 0,
    lastAttemptDay: 0,
  };
}

/** A debit submitted to the bank for an action day, as kept in the store. */
export interface SubmittedDebit {
  /** The collection's row id. */
  collection: number;
  /** The action day (day number). */
  day: number;
  amount: number;
  why: Why;
}

/**
 * A submitted debit as numbers (the engine's plan columns, the store's plan batches): PLAN_INTS
 * integers (collection, action day, and its reason's code, trigger, triggerDays, triggerDay,
 * part, maxSplit, full, lastAttemptDay) and PLAN_REALS doubles (amount, and its reason's
 * triggerAmount, estimate, remaining).
 */
export const PLAN_INTS = 10;
export const PLAN_REALS = 4;
