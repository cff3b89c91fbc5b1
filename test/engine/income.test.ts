import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeIncome, describeIncome, scoringShortcuts, type IncomeAnalysis, isIncomeDay, lastIncomeDayIn, predictIncome, reanchor, type IncomeCredit } from '../../src/engine/income.js';
import { calendarOf, monthOf, NO_HOLIDAYS, ZA_CALENDAR } from '../../src/domain/calendar.js';
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
  it('monthly on a fixed day, with paydays on weekends and holidays moved to the business day before', () => {
    const dates = months.map((m) => previousBusinessDayOnOrBefore(`${m}-25`));
    expect(dates).toEqual(['2026-07-24', '2026-08-25', '2026-09-25', '2026-10-23']); // Jul 25 Sat, Oct 25 Sun
    const a = analyzeIncome(credits(dates), TODAY, WINDOW_START, ZA_CALENDAR);
    expect([a.pattern, a.dayOfMonth, a.confidence]).toEqual(['monthly_fixed_day', 25, 1]);
    // Christmas Day 2026 is a Friday: that pay comes on Thursday the 24th (on `none`, the 25th).
    expect(predictIncome(a, d('2026-11-01'), d('2027-01-31'), ZA_CALENDAR).map(fromDayNumber)).toEqual(['2026-11-25', '2026-12-24', '2027-01-25']);
    expect(predictIncome(a, d('2026-11-01'), d('2027-01-31'), NO_HOLIDAYS).map(fromDayNumber)).toEqual(['2026-11-25', '2026-12-25', '2027-01-25']);
    // 2027-04-25 is a Sunday: the prediction moves to Friday the 23rd.
    expect(predictIncome(a, d('2027-04-01'), d('2027-04-30'), ZA_CALENDAR).map(fromDayNumber)).toEqual(['2027-04-23']);
  });

  it('last business day of the month', () => {
    const dates = months.map((m) => lastBusinessDay(m));
    expect(dates).toEqual(['2026-07-31', '2026-08-31', '2026-09-30', '2026-10-30']);
    const a = analyzeIncome(credits(dates), TODAY, WINDOW_START, ZA_CALENDAR);
    expect(a.pattern).toBe('monthly_last_business_day');
    expect(predictIncome(a, d('2026-11-01'), d('2027-01-31'), ZA_CALENDAR).map(fromDayNumber)).toEqual(['2026-11-30', '2026-12-31', '2027-01-29']);
  });

  it('twice monthly, 15th and month end', () => {
    const dates = months.flatMap((m) => [previousBusinessDayOnOrBefore(`${m}-15`), lastBusinessDay(m)]);
    const a = analyzeIncome(credits(dates, 500_000), TODAY, WINDOW_START, ZA_CALENDAR);
    expect(a.pattern).toBe('twice_monthly');
    expect(predictIncome(a, d('2026-11-01'), d('2026-11-30'), ZA_CALENDAR).map(fromDayNumber)).toEqual(['2026-11-13', '2026-11-30']);
  });

  it('twice monthly, 15th and 30th: the 30th is not always the last business day', () => {
    // Thu 30 Jul (Fri 31 Jul is the last business day), Fri 28 Aug (30 Aug a Sunday; Mon 31 Aug
    // the last), Wed 30 Sep, Fri 30 Oct.
    const dates = ['2026-07-15', '2026-07-30', '2026-08-14', '2026-08-28', '2026-09-15', '2026-09-30', '2026-10-15', '2026-10-30'];
    const a = analyzeIncome(credits(dates, 500_000), TODAY, WINDOW_START, ZA_CALENDAR);
    expect([a.pattern, a.dayOfMonth, a.confidence]).toEqual(['twice_monthly', 30, 1]);
    // December: Wednesday the 30th, not Thursday the 31st.
    expect(predictIncome(a, d('2026-11-01'), d('2026-12-31'), ZA_CALENDAR).map(fromDayNumber)).toEqual(['2026-11-13', '2026-11-30', '2026-12-15', '2026-12-30']);
    expect(describeIncome(a)).toBe('pay twice a month (15th and 30th, moved to the business day before on weekends and holidays), typically 5001.00; confidence 1.00');
    // The 15th and the last business day stay that (the default reading where the two agree).
    const last = analyzeIncome(credits(months.flatMap((m) => [previousBusinessDayOnOrBefore(`${m}-15`), lastBusinessDay(m)]), 500_000), TODAY, WINDOW_START, ZA_CALENDAR);
    expect([last.pattern, last.dayOfMonth]).toEqual(['twice_monthly', null]);
    expect(describeIncome(last)).toMatch(/^pay twice a month \(15th and month end\), /);
  });

  it('paid on the last Friday of the month, the Thursday before when that Friday is a holiday', () => {
    // Fri 31 Jul, Fri 28 Aug (Mon 31 Aug is the last business day), Fri 25 Sep, Fri 30 Oct.
    const dates = ['2026-07-31', '2026-08-28', '2026-09-25', '2026-10-30'];
    const a = analyzeIncome(credits(dates, 2_100_000), TODAY, WINDOW_START, ZA_CALENDAR);
    expect([a.pattern, a.dayOfMonth, a.confidence]).toEqual(['monthly_last_weekday', 5, 1]);
    // Fri 27 November; 25 December is Christmas Day: Thursday the 24th; Fri 29 January.
    expect(predictIncome(a, d('2026-11-01'), d('2027-01-31'), ZA_CALENDAR).map(fromDayNumber)).toEqual(['2026-11-27', '2026-12-24', '2027-01-29']);
    expect(describeIncome(a)).toBe('monthly pay on a weekday at the end of the month (the month\'s last Friday, moved to the business day before on holidays), typically 21000.50; confidence 1.00');
    // The month's last business day stays that where the two agree on the months seen.
    const end = analyzeIncome(credits(months.map((m) => lastBusinessDay(m))), TODAY, WINDOW_START, ZA_CALENDAR);
    expect(end.pattern).toBe('monthly_last_business_day');
  });

  it('pay that moved (a new job): the day it came on now, once the old payday has brought nothing for more than a week', () => {
    // The 15th from July to September; nothing on 15 October; the new salary on Friday 30 October,
    // the month's last business day.
    const moved = [...credits(['2026-07-15', '2026-08-14', '2026-09-15'], 1_200_000), { day: d('2026-10-30'), amount: 1_450_000 }];
    const a = analyzeIncome(moved, TODAY, WINDOW_START, ZA_CALENDAR);
    expect([a.pattern, a.dayOfMonth, a.confidence, a.typicalAmount]).toEqual(['monthly_last_business_day', null, 0.5, 1_450_000]);
    expect(predictIncome(a, d('2026-11-01'), d('2026-12-31'), ZA_CALENDAR).map(fromDayNumber)).toEqual(['2026-11-30', '2026-12-31']);
    // On Monday the 26th, not the month's end: a fixed day, the 26th.
    const on26th = analyzeIncome([...credits(['2026-07-15', '2026-08-14', '2026-09-15'], 1_200_000), { day: d('2026-10-26'), amount: 1_450_000 }], TODAY, WINDOW_START, ZA_CALENDAR);
    expect([on26th.pattern, on26th.dayOfMonth]).toEqual(['monthly_fixed_day', 26]);
    // Pay up to a week late is late, not moved: the 15th stays (Thursday 15 October paid on Monday
    // the 19th or Tuesday the 20th).
    for (const day of ['2026-10-19', '2026-10-20']) {
      const lateBy = analyzeIncome(credits(['2026-07-15', '2026-08-14', '2026-09-15', day]), TODAY, WINDOW_START, ZA_CALENDAR);
      expect([lateBy.pattern, lateBy.dayOfMonth]).toEqual(['monthly_fixed_day', 15]);
    }
    // Twice a month whose 15th stopped: nothing on 15 October and 13 November, the month ends
    // paid: pay once a month, at the month's end.
    const today = d('2026-11-30');
    const twice = credits(['2026-08-14', '2026-08-31', '2026-09-15', '2026-09-30', '2026-10-30', '2026-11-30'], 600_000);
    const once = analyzeIncome(twice, today, today - 120, ZA_CALENDAR);
    expect([once.pattern, once.dayOfMonth]).toEqual(['monthly_last_business_day', null]);
    // One 15th missed only: still twice a month.
    const once15 = analyzeIncome(twice.filter((c) => c.day !== d('2026-10-30')).concat(credits(['2026-10-15', '2026-10-30'], 600_000)).sort((x, y) => x.day - y.day), today, today - 120, ZA_CALENDAR);
    expect(once15.pattern).toBe('twice_monthly');
  });

  it('weekly and fortnightly wages', () => {
    const weekly = analyzeIncome(credits(every('2026-07-03', 7), 250_000), TODAY, WINDOW_START, ZA_CALENDAR);
    expect(weekly.pattern).toBe('weekly');
    expect(predictIncome(weekly, d('2026-11-01'), d('2026-11-15'), ZA_CALENDAR).map(fromDayNumber)).toEqual(['2026-11-06', '2026-11-13']);
    const fortnightly = analyzeIncome(credits(every('2026-07-03', 14), 500_000), TODAY, WINDOW_START, ZA_CALENDAR);
    expect(fortnightly.pattern).toBe('fortnightly');
    expect(predictIncome(fortnightly, d('2026-11-01'), d('2026-11-30'), ZA_CALENDAR).map(fromDayNumber)).toEqual(['2026-11-06', '2026-11-20']);
  });

  it('irregular income, and none', () => {
    const gig = [3, 9, 17, 20, 33, 41, 44, 58, 66, 79, 88, 93, 101, 115].map((k) => ({
      day: WINDOW_START + k,
      amount: [80_000, 190_000, 42_000, 275_000, 64_000, 132_000, 56_000][k % 7]!,
    }));
    const a = analyzeIncome(gig, TODAY, WINDOW_START, ZA_CALENDAR);
    expect(a.pattern).toBe('irregular');
    expect(a.confidence).toBeLessThan(0.7);
    expect(predictIncome(a, d('2026-11-01'), d('2026-11-30'), ZA_CALENDAR)).toEqual([]);
    expect(analyzeIncome([], TODAY, WINDOW_START, ZA_CALENDAR).pattern).toBe('none');
  });

  it('small credits (refunds, transfers) do not hide a salary', () => {
    const dates = months.map((m) => previousBusinessDayOnOrBefore(`${m}-20`));
    const noise = ['2026-07-03', '2026-07-14', '2026-08-09', '2026-09-01', '2026-09-17', '2026-10-05'].map((x) => ({ day: d(x), amount: 12_000 }));
    const a = analyzeIncome([...credits(dates, 1_500_000), ...noise], TODAY, WINDOW_START, ZA_CALENDAR);
    expect([a.pattern, a.dayOfMonth]).toEqual(['monthly_fixed_day', 20]);
    expect(a.typicalAmount).toBe(1_500_050); // median of 1 500 000, 1 500 000, 1 500 100, 1 500 200
  });

  it('sees only credits up to today', () => {
    const dates = [...months, '2026-11', '2026-12'].map((m) => previousBusinessDayOnOrBefore(`${m}-25`));
    const a = analyzeIncome(credits(dates), TODAY, WINDOW_START, ZA_CALENDAR);
    expect(fromDayNumber(a.lastIncomeDay!)).toBe('2026-10-23');
    expect(a.observed).toBe(4);
  });

  it('a salary due on the 1st, paid on the last business day before when the 1st is a weekend, is monthly (issue 12)', () => {
    // 1 Aug 2026 is a Saturday (paid Fri 31 Jul), 1 Nov a Sunday (paid Fri 30 Oct): two of the
    // four pays land in the month before the one they are due in.
    const dates = ['2026-07-31', '2026-09-01', '2026-10-01', '2026-10-30'];
    const a = analyzeIncome(credits(dates, 851_400), TODAY, WINDOW_START, ZA_CALENDAR);
    expect([a.pattern, a.dayOfMonth, a.confidence]).toEqual(['monthly_fixed_day', 1, 1]);
    // Seen on 31 October: November's pay has come (30 Oct); December's is due Tuesday 1 Dec.
    expect(predictIncome(a, d('2026-10-25'), d('2027-01-31'), ZA_CALENDAR).map(fromDayNumber)).toEqual(['2026-10-30', '2026-12-01', '2026-12-31']);
    expect(fromDayNumber(lastIncomeDayIn(a, d('2026-10-01'), d('2026-11-15'), ZA_CALENDAR)!)).toBe('2026-10-30');
    expect(isIncomeDay(a, d('2026-10-30'), ZA_CALENDAR)).toBe(true);
    expect(isIncomeDay(a, d('2026-11-02'), ZA_CALENDAR)).toBe(false);
    // 1 Jan 2027 is New Year's Day (a Friday): paid Thursday 31 December.
    expect(isIncomeDay(a, d('2026-12-31'), ZA_CALENDAR)).toBe(true);
  });

  it('paid on the n-th business day of the month (a grant, a pension), moved forward over weekends and holidays', () => {
    // The second business day: Thu 2 Jul, Tue 4 Aug (1 Aug a Saturday), Wed 2 Sep, Fri 2 Oct.
    const dates = ['2026-07-02', '2026-08-04', '2026-09-02', '2026-10-02'];
    const a = analyzeIncome(credits(dates, 231_500), TODAY, WINDOW_START, ZA_CALENDAR);
    expect([a.pattern, a.dayOfMonth, a.confidence]).toEqual(['monthly_nth_business_day', 2, 1]);
    // 1 November is a Sunday: Mon 2 (first), Tue 3 (second). 1 January 2027 is a holiday: Mon 4
    // (first), Tue 5 (second).
    expect(predictIncome(a, d('2026-11-01'), d('2027-01-31'), ZA_CALENDAR).map(fromDayNumber)).toEqual(['2026-11-03', '2026-12-02', '2027-01-05']);
    expect(fromDayNumber(lastIncomeDayIn(a, d('2026-11-01'), d('2026-11-30'), ZA_CALENDAR)!)).toBe('2026-11-03');
    expect([isIncomeDay(a, d('2026-11-03'), ZA_CALENDAR), isIncomeDay(a, d('2026-11-02'), ZA_CALENDAR)]).toEqual([true, false]);
    expect(describeIncome(a)).toBe('monthly pay on a business day of the month (business day 2: weekends and holidays move it later), typically 2315.50; confidence 1.00');
    // The first business day when the 1st is a weekend (1 Aug Sat -> Mon 3 Aug) is not the 1st
    // moved back: it is read as the first business day, not as a fixed day.
    const first = analyzeIncome(credits(['2026-07-01', '2026-08-03', '2026-09-01', '2026-10-01'], 231_500), TODAY, WINDOW_START, ZA_CALENDAR);
    expect([first.pattern, first.dayOfMonth]).toEqual(['monthly_nth_business_day', 1]);
  });

  it('weekly wages due on a holiday come the business day before; the cycle stays on its weekday', () => {
    // Fridays from 3 July; Friday 25 Dec 2026 and Friday 1 Jan 2027 are holidays.
    const weekly = analyzeIncome(credits(every('2026-07-03', 7), 250_000), TODAY, WINDOW_START, ZA_CALENDAR);
    expect(predictIncome(weekly, d('2026-12-14'), d('2027-01-10'), ZA_CALENDAR).map(fromDayNumber)).toEqual([
      '2026-12-18',
      '2026-12-24',
      '2026-12-31',
      '2027-01-08',
    ]);
    // A wage paid early for a holiday keeps the anchor on the Friday.
    expect(fromDayNumber(reanchor(ZA_CALENDAR, d('2026-12-18'), 7, d('2026-12-24')))).toBe('2026-12-25');
    // Paid two days late: still the Friday's wage.
    expect(fromDayNumber(reanchor(ZA_CALENDAR, d('2026-12-18'), 7, d('2026-11-23')))).toBe('2026-11-20');
    // The analysis of a history whose last wage came early for Christmas anchors on the Friday.
    const withChristmas = analyzeIncome(credits([...every('2026-10-02', 7, '2026-12-18'), '2026-12-24'], 250_000), d('2026-12-27'), d('2026-09-01'), ZA_CALENDAR);
    expect(withChristmas.pattern).toBe('weekly');
    expect(fromDayNumber(withChristmas.anchorDay!)).toBe('2026-12-25');
  });
});

