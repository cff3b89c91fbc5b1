/**
 * Dates and the South African business-day calendar of the independent books, written from the
 * law (Public Holidays Act 36 of 1994), not from premia's code.
 *
 * Days are whole numbers: days since 1970-01-01 (UTC), so arithmetic is plain integers.
 *
 * Public holidays: New Year's Day (1 Jan), Human Rights Day (21 Mar), Good Friday (Easter − 2),
 * Family Day (Easter + 1), Freedom Day (27 Apr), Workers' Day (1 May), Youth Day (16 Jun),
 * National Women's Day (9 Aug), Heritage Day (24 Sep), Day of Reconciliation (16 Dec),
 * Christmas Day (25 Dec), Day of Goodwill (26 Dec). Section 2(1) of the Act: a public holiday
 * that falls on a Sunday makes the following Monday a public holiday.
 *
 * A business day is Monday to Friday and not a public holiday. Pay due on a day that is not a
 * business day is paid on the business day before it (the common South African payroll rule).
 */

const MS_PER_DAY = 86_400_000;

/** 'YYYY-MM-DD' → day number. */
export function dayOf(iso) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) throw new Error(`not a date: ${iso}`);
  return Date.UTC(+m[1], +m[2] - 1, +m[3]) / MS_PER_DAY;
}

/** year, month (1-12), day → day number (day may overflow the month: Date.UTC normalises). */
export function dayFrom(year, month, day) {
  return Date.UTC(year, month - 1, day) / MS_PER_DAY;
}

const isoCache = new Map();

/** Day number → 'YYYY-MM-DD'. */
export function isoOf(day) {
  let iso = isoCache.get(day);
  if (iso === undefined) isoCache.set(day, (iso = new Date(day * MS_PER_DAY).toISOString().slice(0, 10)));
  return iso;
}

/** Day number → {year, month (1-12), day, weekday (0 Sunday … 6 Saturday)}. */
export function partsOf(day) {
  const d = new Date(day * MS_PER_DAY);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), weekday: d.getUTCDay() };
}

export function weekdayOf(day) {
  return (((day + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday (4)
}

export function daysInMonth(year, month) {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** 'YYYY-MM' → {year, month}. */
export function parsePeriod(period) {
  const m = /^(\d{4})-(\d{2})$/.exec(period);
  if (!m || +m[2] < 1 || +m[2] > 12) throw new Error(`not a period (YYYY-MM): ${period}`);
  return { year: +m[1], month: +m[2] };
}

/** {year, month} shifted by n months. */
export function addMonths({ year, month }, n) {
  const k = year * 12 + (month - 1) + n;
  return { year: Math.floor(k / 12), month: (k % 12) + 1 };
}

export function periodName({ year, month }) {
  return `${year}-${String(month).padStart(2, '0')}`;
}

/** Easter Sunday (Gregorian), the anonymous algorithm (Meeus/Jones/Butcher). */
export function easterSunday(year) {
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
  return dayFrom(year, month, day);
}

const FIXED_HOLIDAYS = [
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

const holidayCache = new Map();

/** The public holidays of a year: Map day number → name (a Sunday's Monday included). */
export function holidaysOf(year) {
  let map = holidayCache.get(year);
  if (map) return map;
  map = new Map();
  const easter = easterSunday(year);
  const named = [
    ...FIXED_HOLIDAYS.map(([m, d, name]) => [dayFrom(year, m, d), name]),
    [easter - 2, 'Good Friday'],
    [easter + 1, 'Family Day'],
  ];
  for (const [day, name] of named) map.set(day, name);
  // Section 2(1): a holiday on a Sunday makes the Monday a holiday (no holiday of the list is
  // ever followed by another on that Monday, except 25/26 Dec: 26 Dec on a Sunday → Monday 27).
  for (const [day, name] of named) {
    if (weekdayOf(day) === 0) {
      let monday = day + 1;
      while (map.has(monday)) monday++;
      map.set(monday, `${name} (observed)`);
    }
  }
  holidayCache.set(year, map);
  return map;
}

export function holidayName(day) {
  return holidaysOf(partsOf(day).year).get(day) ?? null;
}

export function isBusinessDay(day) {
  const w = weekdayOf(day);
  return w !== 0 && w !== 6 && holidayName(day) === null;
}

/** The business day on or before `day`. */
export function businessDayOnOrBefore(day) {
  while (!isBusinessDay(day)) day--;
  return day;
}

/** The business day on or after `day`. */
export function businessDayOnOrAfter(day) {
  while (!isBusinessDay(day)) day++;
  return day;
}

/** Pay due on day `dom` of a month (the month's last day when shorter), on the business day before when not one. */
export function payDate(year, month, dom) {
  return businessDayOnOrBefore(dayFrom(year, month, Math.min(dom, daysInMonth(year, month))));
}

export function lastBusinessDay(year, month) {
  return businessDayOnOrBefore(dayFrom(year, month, daysInMonth(year, month)));
}
