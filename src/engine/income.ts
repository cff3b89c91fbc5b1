/**
 * Income analysis: classify a customer's income pattern from the credits posted to their
 * account (and nothing else), and predict the next income dates and amounts.
 *
 * Method: credits at least a third of the size of the customer's larger credits are income
 * candidates. Each regular pattern (monthly on a fixed day, last business day, twice monthly,
 * fortnightly, weekly) is scored by how well its expected paydays and the candidates match
 * (F1 of precision = candidates explained, recall = expected paydays seen). The best pattern
 * scoring at least 0.6 wins; otherwise income is irregular (or there is none).
 *
 * Paydays are read on a business-day calendar (domain/calendar.ts): a pay due on a day that is
 * not a business day is expected on the business day before it, even in the month before (a
 * salary due on the 1st lands on the last business day of the month before when the 1st is a
 * weekend or a holiday); weekly and fortnightly wages due on a holiday come the business day
 * before.
 */
import { monthOf, NTH_BUSINESS_DAYS, type Calendar, type MonthInfo } from '../domain/calendar.js';
import { fromDayNumber, weekday } from '../domain/period.js';
import { formatCents } from '../domain/money.js';
import { plural } from '../domain/words.js';

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
  // After 'none': a pattern's code is its index here, and engine images keep codes.
  'monthly_nth_business_day',
  'monthly_last_weekday',
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
  /**
   * monthly_fixed_day: the day of month paid (before the weekend shift); monthly_nth_business_day:
   * which business day of the month (1 to NTH_BUSINESS_DAYS); monthly_last_weekday: the weekday
   * (1 Monday to 5 Friday); twice_monthly: the second pay's day (25 to 30, before the weekend
   * shift), null for the last business day.
   */
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


export function analyzeIncome(credits: readonly IncomeCredit[], today: number, windowStart: number, cal: Calendar): IncomeAnalysis {
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
  const n = cands.length;
  const score = scoreFor(cal, cands, from, today);

  if (score.regular) {
    // The credits the winner explains.
    const matched: IncomeCredit[] = [];
    for (const k of score.matched) matched.push(cands[k]!);
    const cycle = score.pattern === 'weekly' ? 7 : score.pattern === 'fortnightly' ? 14 : 0;
    const a: IncomeAnalysis = {
      pattern: score.pattern,
      confidence: score.confidence,
      typicalAmount: medianAmount(matched),
      threshold,
      dayOfMonth:
        score.pattern === 'monthly_fixed_day' || score.pattern === 'monthly_nth_business_day' || score.pattern === 'monthly_last_weekday' || (score.pattern === 'twice_monthly' && score.dayOfMonth > 0)
          ? score.dayOfMonth
          : null,
      anchorDay: cycle > 0 ? cycleAnchor(cal, matched, last.day, cycle) : null,
      meanGap: null,
      lastIncomeDay: last.day,
      lastIncomeAmount: last.amount,
      observed: n,
    };
    if (cycle === 0) payMoved(cal, a, cands, from, today);
    return a;
  }
  const gap = n >= 2 ? (last.day - cands[0]!.day) / (n - 1) : null;
  return {
    pattern: 'irregular',
    confidence: round2(Math.min(0.6, 0.1 * n)),
    typicalAmount: medianAmount(cands),
    threshold,
    dayOfMonth: null,
    anchorDay: null,
    meanGap: gap === null ? null : Math.max(1, round2(gap)),
    lastIncomeDay: last.day,
    lastIncomeAmount: last.amount,
    observed: n,
  };
}

/** Days after a payday that brought nothing within which pay that comes is late, not moved. */
const LATE_PAY_DAYS = 7;

/**
 * A monthly pay that has moved (a new job, a new pay run), read the way a collector would, in
 * place on `a` (a monthly pattern the window's credits fit):
 *  - one payday a month: when the last pay came off the pattern's days, more than a week after
 *    the pattern's last payday, which brought nothing, the pay has moved to the day it came on:
 *    the month's last business day when it came on that, else that day of the month (confidence
 *    0.5: one pay to go by);
 *  - twice a month: when one of its two paydays brought nothing on each of its last two dates
 *    while the other brought pay on each of its own, the pay comes once a month, on the other.
 * A pay that comes a few days late (within LATE_PAY_DAYS) changes nothing.
 */
