/**
 * Day-number calendar facts the bank and the engine ask for millions of times a month: months
 * (`monthOf`: day of month, month length, cached once per month) and business days
 * (`Calendar`: which days are business days, and on which day a pay due on a day of the month
 * lands).
 *
 * A business day is Monday to Friday and not a holiday of the calendar in force:
 *  - `za` (the default): the South African public holidays of the Public Holidays Act 36 of
 *    1994 — New Year's Day (1 Jan), Human Rights Day (21 Mar), Good Friday, Family Day (Easter
 *    Monday), Freedom Day (27 Apr), Workers' Day (1 May), Youth Day (16 Jun), National Women's
 *    Day (9 Aug), Heritage Day (24 Sep), Day of Reconciliation (16 Dec), Christmas Day (25 Dec),
 *    Day of Goodwill (26 Dec); section 2(1): a holiday on a Sunday makes the Monday after it a
 *    holiday (the next day that is not one already: Christmas on a Sunday gives Tuesday 27 Dec).
 *    Easter comes from the Gregorian computus, so any year works.
 *  - `none`: weekends only.
 * and, on top of either, the dates a user imported (`premia calendar import`).
 *
 * A pay due on a day that is not a business day is paid on the business day before it, even
 * when that is in the month before (pay due Sunday 1 November 2026 lands on Friday 30 October).
 */
import { dayNumber, fromDayNumber, isIsoDate, weekday } from './period.js';

export interface MonthInfo {
  /** `YYYY-MM` */
  period: string;
  /** year × 12 + month (0-based): consecutive months have consecutive indexes. */
  index: number;
  firstDay: number;
  lastDay: number;
  daysInMonth: number;
}

const months = new Map<number, MonthInfo>(); // key: year * 12 + month index

function monthKey(day: number): { key: number; year: number; month: number } {
  const d = new Date(day * 86_400_000);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth();
  return { key: year * 12 + month, year, month };
}

// Day number → month, a dense array over 1900-01-01..2099-12-31 (an array read, not a Map).
const DAY_BASE = -25_567; // 1900-01-01
const DAY_SPAN = 73_049;
const dayToMonth: Array<MonthInfo | undefined> = new Array<MonthInfo | undefined>(DAY_SPAN);

/** The month containing a day number. */
export function monthOf(day: number): MonthInfo {
  const slot = day - DAY_BASE;
  let info = slot >= 0 && slot < DAY_SPAN ? dayToMonth[slot] : undefined;
  if (info) return info;
  const { key, year, month } = monthKey(day);
  info = months.get(key);
  if (!info) {
    const first = Math.round(Date.UTC(year, month, 1) / 86_400_000);
    const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
    info = {
      period: fromDayNumber(first).slice(0, 7),
      index: key,
      firstDay: first,
      lastDay: first + daysInMonth - 1,
      daysInMonth,
    };
    months.set(key, info);
  }
  if (slot >= 0 && slot < DAY_SPAN) dayToMonth[slot] = info;
  return info;
}

/** The month of index `index` (year × 12 + month, 0-based: MonthInfo.index). */
export function monthAt(index: number): MonthInfo {
  const year = Math.floor(index / 12);
  return monthOf(Math.round(Date.UTC(year, index - 12 * year, 1) / 86_400_000));
}

// -------------------------------------------------------------------------------------------
// South African public holidays

export const CALENDAR_BASES = ['za', 'none'] as const;
export type CalendarBase = (typeof CALENDAR_BASES)[number];
export const DEFAULT_CALENDAR: CalendarBase = 'za';

export function isCalendarBase(s: unknown): s is CalendarBase {
  return typeof s === 'string' && (CALENDAR_BASES as readonly string[]).includes(s);
}

/** Easter Sunday of a Gregorian year (the anonymous algorithm: Meeus/Jones/Butcher). */
export function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return Math.round(Date.UTC(year, month - 1, day) / 86_400_000);
}

const FIXED_HOLIDAYS: ReadonlyArray<readonly [number, number, string]> = [
  [1, 1, "New Year's Day"],
  [3, 21, 'Human Rights Day'],
  [4, 27, 'Freedom Day'],
  [5, 1, "Workers' Day"],
  [6, 16, 'Youth Day'],
  [8, 9, "National Women's Day"],
  [9, 24, 'Heritage Day'],
  [12, 16, 'Day of Reconciliation'],
  [12, 25, 'Christmas Day'],
  [12, 26, 'Day of Goodwill'],
];

const zaYears = new Map<number, ReadonlyMap<number, string>>();

