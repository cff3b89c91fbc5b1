import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  dateInPeriod,
  dayNumber,
  daysInMonth,
  firstDay,
  fromDayNumber,
  isIsoDate,
  isPeriod,
  isWeekend,
  lastBusinessDay,
  lastDay,
  monthsBetween,
  nextPeriod,
  periodOf,
  previousBusinessDayOnOrBefore,
  previousPeriod,
  shiftPeriod,
  timestampOn,
  weekday,
  whyNotADate,
  whyNotAPeriod,
} from '../../src/domain/period.js';

describe('isIsoDate', () => {
  it.each([
    ['2026-11-21', true],
    ['2026-02-28', true],
    ['2026-02-29', false], // 2026 is not a leap year
    ['2028-02-29', true], // 2028 is
    ['2100-02-29', false], // divisible by 100, not by 400
    ['2000-02-29', true], // divisible by 400
    ['2026-04-30', true],
    ['2026-04-31', false],
    ['2026-12-31', true],
    ['2026-00-10', false], // month 00
    ['2026-13-10', false], // month 13
    ['2026-01-00', false], // day 00
    ['2026-01-32', false],
    ['1900-01-01', true], // lower bound
    ['1899-12-31', false],
    ['2999-12-31', true], // upper bound
    ['3000-01-01', false],
    ['2026-1-01', false], // one-digit month
    ['2026-01-1', false],
    ['26-01-01', false],
    ['2026/01/01', false],
    ['2026-01-01 ', false],
    [' 2026-01-01', false],
    ['2026-01-01T00:00:00Z', false],
    ['', false],
  ])('%j → %s', (text, valid) => {
    expect(isIsoDate(text)).toBe(valid);
  });

  it.each([null, undefined, 20261121, new Date(0), {}])('a non-string (%j) is not a date', (value) => {
    expect(isIsoDate(value)).toBe(false);
  });
});

describe('whyNotADate: the one wording of a date premia does not take', () => {
  it.each([
    ['3000-01-01', 'is after 2999-12-31, the last date premia accepts', true],
    ['9999-12-31', 'is after 2999-12-31, the last date premia accepts', true],
    ['1899-12-31', 'is before 1900-01-01, the first date premia accepts', true],
    ['2027-02-30', 'is not a day of the calendar: 2027-02 has 28 days', true],
    ['2026-13-01', 'is not a date: there is no month 13', false],
    ['31/12/2027', 'is not a date written YYYY-MM-DD (the day or month comes first, which can be read two ways; write the year first)', false],
    ['01.11.2026', 'is not a date written YYYY-MM-DD (the day or month comes first, which can be read two ways; write the year first)', false],
    ['2026/11/01', "is not a date written YYYY-MM-DD (it is written with '/'; write it 2026-11-01)", false],
    ['2026.1.5', "is not a date written YYYY-MM-DD (it is written with '.'; write it 2026-01-05)", false],
    ['2026-1-5', 'is not a date written YYYY-MM-DD (write the month and day with two digits each: 2026-01-05)', false],
    ['2026-11-01T10:00:00Z', 'is not a date written YYYY-MM-DD (it has a time of day; write the date alone, 2026-11-01)', false],
    ['2026-11-01 00:00', 'is not a date written YYYY-MM-DD (it has a time of day; write the date alone, 2026-11-01)', false],
    ['46328', "is not a date written YYYY-MM-DD (a spreadsheet's serial day number, 2026-11-02 in Excel's 1900 date system; format the column as dates written YYYY-MM-DD)", false],
    ['46328.333333', "is not a date written YYYY-MM-DD (a spreadsheet's serial day number, 2026-11-02 in Excel's 1900 date system; format the column as dates written YYYY-MM-DD)", false],
    ['4632', 'is not a date written YYYY-MM-DD', false],
    ['Nov 1, 2026', 'is not a date written YYYY-MM-DD', false],
    ['', 'is not a date written YYYY-MM-DD', false],
  ])('%s %s', (text, phrase, wellFormed) => {
    expect(whyNotADate(text)).toEqual({ phrase, wellFormed });
  });
});

