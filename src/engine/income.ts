/**
 * Income analysis: classify a customer's income pattern from the credits posted to their
 * account (and nothing else), and predict the next income dates and amounts.
 *
 * Method: credits at least a third of the size of the customer's larger credits are income
 * candidates. Each regular pattern (monthly on a fixed day, last business day, twice monthly,
 * fortnightly, weekly) is scored by how well its expected paydays and the candidates match
 * (F1 of precision = candidates explained, recall = expected paydays seen). The best pattern
 * scoring at least 0.6 wins; otherwise income is irregular (or there is none).
 */
import { monthOf, type MonthInfo } from '../domain/calendar.js';
import { fromDayNumber } from '../domain/period.js';
import { formatCents } from '../domain/money.js';

export interface IncomeCredit {
  day: number;
  amount: number;
}

export const INCOME_PATTERNS = [
  'monthly_fixed_day',
  'monthly_last_business_day',
  'twice_monthly',
  'fortnightly',
  'weekly',
  'irregular',
  'none',
] as const;
export type IncomePattern = (typeof INCOME_PATTERNS)[number];

export interface IncomeAnalysis {
  pattern: IncomePattern;
  /** 0..1 */
  confidence: number;
  /** Typical income credit, cents. */
  typicalAmount: number;
  /** A credit of at least this many cents counts as income. */
  threshold: number;
  /** monthly_fixed_day: the day of month paid (before the weekend shift). */
  dayOfMonth: number | null;
  /** weekly / fortnightly: a payday the cycle repeats from. */
  anchorDay: number | null;
  /** irregular: mean days between income credits. */
  meanGap: number | null;
  lastIncomeDay: number | null;
  lastIncomeAmount: number;
  /** How many income credits the analysis saw. */
  observed: number;
}

export const MIN_INCOME_CENTS = 1_000;
const MIN_SCORE = 0.6;

interface Scored {
  pattern: IncomePattern;
  score: number;
  matched: IncomeCredit[];
  dayOfMonth?: number;
  anchorDay?: number;
}

export function analyzeIncome(credits: readonly IncomeCredit[], today: number, windowStart: number): IncomeAnalysis {
  const cs: IncomeCredit[] = [];
  let sorted = true;
  for (const c of credits) {
    if (c.day < windowStart || c.day > today) continue;
    if (cs.length > 0 && c.day < cs[cs.length - 1]!.day) sorted = false;
    cs.push(c);
  }
  if (cs.length === 0) return noIncome();
  if (!sorted) cs.sort((a, b) => a.day - b.day);
  const threshold = incomeThreshold(cs);
  const cands: IncomeCredit[] = [];
  for (const c of cs) if (c.amount >= threshold) cands.push(c);
  if (cands.length === 0) return noIncome();
  const from = Math.max(windowStart, cs[0]!.day);
  const last = cands[cands.length - 1]!;

  // The months of the window, and the paydays each monthly pattern expects in them.
  const months: MonthInfo[] = [];
  for (let m = monthOf(from); m.firstDay <= today; m = monthOf(m.lastDay + 1)) months.push(m);
  const inWindow = (d: number) => d >= from && d <= today;

  let best: Scored = scoreMonthly('monthly_last_business_day', cands, months, inWindow, (m) => m.lastBusinessDom, -1);
  const twice = scoreMonthly('twice_monthly', cands, months, inWindow, (m) => m.payDom[15]!, -1, (m) => m.lastBusinessDom);
  if (twice.score > best.score + 1e-9) best = twice;
  // Fixed day t: only days of month the income credits themselves suggest can score (a credit on
  // day d is a hit for t = d, for t = d+1, d+2 moved back from a weekend, for any t ≥ d at a
  // month end, and for t = 1 moved forward from a weekend); all others score 0.
  let mask = 0;
  for (const c of cands) {
    const m = monthOf(c.day);
    const dom = c.day - m.firstDay + 1;
    for (let t = dom; t <= Math.min(31, dom + 2); t++) mask |= 1 << t;
    if (dom >= 26) for (let t = dom; t <= 31; t++) mask |= 1 << t;
    if (dom <= 3) mask |= 1 << 1;
  }
  let bestFixed: Scored | null = null;
  for (let t = 1; t <= 31; t++) {
    if ((mask & (1 << t)) === 0) continue;
    const sc = scoreMonthly('monthly_fixed_day', cands, months, inWindow, (m) => m.payDom[t]!, t);
    if (!bestFixed || sc.score > bestFixed.score + 1e-9) bestFixed = sc;
  }
  if (bestFixed && bestFixed.score > best.score + 1e-9) best = bestFixed;
  for (const [pattern, period] of [['fortnightly', 14], ['weekly', 7]] as const) {
    const sc = scoreCycle(pattern, cands, last.day, from, period);
    if (sc.score > best.score + 1e-9) best = sc;
  }

  if (best.score >= MIN_SCORE && best.matched.length >= 2) {
    return {
      pattern: best.pattern,
      confidence: round2(best.score * Math.min(1, best.matched.length / 3)),
      typicalAmount: median(best.matched.map((c) => c.amount)),
      threshold,
      dayOfMonth: best.dayOfMonth ?? null,
      anchorDay: best.anchorDay ?? null,
      meanGap: null,
      lastIncomeDay: last.day,
      lastIncomeAmount: last.amount,
      observed: cands.length,
    };
  }
  const gap = cands.length >= 2 ? (last.day - cands[0]!.day) / (cands.length - 1) : null;
  return {
    pattern: 'irregular',
    confidence: round2(Math.min(0.6, 0.1 * cands.length)),
    typicalAmount: median(cands.map((c) => c.amount)),
    threshold,
    dayOfMonth: null,
    anchorDay: null,
    meanGap: gap === null ? null : Math.max(1, round2(gap)),
    lastIncomeDay: last.day,
    lastIncomeAmount: last.amount,
    observed: cands.length,
  };
}