function payMoved(cal: Calendar, a: IncomeAnalysis, cands: readonly IncomeCredit[], from: number, today: number): void {
  const last = cands[cands.length - 1]!.day;
  const paid = (day: number): boolean => {
    for (let k = cands.length - 1; k >= 0 && cands[k]!.day >= day; k--) if (cands[k]!.day === day) return true;
    return false;
  };
  if (a.pattern !== 'twice_monthly') {
    if (isIncomeDay(a, last, cal)) return;
    const expected = lastIncomeDayIn(a, Math.max(from, last - 45), last - 1, cal);
    if (expected === null || last - expected <= LATE_PAY_DAYS) return;
    // Nothing came from the missed payday until the last pay (candidates are in day order).
    if (cands.length >= 2 && cands[cands.length - 2]!.day >= expected) return;
    const m = monthOf(last);
    if (cal.payMonth(m).lastBusinessDay === last) {
      a.pattern = 'monthly_last_business_day';
      a.dayOfMonth = null;
    } else {
      a.pattern = 'monthly_fixed_day';
      a.dayOfMonth = last - m.firstDay + 1;
    }
    a.confidence = Math.min(a.confidence, MOVED_CONFIDENCE);
    a.typicalAmount = cands[cands.length - 1]!.amount;
    return;
  }
  // The last two dates of each of the two paydays, up to today, within the window.
  const mids: number[] = [];
  const ends: number[] = [];
  for (let m = monthOf(today); m.lastDay >= from && (mids.length < 2 || ends.length < 2); m = monthOf(m.firstDay - 1)) {
    if (monthPaydays(cal, a, m) < 2) continue;
    const mid = PAYDAYS[0]!;
    const end = PAYDAYS[1]!;
    if (mid <= today && mid >= from && mids.length < 2) mids.push(mid);
    if (end <= today && end >= from && ends.length < 2) ends.push(end);
  }
  if (mids.length < 2 || ends.length < 2) return;
  // Counted, not mapped to arrays of booleans: each new kind of array map's result met threw
  // this function's optimized code away (three to six times a month, issue 13).
  const midsPaid = Number(paid(mids[0]!)) + Number(paid(mids[1]!));
  const endsPaid = Number(paid(ends[0]!)) + Number(paid(ends[1]!));
  if (midsPaid === 0 && endsPaid === 2) {
    // Pay at the month's end only.
    if (a.dayOfMonth === null) a.pattern = 'monthly_last_business_day';
    else a.pattern = 'monthly_fixed_day';
  } else if (midsPaid === 2 && endsPaid === 0) {
    a.pattern = 'monthly_fixed_day';
    a.dayOfMonth = 15;
  }
}

/** The confidence of a pay read as moved: one pay to time debits to, the least that counts as regular. */
const MOVED_CONFIDENCE = 0.5;

/**
 * Which pattern the income candidates' days fit (the scoring of analyzeIncome): its days alone
 * decide it, with the window's first credit day and today, never the amounts. `matched`: the
 * candidates (indices) the winner explains, in the order found.
 */
interface DayScore {
  regular: boolean;
  pattern: IncomePattern;
  confidence: number;
  dayOfMonth: number;
  matched: readonly number[];
}

/** A scored set of candidate days, kept for the next account whose candidates fall on the same days. */
interface ScoreEntry extends DayScore {
  days: Int32Array;
  from: number;
  today: number;
}

/**
 * The scores of regular patterns already made, by calendar and a hash of (today, from, the
 * candidate days): accounts paid on the same days (most salaries of a book, by pay day) share
 * one scoring instead of each making it again (issue 13: scoring is more than half of an
 * analysis, and a million-policy book's first advance makes 800,000 analyses). Irregular scores
 * are not kept (their days rarely repeat). Bounded: emptied when full.
 */
const scores = new WeakMap<Calendar, Map<number, ScoreEntry>>();
const SCORES_KEPT = 1 << 14;