describe('isPeriod', () => {
  it.each([
    ['2026-01', true],
    ['2026-12', true],
    ['2026-00', false],
    ['2026-13', false],
    ['2026-1', false],
    ['2026-011', false],
    ['1900-01', true],
    ['1899-12', false],
    ['2999-12', true],
    ['3000-01', false],
    ['2026-11-01', false],
    ['2026-11 ', false],
    ['202611', false],
    ['', false],
  ])('%j → %s', (text, valid) => {
    expect(isPeriod(text)).toBe(valid);
  });

  it.each([null, undefined, 202611])('a non-string (%j) is not a period', (value) => {
    expect(isPeriod(value)).toBe(false);
  });
});

describe('month arithmetic', () => {
  it.each([
    ['2026-01', '2026-01-31'],
    ['2026-02', '2026-02-28'],
    ['2028-02', '2028-02-29'],
    ['2100-02', '2100-02-28'],
    ['2000-02', '2000-02-29'],
    ['2026-04', '2026-04-30'],
    ['2026-06', '2026-06-30'],
    ['2026-09', '2026-09-30'],
    ['2026-11', '2026-11-30'],
    ['2026-12', '2026-12-31'],
  ])('lastDay(%s) = %s', (period, date) => {
    expect(lastDay(period)).toBe(date);
  });

  it('firstDay and periodOf', () => {
    expect(firstDay('2026-11')).toBe('2026-11-01');
    expect(periodOf('2026-11-21')).toBe('2026-11');
  });

  it.each([
    [2026, 2, 28],
    [2028, 2, 29],
    [2026, 1, 31],
    [2026, 11, 30],
  ])('daysInMonth(%i, %i) = %i', (y, m, days) => {
    expect(daysInMonth(y, m)).toBe(days);
  });

  it.each([
    ['2026-11', '2026-12', '2026-10'],
    ['2026-12', '2027-01', '2026-11'],
    ['2027-01', '2027-02', '2026-12'],
    ['2028-02', '2028-03', '2028-01'],
  ])('next/previous of %s are %s / %s', (period, next, previous) => {
    expect(nextPeriod(period)).toBe(next);
    expect(previousPeriod(period)).toBe(previous);
  });

  it.each([
    ['2026-03', 0, '2026-03'],
    ['2026-03', -2, '2026-01'],
    ['2026-03', -3, '2025-12'],
    ['2026-03', -15, '2024-12'],
    ['2026-01', -13, '2024-12'],
    ['2026-12', 1, '2027-01'],
    ['2026-12', 25, '2029-01'],
    ['2026-03', 120, '2036-03'],
  ])('shiftPeriod(%s, %i) = %s', (period, months, expected) => {
    expect(shiftPeriod(period, months)).toBe(expected);
  });

  it.each([
    ['2026-11', '2026-11', 0],
    ['2026-11', '2028-02', 15],
    ['2028-02', '2026-11', -15],
    ['2026-12', '2027-01', 1],
  ])('monthsBetween(%s, %s) = %i', (a, b, n) => {
    expect(monthsBetween(a, b)).toBe(n);
  });

  it('shiftPeriod and monthsBetween are inverse, and nextPeriod is shift by one', () => {
    const period = fc
      .record({ y: fc.integer({ min: 1950, max: 2900 }), m: fc.integer({ min: 1, max: 12 }) })
      .map(({ y, m }) => `${y}-${String(m).padStart(2, '0')}`);
    fc.assert(
      fc.property(period, fc.integer({ min: -600, max: 600 }), (p, k) => {
        const shifted = shiftPeriod(p, k);
        expect(isPeriod(shifted)).toBe(true);
        expect(monthsBetween(p, shifted)).toBe(k);
        expect(nextPeriod(p)).toBe(shiftPeriod(p, 1));
        expect(previousPeriod(nextPeriod(p))).toBe(p);
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['2026-02', 31, '2026-02-28'],
    ['2028-02', 30, '2028-02-29'],
    ['2026-11', 31, '2026-11-30'],
    ['2026-11', 15, '2026-11-15'],
    ['2026-11', 0, '2026-11-01'],
  ])('dateInPeriod(%s, %i) = %s (clamped)', (period, day, date) => {
    expect(dateInPeriod(period, day)).toBe(date);
  });
});

describe('days', () => {
  it.each([
    ['1970-01-01', 4], // Thursday
    ['1969-12-31', 3], // Wednesday, before the epoch
    ['2026-11-21', 6], // Saturday
    ['2026-11-22', 0], // Sunday
    ['2026-11-23', 1], // Monday
    ['2027-01-01', 5], // Friday
    ['2028-02-29', 2], // Tuesday
  ])('weekday(%s) = %i', (date, day) => {
    expect(weekday(date)).toBe(day);
    expect(weekday(dayNumber(date))).toBe(day);
  });

  it('weekday agrees with Date.getUTCDay on any date', () => {
    fc.assert(
      fc.property(fc.integer({ min: -25_000, max: 300_000 }), (day) => {
        const date = fromDayNumber(day);
        expect(weekday(date)).toBe(new Date(`${date}T00:00:00Z`).getUTCDay());
        expect(isWeekend(day)).toBe([0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay()));
        expect(dayNumber(date)).toBe(day);
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['1970-01-01', 0],
    ['1970-01-02', 1],
    ['1969-12-31', -1],
    ['2026-11-21', 20_778],
  ])('dayNumber(%s) = %i and back', (date, n) => {
    expect(dayNumber(date)).toBe(n);
    expect(fromDayNumber(n)).toBe(date);
  });

  it.each([
    ['2026-12-31', 1, '2027-01-01'],
    ['2028-03-01', -1, '2028-02-29'],
    ['2026-03-01', -1, '2026-02-28'],
    ['2026-11-21', 0, '2026-11-21'],
    ['2026-11-21', 365, '2027-11-21'],
  ])('addDays(%s, %i) = %s', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });

  it.each([
    ['2026-11-23', '2026-11-23'], // Monday: itself
    ['2026-11-20', '2026-11-20'], // Friday: itself
    ['2026-11-21', '2026-11-20'], // Saturday → Friday
    ['2026-11-22', '2026-11-20'], // Sunday → Friday
    ['2026-03-01', '2026-02-27'], // Sunday → Friday of the month before
    ['2028-01-01', '2027-12-31'], // Saturday → Friday of the year before
    ['2028-01-02', '2027-12-31'], // Sunday → across the year
  ])('previousBusinessDayOnOrBefore(%s) = %s', (date, expected) => {
    expect(previousBusinessDayOnOrBefore(date)).toBe(expected);
  });

  it.each([
    ['2026-05', '2026-05-29'], // the 31st is a Sunday
    ['2026-01', '2026-01-30'], // the 31st is a Saturday
    ['2026-02', '2026-02-27'], // the 28th is a Saturday
    ['2026-10', '2026-10-30'], // the 31st is a Saturday
    ['2026-08', '2026-08-31'], // the 31st is a Monday
    ['2027-12', '2027-12-31'], // a Friday
    ['2028-02', '2028-02-29'], // leap day, a Tuesday
    ['2028-12', '2028-12-29'], // the 31st is a Sunday
    ['2100-02', '2100-02-26'], // the 28th is a Sunday
  ])('lastBusinessDay(%s) = %s', (period, expected) => {
    expect(lastBusinessDay(period)).toBe(expected);
  });

  it('timestampOn writes ISO 8601 UTC', () => {
    expect(timestampOn('2026-11-21', 34_200_000)).toBe('2026-11-21T09:30:00.000Z');
    expect(timestampOn('2026-11-21', 86_400_000 + 1)).toBe('2026-11-21T00:00:00.001Z'); // time of day wraps
  });
});

describe('whyNotAPeriod: a month shaped YYYY-MM that premia does not take', () => {
  it.each([
    ['3000-01', { phrase: 'is after 2999-12, the last month premia accepts', wellFormed: true }],
    ['1899-12', { phrase: 'is before 1900-01, the first month premia accepts', wellFormed: true }],
    // No such month: the month is named, not the format it already has (as 2026-13-01 is).
    ['2026-13', { phrase: 'is not a month: there is no month 13', wellFormed: false }],
    ['2026-00', { phrase: 'is not a month: there is no month 00', wellFormed: false }],
    ['2026-99', { phrase: 'is not a month: there is no month 99', wellFormed: false }],
    ['2026-11', null],
    ['2999-12', null],
    ['1900-01', null],
    ['202611', null],
    ['2026-1', null],
    ['2026-11-01', null],
  ])('%s: %j', (text, why) => {
    expect(whyNotAPeriod(text)).toEqual(why);
  });
});
