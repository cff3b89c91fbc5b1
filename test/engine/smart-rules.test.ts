/**
 * smart's rules of issue 12 on one customer, through its planner: money already there is
 * collected at once, pay just before the period (over a weekend) is seen, and no collection is
 * left without an attempt while the posted balance covers what is due (the zero-attempt rule).
 */
import { describe, expect, it } from 'vitest';
import { dayNumber as isoDay } from '../../src/domain/period.js';
import { engineSettings } from '../../src/engine/settings.js';
import { planCustomer, STRATEGIES, WhyCode } from '../../src/engine/strategies.js';
import type { CollectionView, CustomerView } from '../../src/engine/strategy.js';
import type { IncomeAnalysis } from '../../src/engine/income.js';
import { isIncomeDay, lastIncomeDayIn } from '../../src/engine/income.js';
import { ZA_CALENDAR } from '../../src/domain/calendar.js';

const config = engineSettings(new Map());
const D = isoDay('2026-10-31'); // Saturday
const A = isoDay('2026-11-02'); // Monday: the first business day planned for at the end of the 31st

function analysis(over: Partial<IncomeAnalysis>): IncomeAnalysis {
  return {
    pattern: 'monthly_fixed_day',
    confidence: 1,
    typicalAmount: 1_000_000,
    threshold: 300_000,
    dayOfMonth: 25,
    anchorDay: null,
    meanGap: null,
    lastIncomeDay: isoDay('2026-10-23'),
    lastIncomeAmount: 1_000_000,
    observed: 4,
    ...over,
  };
}

function customer(balance: number, a: IncomeAnalysis, opts: { dailyOut?: number; income?: Record<number, number> } = {}): CustomerView {
  return {
    balance,
    analysis: a,
    incomeOn: (day) => opts.income?.[day] ?? 0,
    expectedDebits: () => opts.dailyOut ?? 0,
    isPredicted: (day) => isIncomeDay(a, day, ZA_CALENDAR),
    lastPredictedIn: (from, to) => lastIncomeDayIn(a, from, to, ZA_CALENDAR),
  };
}

function collection(due: number, over: Partial<CollectionView> = {}): CollectionView {
  return {
    policyNumber: 'P1',
    strategy: STRATEGIES.smart,
    code: 0,
    due,
    collected: 0,
    attempts: 0,
    failed: 0,
    blocked: false,
    periodFirst: isoDay('2026-11-01'),
    periodLast: isoDay('2026-11-30'),
    lastAttemptDay: null,
    pendingDays: [],
    pendingAmounts: [],
    ...over,
  };
}

function plan(view: CustomerView, c: CollectionView) {
  return STRATEGIES.smart.planner().plan(view, [c], 0, D, A, c.due - c.collected, config);
}

describe('smart (issue 12)', () => {
  it('money already there: a salary earner whose balance covers the premium is debited on the first business day, not after the next payday', () => {
    const p = plan(customer(500_000, analysis({})), collection(150_000));
    expect(p?.amount).toBe(150_000);
    expect(p?.why.code).toBe(WhyCode.SMART_BALANCE);
    expect(STRATEGIES.smart.explain(p!.why)).toBe('smart: the balance already covers the amount due, with the usual outgoings until the debit; expected balance 5000.00');
  });

  it('pay due Sunday 1 November lands on Friday 30 October: seen as income on the Monday after it', () => {
    const a = analysis({ dayOfMonth: 1, lastIncomeDay: isoDay('2026-10-30') });
    // 20,000.00 in the account, 9,000.00 of it going out on the Sunday: the balance rule does not
    // hold (the estimate is what counts), the pay of Friday does.
    const view = customer(2_000_000, a, { dailyOut: 1_200_000, income: { [isoDay('2026-10-30')]: 1_000_000 } });
    const p = plan(view, collection(700_000));
    expect(p?.amount).toBe(700_000);
    expect(p?.why.code).toBe(WhyCode.SMART_AFTER_INCOME);
    expect(STRATEGIES.smart.explain(p!.why)).toBe('smart: 3 days after income of 10000.00 received 2026-10-30; expected balance 8000.00');
  });

  it('zero attempts: a collection not attempted yet whose posted balance covers what is due gets a debit, whatever the estimate', () => {
    // An irregular earner with no recent deposit: 600.00 posted, 600.00 a day usually going out.
    const a = analysis({ pattern: 'irregular', confidence: 0.4, dayOfMonth: null, lastIncomeDay: isoDay('2026-10-02') });
    const view = customer(60_000, a, { dailyOut: 60_000 });
    const p = plan(view, collection(50_000));
    expect(p?.amount).toBe(50_000);
    expect(p?.why.code).toBe(WhyCode.SMART_SEEN_BALANCE);
    expect(STRATEGIES.smart.explain(p!.why)).toBe(
      'smart: nothing attempted yet and the posted balance covers the 500.00 due; the full amount; expected balance 0.00',
    );
    // Once attempted (or with less posted than due), the rule does not apply.
    expect(plan(view, collection(50_000, { attempts: 1, failed: 1 }))).toBeNull();
    expect(plan(customer(40_000, a, { dailyOut: 60_000 }), collection(50_000))).toBeNull();
  });

  it('no debits are planned for a day that is not a business day (Sunday 1 November, Day of Reconciliation 16 December)', () => {
    const planners = [STRATEGIES.smart.planner()];
    const view = customer(500_000, analysis({}));
    for (const day of ['2026-11-01', '2026-12-16']) {
      const A2 = isoDay(day);
      expect(planCustomer(planners, view, [collection(150_000, { periodFirst: A2 - 20, periodLast: A2 + 10 })], A2 - 2, A2, config)).toEqual([]);
    }
    expect(planCustomer(planners, view, [collection(150_000)], D, A, config).map((p) => [p.day, p.amount])).toEqual([[A, 150_000]]);
  });
});
