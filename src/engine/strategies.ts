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
import { isRegular, type IncomeAnalysis } from './income.js';

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

/** Why a debit was planned: a code and the numbers behind it (rendered in words by renderWhy). */
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

function why(code: WhyCode, ctx: SmartContext | null, extra: Partial<Why> = {}): Why {
  return {
    code,
    trigger: ctx?.trigger ?? 0,
    triggerDays: ctx?.triggerDays ?? 0,
    triggerDay: ctx?.triggerDay ?? 0,
    triggerAmount: ctx?.deposit ?? 0,
    estimate: ctx?.estimate ?? 0,
    part: 0,
    maxSplit: 0,
    remaining: 0,
    full: 0,
    lastAttemptDay: 0,
    ...extra,
  };
}

/** The plain-words reason of a planned debit. */
export function renderWhy(w: Why): string {
  const trigger =
    w.trigger === 1
      ? `${w.triggerDays} day${w.triggerDays > 1 ? 's' : ''} after income of ${formatCents(w.triggerAmount)} received ${fromDayNumber(w.triggerDay)}`
      : w.trigger === 2
        ? `1 day after income of about ${formatCents(w.triggerAmount)} expected ${fromDayNumber(w.triggerDay)}`
        : '';
  const estimate = `expected balance ${formatCents(w.estimate)}`;
  switch (w.code) {
    case WhyCode.NAIVE_FIRST:
      return 'naive: the full premium on the first day it can be collected';
    case WhyCode.NAIVE_RETRY:
      return `naive: retry ${w.triggerDays} days after the failed attempt of ${fromDayNumber(w.lastAttemptDay)}`;
    case WhyCode.SMART_AFTER_INCOME:
      return `smart: ${trigger}; ${estimate}`;
    case WhyCode.SMART_PARTIAL:
      return `smart: partial debit ${w.part} of at most ${w.maxSplit}, ${trigger}, sized to what the deposit can bear; ${estimate}`;
    case WhyCode.SMART_REST:
      return `smart: the rest due, ${trigger}, sized to what the deposit can bear; ${estimate}`;
    case WhyCode.SMART_IRREGULAR_MONTH_END:
      return `smart: month end is near and ${formatCents(w.remaining)} is still due; ${estimate}`;
    case WhyCode.SMART_NO_INCOME_ENOUGH:
      return `smart: no income pattern, but the account holds enough; ${estimate}`;
    case WhyCode.SMART_NO_INCOME_MONTH_END:
      return `smart: month end is near; taking what the account can bear; ${estimate}`;
    case WhyCode.SMART_LAST_CHANCE:
      return `smart: no further income expected before month end, ${w.full ? 'the full amount due' : 'taking what the account can bear'}${trigger ? `, ${trigger}` : ''}; ${estimate}`;
    default:
      return 'oracle: takes what the balance allows on the day (reads the future; a benchmark bound)';
  }
}

export interface PlannedDebit {
  /** Index into the collections array given to `planCustomer`. */
  index: number;
  day: number;
  amount: number;
  why: Why;
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

function planNaive(c: CollectionView, A: number, remaining: number, config: EngineConfig): { amount: number; why: Why } | null {
  if (c.attempts >= config.naiveMaxAttempts || c.pendingDays.length > 0) return null;
  if (c.lastAttemptDay !== null && A - c.lastAttemptDay < config.naiveRetryDays) return null;
  const w =
    c.lastAttemptDay === null
      ? why(WhyCode.NAIVE_FIRST, null)
      : why(WhyCode.NAIVE_RETRY, null, { triggerDays: A - c.lastAttemptDay, lastAttemptDay: c.lastAttemptDay });
  return { amount: remaining, why: w };
}

interface SmartContext {
  /** Money expected to be there for premia's debits on A (after the safety margin). */
  available: number;
  /** 0 no trigger, 1 income observed, 2 income predicted. */
  trigger: 0 | 1 | 2;
  triggerDays: number;
  triggerDay: number;
  /** The triggering income (observed, or the typical amount when predicted). */
  deposit: number;
  /** What the triggering deposit can bear, shared by the customer's policies (irregular earners). */
  depositBudget: number;
  lastChance: boolean;
  /** The balance expected at the debit, for the reason. */
  estimate: number;
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

  let trigger: 0 | 1 | 2 = 0;
  let triggerDays = 0;
  let triggerDay = 0;
  let deposit = 0;
  for (let k = 1; k <= 2; k++) {
    const day = A - k;
    if (day <= D) {
      const seen = customer.incomeOn(day);
      if (seen > 0) {
        trigger = 1;
        triggerDays = k;
        triggerDay = day;
        deposit = seen;
        break;
      }
    } else if (regular && customer.isPredicted(day)) {
      trigger = 2;
      triggerDays = 1;
      triggerDay = day;
      deposit = a.typicalAmount;
      break;
    }
  }
  // The last day of the period A belongs to: a later period queued early (December's run
  // triggered in November) must not push November's last chance out to December's end.
  let periodLast = 0;
  for (const c of collections) if (c.periodFirst <= A && A <= c.periodLast && c.periodLast > periodLast) periodLast = c.periodLast;
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
  return {
    available,
    trigger,
    triggerDays,
    triggerDay,
    deposit,
    depositBudget: Math.max(0, budget),
    lastChance,
    estimate: Math.max(0, estimate),
  };
}

function planSmart(
  customer: CustomerView,
  c: CollectionView,
  ctx: SmartContext,
  A: number,
  remaining: number,
  config: EngineConfig,
): { amount: number; why: Why } | null {
  const a = customer.analysis;
  const minPartial = Math.min(remaining, Math.max(1_000, Math.ceil(c.due / 10)));
  const available = ctx.available;
  if (available <= 0) return null;

  if (a.pattern === 'irregular') {
    const debitsLeft = config.maxSplitDebits - c.attempts - c.pendingDays.length;
    if (debitsLeft <= 0) return null;
    if (ctx.trigger !== 0) {
      const amount = debitsLeft === 1 ? Math.min(remaining, available) : Math.min(remaining, ctx.depositBudget, available);
      if (amount < minPartial && amount < remaining && !ctx.lastChance) return null;
      if (amount <= 0) return null;
      const w =
        amount < remaining
          ? why(WhyCode.SMART_PARTIAL, ctx, { part: c.attempts + c.pendingDays.length + 1, maxSplit: config.maxSplitDebits })
          : why(WhyCode.SMART_REST, ctx);
      return { amount, why: w };
    }
    if (ctx.lastChance) {
      const amount = Math.min(remaining, available);
      if (amount < minPartial) return null;
      return { amount, why: why(WhyCode.SMART_IRREGULAR_MONTH_END, ctx, { remaining }) };
    }
    return null;
  }

  if (a.pattern === 'none') {
    // No income to time the debit to: collect from money already there.
    if (available >= remaining) return { amount: remaining, why: why(WhyCode.SMART_NO_INCOME_ENOUGH, ctx) };
    if (ctx.lastChance && available >= minPartial) return { amount: available, why: why(WhyCode.SMART_NO_INCOME_MONTH_END, ctx) };
    return null;
  }

  if (ctx.trigger !== 0 && available >= remaining) return { amount: remaining, why: why(WhyCode.SMART_AFTER_INCOME, ctx) };
  if (ctx.lastChance) {
    const amount = Math.min(remaining, available);
    if (amount < minPartial) return null;
    return { amount, why: why(WhyCode.SMART_LAST_CHANCE, ctx, { full: amount < remaining ? 0 : 1 }) };
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