describe('the scoring shortcuts (issue 13)', () => {
  it('accounts paid on the same days share a scoring; what the amounts decide stays each one\'s own', () => {
    const calendar = calendarOf('za'); // its own kept scores
    const dates = months.map((m) => previousBusinessDayOnOrBefore(`${m}-25`));
    const first = analyzeIncome(credits(dates, 1_000_000), TODAY, WINDOW_START, calendar);
    const second = analyzeIncome(credits(dates, 730_000), TODAY, WINDOW_START, calendar);
    expect([first.pattern, first.dayOfMonth, first.confidence]).toEqual(['monthly_fixed_day', 25, 1]);
    expect([second.pattern, second.dayOfMonth, second.confidence]).toEqual(['monthly_fixed_day', 25, 1]);
    // 730 000, 730 100, 730 200, 730 000: the median 730 050; the threshold a third of the
    // larger two's median (730 150).
    expect([second.typicalAmount, second.threshold, second.lastIncomeAmount]).toEqual([730_050, 243_383, 730_000]);
    expect([first.typicalAmount, first.threshold, first.lastIncomeAmount]).toEqual([1_000_050, 333_383, 1_000_000]);
    // The same days from a later window start are another scoring.
    const later = analyzeIncome(credits(dates.slice(1), 730_000), TODAY, d('2026-08-01'), calendar);
    expect([later.pattern, later.dayOfMonth, later.observed]).toEqual(['monthly_fixed_day', 25, 3]);
  });

  it('many deposits: weekly wages stay weekly, daily gig payouts irregular', () => {
    const weekly = analyzeIncome(credits(every('2026-07-03', 7), 250_000), TODAY, WINDOW_START, ZA_CALENDAR);
    expect([weekly.pattern, weekly.observed, weekly.confidence, fromDayNumber(weekly.anchorDay!)]).toEqual(['weekly', 18, 1, '2026-10-30']);
    const payouts = Array.from({ length: 40 }, (_, k) => ({ day: WINDOW_START + 3 * k, amount: 40_000 + ((k * 7) % 13) * 5_000 }));
    const gig = analyzeIncome(payouts, TODAY, WINDOW_START, ZA_CALENDAR);
    expect([gig.pattern, gig.observed, gig.meanGap, gig.typicalAmount, gig.confidence]).toEqual(['irregular', 40, 3, 70_000, 0.6]);
  });

  it('agree to the byte with every pattern scored and nothing kept', () => {
    // Credits of a pattern (a monthly day, month ends, 15th and month end, weekly, fortnightly,
    // the n-th business day, the 15th and a day from the 25th to the 30th, the last Friday)
    // with paydays missed, moved and noise, or scattered deposits; amounts often equal.
    const day = fc.integer({ min: WINDOW_START - 10, max: TODAY + 5 });
    const amount = fc.oneof(fc.constantFrom(1_000_000, 250_000, 12_000, 800), fc.integer({ min: 100, max: 3_000_000 }));
    const scattered = fc.array(fc.record({ day, amount }), { maxLength: 60 });
    const patterned = fc
      .record({
        kind: fc.integer({ min: 0, max: 7 }),
        t: fc.integer({ min: 1, max: 31 }),
        anchor: fc.integer({ min: 0, max: 13 }),
        pay: amount,
        skip: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        noise: fc.array(fc.record({ day, amount }), { maxLength: 12 }),
      })
      .map(({ kind, t, anchor, pay, skip, noise }) => {
        const out = [...noise];
        if (kind === 7) {
          // The last given weekday of each month (Monday to Friday: t mod 5 + 1), on the ZA calendar.
          for (const m of ['2026-06', ...months, '2026-11']) out.push({ day: ZA_CALENDAR.payMonth(monthOf(d(`${m}-01`))).lastWeekday[(t % 5) + 1]!, amount: pay });
        } else if (kind === 6) {
          // The 15th and a day from the 25th to the 30th (t mod 6 + 25), moved back.
          for (const m of ['2026-06', ...months, '2026-11']) {
            for (const x of [`${m}-15`, `${m}-${(t % 6) + 25}`]) out.push({ day: d(previousBusinessDayOnOrBefore(x)), amount: pay });
          }
        } else if (kind === 5) {
          // The n-th business day of each month (n = t mod 5 + 1), on the ZA calendar.
          for (const m of ['2026-06', ...months, '2026-11']) out.push({ day: ZA_CALENDAR.payMonth(monthOf(d(`${m}-01`))).nthBusinessDay[(t % 5) + 1]!, amount: pay });
        } else if (kind <= 2) {
          for (const m of ['2026-06', ...months, '2026-11']) {
            const last = lastBusinessDay(`${m}-01`);
            const fixed = previousBusinessDayOnOrBefore(`${m}-${String(Math.min(t, 28)).padStart(2, '0')}`);
            for (const x of kind === 0 ? [fixed] : kind === 1 ? [last] : [previousBusinessDayOnOrBefore(`${m}-15`), last]) out.push({ day: d(x), amount: pay });
          }
        } else {
          const period = kind === 3 ? 7 : 14;
          for (let x = WINDOW_START - 14 + anchor; x <= TODAY + 3; x += period) out.push({ day: x, amount: pay });
        }
        return out.filter((_, k) => !skip[k % skip.length] || k % 3 !== 0);
      });
    const today = fc.integer({ min: TODAY - 20, max: TODAY + 3 });
    fc.assert(
      fc.property(fc.oneof(scattered, patterned), today, fc.boolean(), (cs, at, za) => {
        const calendar = za ? ZA_CALENDAR : NO_HOLIDAYS;
        const start = at - 122;
        scoringShortcuts.on = false;
        let plain: ReturnType<typeof analyzeIncome>;
        try {
          plain = analyzeIncome(cs, at, start, calendar);
        } finally {
          scoringShortcuts.on = true;
        }
        expect(analyzeIncome(cs, at, start, calendar)).toEqual(plain);
        expect(analyzeIncome(cs, at, start, calendar)).toEqual(plain); // kept from the call before
      }),
      { numRuns: 400, seed: 13 },
    );
  });
});

