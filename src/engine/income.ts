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
import { monthOf } from '../domain/calendar.js';
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
  const cs = credits.filter((c) => c.day >= windowStart && c.day <= today).sort((a, b) => a.day - b.day);
  if (cs.length === 0) return noIncome();
  const threshold = incomeThreshold(cs);
  const cands = cs.filter((c) => c.amount >= threshold);
  if (cands.length === 0) return noIncome();
  const from = Math.max(windowStart, cs[0]!.day);
  const last = cands[cands.length - 1]!;

  const scored: Scored[] = [];
  scored.push(scoreDays('monthly_last_business_day', cands, monthlyDays(from, today, (m) => [m.lastBusinessDom]), 0));
  scored.push(scoreDays('twice_monthly', cands, monthlyDays(from, today, (m) => [m.payDom[15]!, m.lastBusinessDom]), 0));
  let bestFixed: Scored | null = null;
  for (let t = 1; t <= 31; t++) {
    const s = scoreDays('monthly_fixed_day', cands, monthlyDays(from, today, (m) => [m.payDom[t]!]), 0);
    s.dayOfMonth = t;
    if (!bestFixed || s.score > bestFixed.score + 1e-9) bestFixed = s;
  }
  scored.push(bestFixed!);
  for (const [pattern, period] of [['fortnightly', 14], ['weekly', 7]] as const) {
    const expected: number[] = [];
    for (let d = last.day; d >= from; d -= period) expected.push(d);
    const s = scoreDays(pattern, cands, expected.reverse(), 1);
    s.anchorDay = last.day;
    scored.push(s);
  }
  // Highest score wins; ties go to the earlier pattern in the list (the more specific name).
  let best = scored[0]!;
  for (const s of scored) if (s.score > best.score + 1e-9) best = s;

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

function monthlyDays(from: number, to: number, domsOf: (m: ReturnType<typeof monthOf>) => number[]): number[] {
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

/** F1 of expected paydays against income candidates, a candidate within ±tolerance days. */
function scoreDays(pattern: IncomePattern, cands: readonly IncomeCredit[], expected: number[], tolerance: number): Scored {
  const matched: IncomeCredit[] = [];
  let hits = 0;
  let j = 0;
  for (const day of expected) {
    while (j < cands.length && cands[j]!.day < day - tolerance) j++;
    if (j < cands.length && cands[j]!.day <= day + tolerance) {
      hits++;
      matched.push(cands[j]!);
      j++;
    }
  }
  const score = expected.length + cands.length === 0 ? 0 : (2 * hits) / (expected.length + cands.length);
  return { pattern, score, matched };
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
