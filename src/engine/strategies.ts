/**
 * Collection strategies. A strategy decides, at the end of day D, which debits to submit for
 * the action date A = D + 1 + leadDays (the bank needs instructions a day ahead), from what a
 * real collector sees: the account's posted history (summarised in `CustomerView`) and the
 * results of its own attempts. All of a customer's collections are planned together, in
 * policy_number order, against the same account.
 *
 *  - smart (default): debits 1 day after a predicted income or 2 days after an observed one,
 *    sized to the balance it expects at the debit (balance now + expected income − the
 *    customer's usual post-payday outgoings − premia's own pending debits, less a 10% margin).
 *    Irregular earners get partial debits sized to each deposit (at most `maxSplitDebits` a
 *    month). After INSUFFICIENT_FUNDS it waits for the next expected income (a predicted pay
 *    that has not arrived is treated as late, not missing). When no income is expected before
 *    month end, the remaining attempts go on the best remaining days for what the account can
 *    bear. At most `maxFailedAttempts` failures per policy and month.
 *  - naive: the full premium on the first day it can (the 1st when triggered in time), retried
 *    every 7 days, at most 4 attempts.
 *  - oracle: reads the balance on the day (after the day's credits) and takes what is there,
 *    never failing. An upper bound for benchmarks, not a strategy a collector could run.
 */
import { fromDayNumber } from '../domain/period.js';
import { formatCents } from '../domain/money.js';
import { describeIncome, isRegular, type IncomeAnalysis } from './income.js';

export const STRATEGIES = ['smart', 'naive', 'oracle'] as const;
export type StrategyName = (typeof STRATEGIES)[number];

export function isStrategy(s: unknown): s is StrategyName {
  return typeof s === 'string' && (STRATEGIES as readonly string[]).includes(s);
}

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
  strategy: StrategyName;
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

export interface PlannedDebit {
  /** Index into the collections array given to `planCustomer`. */
  index: number;
  day: number;
  amount: number;
  reason: string;
}

const SAFETY = 0.9;

function pendingTotal(c: CollectionView): number {
  let sum = 0;
  for (const a of c.pendingAmounts) sum += a;
  return sum;
}

/** Debits to submit at the end of day D for action day A, for one customer's collections. */
export function planCustomer(
  customer: CustomerView,
  collections: readonly CollectionView[],
  D: number,
  A: number,
  config: EngineConfig,
): PlannedDebit[] {
  const out: PlannedDebit[] = [];
  let smartContext: SmartContext | null = null;
  for (let i = 0; i < collections.length; i++) {
    const c = collections[i]!;
    if (c.blocked || A < c.periodFirst || A > c.periodLast || c.pendingDays.includes(A)) continue;
    const remaining = c.due - c.collected - pendingTotal(c);
    if (remaining <= 0) continue;
    if (c.strategy === 'naive') {
      const p = planNaive(c, A, remaining, config);
      if (p) out.push({ index: i, day: A, ...p });
    } else if (c.strategy === 'smart') {
      if (c.failed >= config.maxFailedAttempts) continue;
      smartContext ??= smartSetup(customer, collections, D, A);
      const p = planSmart(customer, c, smartContext, A, remaining, config);
      if (p) {
        smartContext.available -= p.amount;
        smartContext.depositBudget = Math.max(0, smartContext.depositBudget - p.amount);
        out.push({ index: i, day: A, ...p });
      }
    }
  }
  return out;
}

function planNaive(c: CollectionView, A: number, remaining: number, config: EngineConfig): { amount: number; reason: string } | null {
  if (c.attempts >= config.naiveMaxAttempts || c.pendingDays.length > 0) return null;
  if (c.lastAttemptDay !== null && A - c.lastAttemptDay < config.naiveRetryDays) return null;
  const reason =
    c.lastAttemptDay === null
      ? 'naive: the full premium on the first day it can be collected'
      : `naive: retry ${A - c.lastAttemptDay} days after the failed attempt of ${fromDayNumber(c.lastAttemptDay)}`;
  return { amount: remaining, reason };
}

interface SmartContext {
  /** Money expected to be there for premia's debits on A (after the safety margin). */
  available: number;
  trigger: string | null;
  /** What the triggering deposit can bear, shared by the customer's policies (irregular earners). */
  depositBudget: number;
  lastChance: boolean;
  /** Built only when a debit is planned (the text is for people, not for the engine). */
  estimateText: () => string;
}

