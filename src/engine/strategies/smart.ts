/**
 * smart (the default): debits on business days only, sized to the balance it expects at the
 * debit (balance now + expected income − the customer's usual outgoings − premia's own pending
 * debits, less a 10% margin). The rules, each one a collector could state:
 *  - money already there: when the balance expected at the debit covers what is due, collect it
 *    now rather than wait for the next payday (closures, stops and spending come in between);
 *  - after pay: the first business day it can plan for after income it has seen (debits are
 *    submitted the evening before: the day after the income, or the Monday for pay seen on a
 *    Friday) or, with a longer lead, 1 day after a predicted income; on payday itself for customers
 *    whose debit orders take most of the pay on the day it lands, and for pay expected on the last
 *    business day before a weekend or holiday (a Friday wage: Monday comes after the weekend's
 *    spending);
 *  - partial debits from deposits smaller than the premium, sized to what the deposit and the
 *    balance will bear (at most `maxSplitDebits` a month, smaller after a failure); for an
 *    irregular earner with no deposit in view, a partial debit from money already there when it
 *    bears at least half of what is due;
 *  - the days after a pay of the month before are expected at payday's pace of outgoings;
 *  - month end: when no income is expected before the period ends, what the account can bear
 *    (for an irregular earner, also when the next deposit at their usual pace comes after it);
 *  - never nothing: a collection not attempted yet whose posted balance covers what is due gets
 *    a debit (what the balance will bear, or a tenth of the posted balance when the usual
 *    spending before the debit would leave too little);
 *  - income smaller than the premium: part of each deposit seen, whatever the pattern;
 *  - payday not known yet (no income pattern) but money paid in lately: the whole amount on the
 *    month's last business day, when most salaries are paid;
 *  - an account emptied to 0.00 by its own debits and silent for two days looks closed: no debit
 *    until money is paid in again;
 *  - whole premiums before parts: a customer's collections are offered smallest amount still due
 *    first (planCustomer), so money that cannot pay every policy pays as many as it covers in full.
 * After INSUFFICIENT_FUNDS it waits for the next expected income (a predicted pay that has not
 * arrived is treated as late, not missing). At most `maxFailedAttempts` failures per policy and
 * month.
 */
import { fromDayNumber } from '../../domain/period.js';
import { monthOf } from '../../domain/calendar.js';
import { formatCents } from '../../domain/money.js';
import { isRegular, type IncomeAnalysis } from '../income.js';
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
/**
 * The never-nothing debit when the customer's usual spending before the debit is expected to take
 * nearly all of the posted balance: this share of it (a small debit that succeeds, not the whole
 * premium that fails).
 */
const SEEN_BALANCE_SHARE = 1 / 10;
/**
 * An irregular earner with no deposit to time the debit to: a partial debit from money already
 * there when the balance bears at least this share of what is due (the rest after a deposit).
 */
const PARTIAL_BALANCE_SHARE = 1 / 2;
/**
 * Days with nothing paid in or out after an account was emptied to zero, after which it looks
 * closed. Two, not a week (issue 12): a closed account's last movement is the transfer that
 * empties it, and waiting a week let the debits planned for the paydays of that week be refused.
 */
const CLOSED_QUIET_DAYS = 2;
/** Movements at most this many days old tell whether an account looks closed (within the summary's window). */
const MOVEMENT_HORIZON_DAYS = 45;
/** A credit within this many days makes an account one in use (the month-end payday try). */
const RECENT_INCOME_DAYS = 35;

