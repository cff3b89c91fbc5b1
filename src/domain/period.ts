/**
 * Periods (`YYYY-MM`), dates (`YYYY-MM-DD`) and day arithmetic. Pure: "today" is always passed
 * in, never read from the system clock. Internally a date is a day number (days since
 * 1970-01-01, UTC), which makes ranges and differences plain integer arithmetic.
 */

export type Period = string; // YYYY-MM
export type IsoDate = string; // YYYY-MM-DD

const PERIOD_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

/**
 * The years premia accepts in a date or a period, and so the first and last date it takes. Every
 * date and month premia reads is checked against them, so a message about one outside them
 * names them (whyNotADate) rather than the format, which the date meets.
 */
const FIRST_YEAR = 1900;
const LAST_YEAR = 2999;
const FIRST_DATE: IsoDate = `${FIRST_YEAR}-01-01`;
const LAST_DATE: IsoDate = `${LAST_YEAR}-12-31`;

export function isPeriod(s: unknown): s is Period {
  return typeof s === 'string' && PERIOD_RE.test(s) && s >= `${FIRST_YEAR}-01` && s <= `${LAST_YEAR}-12`;
}

export function isIsoDate(s: unknown): s is IsoDate {
  if (typeof s !== 'string') return false;
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (y < FIRST_YEAR || y > LAST_YEAR || mo < 1 || mo > 12 || d < 1) return false;
  return d <= daysInMonth(y, mo);
}

/**
 * Why `text` (not a valid date by isIsoDate) is not one, as a phrase after it: the one wording of
 * every date premia reads (options, request fields, the rows of a file). `wellFormed` when it is
 * written YYYY-MM-DD with a real month but is no date premia takes: outside FIRST_DATE..LAST_DATE
 * (3000-01-01), or no day of the calendar (2026-02-30); a caller then names the value, not the
 * format it already has.
 */
export function whyNotADate(text: string): { phrase: string; wellFormed: boolean } {
  const m = DATE_RE.exec(text);
  if (!m) return { phrase: `is not a date written YYYY-MM-DD${dateFormatHint(text)}`, wellFormed: false };
  const y = Number(m[1]);
  const mo = Number(m[2]);
  if (y < FIRST_YEAR) return { phrase: `is before ${FIRST_DATE}, the first date premia accepts`, wellFormed: true };
  if (y > LAST_YEAR) return { phrase: `is after ${LAST_DATE}, the last date premia accepts`, wellFormed: true };
  if (mo < 1 || mo > 12) return { phrase: `is not a date: there is no month ${m[2]}`, wellFormed: false };
  return { phrase: `is not a day of the calendar: ${m[1]}-${m[2]} has ${daysInMonth(y, mo)} days`, wellFormed: true };
}

/**
 * What a date not written YYYY-MM-DD looks like, for the forms other tools write (a time of day
 * after it, slashes or dots, the day or month first): a parenthesis to add, or ''. A date with
 * the day or month first is not read either way: 01/11/2026 is 1 November or 11 January.
 */
export function dateFormatHint(text: string): string {
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}/.test(text)) return ` (it has a time of day; write the date alone, ${text.slice(0, 10)})`;
  const ymd = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$/.exec(text);
  if (ymd) return ` (it is written with '${text[4]}'; write it ${ymd[1]}-${ymd[2]!.padStart(2, '0')}-${ymd[3]!.padStart(2, '0')})`;
  const y4 = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  if (y4) return ` (write the month and day with two digits each: ${y4[1]}-${y4[2]!.padStart(2, '0')}-${y4[3]!.padStart(2, '0')})`;
  if (/^\d{1,2}[/.-]\d{1,2}[/.-]\d{4}$/.test(text)) return ' (the day or month comes first, which can be read two ways; write the year first)';
  // A spreadsheet that saved a date column as numbers writes its serial day count (46328, or
  // 46328.5 with a time of day); in Excel's 1900 date system day n is 1899-12-30 plus n days.
  if (/^\d{5}(\.\d+)?$/.test(text)) {
    const day = new Date(Date.UTC(1899, 11, 30) + Math.floor(Number(text)) * 86_400_000).toISOString().slice(0, 10);
    return ` (a spreadsheet's serial day number, ${day} in Excel's 1900 date system; format the column as dates written YYYY-MM-DD)`;
  }
  return '';
}

/**
 * Why `text` (not a period by isPeriod) is not one, as a phrase after it, when it is shaped
 * YYYY-MM (four digits, a dash, two): no such month (2026-13, 2026-00), or a real month outside
 * FIRST_YEAR..LAST_YEAR. `wellFormed` when the month is real and only the year is out of range.
 * Null when it is not shaped so (the caller words the format): a message about 2026-13 names the
 * month, not the format it already has, as whyNotADate does for 2026-13-01.
 */
