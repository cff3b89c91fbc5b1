/**
 * Day-number calendar facts the bank and the engine ask for millions of times a month
 * (day of month, month length, business-day shifts), computed once per month and cached.
 */
import { fromDayNumber, isWeekend } from './period.js';

export interface MonthInfo {
  /** `YYYY-MM` */
  period: string;
  /** year × 12 + month (0-based): consecutive months have consecutive indexes. */
  index: number;
  firstDay: number;
  lastDay: number;
  daysInMonth: number;
  /** payDom[t] for t = 1..31: the day of month a "day t" payment lands on (month-clamped,
   * moved to the business day before when it falls on a weekend). */
  payDom: Int8Array;
  lastBusinessDom: number;
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
    const last = first + daysInMonth - 1;
    const payDom = new Int8Array(32);
    for (let t = 1; t <= 31; t++) {
      let d = first + Math.min(t, daysInMonth) - 1;
      while (isWeekend(d) && d > first) d--;
      // A 1st that falls on a weekend cannot move into the previous month: it moves forward.
      while (isWeekend(d)) d++;
      payDom[t] = d - first + 1;
    }
    let lb = last;
    while (isWeekend(lb)) lb--;
    info = {
      period: fromDayNumber(first).slice(0, 7),
      index: key,
      firstDay: first,
      lastDay: last,
      daysInMonth,
      payDom,
      lastBusinessDom: lb - first + 1,
    };
    months.set(key, info);
  }
  if (slot >= 0 && slot < DAY_SPAN) dayToMonth[slot] = info;
  return info;
}
