/**
 * The business-day calendar (issue 12): South African public holidays from the Public Holidays
 * Act (Easter by the computus; a holiday on a Sunday makes the Monday one), `none`, imported
 * dates, and where paydays land.
 */
import { describe, expect, it } from 'vitest';
import { calendarOf, easterSunday, monthOf, NO_HOLIDAYS, storedCalendar, ZA_CALENDAR } from '../../src/domain/calendar.js';
import { dayNumber, fromDayNumber } from '../../src/domain/period.js';

const d = dayNumber;
const dates = (days: number[]) => days.map(fromDayNumber);

describe('the South African calendar', () => {
  it('has the holidays of the Act, with a Sunday holiday observed on the Monday', () => {
    expect(ZA_CALENDAR.holidaysOf(2026).map((h) => [h.date, h.name])).toEqual([
      ['2026-01-01', "New Year's Day"],
      ['2026-03-21', 'Human Rights Day'],
      ['2026-04-03', 'Good Friday'],
      ['2026-04-06', 'Family Day'],
      ['2026-04-27', 'Freedom Day'],
      ['2026-05-01', "Workers' Day"],
      ['2026-06-16', 'Youth Day'],
      ['2026-08-09', "National Women's Day"],
      ['2026-08-10', "National Women's Day (observed)"],
      ['2026-09-24', 'Heritage Day'],
      ['2026-12-16', 'Day of Reconciliation'],
      ['2026-12-25', 'Christmas Day'],
      ['2026-12-26', 'Day of Goodwill'],
    ]);
    // 2027: 21 March and 26 December are Sundays; 2022: Christmas on a Sunday, the Monday is
    // already the Day of Goodwill, so the Tuesday is the holiday.
    expect(ZA_CALENDAR.holidaysOf(2027).filter((h) => h.name.endsWith('(observed)')).map((h) => h.date)).toEqual(['2027-03-22', '2027-12-27']);
    expect(ZA_CALENDAR.holidayOn(d('2022-12-27'))?.name).toBe('Christmas Day (observed)');
  });

  it('computes Easter for any year', () => {
    expect(dates([2024, 2025, 2026, 2027, 2038].map(easterSunday))).toEqual(['2024-03-31', '2025-04-20', '2026-04-05', '2027-03-28', '2038-04-25']);
  });

  it('business days: weekdays that are not holidays; none keeps weekends only', () => {
    expect(ZA_CALENDAR.isBusinessDay(d('2026-12-16'))).toBe(false); // Wednesday, Day of Reconciliation
    expect(NO_HOLIDAYS.isBusinessDay(d('2026-12-16'))).toBe(true);
    expect(ZA_CALENDAR.isBusinessDay(d('2026-12-17'))).toBe(true);
    expect(NO_HOLIDAYS.isBusinessDay(d('2026-11-01'))).toBe(false); // Sunday
    expect(fromDayNumber(ZA_CALENDAR.onOrBefore(d('2026-12-27')))).toBe('2026-12-24');
    expect(fromDayNumber(ZA_CALENDAR.onOrAfter(d('2026-12-25')))).toBe('2026-12-28');
  });

  it('a pay due on a day that is not a business day lands on the business day before, in the month before if need be', () => {
    const nov = ZA_CALENDAR.payMonth(monthOf(d('2026-11-10')));
    expect(fromDayNumber(nov.payDay[1]!)).toBe('2026-10-30'); // Sunday 1 November
    expect(fromDayNumber(nov.payDay[15]!)).toBe('2026-11-13');
    expect(fromDayNumber(nov.payDay[31]!)).toBe('2026-11-30'); // the month's last day
    expect(fromDayNumber(nov.lastBusinessDay)).toBe('2026-11-30');
    const dec = ZA_CALENDAR.payMonth(monthOf(d('2026-12-10')));
    expect(dates([dec.payDay[16]!, dec.payDay[25]!, dec.payDay[26]!, dec.lastBusinessDay])).toEqual(['2026-12-15', '2026-12-24', '2026-12-24', '2026-12-31']);
    const jan = ZA_CALENDAR.payMonth(monthOf(d('2027-01-10')));
    expect(fromDayNumber(jan.payDay[1]!)).toBe('2026-12-31'); // New Year's Day, a Friday
    expect(fromDayNumber(NO_HOLIDAYS.payMonth(monthOf(d('2027-01-10'))).payDay[1]!)).toBe('2027-01-01');
  });

  it('imported dates add to the base', () => {
    const cal = calendarOf('none', [{ date: '2026-12-15', name: 'Company day' }]);
    expect(cal.isBusinessDay(d('2026-12-15'))).toBe(false);
    expect(cal.isBusinessDay(d('2026-12-16'))).toBe(true);
    expect(cal.holidaysOf(2026)).toEqual([{ date: '2026-12-15', name: 'Company day', source: 'imported' }]);
    expect(calendarOf('none', [{ date: '2026-12-15', name: 'Company day' }])).toBe(cal);
    const stored = storedCalendar('za', JSON.stringify([['2026-11-02', 'Election day']]));
    expect(fromDayNumber(stored.payMonth(monthOf(d('2026-11-10'))).payDay[1]!)).toBe('2026-10-30');
    expect(stored.isBusinessDay(d('2026-11-02'))).toBe(false);
    expect(stored.label).toBe('za + 1 imported date');
    // An unknown base or unreadable dates read as the default.
    expect(storedCalendar('xx', 'not json')).toBe(ZA_CALENDAR);
  });
});