function smartSetup(customer: CustomerView, collections: readonly CollectionView[], D: number, A: number): SmartContext {
  const a = customer.analysis;
  const regular = isRegular(a) && a.confidence >= 0.5;
  // Expected balance at the moment of the debit on A: credits of A post before it.
  let estimate = customer.balance;
  let lastIncome = a.lastIncomeDay ?? Number.NEGATIVE_INFINITY;
  for (let d = D + 1; d <= A; d++) {
    if (regular && customer.isPredicted(d)) {
      estimate += a.typicalAmount;
      lastIncome = d;
    }
    if (d === A) break;
    // premia's debits already submitted for the days before A take their share first.
    for (const c of collections) {
      const k = c.pendingDays.indexOf(d);
      if (k >= 0) estimate -= c.pendingAmounts[k]!;
    }
    estimate -= customer.expectedDebits(Number.isFinite(lastIncome) ? d - lastIncome : 99);
  }
  // Debits already submitted for A itself (another policy of the customer planned earlier) come
  // out of what is available after the margin, exactly as a debit planned in this call would:
  // the same state gives the same plans however the days were lived.
  let available = Math.max(0, Math.floor(estimate * SAFETY));
  for (const c of collections) {
    const k = c.pendingDays.indexOf(A);
    if (k >= 0) available -= c.pendingAmounts[k]!;
  }

  let trigger: string | null = null;
  let deposit = 0;
  for (let k = 1; k <= 2; k++) {
    const day = A - k;
    if (day <= D) {
      const seen = customer.incomeOn(day);
      if (seen > 0) {
        trigger = `${k} day${k > 1 ? 's' : ''} after income of ${formatCents(seen)} received ${fromDayNumber(day)}`;
        deposit = seen;
        break;
      }
    } else if (regular && customer.isPredicted(day)) {
      trigger = `1 day after income of about ${formatCents(a.typicalAmount)} expected ${fromDayNumber(day)}`;
      deposit = a.typicalAmount;
      break;
    }
  }
  let periodLast = 0;
  for (const c of collections) if (c.periodLast > periodLast) periodLast = c.periodLast;
  let lastChance: boolean;
  if (regular) {
    // Income predicted in the last days but not seen yet is late, not gone: wait for it, and
    // take what the account can bear only on the period's last day.
    const recent = customer.lastPredictedIn(D - 6, D);
    const overdue = recent !== null && (a.lastIncomeDay ?? Number.NEGATIVE_INFINITY) < recent - 1;
    lastChance = overdue ? A >= periodLast : customer.lastPredictedIn(A, periodLast - 1) === null;
  } else {
    lastChance = A >= periodLast - 3;
  }
  // Debits already submitted for A used part of what the deposit can bear.
  let budget = Math.floor(deposit * 0.6);
  for (const c of collections) {
    const k = c.pendingDays.indexOf(A);
    if (k >= 0) budget -= c.pendingAmounts[k]!;
  }
  const shownEstimate = Math.max(0, estimate);
  return {
    available,
    trigger,
    depositBudget: Math.max(0, budget),
    lastChance,
    estimateText: () => `expected balance ${formatCents(shownEstimate)} (${describeIncome(a)})`,
  };
}

function planSmart(
  customer: CustomerView,
  c: CollectionView,
  ctx: SmartContext,
  A: number,
  remaining: number,
  config: EngineConfig,
): { amount: number; reason: string } | null {
  const a = customer.analysis;
  const minPartial = Math.min(remaining, Math.max(1_000, Math.ceil(c.due / 10)));
  const available = ctx.available;
  if (available <= 0) return null;

  if (a.pattern === 'irregular') {
    const debitsLeft = config.maxSplitDebits - c.attempts - c.pendingDays.length;
    if (debitsLeft <= 0) return null;
    if (ctx.trigger !== null) {
      const amount = debitsLeft === 1 ? Math.min(remaining, available) : Math.min(remaining, ctx.depositBudget, available);
      if (amount < minPartial && amount < remaining && !ctx.lastChance) return null;
      if (amount <= 0) return null;
      const part = amount < remaining ? `partial debit ${c.attempts + c.pendingDays.length + 1} of at most ${config.maxSplitDebits}` : 'the rest due';
      return { amount, reason: `smart: ${part}, ${ctx.trigger}, sized to what the deposit can bear; ${ctx.estimateText()}` };
    }
    if (ctx.lastChance) {
      const amount = Math.min(remaining, available);
      if (amount < minPartial) return null;
      return { amount, reason: `smart: month end is near and ${formatCents(remaining)} is still due; ${ctx.estimateText()}` };
    }
    return null;
  }

  if (a.pattern === 'none') {
    // No income to time the debit to: collect from money already there.
    if (available >= remaining) {
      return { amount: remaining, reason: `smart: no income pattern, but the account holds enough; ${ctx.estimateText()}` };
    }
    if (ctx.lastChance && available >= minPartial) {
      return { amount: available, reason: `smart: month end is near; taking what the account can bear; ${ctx.estimateText()}` };
    }
    return null;
  }

  if (ctx.trigger !== null && available >= remaining) {
    return { amount: remaining, reason: `smart: ${ctx.trigger}; ${ctx.estimateText()}` };
  }
  if (ctx.lastChance) {
    const amount = Math.min(remaining, available);
    if (amount < minPartial) return null;
    const what = amount < remaining ? 'taking what the account can bear' : 'the full amount due';
    return {
      amount,
      reason: `smart: no further income expected before month end, ${what}${ctx.trigger ? `, ${ctx.trigger}` : ''}; ${ctx.estimateText()}`,
    };
  }
  return null;
}

/** The oracle's debits for a day, given the balance after the day's credits. */
export function oracleDebits(balance: number, collections: readonly CollectionView[], day: number): Array<{ index: number; amount: number }> {
  const out: Array<{ index: number; amount: number }> = [];
  let left = balance;
  for (let i = 0; i < collections.length && left > 0; i++) {
    const c = collections[i]!;
    if (c.strategy !== 'oracle' || c.blocked || day < c.periodFirst || day > c.periodLast) continue;
    const remaining = c.due - c.collected;
    if (remaining <= 0) continue;
    const amount = Math.min(remaining, left);
    left -= amount;
    out.push({ index: i, amount });
  }
  return out;
}