/**
 * For tests: with `on` false every pattern is scored and nothing is kept, the plain method the
 * shortcuts (scores kept, patterns that cannot win not scored) must agree with to the byte.
 */
export const scoringShortcuts = { on: true };

/** The scoring of `cands` (from `from` to `today`), from those kept when the same days were scored before. */
function scoreFor(cal: Calendar, cands: readonly IncomeCredit[], from: number, today: number): DayScore {
  if (!scoringShortcuts.on) return scoreDays(cal, cands, from, today, false);
  let h = Math.imul(today ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(from, 0xc2b2ae35) ^ cands.length;
  for (const c of cands) h = Math.imul(h ^ c.day, 0x27d4eb2f) + 0x165667b1;
  let kept = scores.get(cal);
  if (kept === undefined) scores.set(cal, (kept = new Map<number, ScoreEntry>()));
  const found = kept.get(h);
  if (found !== undefined && sameDays(found, cands, from, today)) return found;
  const score = scoreDays(cal, cands, from, today, true);
  if (score.regular && found === undefined) {
    if (kept.size >= SCORES_KEPT) kept.clear();
    const days = new Int32Array(cands.length);
    for (let k = 0; k < cands.length; k++) days[k] = cands[k]!.day;
    kept.set(h, { ...score, days, from, today });
  }
  return score;
}

function sameDays(e: ScoreEntry, cands: readonly IncomeCredit[], from: number, today: number): boolean {
  if (e.from !== from || e.today !== today || e.days.length !== cands.length) return false;
  for (let k = 0; k < cands.length; k++) if (e.days[k] !== cands[k]!.day) return false;
  return true;
}

/** Score every pattern on the candidates' days (see the method at the top); `prune`: not those that cannot win. */
function scoreDays(cal: Calendar, cands: readonly IncomeCredit[], from: number, today: number, prune: boolean): DayScore {
  const last = cands[cands.length - 1]!;
  indexCandidates(cands, from, today);

  // The months of the window; each monthly pattern expects one or two paydays in each (the
  // month after today's too: its pay due on the 1st may land in today's month, before today).
  const months: MonthInfo[] = [];
  for (let m = monthOf(from); m.firstDay <= today + 1; m = monthOf(m.lastDay + 1)) months.push(m);
  if (months[months.length - 1]!.lastDay < today + 7) months.push(monthOf(months[months.length - 1]!.lastDay + 1));

  // Scores are F1 = 2·hits / (expected + candidates); the highest wins, ties going to the
  // earlier pattern (last business day, twice monthly, fixed day, fortnightly, weekly). A
  // pattern that cannot reach MIN_SCORE is not scored: it could not win over one that does (F1s
  // are fractions of small integers: never within 1e-9 of each other unless equal), and with
  // none that does the income is irregular whichever scored highest. Many candidates (frequent
  // deposits) rule out the monthly patterns: each expects a payday or two a month of the window.
  const n = cands.length;
  const monthly = !prune || mayReach(Math.min(months.length, n), n);
  let bestPattern: IncomePattern = 'monthly_last_business_day';
  let bestScore = monthly ? monthlyScore(cal, cands, months, from, today, LAST_BUSINESS, 0, -1) : 0;
  let bestT = 0;
  // Fixed day t: only days of month the income credits themselves suggest can score (a credit on
  // day d is a hit for t = d, for t up to d+4 moved back over a weekend and holidays, for any
  // t ≥ d at a month end, and for t = 1 moved back into the month before); all others score 0.
  const twiceMay = !prune || mayReach(Math.min(2 * months.length, n), n);
  let mask = 0;
  let early = false;
  // Weekdays (bit w) a credit in a month's last week came on, or the day after (a Friday holiday
  // moves the pay to the Thursday).
  let lateWeekdays = 0;
  if (twiceMay) {
    for (const c of cands) {
      const m = monthOf(c.day);
      const dom = c.day - m.firstDay + 1;
      if (dom <= EARLY_DAY_LAST) early = true;
      if (c.day > m.lastDay - 7) {
        const w = weekday(c.day);
        lateWeekdays |= (1 << w) | (1 << ((w + 1) % 7));
      }
      for (let t = dom; t <= Math.min(31, dom + 4); t++) mask |= 1 << t;
      if (dom >= 26) {
        for (let t = dom; t <= 31; t++) mask |= 1 << t;
        mask |= 1 << 1;
      }
    }
  }
  const twice = twiceMay ? monthlyScore(cal, cands, months, from, today, MID_MONTH, 0, LAST_BUSINESS) : 0;
  if (twice > bestScore + 1e-9) {
    bestScore = twice;
    bestPattern = 'twice_monthly';
  }
  // Twice a month on the 15th and a fixed day near the month's end (the 25th to the 30th, moved
  // back over weekends and holidays): only where it fits better than the 15th and the last
  // business day (they differ when the 30th is not the month's last business day).
  if (twiceMay) {
    for (let t = TWICE_SECOND_FIRST; t <= TWICE_SECOND_LAST; t++) {
      if ((mask & (1 << t)) === 0) continue;
      const sc = monthlyScore(cal, cands, months, from, today, MID_MONTH, t, FIXED);
      if (sc > bestScore + 1e-9) {
        bestScore = sc;
        bestPattern = 'twice_monthly';
        bestT = t;
      }
    }
  }
  let fixedScore = -1;
  let fixedT = 0;
  // The mask serves the twice-monthly scoring too; a single fixed day is scored only when `monthly`.
  const fixedMask = monthly ? mask : 0;
  for (let t = 1; t <= 31; t++) {
    if ((fixedMask & (1 << t)) === 0) continue;
    const sc = monthlyScore(cal, cands, months, from, today, FIXED, t, -1);
    if (fixedScore < 0 || sc > fixedScore + 1e-9) {
      fixedScore = sc;
      fixedT = t;
    }
  }
  if (fixedScore >= 0 && fixedScore > bestScore + 1e-9) {
    bestScore = fixedScore;
    bestPattern = 'monthly_fixed_day';
    bestT = fixedT;
  }
  // The n-th business day of the month (grants, pensions): only when a credit falls in the
  // month's first days, and only where it fits better than every pattern above (a pay due on the
  // 1st that moves back over a weekend stays a fixed day).
  if (monthly && early) {
    for (let t = 1; t <= NTH_BUSINESS_DAYS; t++) {
      const sc = monthlyScore(cal, cands, months, from, today, NTH_BUSINESS, t, -1);
      if (sc > bestScore + 1e-9) {
        bestScore = sc;
        bestPattern = 'monthly_nth_business_day';
        bestT = t;
      }
    }
  }
  // The last given weekday of the month (pay on the last Friday): only for the weekdays of credits
  // in a month's last week, and only where it fits better than every pattern above (a month whose
  // last business day is a Friday fits both).
  for (let w = 1; monthly && w <= 5; w++) {
    if ((lateWeekdays & (1 << w)) === 0) continue;
    const sc = monthlyScore(cal, cands, months, from, today, LAST_WEEKDAY, w, -1);
    if (sc > bestScore + 1e-9) {
      bestScore = sc;
      bestPattern = 'monthly_last_weekday';
      bestT = w;
    }
  }
  for (const [pattern, period] of CYCLES) {
    const sc = cycleScore(cal, cands, last.day, from, period, null);
    if (sc > bestScore + 1e-9) {
      bestScore = sc;
      bestPattern = pattern;
    }
  }

  // The credits the winner explains (none to find when it is not regular).
  const matched: number[] = [];
  const cycle = bestPattern === 'weekly' ? 7 : bestPattern === 'fortnightly' ? 14 : 0;
  if (prune && bestScore < MIN_SCORE) {
    // irregular: no pattern scores enough
  } else if (cycle > 0) cycleScore(cal, cands, last.day, from, cycle, matched);
  else if (bestPattern === 'twice_monthly') monthlyScore(cal, cands, months, from, today, MID_MONTH, bestT, bestT > 0 ? FIXED : LAST_BUSINESS, matched);
  else if (bestPattern === 'monthly_fixed_day') monthlyScore(cal, cands, months, from, today, FIXED, bestT, -1, matched);
  else if (bestPattern === 'monthly_nth_business_day') monthlyScore(cal, cands, months, from, today, NTH_BUSINESS, bestT, -1, matched);
  else if (bestPattern === 'monthly_last_weekday') monthlyScore(cal, cands, months, from, today, LAST_WEEKDAY, bestT, -1, matched);
  else monthlyScore(cal, cands, months, from, today, LAST_BUSINESS, 0, -1, matched);

  const regular = bestScore >= MIN_SCORE && matched.length >= 2;
  return {
    regular,
    pattern: regular ? bestPattern : 'irregular',
    confidence: regular ? round2(bestScore * Math.min(1, matched.length / 3)) : 0,
    dayOfMonth: bestT,
    matched: regular ? matched : [],
  };
}

const CYCLES: ReadonlyArray<readonly [IncomePattern, number]> = [
  ['fortnightly', 14],
  ['weekly', 7],
];

// Expected payday kinds of monthlyScore.
const LAST_BUSINESS = 1;
const MID_MONTH = 2;
const FIXED = 3;
const NTH_BUSINESS = 4;
const LAST_WEEKDAY = 5;
/** The days of month a twice-monthly pattern's second pay can be fixed on (else the last business day). */
const TWICE_SECOND_FIRST = 25;
const TWICE_SECOND_LAST = 30;
/** The last day of a month its NTH_BUSINESS_DAYS-th business day can fall on (holidays included). */
const EARLY_DAY_LAST = 11;

/**
 * Whether a pattern with at most `hits` hits can score MIN_SCORE against `candidates` candidates:
 * its F1 is at most 2·hits / (hits + candidates), as it expects at least the paydays it hits.
 */
function mayReach(hits: number, candidates: number): boolean {
  return f1(hits, hits, candidates) >= MIN_SCORE - 1e-6;
}

/** F1 of `expected` paydays, `hits` of them with income, against `candidates` income credits. */
function f1(expected: number, hits: number, candidates: number): number {
  const denominator = expected + candidates;
  return denominator === 0 ? 0 : (2 * hits) / denominator;
}

function paydayOf(cal: Calendar, m: MonthInfo, kind: number, t: number): number {
  const p = cal.payMonth(m);
  if (kind === LAST_BUSINESS) return p.lastBusinessDay;
  if (kind === MID_MONTH) return p.payDay[15]!;
  if (kind === NTH_BUSINESS) return p.nthBusinessDay[t]!;
  if (kind === LAST_WEEKDAY) return p.lastWeekday[t]!;
  return p.payDay[t]!;
}

/**
 * F1 of a monthly pattern (one kind of payday a month, or two): its expected paydays in the
 * window against the income candidates, a hit being a candidate on the very day; the matched
 * candidates' indices are collected into `sink` when given.
 */
function monthlyScore(
  cal: Calendar,
  cands: readonly IncomeCredit[],
  months: readonly MonthInfo[],
  from: number,
  today: number,
  kind1: number,
  t: number,
  kind2: number,
  sink?: number[],
): number {
  // visit: 0 not expected (outside the window), 1 expected, 2 expected and hit.
  let expected = 0;
  let hits = 0;
  for (const m of months) {
    const d1 = paydayOf(cal, m, kind1, t);
    const d2 = kind2 > 0 ? paydayOf(cal, m, kind2, t) : -1;
    let v1: number;
    let v2 = 0;
    if (d2 < 0 || d2 === d1) v1 = visit(d1, from, today, sink);
    else if (d2 < d1) {
      v2 = visit(d2, from, today, sink);
      v1 = visit(d1, from, today, sink);
    } else {
      v1 = visit(d1, from, today, sink);
      v2 = visit(d2, from, today, sink);
    }
    expected += (v1 > 0 ? 1 : 0) + (v2 > 0 ? 1 : 0);
    hits += (v1 >> 1) + (v2 >> 1);
  }
  return f1(expected, hits, cands.length);
}

/**
 * The analysis's candidates by day: firstCandidate[d - from] is 1 + the index of the first
 * candidate on day d (0: none), for the days from..today of the analysis being made (a scratch
 * reused by every analysis: the scores look up a day in it instead of searching the candidates).
 */
let firstCandidate = new Int32Array(256);

function indexCandidates(cands: readonly IncomeCredit[], from: number, today: number): void {
  const span = today - from + 1;
  if (firstCandidate.length < span) firstCandidate = new Int32Array(Math.max(span, 2 * firstCandidate.length));
  firstCandidate.fill(0, 0, span);
  for (let k = cands.length - 1; k >= 0; k--) firstCandidate[cands[k]!.day - from] = k + 1;
}

/** Whether payday `d` is expected in the window (0: no; 1: yes, no income that day; 2: yes, with income: its candidate's index added to `sink`). */
function visit(d: number, from: number, today: number, sink?: number[]): number {
  if (d < from || d > today) return 0;
  const k = firstCandidate[d - from]!;
  if (k > 0) {
    sink?.push(k - 1);
    return 2;
  }
  return 1;
}

/**
 * F1 of a weekly / fortnightly cycle anchored on the last income credit, a hit within ±1 day
 * (a wage due on a holiday comes the business day before: within the tolerance but for a run
 * of holidays, which the calendar moves it over).
 */
function cycleScore(cal: Calendar, cands: readonly IncomeCredit[], lastDay: number, from: number, period: number, sink: number[] | null): number {
  let expected = 0;
  let hits = 0;
  let first = lastDay;
  while (first - period >= from) first -= period;
  let j = 0;
  for (let cycleDay = first; cycleDay <= lastDay; cycleDay += period) {
    expected++;
    const day = cal.onOrBefore(cycleDay);
    while (j < cands.length && cands[j]!.day < day - 1) j++;
    if (j < cands.length && cands[j]!.day <= cycleDay + 1) {
      hits++;
      sink?.push(j);
      j++;
    }
  }
  return f1(expected, hits, cands.length);
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
  const n = cs.length;
  const sorted = sortedAmounts(cs);
  return Math.max(MIN_INCOME_CENTS, Math.round(medianOf(sorted, n - Math.max(1, Math.ceil(n / 3)), n) / 3));
}

/**
 * The anchor of a weekly or fortnightly cycle: a day the wage is due on (a holiday's wage comes
 * the business day before). The last credit, unless it came early for a holiday: then the day it
 * was due, on the weekday most of the matched credits came on.
 */
function cycleAnchor(cal: Calendar, matched: readonly IncomeCredit[], lastDay: number, period: number): number {
  const counts = new Array<number>(period).fill(0);
  for (const c of matched) counts[((c.day % period) + period) % period]!++;
  let best = ((lastDay % period) + period) % period;
  for (let r = 0; r < period; r++) if (counts[r]! > counts[best]!) best = r;
  const due = lastDay + ((best - lastDay) % period + period) % period;
  return due !== lastDay && due - lastDay <= 4 && cal.onOrBefore(due) === lastDay ? due : lastDay;
}

/**
 * A weekly or fortnightly cycle's anchor after income on `day`: the cycle's due day that income
 * belongs to (on its day, paid early for a holiday, or up to three days late); income off the
 * cycle leaves the anchor as it was (the next month-end analysis reads the cycle again).
 */
export function reanchor(cal: Calendar, anchor: number, period: number, day: number): number {
  const next = day + ((((anchor - day) % period) + period) % period); // the first due day on or after `day`
  if (next === day || cal.onOrBefore(next) === day) return next;
  const prev = next - period;
  return day - prev <= 3 ? prev : anchor;
}

/** The day the wage of cycle day `due` is paid: the business day on or before it. */
function cyclePayDay(cal: Calendar, due: number): number {
  return cal.onOrBefore(due);
}

/** The first cycle day on or after `day`. */
function cycleDayFrom(anchor: number, period: number, day: number): number {
  return day + ((((anchor - day) % period) + period) % period);
}

/** monthPaydays' answer: PAYDAYS[0..n), ascending. */
const PAYDAYS = new Int32Array(2);

/**
 * How many monthly paydays a pattern expects for month m, the days (day numbers, ascending) in
 * PAYDAYS: no array made or emptied per call (the planning asks this for every customer, every
 * day).
 */
function monthPaydays(cal: Calendar, a: IncomeAnalysis, m: MonthInfo): number {
  const p = cal.payMonth(m);
  switch (a.pattern) {
    case 'monthly_fixed_day':
      PAYDAYS[0] = p.payDay[a.dayOfMonth!]!;
      return 1;
    case 'monthly_last_business_day':
      PAYDAYS[0] = p.lastBusinessDay;
      return 1;
    case 'monthly_nth_business_day':
      PAYDAYS[0] = p.nthBusinessDay[a.dayOfMonth!]!;
      return 1;
    case 'monthly_last_weekday':
      PAYDAYS[0] = p.lastWeekday[a.dayOfMonth!]!;
      return 1;
    case 'twice_monthly': {
      const mid = p.payDay[15]!;
      const second = a.dayOfMonth === null ? p.lastBusinessDay : p.payDay[a.dayOfMonth]!;
      let n = 0;
      if (mid < second) PAYDAYS[n++] = mid;
      PAYDAYS[n++] = second;
      return n;
    }
    default:
      return 0;
  }
}

/** Whether `day` is a predicted income day (regular patterns; irregular income has none). */
export function isIncomeDay(a: IncomeAnalysis, day: number, cal: Calendar): boolean {
  switch (a.pattern) {
    case 'monthly_fixed_day':
    case 'monthly_last_business_day':
    case 'monthly_nth_business_day':
    case 'monthly_last_weekday':
    case 'twice_monthly': {
      const m = monthOf(day);
      for (let j = monthPaydays(cal, a, m) - 1; j >= 0; j--) if (PAYDAYS[j] === day) return true;
      // A pay due early next month may land on this month's last business days.
      if (a.pattern === 'monthly_fixed_day' && day >= m.lastDay - 6) return cal.payMonth(monthOf(m.lastDay + 1)).payDay[a.dayOfMonth!] === day;
      return false;
    }
    case 'weekly':
    case 'fortnightly': {
      const period = a.pattern === 'weekly' ? 7 : 14;
      if (!cal.isBusinessDay(day)) return false;
      return cyclePayDay(cal, cycleDayFrom(a.anchorDay!, period, day)) === day;
    }
    default:
      return false;
  }
}

/** The latest predicted income day in [from, to], or null. */
export function lastIncomeDayIn(a: IncomeAnalysis, from: number, to: number, cal: Calendar): number | null {
  if (to < from) return null;
  switch (a.pattern) {
    case 'weekly':
    case 'fortnightly': {
      const period = a.pattern === 'weekly' ? 7 : 14;
      let due = cycleDayFrom(a.anchorDay!, period, to);
      let pay = cyclePayDay(cal, due);
      if (pay > to) {
        due -= period;
        pay = cyclePayDay(cal, due);
      }
      return pay >= from ? pay : null;
    }
    case 'monthly_fixed_day':
    case 'monthly_last_business_day':
    case 'monthly_nth_business_day':
    case 'monthly_last_weekday':
    case 'twice_monthly': {
      // The month after `to` (its 1st may land before `to`), then `to`'s month and the ones before.
      let best: number | null = null;
      for (let m = monthOf(monthOf(to).lastDay + 1); m.lastDay >= from - 7; m = monthOf(m.firstDay - 1)) {
        for (let j = monthPaydays(cal, a, m) - 1; j >= 0; j--) {
          const d = PAYDAYS[j]!;
          if (d >= from && d <= to && (best === null || d > best)) best = d;
        }
        if (best !== null && m.lastDay < best) break;
      }
      return best;
    }
    default:
      return null;
  }
}

/** Predicted income days in [from, to], by the pattern. Irregular income has no predictions. */
export function predictIncome(a: IncomeAnalysis, from: number, to: number, cal: Calendar): number[] {
  const out: number[] = [];
  switch (a.pattern) {
    case 'monthly_fixed_day':
    case 'monthly_last_business_day':
    case 'monthly_nth_business_day':
    case 'monthly_last_weekday':
    case 'twice_monthly': {
      for (let m = monthOf(from); m.firstDay <= to + 7; m = monthOf(m.lastDay + 1)) {
        const n = monthPaydays(cal, a, m);
        for (let j = 0; j < n; j++) {
          const d = PAYDAYS[j]!;
          if (d >= from && d <= to && !out.includes(d)) out.push(d);
        }
      }
      return out.sort((x, y) => x - y);
    }
    case 'weekly':
    case 'fortnightly': {
      const period = a.pattern === 'weekly' ? 7 : 14;
      for (let due = cycleDayFrom(a.anchorDay!, period, from); ; due += period) {
        const pay = cyclePayDay(cal, due);
        if (pay > to) break;
        if (pay >= from) out.push(pay);
      }
      return out;
    }
    default:
      return out;
  }
}

export function isRegular(a: IncomeAnalysis): boolean {
  return a.pattern !== 'irregular' && a.pattern !== 'none';
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const PATTERN_TEXT: Record<IncomePattern, string> = {
  monthly_fixed_day: 'monthly salary on a fixed day',
  monthly_last_business_day: 'monthly salary on the last business day',
  monthly_nth_business_day: 'monthly pay on a business day of the month',
  monthly_last_weekday: 'monthly pay on a weekday at the end of the month',
  twice_monthly: 'pay twice a month',
  fortnightly: 'fortnightly wages',
  weekly: 'weekly wages',
  irregular: 'irregular income',
  none: 'no income seen',
};

export function describeIncome(a: IncomeAnalysis): string {
  let s = PATTERN_TEXT[a.pattern];
  if (a.pattern === 'monthly_fixed_day') s += ` (day ${a.dayOfMonth}, moved to the business day before on weekends and holidays)`;
  if (a.pattern === 'twice_monthly') s += a.dayOfMonth === null ? ' (15th and month end)' : ` (15th and ${a.dayOfMonth}th, moved to the business day before on weekends and holidays)`;
  if (a.pattern === 'monthly_last_weekday') s += ` (the month's last ${WEEKDAYS[a.dayOfMonth!]}, moved to the business day before on holidays)`;
  if (a.pattern === 'monthly_nth_business_day') s += ` (business day ${a.dayOfMonth}: weekends and holidays move it later)`;
  if ((a.pattern === 'weekly' || a.pattern === 'fortnightly') && a.anchorDay !== null) {
    s += ` (last paid ${fromDayNumber(a.anchorDay)})`;
  }
  if (a.pattern === 'irregular' && a.meanGap !== null) s += ` (${plural(a.observed, 'deposit')}, about every ${plural(Math.round(a.meanGap), 'day')})`;
  if (a.pattern !== 'none') s += `, typically ${formatCents(a.typicalAmount)}`;
  return `${s}; confidence ${a.confidence.toFixed(2)}`;
}

/** Scratch of sortedAmounts (the analysis runs for every account a month: no arrays per call). */
let amounts = new Float64Array(128);

/** The amounts of `credits` sorted ascending, in amounts[0 .. length - 1] of a scratch buffer valid until the next call. */
function sortedAmounts(credits: readonly IncomeCredit[]): Float64Array {
  const n = credits.length;
  if (amounts.length < n) amounts = new Float64Array(Math.max(n, 2 * amounts.length));
  if (n > 16) {
    // Frequent deposits (up to one or two a day): the typed array's own numeric sort.
    for (let i = 0; i < n; i++) amounts[i] = credits[i]!.amount;
    amounts.subarray(0, n).sort();
    return amounts;
  }
  // Insertion sort: a monthly or weekly earner's window holds a few credits.
  for (let i = 0; i < n; i++) {
    const x = credits[i]!.amount;
    let j = i;
    for (; j > 0 && amounts[j - 1]! > x; j--) amounts[j] = amounts[j - 1]!;
    amounts[j] = x;
  }
  return amounts;
}

/** The median of sorted[from .. to - 1] (ascending); 0 when empty. */
function medianOf(sorted: Float64Array, from: number, to: number): number {
  const length = to - from;
  if (length <= 0) return 0;
  const mid = from + (length >> 1);
  return length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

function medianAmount(credits: readonly IncomeCredit[]): number {
  return medianOf(sortedAmounts(credits), 0, credits.length);
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