function noIncome(): IncomeAnalysis {
  return {
    pattern: 'none',
    confidence: 1,
    typicalAmount: 0,
    threshold: Number.MAX_SAFE_INTEGER,
    dayOfMonth: null,
    anchorDay: null,
    meanGap: null,
    lastIncomeDay: null,
    lastIncomeAmount: 0,
    observed: 0,
  };
}

/** Income candidates: at least a third of the median of the larger third of credits. */
function incomeThreshold(cs: readonly IncomeCredit[]): number {
  const sorted = cs.map((c) => c.amount).sort((a, b) => b - a);
  const top = sorted.slice(0, Math.max(1, Math.ceil(sorted.length / 3)));
  return Math.max(MIN_INCOME_CENTS, Math.round(median(top) / 3));
}

/** Index of the first candidate on or after `day` (candidates in day order). */
function lowerBound(cands: readonly IncomeCredit[], day: number): number {
  let lo = 0;
  let hi = cands.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cands[mid]!.day < day) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * F1 of a monthly pattern: one or two expected paydays per month (day of month given by the
 * functions), against the income candidates (precision: candidates explained; recall: expected
 * paydays seen).
 */
function scoreMonthly(
  pattern: IncomePattern,
  cands: readonly IncomeCredit[],
  months: readonly MonthInfo[],
  inWindow: (day: number) => boolean,
  dom1: (m: MonthInfo) => number,
  dayOfMonth: number,
  dom2?: (m: MonthInfo) => number,
): Scored {
  const matched: IncomeCredit[] = [];
  let expected = 0;
  const visit = (d: number) => {
    if (!inWindow(d)) return;
    expected++;
    const k = lowerBound(cands, d);
    if (k < cands.length && cands[k]!.day === d) matched.push(cands[k]!);
  };
  for (const m of months) {
    const d1 = m.firstDay + dom1(m) - 1;
    const d2 = dom2 ? m.firstDay + dom2(m) - 1 : -1;
    if (d2 < 0 || d2 === d1) visit(d1);
    else if (d2 < d1) {
      visit(d2);
      visit(d1);
    } else {
      visit(d1);
      visit(d2);
    }
  }
  const score = expected + cands.length === 0 ? 0 : (2 * matched.length) / (expected + cands.length);
  const out: Scored = { pattern, score, matched };
  if (dayOfMonth > 0) out.dayOfMonth = dayOfMonth;
  return out;
}

/** F1 of a weekly / fortnightly cycle anchored on the last income credit, ±1 day. */
function scoreCycle(pattern: IncomePattern, cands: readonly IncomeCredit[], lastDay: number, from: number, period: number): Scored {
  const expected: number[] = [];
  for (let d = lastDay; d >= from; d -= period) expected.push(d);
  expected.reverse();
  const matched: IncomeCredit[] = [];
  let j = 0;
  for (const day of expected) {
    while (j < cands.length && cands[j]!.day < day - 1) j++;
    if (j < cands.length && cands[j]!.day <= day + 1) {
      matched.push(cands[j]!);
      j++;
    }
  }
  const score = expected.length + cands.length === 0 ? 0 : (2 * matched.length) / (expected.length + cands.length);
  return { pattern, score, matched, anchorDay: lastDay };
}

function monthlyDays(from: number, to: number, domsOf: (m: MonthInfo) => number[]): number[] {
  const out: number[] = [];
  let m = monthOf(from);
  while (m.firstDay <= to) {
    for (const dom of domsOf(m)) {
      const d = m.firstDay + dom - 1;
      if (d >= from && d <= to && !out.includes(d)) out.push(d);
    }
    m = monthOf(m.lastDay + 1);
  }
  return out.sort((a, b) => a - b);
}

