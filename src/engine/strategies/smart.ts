/**
 * smart (the default): debits 1 day after a predicted income or 2 days after an observed one,
 * sized to the balance it expects at the debit (balance now + expected income − the customer's
 * usual post-payday outgoings − premia's own pending debits, less a 10% margin). Irregular
 * earners get partial debits sized to each deposit (at most `maxSplitDebits` a month). After
 * INSUFFICIENT_FUNDS it waits for the next expected income (a predicted pay that has not
 * arrived is treated as late, not missing). When no income is expected before month end, the
 * remaining attempts go on the best remaining days for what the account can bear. At most
 * `maxFailedAttempts` failures per policy and month.
 */
import { fromDayNumber } from '../../domain/period.js';
import { formatCents } from '../../domain/money.js';
import { isRegular } from '../income.js';
import { plural } from '../../domain/words.js';
import {
  blankWhy,
  WhyCode,
  type AccountFacts,
  type CollectionView,
  type CustomerView,
  type EngineConfig,
  type Plan,
  type Planner,
  type Strategy,
  type Why,
} from '../strategy.js';

const SAFETY = 0.9;

/** What smart knows about one customer on action day A, shared by the customer's collections. */
interface SmartContext {
  /** Set up for the current customer (reset by beginCustomer). */
  ready: boolean;
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


function why(code: WhyCode, ctx: SmartContext): Why {
  const w = blankWhy(code);
  w.trigger = ctx.trigger;
  w.triggerDays = ctx.triggerDays;
  w.triggerDay = ctx.triggerDay;
  w.triggerAmount = ctx.deposit;
  w.estimate = ctx.estimate;
  return w;
}

function setup(ctx: SmartContext, customer: CustomerView, collections: readonly CollectionView[], D: number, A: number): void {
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
  ctx.ready = true;
  ctx.available = available;
  ctx.trigger = trigger;
  ctx.triggerDays = triggerDays;
  ctx.triggerDay = triggerDay;
  ctx.deposit = deposit;
  ctx.depositBudget = Math.max(0, budget);
  ctx.lastChance = lastChance;
  ctx.estimate = Math.max(0, estimate);
}

function planOne(customer: CustomerView, c: CollectionView, ctx: SmartContext, remaining: number, config: EngineConfig): Plan | null {
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
      let w: Why;
      if (amount < remaining) {
        w = why(WhyCode.SMART_PARTIAL, ctx);
        w.part = c.attempts + c.pendingDays.length + 1;
        w.maxSplit = config.maxSplitDebits;
      } else w = why(WhyCode.SMART_REST, ctx);
      return { amount, why: w };
    }
    if (ctx.lastChance) {
      const amount = Math.min(remaining, available);
      if (amount < minPartial) return null;
      const w = why(WhyCode.SMART_IRREGULAR_MONTH_END, ctx);
      w.remaining = remaining;
      return { amount, why: w };
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
    const w = why(WhyCode.SMART_LAST_CHANCE, ctx);
    w.full = amount < remaining ? 0 : 1;
    return { amount, why: w };
  }
  return null;
}

/**
 * A cheap test on the account's facts that is true whenever planning might plan for account i on
 * action day A at the end of D (income seen or expected 1-2 days before A, the last chance of the
 * period, or no income pattern), so most customers waiting for their payday are skipped without
 * building views.
 */
function mayPlanFor(accounts: AccountFacts, i: number, D: number, A: number, periodLast: number): boolean {
  const pattern = accounts.incomePattern(i);
  if (pattern === 'none') return true;
  for (let k = 1; k <= 2; k++) {
    const day = A - k;
    if (day <= D && accounts.incomeOn(i, day) > 0) return true;
  }
  if (pattern === 'irregular') return A >= periodLast - 3;
  if (accounts.incomeConfidence(i) < 0.5) return A >= periodLast - 3 || accounts.lastExpectedIncomeIn(i, A, periodLast - 1) === null;
  for (let k = 1; k <= 2; k++) {
    const day = A - k;
    if (day > D && accounts.isIncomeExpected(i, day)) return true;
  }
  return accounts.lastExpectedIncomeIn(i, A, periodLast - 1) === null;
}

/** smart in one run: its context, reused for every customer (no allocation per customer). */
function smartPlanner(): Planner {
  const ctx: SmartContext = {
    ready: false,
    available: 0,
    trigger: 0,
    triggerDays: 0,
    triggerDay: 0,
    deposit: 0,
    depositBudget: 0,
    lastChance: false,
    estimate: 0,
  };
  return {
    mayPlanCollection(): boolean {
      // Whether smart can plan depends on the account (mayPlanCustomer); failures are counted in plan.
      return true;
    },

    mayPlanCustomer(accounts: AccountFacts, i: number, D: number, A: number, periodLast: number): boolean {
      return mayPlanFor(accounts, i, D, A, periodLast);
    },

    beginCustomer(): void {
      ctx.ready = false;
    },

    plan(customer, collections, index, D, A, remaining, config): Plan | null {
      const c = collections[index]!;
      if (c.failed >= config.maxFailedAttempts) return null;
      if (!ctx.ready) setup(ctx, customer, collections, D, A);
      const p = planOne(customer, c, ctx, remaining, config);
      if (p) {
        ctx.available -= p.amount;
        ctx.depositBudget = Math.max(0, ctx.depositBudget - p.amount);
      }
      return p;
    },
  };
}

export const smart: Strategy = {
  name: 'smart',
  summary:
    'debits 1-2 days after income, sized to the balance it expects; partial debits for irregular earners; retries after the next income; the best remaining days near month end',
  whyCodes: [
    WhyCode.SMART_AFTER_INCOME,
    WhyCode.SMART_PARTIAL,
    WhyCode.SMART_REST,
    WhyCode.SMART_IRREGULAR_MONTH_END,
    WhyCode.SMART_NO_INCOME_ENOUGH,
    WhyCode.SMART_NO_INCOME_MONTH_END,
    WhyCode.SMART_LAST_CHANCE,
  ],

  planner: smartPlanner,

  explain(w: Why): string {
    const trigger =
      w.trigger === 1
        ? `${plural(w.triggerDays, 'day')} after income of ${formatCents(w.triggerAmount)} received ${fromDayNumber(w.triggerDay)}`
        : w.trigger === 2
          ? `1 day after income of about ${formatCents(w.triggerAmount)} expected ${fromDayNumber(w.triggerDay)}`
          : '';
    const estimate = `expected balance ${formatCents(w.estimate)}`;
    switch (w.code) {
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
      default:
        return `smart: no further income expected before month end, ${w.full ? 'the full amount due' : 'taking what the account can bear'}${trigger ? `, ${trigger}` : ''}; ${estimate}`;
    }
  },
};