/** The South African public holidays of a year: day number → name (a Sunday's Monday included). */
export function zaHolidays(year: number): ReadonlyMap<number, string> {
  let map = zaYears.get(year) as Map<number, string> | undefined;
  if (map) return map;
  map = new Map();
  const easter = easterSunday(year);
  const named: Array<[number, string]> = [
    ...FIXED_HOLIDAYS.map(([m, d, name]): [number, string] => [Math.round(Date.UTC(year, m - 1, d) / 86_400_000), name]),
    [easter - 2, 'Good Friday'],
    [easter + 1, 'Family Day'],
  ];
  named.sort((x, y) => x[0] - y[0]);
  for (const [day, name] of named) map.set(day, name);
  for (const [day, name] of named) {
    if (weekday(day) !== 0) continue;
    let monday = day + 1;
    while (map.has(monday)) monday++;
    map.set(monday, `${name} (observed)`);
  }
  zaYears.set(year, map);
  return map;
}

// -------------------------------------------------------------------------------------------
// Calendars

/** Where the paydays of a month land on a calendar. */
export interface PayMonth {
  /** payDay[t], t = 1..31: the day (number) a pay due on day t lands on: the month's day t
   * (its last day when shorter), or the business day before it — possibly in the month before. */
  readonly payDay: Int32Array;
  /** The month's last business day. */
  readonly lastBusinessDay: number;
  /**
   * nthBusinessDay[n], n = 1..NTH_BUSINESS_DAYS: the month's n-th business day (grants and
   * pensions paid on the first business days of the month, moved forward over weekends and
   * holidays).
   */
  readonly nthBusinessDay: Int32Array;
  /**
   * lastWeekday[w], w = 1..5 (Monday..Friday): the month's last day of that weekday, or the
   * business day before it when it is a holiday (pay on the last Friday of the month).
   */
  readonly lastWeekday: Int32Array;
}

/** The business days of a month's start a pay can be read as due on (the 1st to the 5th). */
export const NTH_BUSINESS_DAYS = 5;

/** A holiday of a calendar, for listings. */
export interface Holiday {
  date: string;
  name: string;
  /** `za`: a public holiday of the base calendar; `imported`: a date a user imported. */
  source: 'za' | 'imported';
}

/** A user-imported non-business day. */
export interface ImportedHoliday {
  date: string;
  name: string;
}

/** The months whose paydays a calendar keeps in its dense array: 1900-01 .. 2099-12 (MonthInfo.index). */
const PAY_BASE = 1900 * 12;
const PAY_SPAN = 200 * 12;

/**
 * A business-day calendar: a base (`za` or `none`) and imported dates. Immutable; calendars
 * equal in base and dates are one object (`calendarOf`), and each caches its days and months.
 */
export class Calendar {
  /** Per day of 1900..2099: 0 not computed, 1 business day, 2 not a business day. */
  private readonly flags = new Uint8Array(DAY_SPAN);
  /** Where each month's paydays land, by month index − PAY_BASE (a dense array: read millions of times a month). */
  private readonly pays: Array<PayMonth | null> = new Array<PayMonth | null>(PAY_SPAN).fill(null);
  private readonly importedDays: ReadonlyMap<number, string>;

  constructor(
    readonly base: CalendarBase,
    readonly imported: readonly ImportedHoliday[],
  ) {
    this.importedDays = new Map(imported.map((h) => [dayNumber(h.date), h.name]));
  }

  /** The calendar's name as shown: `za`, `none`, with "+ N imported dates" when there are some. */
  get label(): string {
    return this.imported.length === 0 ? this.base : `${this.base} + ${this.imported.length} imported date${this.imported.length === 1 ? '' : 's'}`;
  }

  /** The holiday on `day` (base or imported), or null (weekends are not holidays). */
  holidayOn(day: number): Holiday | null {
    const imported = this.importedDays.get(day);
    if (imported !== undefined) return { date: fromDayNumber(day), name: imported, source: 'imported' };
    if (this.base === 'za') {
      const name = zaHolidays(new Date(day * 86_400_000).getUTCFullYear()).get(day);
      if (name !== undefined) return { date: fromDayNumber(day), name, source: 'za' };
    }
    return null;
  }

  /** The holidays of a year, in date order (imported ones included). */
  holidaysOf(year: number): Holiday[] {
    const first = Math.round(Date.UTC(year, 0, 1) / 86_400_000);
    const last = Math.round(Date.UTC(year, 11, 31) / 86_400_000);
    const out: Holiday[] = [];
    for (let day = first; day <= last; day++) {
      const h = this.holidayOn(day);
      if (h) out.push(h);
    }
    return out;
  }