/** What smart knows about one customer on action day A, shared by the customer's collections. */
interface SmartContext {
  /** Set up for the current customer (reset by beginCustomer). */
  ready: boolean;
  /** Money expected to be there for premia's debits on A (after the safety margin). */
  available: number;
  /** 0 no trigger, 1 income observed, 2 income predicted, 3 predicted on A before a weekend or holiday. */
  trigger: 0 | 1 | 2 | 3;
  triggerDays: number;
  triggerDay: number;
  /** The triggering income (observed, or the typical amount when predicted). */
  deposit: number;
  /** What the triggering deposit can bear, shared by the customer's policies (irregular earners). */
  depositBudget: number;
  lastChance: boolean;
  /** An irregular earner whose next deposit, at their usual pace, comes after the period ends. */
  noDepositDue: boolean;
  /** The balance expected at the debit, for the reason. */
  estimate: number;
  /** The posted balance less premia's pending debits (what the engine sees now). */
  posted: number;
  /** Like `available`, without income predicted but not seen yet. */
  onHand: number;
  /**
   * A is the last business day of its period and the customer, whose payday is not known, has
   * had money paid in lately: the day most salaries are paid.
   */
  monthEndPayday: boolean;
  /** A new account (its statement not begun by the evening before: no transaction yet): the month-end payday try too. */
  newAccount: boolean;
  /** The account looks closed (emptied to zero by its own debits, nothing since): no debit until money comes in. */
  closed: boolean;
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

function setup(ctx: SmartContext, customer: CustomerView, collections: readonly CollectionView[], D: number, A: number, config: EngineConfig): void {
  const a = customer.analysis;
  const regular = isRegular(a) && a.confidence >= 0.5;
  // A payday whose pay has come early (December's pay before Christmas: an income credit seen
  // nearer this payday than the one before it) brings no second pay: it is not counted on,
  // triggers nothing, and is not waited for.
  const paidEarly = (P: number): boolean => payCameEarly(a.lastIncomeDay, P, (from, to) => customer.lastPredictedIn(from, to));
  // Expected balance at the moment of the debit on A: credits of A post before it.
  let estimate = customer.balance;
  let lastIncome = a.lastIncomeDay ?? Number.NEGATIVE_INFINITY;
  let predicted = 0;
  for (let d = D + 1; d <= A; d++) {
    if (regular && customer.isPredicted(d) && !paidEarly(d)) {
      estimate += a.typicalAmount;
      predicted += a.typicalAmount;
      lastIncome = d;
    }
    if (d === A) break;
    // premia's debits already submitted for the days before A take their share first.
    for (const c of collections) {
      const k = c.pendingDays.indexOf(d);
      if (k >= 0) estimate -= c.pendingAmounts[k]!;
    }
    const k = Number.isFinite(lastIncome) ? d - lastIncome : 99;
    let out = customer.expectedDebits(k);
    // The first days after a pay of the month before (a month-end salary, or pay due on the 1st
    // moved back over a weekend): the usual outgoings after payday are learnt within a month, so
    // none are known for these days; expect them at payday's pace, not a quiet day's.
    if (k >= 1 && k <= 3 && monthOf(d).firstDay > lastIncome) out = Math.max(out, customer.expectedDebits(0));
    estimate -= out;
  }
  // Debits already submitted for A itself (another policy of the customer planned earlier) come
  // out of what is available after the margin, exactly as a debit planned in this call would:
  // the same state gives the same plans however the days were lived.
  let available = Math.max(0, Math.floor(estimate * SAFETY));
  // The same without the income predicted but not seen yet: what the money already there bears.
  let onHand = Math.max(0, Math.floor((estimate - predicted) * SAFETY));
  let posted = customer.balance;
  for (const c of collections) {
    const k = c.pendingDays.indexOf(A);
    if (k >= 0) {
      available -= c.pendingAmounts[k]!;
      onHand -= c.pendingAmounts[k]!;
    }
    for (let j = 0; j < c.pendingAmounts.length; j++) posted -= c.pendingAmounts[j]!;
  }

  let trigger: 0 | 1 | 2 | 3 = 0;
  let triggerDays = 0;
  let triggerDay = 0;
  let deposit = 0;
  // The first business day smart can plan for after an observed income (D + 1 + leadDays for
  // income of D), or 1 day after a predicted one (pay seen on a Friday is collected on the
  // Monday; debits go out on business days only).
  const cal = config.calendar;
  // Payday itself, for customers whose debit orders take most of the pay on the day it lands
  // (premia's debits go before the day's other debits).
  // Pay expected on the last business day before a weekend or holiday (a Friday wage): on payday
  // itself too, since the first business day after it comes after those days' spending.
  if (regular && customer.isPredicted(A) && !paidEarly(A)) {
    const ordersTakeMost = customer.expectedDebits(0) * 2 >= a.typicalAmount;
    if (ordersTakeMost || cal.onOrAfter(A + 1) > A + 1) {
      trigger = ordersTakeMost ? 2 : 3;
      triggerDay = A;
      deposit = a.typicalAmount;
    }
  }
  for (let k = 1; trigger === 0 && k <= 7; k++) {
    const day = A - k;
    if (day <= D) {
      if (dayAfterIncome(day, config) !== A) continue;
      const seen = customer.incomeOn(day);
      if (seen > 0) {
        trigger = 1;
        triggerDays = k;
        triggerDay = day;
        deposit = seen;
        break;
      }
    } else if (regular && cal.onOrAfter(day + 1) === A && customer.isPredicted(day) && !paidEarly(day)) {
      trigger = 2;
      triggerDays = k;
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
  let noDepositDue = false;
  if (regular) {
    // Income predicted in the last days but not seen yet is late, not gone: wait for it, and
    // take what the account can bear only on the period's last day.
    const recent = customer.lastPredictedIn(D - 6, D);
    const overdue = recent !== null && (a.lastIncomeDay ?? Number.NEGATIVE_INFINITY) < recent - 1 && !paidEarly(recent);
    const ahead = customer.lastPredictedIn(A, periodLast - 1);
    lastChance = overdue ? A >= periodLast : ahead === null || paidEarly(ahead);
  } else {
    lastChance = A >= periodLast - 3;
    // An irregular earner whose next deposit, at their usual pace (the last one plus the mean gap
    // between deposits), would come after the period ends: no deposit to wait for before then, so
    // what the account bears now is taken, as in the month's last days.
    const nextDeposit = a.lastIncomeDay !== null && a.meanGap !== null ? a.lastIncomeDay + a.meanGap : Number.NEGATIVE_INFINITY;
    noDepositDue = !lastChance && a.pattern === 'irregular' && nextDeposit > periodLast;
    // A pay pattern read with too little confidence to time a debit to (a pension paid on the
    // first business day after the 1st, read as the 1st moved back): when it predicts no pay
    // before the period ends either, there is nothing to wait for, as for a regular payer whose
    // pay of the month has come: what the account bears now is taken, not what is left at month end.
    if (!lastChance && a.pattern !== 'irregular' && a.pattern !== 'none' && customer.lastPredictedIn(A, periodLast - 1) === null) noDepositDue = true;
    if (noDepositDue) lastChance = true;
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
  ctx.noDepositDue = noDepositDue;
  ctx.estimate = Math.max(0, estimate);
  ctx.posted = Math.max(0, posted);
  ctx.onHand = onHand;
  ctx.closed = looksClosed(customer, D);
  const lastBusinessDay = periodLast > 0 && A === cal.onOrBefore(periodLast);
  ctx.newAccount = lastBusinessDay && customer.isNewOn(D);
  ctx.monthEndPayday = lastBusinessDay && ((customer.lastCreditDay !== null && customer.lastCreditDay >= A - RECENT_INCOME_DAYS) || ctx.newAccount);
}

/**
 * Whether the account looks closed at the end of D, from its posted movements: emptied to
 * exactly zero by its own debits, with nothing paid in or out for at least two days since. A debit
 * would be refused; premia waits until money is paid in again. Money paid in on the day it was
 * emptied counts: that is a salary swept out by the customer's own debit orders the day it lands
 * (premia's debit on payday posts first), not a closure, whose last movement takes out what was
 * already there.
 */
function looksClosed(customer: CustomerView, D: number): boolean {
  if (customer.balance !== 0) return false;
  // Movements older than the horizon count as none: the summary's window (two months back and
  // more) may or may not still hold them, depending on how far back the account was read.
  const horizon = D - MOVEMENT_HORIZON_DAYS;
  const debit = customer.lastDebitDay;
  if (debit === null || debit <= horizon || debit > D - CLOSED_QUIET_DAYS) return false;
  const credit = customer.lastCreditDay;
  return credit === null || credit < debit;
}

function planOne(customer: CustomerView, c: CollectionView, ctx: SmartContext, remaining: number, config: EngineConfig): Plan | null {
  const p = planRule(customer, c, ctx, remaining, config);
  if (p !== null) return p;
  // Never nothing: a collection not attempted yet whose posted balance covers what is due gets a
  // debit — what the balance will bear, or, when the usual spending before the debit leaves too
  // little, a tenth of the posted balance (a debit that succeeds rather than the whole amount).
  if (c.attempts === 0 && c.pendingDays.length === 0 && ctx.posted >= remaining) {
    const minPartial = minPartialOf(c, remaining);
    if (ctx.available >= minPartial) {
      const amount = Math.min(remaining, ctx.available);
      const w = why(WhyCode.SMART_SEEN_BALANCE, ctx);
      w.remaining = remaining;
      w.full = amount < remaining ? 0 : 1;
      return { amount, why: w };
    }
    const amount = Math.min(remaining, Math.max(minPartial, Math.floor(ctx.posted * SEEN_BALANCE_SHARE)));
    const w = why(WhyCode.SMART_SEEN_BALANCE_SHARE, ctx);
    w.remaining = remaining;
    w.full = amount < remaining ? 0 : 1;
    return { amount, why: w };
  }
  // Income smaller than what is due (a regular earner whose pay cannot bear the premium, or
  // deposits read as a pattern): part of each deposit seen, as for irregular earners.
  const a = customer.analysis;
  if (a.pattern !== 'none' && a.pattern !== 'irregular' && ctx.trigger === 1 && ctx.deposit < remaining && splitDebitsLeft(c, config) > 0) {
    return partialFromDeposit(c, ctx, remaining, minPartialOf(c, remaining), config);
  }
  return null;
}

/**
 * Whether the pay of predicted payday P has come already: the last income credit came before P,
 * nearer to P than to the payday predicted before it (`predictedIn`: the latest predicted payday
 * in a range, or null).
 */
function payCameEarly(lastIncomeDay: number | null, P: number, predictedIn: (from: number, to: number) => number | null): boolean {
  if (lastIncomeDay === null || lastIncomeDay >= P) return false;
  const before = predictedIn(P - 45, P - 1);
  return before !== null && lastIncomeDay - before > P - lastIncomeDay;
}

/** The smallest partial debit worth planning: a tenth of the premium, at least 10.00 (or all that is left). */
function minPartialOf(c: CollectionView, remaining: number): number {
  return Math.min(remaining, partialFloor(c.due));
}

/** A tenth of what is due, at least 10.00: the smallest partial debit of a collection due `due`. */
function partialFloor(due: number): number {
  return Math.max(1_000, Math.ceil(due / 10));
}

/** The first action day smart can plan after income seen on `day` (the after-income trigger's day). */
function dayAfterIncome(day: number, config: EngineConfig): number {
  return config.calendar.onOrAfter(day + 1 + config.leadDays);
}

/** Partial debits a collection may still get this month. */
function splitDebitsLeft(c: CollectionView, config: EngineConfig): number {
  return config.maxSplitDebits - c.attempts - c.pendingDays.length;
}

/**
 * A partial debit from the deposit that triggered planning: what the deposit and the expected
 * balance can bear (less after a failure); the rest due when it bears all of it. (While debits
 * were submitted two days ahead, a partial also took at most a third of the posted balance, the
 * deposit being mostly spent by then: issue 12. Submitted the evening before, the debit goes out
 * before the day's spending, and that cap only lost money: SMART_PARTIAL_SHARE now explains the
 * plans of stores that made them.)
 */
function partialFromDeposit(c: CollectionView, ctx: SmartContext, remaining: number, minPartial: number, config: EngineConfig): Plan | null {
  const available = ctx.available;
  const debitsLeft = splitDebitsLeft(c, config);
  let amount = debitsLeft === 1 ? Math.min(remaining, available) : Math.min(remaining, ctx.depositBudget, available);
  if (c.failed > 0 && amount < remaining) amount = Math.floor(amount / (1 + c.failed));
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

/**
 * Part of it from money already there (rule 6): the money the account holds now (without income
 * not seen yet) bears at least half of what is due. Not after a failure (then it waits for new
 * money), nor at the period's last chance (which takes what the balance bears anyway).
 */
function partialFromBalance(c: CollectionView, ctx: SmartContext, remaining: number, minPartial: number, config: EngineConfig): Plan | null {
  if (ctx.lastChance || c.failed !== 0 || ctx.onHand < Math.max(minPartial, Math.ceil(remaining * PARTIAL_BALANCE_SHARE))) return null;
  const w = why(WhyCode.SMART_PARTIAL_BALANCE, ctx);
  w.part = c.attempts + c.pendingDays.length + 1;
  w.maxSplit = config.maxSplitDebits;
  w.remaining = remaining;
  return { amount: Math.min(remaining, ctx.onHand), why: w };
}

function planRule(customer: CustomerView, c: CollectionView, ctx: SmartContext, remaining: number, config: EngineConfig): Plan | null {
  const a = customer.analysis;
  const minPartial = minPartialOf(c, remaining);
  const available = ctx.available;
  // Nothing to take, but for a new account on the month's last business day: its first money is
  // what that debit waits for (the month-end payday try below).
  if (available <= 0 && !ctx.newAccount) return null;

  if (ctx.trigger !== 0 && available >= remaining && a.pattern !== 'none') {
    const code = a.pattern === 'irregular' ? WhyCode.SMART_REST : ctx.trigger === 3 ? WhyCode.SMART_PAYDAY_BEFORE_CLOSED_DAYS : WhyCode.SMART_AFTER_INCOME;
    return { amount: remaining, why: why(code, ctx) };
  }
  // Money already there: the balance expected at the debit, without income not seen yet, covers
  // what is due.
  if (ctx.onHand >= remaining && a.pattern !== 'none') return { amount: remaining, why: why(WhyCode.SMART_BALANCE, ctx) };

  if (a.pattern === 'irregular') {
    if (splitDebitsLeft(c, config) <= 0) return null;
    const fromBalance = partialFromBalance(c, ctx, remaining, minPartial, config);
    if (ctx.trigger !== 0) {
      const fromDeposit = partialFromDeposit(c, ctx, remaining, minPartial, config);
      // A deposit smaller than what the money already there bears (a daily earner's, on a balance
      // built up over weeks): the larger debit, not a part sized to the day's deposit.
      return fromBalance !== null && (fromDeposit === null || fromBalance.amount > fromDeposit.amount) ? fromBalance : fromDeposit;
    }
    if (fromBalance !== null) return fromBalance;
    if (ctx.lastChance) {
      const amount = Math.min(remaining, available);
      if (amount < minPartial) return null;
      const w = why(ctx.noDepositDue ? WhyCode.SMART_IRREGULAR_NO_DEPOSIT_DUE : WhyCode.SMART_IRREGULAR_MONTH_END, ctx);
      w.remaining = remaining;
      return { amount, why: w };
    }
    return null;
  }

  if (a.pattern === 'none') {
    // No income to time the debit to: collect from money already there.
    if (available >= remaining) return { amount: remaining, why: why(WhyCode.SMART_NO_INCOME_ENOUGH, ctx) };
    // Payday not known yet, but the account is in use, or new (nothing posted to it ever: opened
    // for this policy): the last business day of the month is when most salaries are paid
    // (credits post before premia's debits), so ask for all of it. A dormant account (money paid
    // in long ago, nothing since) is left alone.
    if (ctx.monthEndPayday && c.failed === 0) {
      const w = why(ctx.newAccount ? WhyCode.SMART_MONTH_END_NEW_ACCOUNT : WhyCode.SMART_MONTH_END_PAYDAY, ctx);
      w.remaining = remaining;
      return { amount: remaining, why: w };
    }
    if (ctx.lastChance && available >= minPartial) return { amount: available, why: why(WhyCode.SMART_NO_INCOME_MONTH_END, ctx) };
    return null;
  }

  if (ctx.lastChance) {
    const amount = Math.min(remaining, available);
    if (amount < minPartial) return null;
    if (ctx.noDepositDue) {
      const w = why(WhyCode.SMART_IRREGULAR_NO_DEPOSIT_DUE, ctx);
      w.remaining = remaining;
      return { amount, why: w };
    }
    const w = why(WhyCode.SMART_LAST_CHANCE, ctx);
    w.full = amount < remaining ? 0 : 1;
    return { amount, why: w };
  }
  return null;
}

/**
 * A cheap test on the account's facts that is true whenever planning might plan for account i on
 * action day A at the end of D (income seen or expected just before A, the last chance of the
 * period, or no income pattern), so most customers waiting for their payday are skipped without
 * building views.
 */
function mayPlanFor(accounts: AccountFacts, i: number, D: number, A: number, periodLast: number, leastRemaining: number, leastDue: number, config: EngineConfig): boolean {
  const pattern = accounts.incomePattern(i);
  // Money already there: the balance rule and never nothing ask for at least what is still due
  // of a collection (onHand, posted and available never exceed the posted balance when no income
  // is predicted on A, and a predicted one passes below).
  const balance = accounts.balance(i);
  if (balance >= leastRemaining) return true;
  // Every rule but those after income takes at most what the balance bears, and at least a
  // smallest partial debit of one of the collections (minPartialOf: 10.00 or a tenth of the
  // premium, or all that is left).
  const bearsPartial = balance >= Math.min(leastRemaining, partialFloor(leastDue));
  // No income pattern: the month's last business day asks for the whole amount (rule 10), the
  // period's last days for what the balance bears.
  if (pattern === 'none') return A >= config.calendar.onOrBefore(periodLast) || (bearsPartial && A >= periodLast - 3);
  // Income seen on a day whose first business day smart can plan for is A (the after-income
  // trigger, as setup finds it).
  for (let k = 1; k <= 7; k++) {
    const day = A - k;
    if (day <= D && dayAfterIncome(day, config) === A && accounts.incomeOn(i, day) > 0) return true;
  }
  if (pattern === 'irregular') {
    if (!bearsPartial) return false;
    // Month end (rule 8), or part of it from money already there (rule 6: at least half of what is due).
    if (A >= periodLast - 3 || 2 * balance >= leastRemaining) return true;
    // Rule 8's clause: no deposit due before the period ends at the customer's pace.
    const a = accounts.analysis(i, scratchAnalysis);
    return a.lastIncomeDay !== null && a.meanGap !== null && a.lastIncomeDay + a.meanGap > periodLast;
  }
  // A regular pattern: pay predicted on A itself (payday debits), else the period's last chance
  // (no pay predicted before the period ends), which takes what the balance bears.
  if (accounts.incomeConfidence(i) < 0.5) return bearsPartial && (A >= periodLast - 3 || accounts.lastExpectedIncomeIn(i, A, periodLast - 1) === null);
  // (Pay predicted on A or the seven days before it, after D: one search of the predicted days.)
  if (accounts.lastExpectedIncomeIn(i, Math.max(D + 1, A - 7), A) !== null) return true;
  const ahead = accounts.lastExpectedIncomeIn(i, A, periodLast - 1);
  if (ahead === null) return bearsPartial;
  // The pay of that payday came early: nothing to wait for (as setup finds it).
  return bearsPartial && payCameEarly(accounts.analysis(i, scratchAnalysis).lastIncomeDay, ahead, (from, to) => accounts.lastExpectedIncomeIn(i, from, to));
}

/** The analysis mayPlanFor reads an irregular earner's pace into (one per process: it is read at once). */
const scratchAnalysis = {} as IncomeAnalysis;

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
    noDepositDue: false,
    estimate: 0,
    posted: 0,
    onHand: 0,
    monthEndPayday: false,
    newAccount: false,
    closed: false,
  };
  return {
    mayPlanCollection(): boolean {
      // Whether smart can plan depends on the account (mayPlanCustomer); failures are counted in plan.
      return true;
    },

    mayPlanCustomer(accounts: AccountFacts, i: number, D: number, A: number, periodLast: number, leastRemaining: number, leastDue: number, config: EngineConfig): boolean {
      return mayPlanFor(accounts, i, D, A, periodLast, leastRemaining, leastDue, config);
    },

    beginCustomer(): void {
      ctx.ready = false;
    },

    plan(customer, collections, index, D, A, remaining, config): Plan | null {
      const c = collections[index]!;
      if (c.failed >= config.maxFailedAttempts) return null;
      if (!ctx.ready) setup(ctx, customer, collections, D, A, config);
      if (ctx.closed) return null;
      const p = planOne(customer, c, ctx, remaining, config);
      if (p) {
        ctx.available -= p.amount;
        ctx.onHand -= p.amount;
        ctx.posted -= p.amount;
        // What a deposit can bear caps the parts taken from it; a whole premium the expected
        // balance covers comes on top (planned first, smallest first, it does not crowd out
        // the part of a larger premium).
        if (p.amount < remaining) ctx.depositBudget = Math.max(0, ctx.depositBudget - p.amount);
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
    WhyCode.SMART_BALANCE,
    WhyCode.SMART_SEEN_BALANCE,
    WhyCode.SMART_SEEN_BALANCE_SHARE,
    WhyCode.SMART_PARTIAL_SHARE,
    WhyCode.SMART_PARTIAL_BALANCE,
    WhyCode.SMART_IRREGULAR_NO_DEPOSIT_DUE,
    WhyCode.SMART_PAYDAY_BEFORE_CLOSED_DAYS,
    WhyCode.SMART_MONTH_END_PAYDAY,
    WhyCode.SMART_MONTH_END_NEW_ACCOUNT,
  ],

  planner: smartPlanner,

  explain(w: Why): string {
    const trigger =
      w.trigger === 1
        ? `${plural(w.triggerDays, 'day')} after income of ${formatCents(w.triggerAmount)} received ${fromDayNumber(w.triggerDay)}`
        : w.trigger === 2
          ? w.triggerDays === 0
            ? `on the day of income of about ${formatCents(w.triggerAmount)} expected ${fromDayNumber(w.triggerDay)}, ahead of the debit orders that take most of it`
            : `${w.triggerDays} day${w.triggerDays > 1 ? 's' : ''} after income of about ${formatCents(w.triggerAmount)} expected ${fromDayNumber(w.triggerDay)}`
          : w.trigger === 3
            ? `on the day of income of about ${formatCents(w.triggerAmount)} expected ${fromDayNumber(w.triggerDay)}, the last business day before a weekend or holiday`
            : '';
    const estimate = `expected balance ${formatCents(w.estimate)}`;
    switch (w.code) {
      case WhyCode.SMART_AFTER_INCOME:
        return `smart: ${trigger}; ${estimate}`;
      case WhyCode.SMART_PAYDAY_BEFORE_CLOSED_DAYS:
        return `smart: ${trigger} (the first business day after it comes after those days' spending); ${estimate}`;
      case WhyCode.SMART_PARTIAL:
        return `smart: partial debit ${w.part} of at most ${w.maxSplit}, ${trigger}, sized to what the deposit can bear; ${estimate}`;
      case WhyCode.SMART_REST:
        // Both ways to it (the balance expected at the debit covers what is still due, or a
        // deposit's share does) leave that balance covering it; the debit may be the first of the
        // month, and larger than the deposit: neither "the rest" nor "sized to the deposit".
        return `smart: all that is still due, ${trigger}, which the balance expected at the debit covers; ${estimate}`;
      case WhyCode.SMART_IRREGULAR_MONTH_END:
        return `smart: month end is near and ${formatCents(w.remaining)} is still due; ${estimate}`;
      case WhyCode.SMART_IRREGULAR_NO_DEPOSIT_DUE:
        return `smart: no deposit expected before the period ends at this customer's usual pace, and ${formatCents(w.remaining)} is still due; taking what the account can bear; ${estimate}`;
      case WhyCode.SMART_BALANCE:
        return `smart: the balance already covers the amount due, with the usual outgoings until the debit; ${estimate}`;
      case WhyCode.SMART_PARTIAL_BALANCE:
        // With a trigger: planned after a deposit that alone bears less than the balance does
        // (plans made before that rule, 2026-12-01, have none).
        return w.trigger === 0
          ? `smart: partial debit ${w.part} of at most ${w.maxSplit}, from money already there: no deposit to wait for, and the balance bears a good part of the ${formatCents(w.remaining)} due; ${estimate}`
          : `smart: partial debit ${w.part} of at most ${w.maxSplit}, from money already there, ${trigger}: the balance bears a good part of the ${formatCents(w.remaining)} due, more than the deposit alone; ${estimate}`;
      case WhyCode.SMART_PARTIAL_SHARE:
        return `smart: partial debit ${w.part} of at most ${w.maxSplit}, ${trigger}, at most a third of the posted balance (deposits smaller than the premium are mostly spent within two days); ${estimate}`;
      case WhyCode.SMART_SEEN_BALANCE_SHARE:
        return `smart: nothing attempted yet and the posted balance covers the ${formatCents(w.remaining)} due, but the usual spending before the debit may take most of it; a tenth of the posted balance; ${estimate}`;
      case WhyCode.SMART_SEEN_BALANCE:
        return `smart: nothing attempted yet and the posted balance covers the ${formatCents(w.remaining)} due; ${w.full ? 'the full amount' : 'what the balance will bear'}; ${estimate}`;
      case WhyCode.SMART_NO_INCOME_ENOUGH:
        return `smart: no income pattern, but the account holds enough; ${estimate}`;
      case WhyCode.SMART_MONTH_END_PAYDAY:
        return `smart: payday not known yet and the account has had money paid in lately; the last business day of the month, when most salaries are paid (they post before the debit), for the ${formatCents(w.remaining)} due; ${estimate}`;
      case WhyCode.SMART_MONTH_END_NEW_ACCOUNT:
        return `smart: a new account, nothing posted to it yet; the last business day of the month, when most salaries are paid (they post before the debit), for the ${formatCents(w.remaining)} due; ${estimate}`;
      case WhyCode.SMART_NO_INCOME_MONTH_END:
        return `smart: month end is near; taking what the account can bear; ${estimate}`;
      default:
        return `smart: no further income expected before month end, ${w.full ? 'the full amount due' : 'taking what the account can bear'}${trigger ? `, ${trigger}` : ''}; ${estimate}`;
    }
  },
};
