/**
 * What a collection strategy is: the `Strategy` interface the engine calls, and the views and
 * reasons it works with. The strategies themselves are in ./strategies/ (one module each) and
 * registered in ./strategies.ts; the engine (backend/local/engine.ts) knows them only through
 * the registry.
 *
 * A strategy decides, at the end of day D, which debits to submit for the action date
 * A = D + 1 + leadDays (the bank needs instructions a day ahead), from what a real collector
 * sees: the account's posted history (summarised in `CustomerView`) and the results of its own
 * attempts. All of a customer's collections are planned together, in policy_number order,
 * against the same account. A benchmark strategy may instead (or also) take debits on the day
 * itself from the balance after the day's credits (`debitsOnDay`: the oracle).
 *
 * Hot path: the engine calls these hooks for up to a million collections a day. Hooks must not
 * allocate except for what they return (a planned debit and its reason); per-customer state
 * lives in objects the strategy module reuses.
 */
import type { IncomeAnalysis } from './income.js';

export interface EngineConfig {
  /** Days between submitting a debit and its action date (0: decided the evening before). */
  leadDays: number;
  maxFailedAttempts: number;
  maxSplitDebits: number;
  /** Naive: attempts at most, and days between them. */
  naiveMaxAttempts: number;
  naiveRetryDays: number;
}

export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  leadDays: 1,
  maxFailedAttempts: 4,
  maxSplitDebits: 4,
  naiveMaxAttempts: 4,
  naiveRetryDays: 7,
};

/** The engine's view of one collection. */
export interface CollectionView {
  policyNumber: string;
  strategy: Strategy;
  due: number;
  collected: number;
  attempts: number;
  failed: number;
  /** No further attempts this period (cancelled, policy not active, or a non-retryable failure). */
  blocked: boolean;
  periodFirst: number;
  periodLast: number;
  lastAttemptDay: number | null;
  /** Submitted debits not yet executed: action days and amounts (parallel arrays, ascending). */
  pendingDays: number[];
  pendingAmounts: number[];
}

/** The engine's view of one customer's account, from posted history only. */
export interface CustomerView {
  /** Balance at the end of day D. */
  readonly balance: number;
  readonly analysis: IncomeAnalysis;
  /** Income credit observed on one of the last two income days (0 when none that day). */
  incomeOn(day: number): number;
  /** Expected other debits on a day that is `k` days after an income credit (k ≥ 0). */
  expectedDebits(k: number): number;
  /** Whether income is predicted on `day` (regular patterns only). */
  isPredicted(day: number): boolean;
  /** The latest predicted income day in [from, to], or null. */
  lastPredictedIn(from: number, to: number): number | null;
}

/**
 * The engine's account columns, for a strategy's cheap pre-test (`mayPlanCustomer`): account
 * `i` of the working set, without building a `CustomerView`.
 */
export interface AccountColumns {
  /** Whether smart's planning could plan for account i on A at the end of D (see accounts.ts). */
  smartMayPlan(i: number, D: number, A: number, periodLast: number): boolean;
}

/**
 * Why a debit was planned: a code and the numbers behind it, rendered in words by the strategy
 * that owns the code. Stored as numbers in the plan batches (backend/local/plan-batches.ts), so
 * a code, once used, keeps its number and meaning.
 */
export interface Why {
  code: WhyCode;
  /** 0 none, 1 income observed, 2 income predicted. */
  trigger: 0 | 1 | 2;
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

/** One debit a strategy plans for a collection on the action day. */
export interface Plan {
  amount: number;
  why: Why;
}

export interface PlannedDebit {
  /** Index into the collections array given to `planCustomer`. */
  index: number;
  day: number;
  amount: number;
  why: Why;
}

/** A debit taken on the day itself (`debitsOnDay`). */
export interface DayDebit {
  /** Index into the collections array. */
  index: number;
  amount: number;
}

/**
 * A collection strategy. The engine dispatches to it through the registry
 * (`STRATEGIES[name]`), by the strategy of each collection's execution.
 */
export interface Strategy {
  /** The name `--strategy` takes and executions store. */
  readonly name: string;
  /** One line for `--help` and the README: what it does. */
  readonly summary: string;
  /** The reason codes this strategy produces (rendered by `explain`). */
  readonly whyCodes: readonly WhyCode[];

  /**
   * A cheap test on one collection's numbers (no views built): could this strategy plan a debit
   * for it on A? False for a strategy that never plans ahead. The collection is open, not
   * blocked, owes money and A is in its period.
   */
  mayPlanCollection(attempts: number, failed: number, lastAttemptDay: number | null, A: number, config: EngineConfig): boolean;
  /**
   * A cheap test on the customer's account (after `mayPlanCollection` said yes for one of its
   * collections): could anything be planned on A? Omitted: yes. `periodLast` is the last day of
   * the period A belongs to.
   */
  mayPlanCustomer?(accounts: AccountColumns, i: number, D: number, A: number, periodLast: number): boolean;
  /**
   * Called once per customer before its collections are planned (reset per-customer state).
   */
  beginCustomer?(): void;
  /**
   * The debit to submit for collection `collections[index]` on action day A at the end of D, or
   * null. `remaining` is what is still due after the pending debits (> 0). Collections of the
   * customer are planned in order; a strategy may share state across its own collections of
   * one customer (reset in `beginCustomer`).
   */
  plan(
    customer: CustomerView,
    collections: readonly CollectionView[],
    index: number,
    D: number,
    A: number,
    remaining: number,
    config: EngineConfig,
  ): Plan | null;
  /**
   * Debits on the day itself, given the balance after the day's credits and the debits already
   * submitted for it: appends to `out` (the engine skips collections that already have a
   * debit that day). Only a benchmark strategy that reads the future has this.
   */
  debitsOnDay?(balance: number, collections: readonly CollectionView[], day: number, out: DayDebit[]): void;
  /** The plain-words reason of a debit it planned (a code from `whyCodes`). */
  explain(why: Why): string;
}