/** Whether `day` is a predicted income day (regular patterns; irregular income has none). */
export function isIncomeDay(a: IncomeAnalysis, day: number): boolean {
  switch (a.pattern) {
    case 'monthly_fixed_day': {
      const m = monthOf(day);
      return day === m.firstDay + m.payDom[a.dayOfMonth!]! - 1;
    }
    case 'monthly_last_business_day': {
      const m = monthOf(day);
      return day === m.firstDay + m.lastBusinessDom - 1;
    }
    case 'twice_monthly': {
      const m = monthOf(day);
      const dom = day - m.firstDay + 1;
      return dom === m.lastBusinessDom || dom === m.payDom[15];
    }
    case 'weekly':
    case 'fortnightly': {
      const period = a.pattern === 'weekly' ? 7 : 14;
      return (((day - a.anchorDay!) % period) + period) % period === 0;
    }
    default:
      return false;
  }
}

/** The latest predicted income day in [from, to], or null (closed form per pattern). */
export function lastIncomeDayIn(a: IncomeAnalysis, from: number, to: number): number | null {
  if (to < from) return null;
  switch (a.pattern) {
    case 'weekly':
    case 'fortnightly': {
      const period = a.pattern === 'weekly' ? 7 : 14;
      const d = to - ((((to - a.anchorDay!) % period) + period) % period);
      return d >= from ? d : null;
    }
    case 'monthly_fixed_day':
    case 'monthly_last_business_day':
    case 'twice_monthly': {
      // At most two paydays a month: look at the month of `to`, then the months before.
      for (let m = monthOf(to); m.lastDay >= from; m = monthOf(m.firstDay - 1)) {
        const late = m.firstDay + (a.pattern === 'monthly_fixed_day' ? m.payDom[a.dayOfMonth!]! : m.lastBusinessDom) - 1;
        if (late <= to && late >= from) return late;
        if (a.pattern === 'twice_monthly') {
          const mid = m.firstDay + m.payDom[15]! - 1;
          if (mid <= to && mid >= from) return mid;
        }
      }
      return null;
    }
    default:
      return null;
  }
}

/** Predicted income days in [from, to], by the pattern. Irregular income has no predictions. */
export function predictIncome(a: IncomeAnalysis, from: number, to: number): number[] {
  switch (a.pattern) {
    case 'monthly_fixed_day':
      return monthlyDays(from, to, (m) => [m.payDom[a.dayOfMonth!]!]);
    case 'monthly_last_business_day':
      return monthlyDays(from, to, (m) => [m.lastBusinessDom]);
    case 'twice_monthly':
      return monthlyDays(from, to, (m) => [m.payDom[15]!, m.lastBusinessDom]);
    case 'weekly':
    case 'fortnightly': {
      const period = a.pattern === 'weekly' ? 7 : 14;
      const out: number[] = [];
      const anchor = a.anchorDay!;
      let d = anchor + Math.ceil((from - anchor) / period) * period;
      for (; d <= to; d += period) out.push(d);
      return out;
    }
    default:
      return [];
  }
}

/** Record an observed income credit (keeps cycle-based predictions anchored on the latest pay). */
export function observeIncome(a: IncomeAnalysis, day: number, amount: number): void {
  a.lastIncomeDay = day;
  a.lastIncomeAmount = amount;
  if (a.pattern === 'weekly' || a.pattern === 'fortnightly') a.anchorDay = day;
}

export function isRegular(a: IncomeAnalysis): boolean {
  return a.pattern !== 'irregular' && a.pattern !== 'none';
}

const PATTERN_TEXT: Record<IncomePattern, string> = {
  monthly_fixed_day: 'monthly salary on a fixed day',
  monthly_last_business_day: 'monthly salary on the last business day',
  twice_monthly: 'pay twice a month (15th and month end)',
  fortnightly: 'fortnightly wages',
  weekly: 'weekly wages',
  irregular: 'irregular income',
  none: 'no income seen',
};

export function describeIncome(a: IncomeAnalysis): string {
  let s = PATTERN_TEXT[a.pattern];
  if (a.pattern === 'monthly_fixed_day') s += ` (day ${a.dayOfMonth}, moved to the Friday before a weekend)`;
  if ((a.pattern === 'weekly' || a.pattern === 'fortnightly') && a.anchorDay !== null) {
    s += ` (last paid ${fromDayNumber(a.anchorDay)})`;
  }
  if (a.pattern === 'irregular' && a.meanGap !== null) s += ` (${a.observed} deposits, about every ${Math.round(a.meanGap)} days)`;
  if (a.pattern !== 'none') s += `, typically ${formatCents(a.typicalAmount)}`;
  return `${s}; confidence ${a.confidence.toFixed(2)}`;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