export function whyNotAPeriod(text: string): { phrase: string; wellFormed: boolean } | null {
  const m = /^(\d{4})-(\d{2})$/.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  if (month < 1 || month > 12) return { phrase: `is not a month: there is no month ${m[2]}`, wellFormed: false };
  if (year < FIRST_YEAR) return { phrase: `is before ${FIRST_YEAR}-01, the first month premia accepts`, wellFormed: true };
  if (year > LAST_YEAR) return { phrase: `is after ${LAST_YEAR}-12, the last month premia accepts`, wellFormed: true };
  return null;
}

/** What a month not written YYYY-MM looks like, for the forms other tools write (as dateFormatHint for dates), or null. */
export function periodFormatHint(text: string): string | null {
  const ym = /^(\d{4})[/.-](\d{1,2})$/.exec(text);
  if (ym && Number(ym[2]) >= 1 && Number(ym[2]) <= 12) return `write it ${ym[1]}-${ym[2]!.padStart(2, '0')}`;
  const my = /^(\d{1,2})[/.-](\d{4})$/.exec(text);
  if (my && Number(my[1]) >= 1 && Number(my[1]) <= 12) return `the month comes first; write the year first: ${my[2]}-${my[1]!.padStart(2, '0')}`;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text) && isPeriod(text.slice(0, 7))) return `it is a day; the month is ${text.slice(0, 7)}`;
  return null;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Days since 1970-01-01 of a valid ISO date. */
export function dayNumber(date: IsoDate): number {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  const d = Number(date.slice(8, 10));
  return Math.round(Date.UTC(y, m - 1, d) / MS_PER_DAY);
}

const DATE_CACHE = new Map<number, IsoDate>();

/** The ISO date of a day number. Cached: the engine formats the same few hundred days often. */
export function fromDayNumber(day: number): IsoDate {
  let s = DATE_CACHE.get(day);
  if (s === undefined) {
    s = new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
    if (DATE_CACHE.size < 100_000) DATE_CACHE.set(day, s);
  }
  return s;
}

export function addDays(date: IsoDate, days: number): IsoDate {
  return fromDayNumber(dayNumber(date) + days);
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(date: IsoDate | number): number {
  const day = typeof date === 'number' ? date : dayNumber(date);
  return (((day + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
}

export function isWeekend(date: IsoDate | number): boolean {
  const w = weekday(date);
  return w === 0 || w === 6;
}

export function periodOf(date: IsoDate): Period {
  return date.slice(0, 7);
}

export function firstDay(period: Period): IsoDate {
  return `${period}-01`;
}

export function lastDay(period: Period): IsoDate {
  const y = Number(period.slice(0, 4));
  const m = Number(period.slice(5, 7));
  return `${period}-${String(daysInMonth(y, m)).padStart(2, '0')}`;
}

export function nextPeriod(period: Period): Period {
  return shiftPeriod(period, 1);
}

export function previousPeriod(period: Period): Period {
  return shiftPeriod(period, -1);
}

export function shiftPeriod(period: Period, months: number): Period {
  const y = Number(period.slice(0, 4));
  const m = Number(period.slice(5, 7)) - 1 + months;
  const year = y + Math.floor(m / 12);
  const month = ((m % 12) + 12) % 12 + 1;
  return `${year}-${String(month).padStart(2, '0')}`;
}

/** Number of months from a to b (b − a); 0 when equal. */
export function monthsBetween(a: Period, b: Period): number {
  return (Number(b.slice(0, 4)) - Number(a.slice(0, 4))) * 12 + (Number(b.slice(5, 7)) - Number(a.slice(5, 7)));
}

/**
 * The first period still open when the clock is at `today` (the last day whose business has
 * run): a period is closed once its last day has run.
 */
export function firstOpenPeriod(today: IsoDate): Period {
  return periodOf(addDays(today, 1));
}

/** The last weekday (Mon–Fri) of a period. Public holidays are not modelled. */
export function lastBusinessDay(period: Period): IsoDate {
  return previousBusinessDayOnOrBefore(lastDay(period));
}

/** The date itself when it is a weekday, else the Friday before. */
export function previousBusinessDayOnOrBefore(date: IsoDate): IsoDate {
  let d = dayNumber(date);
  while (isWeekend(d)) d--;
  return fromDayNumber(d);
}

/** A period's date for a day of the month, clamped to the month's length (31 → 30 Nov). */
export function dateInPeriod(period: Period, dayOfMonth: number): IsoDate {
  const y = Number(period.slice(0, 4));
  const m = Number(period.slice(5, 7));
  const d = Math.min(Math.max(1, dayOfMonth), daysInMonth(y, m));
  return `${period}-${String(d).padStart(2, '0')}`;
}

/** An ISO 8601 UTC timestamp with milliseconds, for a date and a time of day in ms. */
export function timestampOn(date: IsoDate, msOfDay: number): string {
  return new Date(dayNumber(date) * MS_PER_DAY + (msOfDay % MS_PER_DAY)).toISOString();
}

/** A day-number column's "no day" (the engine's columns, the day rows it hands the store). */
export const NO_DAY = -0x7fffffff;
