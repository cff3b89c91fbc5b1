import { describe, expect, it } from 'vitest';
import { analyzeIncome, predictIncome, type IncomeCredit } from '../../src/engine/income.js';
import { addDays, dayNumber, fromDayNumber, lastBusinessDay, previousBusinessDayOnOrBefore } from '../../src/domain/period.js';

const d = dayNumber;
const months = ['2026-07', '2026-08', '2026-09', '2026-10'];
const WINDOW_START = d('2026-07-01');
const TODAY = d('2026-10-31');

function credits(dates: string[], amount = 1_000_000): IncomeCredit[] {
  return dates.map((date, i) => ({ day: d(date), amount: amount + (i % 3) * 100 }));
}

function every(start: string, step: number, until = '2026-10-31'): string[] {
  const out: string[] = [];
  for (let x = start; x <= until; x = addDays(x, step)) out.push(x);
  return out;
}

describe('income classification', () => {
  it('monthly on a fixed day, with weekend paydays moved to the Friday before', () => {
    const dates = months.map((m) => previousBusinessDayOnOrBefore(`${m}-25`));
    expect(dates).toEqual(['2026-07-24', '2026-08-25', '2026-09-25', '2026-10-23']); // Jul 25 Sat, Oct 25 Sun
    const a = analyzeIncome(credits(dates), TODAY, WINDOW_START);
    expect([a.pattern, a.dayOfMonth, a.confidence]).toEqual(['monthly_fixed_day', 25, 1]);
    expect(predictIncome(a, d('2026-11-01'), d('2027-01-31')).map(fromDayNumber)).toEqual(['2026-11-25', '2026-12-25', '2027-01-25']);
    // 2027-04-25 is a Sunday: the prediction moves to Friday the 23rd.
    expect(predictIncome(a, d('2027-04-01'), d('2027-04-30')).map(fromDayNumber)).toEqual(['2027-04-23']);
  });

  it('last business day of the month', () => {
    const dates = months.map((m) => lastBusinessDay(m));
    expect(dates).toEqual(['2026-07-31', '2026-08-31', '2026-09-30', '2026-10-30']);
    const a = analyzeIncome(credits(dates), TODAY, WINDOW_START);
    expect(a.pattern).toBe('monthly_last_business_day');
    expect(predictIncome(a, d('2026-11-01'), d('2027-01-31')).map(fromDayNumber)).toEqual(['2026-11-30', '2026-12-31', '2027-01-29']);
  });

  it('twice monthly, 15th and month end', () => {
    const dates = months.flatMap((m) => [previousBusinessDayOnOrBefore(`${m}-15`), lastBusinessDay(m)]);
    const a = analyzeIncome(credits(dates, 500_000), TODAY, WINDOW_START);
    expect(a.pattern).toBe('twice_monthly');
    expect(predictIncome(a, d('2026-11-01'), d('2026-11-30')).map(fromDayNumber)).toEqual(['2026-11-13', '2026-11-30']);
  });

  it('weekly and fortnightly wages', () => {
    const weekly = analyzeIncome(credits(every('2026-07-03', 7), 250_000), TODAY, WINDOW_START);
    expect(weekly.pattern).toBe('weekly');
    expect(predictIncome(weekly, d('2026-11-01'), d('2026-11-15')).map(fromDayNumber)).toEqual(['2026-11-06', '2026-11-13']);
    const fortnightly = analyzeIncome(credits(every('2026-07-03', 14), 500_000), TODAY, WINDOW_START);
    expect(fortnightly.pattern).toBe('fortnightly');
    expect(predictIncome(fortnightly, d('2026-11-01'), d('2026-11-30')).map(fromDayNumber)).toEqual(['2026-11-06', '2026-11-20']);
  });

  it('irregular income, and none', () => {
    const gig = [3, 9, 17, 20, 33, 41, 44, 58, 66, 79, 88, 93, 101, 115].map((k) => ({
      day: WINDOW_START + k,
      amount: [80_000, 190_000, 42_000, 275_000, 64_000, 132_000, 56_000][k % 7]!,
    }));
    const a = analyzeIncome(gig, TODAY, WINDOW_START);
    expect(a.pattern).toBe('irregular');
    expect(a.confidence).toBeLessThan(0.7);
    expect(predictIncome(a, d('2026-11-01'), d('2026-11-30'))).toEqual([]);
    expect(analyzeIncome([], TODAY, WINDOW_START).pattern).toBe('none');
  });

  it('small credits (refunds, transfers) do not hide a salary', () => {
    const dates = months.map((m) => previousBusinessDayOnOrBefore(`${m}-20`));
    const noise = ['2026-07-03', '2026-07-14', '2026-08-09', '2026-09-01', '2026-09-17', '2026-10-05'].map((x) => ({ day: d(x), amount: 12_000 }));
    const a = analyzeIncome([...credits(dates, 1_500_000), ...noise], TODAY, WINDOW_START);
    expect([a.pattern, a.dayOfMonth]).toEqual(['monthly_fixed_day', 20]);
    expect(a.typicalAmount).toBe(1_500_050); // median of 1 500 000, 1 500 000, 1 500 100, 1 500 200
  });

  it('sees only credits up to today', () => {
    const dates = [...months, '2026-11', '2026-12'].map((m) => previousBusinessDayOnOrBefore(`${m}-25`));
    const a = analyzeIncome(credits(dates), TODAY, WINDOW_START);
    expect(fromDayNumber(a.lastIncomeDay!)).toBe('2026-10-23');
    expect(a.observed).toBe(4);
  });
});
