/**
 * What a collection strategy is: the `Strategy` the registry (./strategies.ts) lists, the
 * `Planner` it makes for each run of the engine, and the views and reasons they work with. The
 * strategies themselves are in ./strategies/ (one module each); the engine knows them only
 * through the registry.
 *
 * A strategy decides, at the end of day D, which debits to submit for the action date
 * A = D + 1 + leadDays (the bank needs instructions a day ahead), from what a real collector
 * sees: the account's posted history (summarised in `CustomerView` and `AccountFacts`) and the
 * results of its own attempts. All of a customer's collections are planned together, in
 * policy_number order, against the same account. A benchmark strategy may instead (or also)
 * take debits on the day itself from the balance after the day's credits (`debitsOnDay`: the
 * oracle).
 *
 * Hot path: the engine calls these hooks for up to a million collections a day. Hooks must not
 * allocate except for what they return (a planned debit and its reason); per-customer state
 * lives in the planner object (one per run: nothing is shared between two runs).
 */
import type { Calendar } from '../domain/calendar.js';
import type { IncomeAnalysis, IncomePattern } from './income.js';
import { blankWhy, WhyCode, type Why } from '../domain/plan-reason.js';

export { blankWhy, WhyCode, type Why };

/** The numbers the strategies plan by (their values: ./settings.ts). */
export interface EngineConfig {
  /** Days between submitting a debit and its action date (0: decided the evening before). */
  leadDays: number;
  maxFailedAttempts: number;
  maxSplitDebits: number;
  /** Naive: attempts at most, and days between them. */
  naiveMaxAttempts: number;
  naiveRetryDays: number;
  /** Business days: debits are planned for business days only (the bank processes none on other days). */
  calendar: Calendar;
}

/** The engine's view of one collection. */
export interface CollectionView {
  strategy: Strategy;
  /** The strategy's index in the registry (its planner's index in the run). */
  code: number;
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
  /** The last day any credit posted (whatever its size; within the summary's window), or null. */
  readonly lastCreditDay: number | null;
  /** The last day any of the account's own debits posted (within the summary's window), or null. */
  readonly lastDebitDay: number | null;
  /** Whether the account's statement has not begun by `day` (no transaction on it yet, not even a declined one): a new account. */
  isNewOn(day: number): boolean;
  /** Expected other debits on a day that is `k` days after an income credit (k ≥ 0). */
  expectedDebits(k: number): number;
  /** Whether income is predicted on `day` (regular patterns only). */
  isPredicted(day: number): boolean;
  /** The latest predicted income day in [from, to], or null. */
  lastPredictedIn(from: number, to: number): number | null;
}

/**
 * Neutral facts about the accounts of the working set, by index, for a strategy's cheap
 * pre-test (`mayPlanCustomer`): account `i`, without building a `CustomerView`. Everything here
 * is the engine's reading of the posted history, as a collector would have it.
 */
export interface AccountFacts {
  /** The income analysis of account i, written into `into`. */
  analysis(i: number, into: IncomeAnalysis): IncomeAnalysis;
  /** Its pattern and confidence (without the rest of the analysis). */
  incomePattern(i: number): IncomePattern;
  incomeConfidence(i: number): number;
  /** Whether income is predicted on `day` (regular patterns only). */
  isIncomeExpected(i: number, day: number): boolean;
  /** The latest predicted income day in [from, to], or null. */
  lastExpectedIncomeIn(i: number, from: number, to: number): number | null;
  /** Income observed on a recent day (one of the last two credit days) of account i, or 0. */
  incomeOn(i: number, day: number): number;
  /** The last day any credit posted to account i (within the summary's window), or null. */
  lastCreditDay(i: number): number | null;
  /** The last day any of account i's own debits posted (within the summary's window), or null. */
  lastDebitDay(i: number): number | null;
  /** Whether account i's statement has not begun by `day` (CustomerView.isNewOn). */
  isNewOn(i: number, day: number): boolean;
  /** Expected other debits on a day `k` days after an income credit (k ≥ 0). */
  expectedDebits(i: number, k: number): number;
  /** Balance at the end of the last day lived. */
  balance(i: number): number;
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
 * A collection strategy, as the registry lists it (`STRATEGIES[name]`). The engine dispatches to
 * the planner it makes for each run, by the strategy of each collection's execution.
 */
export interface Strategy {
  /** The name `--strategy` takes and executions store. */
  readonly name: string;
  /** One line for `--help` and docs/engine.md: what it does. */
  readonly summary: string;
  /** The reason codes this strategy produces (rendered by `explain`). */
  readonly whyCodes: readonly WhyCode[];
  /** A planner for one run of the engine (its scratch lives in it). */
  planner(): Planner;
  /** The plain-words reason of a debit it planned (a code from `whyCodes`). */
  explain(why: Why): string;
}

/** A strategy at work in one run of the engine. */
export interface Planner {
  /**
   * A cheap test on one collection's numbers (no views built): could this strategy plan a debit
   * for it on A? False for a strategy that never plans ahead. The collection is open, not
   * blocked, owes money and A is in its period.
   */
  mayPlanCollection(attempts: number, failed: number, lastAttemptDay: number | null, A: number, config: EngineConfig): boolean;
  /**
   * A cheap test on the customer's account (after `mayPlanCollection` said yes for one of its
   * collections): could anything be planned on A? Omitted: yes. `periodLast` is the last day of
   * the period A belongs to; `leastRemaining` the least still due (after the debits submitted) of
   * the customer's collections it is asked about, or less; `leastDue` the least amount due of
   * those collections, or less.
   */
  mayPlanCustomer?(accounts: AccountFacts, i: number, D: number, A: number, periodLast: number, leastRemaining: number, leastDue: number, config: EngineConfig): boolean;
  /** Called once per customer before its collections are planned (reset per-customer state). */
  beginCustomer?(): void;
  /**
   * The debit to submit for collection `collections[index]` on action day A at the end of D, or
   * null. `remaining` is what is still due after the pending debits (> 0). Collections of the
   * customer are planned smallest amount still due first (planCustomer); a planner may share
   * state across its own collections of one customer (reset in `beginCustomer`).
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
}