  isBusinessDay(day: number): boolean {
    const slot = day - DAY_BASE;
    if (slot < 0 || slot >= DAY_SPAN) return this.compute(day);
    let f = this.flags[slot]!;
    if (f === 0) this.flags[slot] = f = this.compute(day) ? 1 : 2;
    return f === 1;
  }

  private compute(day: number): boolean {
    const w = weekday(day);
    return w !== 0 && w !== 6 && this.holidayOn(day) === null;
  }

  /** The business day on or before `day`. */
  onOrBefore(day: number): number {
    while (!this.isBusinessDay(day)) day--;
    return day;
  }

  /** The business day on or after `day`. */
  onOrAfter(day: number): number {
    while (!this.isBusinessDay(day)) day++;
    return day;
  }

  /** Where the paydays of month `m` land. */
  payMonth(m: MonthInfo): PayMonth {
    const slot = m.index - PAY_BASE;
    let p = slot >= 0 && slot < PAY_SPAN ? this.pays[slot] : null;
    if (p) return p;
    const payDay = new Int32Array(32);
    for (let t = 1; t <= 31; t++) payDay[t] = this.onOrBefore(m.firstDay + Math.min(t, m.daysInMonth) - 1);
    const nthBusinessDay = new Int32Array(NTH_BUSINESS_DAYS + 1);
    for (let n = 1, d = m.firstDay - 1; n <= NTH_BUSINESS_DAYS; n++) nthBusinessDay[n] = d = this.onOrAfter(d + 1);
    const lastWeekday = new Int32Array(6);
    for (let w = 1; w <= 5; w++) lastWeekday[w] = this.onOrBefore(m.lastDay - ((weekday(m.lastDay) - w + 7) % 7));
    p = { payDay, lastBusinessDay: this.onOrBefore(m.lastDay), nthBusinessDay, lastWeekday };
    if (slot >= 0 && slot < PAY_SPAN) this.pays[slot] = p;
    return p;
  }

  /** The day a pay due on day `t` of the month containing `day` lands on. */
  payDayOf(day: number, t: number): number {
    return this.payMonth(monthOf(day)).payDay[t]!;
  }
}

const calendars = new Map<string, Calendar>();

/** The calendar of a base and imported dates (one object per distinct calendar). */
export function calendarOf(base: CalendarBase, imported: readonly ImportedHoliday[] = []): Calendar {
  const sorted = [...imported].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const key = `${base}|${sorted.map((h) => h.date).join(',')}|${sorted.map((h) => h.name).join('\u0001')}`;
  let cal = calendars.get(key);
  if (!cal) {
    if (calendars.size > 64) calendars.clear();
    calendars.set(key, (cal = new Calendar(base, sorted)));
  }
  return cal;
}

/** The South African calendar without imported dates: the default. */
export const ZA_CALENDAR = calendarOf('za');
/** Weekends only. */
export const NO_HOLIDAYS = calendarOf('none');

// -------------------------------------------------------------------------------------------
// The calendar as the store keeps it (meta), read the same way by the engine and the bank

/** The setting that chooses the base (`premia settings set calendar za|none`). */
export const CALENDAR_KEY = 'calendar';
/**
 * Where the imported holidays are kept: JSON `[["YYYY-MM-DD", "name"], …]` in date order
 * (`premia calendar import`).
 */
export const IMPORTED_HOLIDAYS_KEY = 'calendar.holidays';

/** The imported holidays as stored (an unreadable value reads as none). */
export function parseStoredHolidays(stored: string | undefined): ImportedHoliday[] {
  if (stored === undefined) return [];
  try {
    const rows: unknown = JSON.parse(stored);
    if (!Array.isArray(rows)) return [];
    const out: ImportedHoliday[] = [];
    for (const r of rows) {
      if (Array.isArray(r) && isIsoDate(r[0]) && typeof r[1] === 'string') out.push({ date: r[0], name: r[1] });
    }
    return out;
  } catch {
    return [];
  }
}

/** The stored form of imported holidays (in date order). */
export function storedHolidaysText(holidays: readonly ImportedHoliday[]): string {
  const sorted = [...holidays].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return JSON.stringify(sorted.map((h) => [h.date, h.name]));
}

/** The calendar of the stored base (default `za`; an unknown value reads as the default) and holidays. */
export function storedCalendar(base: string | undefined, holidays: string | undefined): Calendar {
  return calendarOf(isCalendarBase(base) ? base : DEFAULT_CALENDAR, parseStoredHolidays(holidays));
}