describe('predicted income days', () => {
  it('lastIncomeDayIn finds one in a window exactly when isIncomeDay holds on a day of it (smart asks either)', () => {
    const patterns: IncomeAnalysis[] = [];
    const base = analyzeIncome([], TODAY, WINDOW_START, ZA_CALENDAR);
    for (let t = 1; t <= 31; t++) patterns.push({ ...base, pattern: 'monthly_fixed_day', dayOfMonth: t });
    patterns.push({ ...base, pattern: 'monthly_last_business_day' }, { ...base, pattern: 'twice_monthly' });
    for (let t = 25; t <= 30; t++) patterns.push({ ...base, pattern: 'twice_monthly', dayOfMonth: t });
    for (let n = 1; n <= 5; n++) patterns.push({ ...base, pattern: 'monthly_nth_business_day', dayOfMonth: n }, { ...base, pattern: 'monthly_last_weekday', dayOfMonth: n });
    for (let k = 0; k < 14; k++) patterns.push({ ...base, pattern: 'weekly', anchorDay: TODAY + k }, { ...base, pattern: 'fortnightly', anchorDay: TODAY + k });
    let found = 0;
    for (const calendar of [ZA_CALENDAR, NO_HOLIDAYS]) {
      for (const a of patterns) {
        for (let to = d('2026-11-20'); to <= d('2027-01-10'); to++) {
          for (const span of [0, 3, 7]) {
            const days = Array.from({ length: span + 1 }, (_, k) => to - span + k).filter((x) => isIncomeDay(a, x, calendar));
            const last = lastIncomeDayIn(a, to - span, to, calendar);
            expect(last).toBe(days.length === 0 ? null : days[days.length - 1]);
            if (last !== null) found++;
          }
        }
      }
    }
    expect(found).toBeGreaterThan(5_000);
  });
});
