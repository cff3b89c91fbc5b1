/**
 * The engine's summary of each account's posted history (what a collector would keep of the
 * bank's statements): the income analysis, the last two credit days, and the usual outgoings
 * after payday. Kept column-wise (a working set of a million customers is a few typed arrays)
 * and updated from the facts the bank reports of each day an account lives (`endOfDay`), so the
 * bank knows nothing of it.
 *
 * The summary is a canonical function of the clock date D, whichever way the days were lived
 * (one long advance, day by day, or a resume after a crash), so the engine plans the same
 * debits either way:
 *  - the income analysis is the analysis of the posted credits up to the last month end E ≤ D,
 *    updated by the income observed on the days after E;
 *  - the last two credit days and the last own debit day are those of the window (the current
 *    month and the two before it);
 *  - the usual outgoings after payday are averaged over exactly the current month and the two
 *    before it (a ring of three month buckets); a "payday" for these statistics is a day whose
 *    credits reach a third of the largest credit of its month so far, and only days after a
 *    payday of the same month count. So the statistics depend only on days inside the window
 *    (a replay from a snapshot before it sees them all) and need no income analysis: a replay
 *    analyses once, at E.
 */
import { monthOf, type Calendar, type MonthInfo } from '../domain/calendar.js';
import { analyzeIncome, INCOME_PATTERNS, isIncomeDay, lastIncomeDayIn, MIN_INCOME_CENTS, reanchor, type IncomeAnalysis, type IncomePattern } from './income.js';
import type { BankAccounts, PostedDay, PostedDays, PostedHistory } from './ports.js';
import type { AccountFacts, CustomerView } from './strategy.js';

/** Income history the analysis reads. */
export const ANALYSIS_WINDOW_DAYS = 120;

const NO_DAY = -0x7fffffff;
const BUCKETS = 3;
const INT32_MAX = 0x7fffffff;
const SUMS = 5; // per bucket: posted debits on payday + 0..3, and on all days
const PATTERN_CODES: Record<IncomePattern, number> = Object.fromEntries(INCOME_PATTERNS.map((p, i) => [p, i])) as Record<IncomePattern, number>;

/** The first day of the outgoings window of the summary at `today` (two months back). */
export function summaryWindowStart(today: number): number {
  const m = monthOf(today);
  return monthOf(monthOf(m.firstDay - 1).firstDay - 1).firstDay;
}

/**
 * The day the income analysis of the summary at `today` is made as of: the last month end on or
 * before it (today itself on a month's last day: the analysis is then due again, as of today).
 */
export function analysisDay(today: number): number {
  const m = monthOf(today);
  return today === m.lastDay ? today : m.firstDay - 1;
}

/** A per-account column of the summaries: account i's values are data[i*stride .. (i+1)*stride-1]. */
export interface SummaryColumn {
  readonly name: string;
  readonly data: Int8Array | Uint8Array | Int16Array | Int32Array | Float64Array;
  readonly stride: number;
}

export class AccountSummaries {
  // the last two credit days, the statistics payday and the month's largest credit
  private readonly c1Day: Int32Array;
  private readonly c2Day: Int32Array;
  private readonly c1Amount: Float64Array;
  private readonly c2Amount: Float64Array;
  private readonly payday: Int32Array;
  private readonly monthMax: Float64Array;
  // the last day any of the account's own debits posted
  private readonly debitDay: Int32Array;
  // the outgoing statistics: BUCKETS × SUMS sums (integer cents, saturating) and day counts
  private readonly sums: Int32Array;
  private readonly counts: Uint8Array;
  // the income analysis (aStarted: 1 current, 2 due again as of aDueDay)
  private readonly aStarted: Uint8Array;
  private readonly aDueDay: Int32Array;
  private readonly aPattern: Uint8Array;
  /** confidence × 100 (the analysis rounds it to two decimals). */
  private readonly aConfidence: Int16Array;
  private readonly aTypical: Float64Array;
  private readonly aThreshold: Float64Array;
  private readonly aDom: Int8Array;
  private readonly aAnchor: Int32Array;
  /** mean gap × 100 (rounded to two decimals), -1 when none. */
  private readonly aGap: Int32Array;
  private readonly aLastDay: Int32Array;
  private readonly aLastAmount: Float64Array;
  private readonly aObserved: Int32Array;
  /** Scratch of the prediction reads (filled per call: nothing is allocated per account). */
  private readonly forecast = {} as IncomeAnalysis;
  /** Scratch of endOfDays. */
  private readonly dayFacts: PostedDay = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
  private readonly capacity: number;

  /**
   * Summaries of `capacity` accounts that have seen nothing yet, their income analysis due as of
   * `analysedAsOf` (the last month end on or before the clock's date: `analysisDay`), paydays read on
   * the business-day calendar `calendar`.
   */
  constructor(
    capacity: number,
    analysedAsOf: number,
    readonly calendar: Calendar,
  ) {
    const c = Math.max(1, capacity);
    this.capacity = c;
    this.c1Day = new Int32Array(c).fill(NO_DAY);
    this.c2Day = new Int32Array(c).fill(NO_DAY);
    this.c1Amount = new Float64Array(c);
    this.c2Amount = new Float64Array(c);
    this.payday = new Int32Array(c).fill(NO_DAY);
    this.monthMax = new Float64Array(c);
    this.debitDay = new Int32Array(c).fill(NO_DAY);
    this.sums = new Int32Array(c * BUCKETS * SUMS);
    this.counts = new Uint8Array(c * BUCKETS * SUMS);
    this.aStarted = new Uint8Array(c).fill(2);
    this.aDueDay = new Int32Array(c).fill(analysedAsOf);
    this.aPattern = new Uint8Array(c);
    this.aConfidence = new Int16Array(c);
    this.aTypical = new Float64Array(c);
    this.aThreshold = new Float64Array(c);
    this.aDom = new Int8Array(c);
    this.aAnchor = new Int32Array(c);
    this.aGap = new Int32Array(c);
    this.aLastDay = new Int32Array(c);
    this.aLastAmount = new Float64Array(c);
    this.aObserved = new Int32Array(c);
  }

  /**
   * Every per-account field, as columns (all the typed arrays of this object, by name): what an
   * account's summary is, for keeping it between advances (engine/resume.ts). A field added to
   * the class is kept with no other change (and a changed layout is not read back).
   */
  columns(): SummaryColumn[] {
    const out: SummaryColumn[] = [];
    for (const [name, value] of Object.entries(this) as Array<[string, unknown]>) {
      if (!ArrayBuffer.isView(value) || value instanceof DataView) continue;
      const data = value as SummaryColumn['data'];
      // Every typed array here is per account (scratch that is not belongs in a plain array).
      if (data.length % this.capacity !== 0) throw new Error(`AccountSummaries.${name} is not a per-account column`);
      out.push({ name, data, stride: data.length / this.capacity });
    }
    return out;
  }

  /** Analyse account i's posted credits of the window ending on `day`. */
  private startAnalysis(history: PostedHistory, i: number, day: number): void {
    const windowStart = day - ANALYSIS_WINDOW_DAYS + 1;
    const a = analyzeIncome(history.credits(i, windowStart, day), day, windowStart, this.calendar);
    this.aStarted[i] = 1;
    this.aPattern[i] = PATTERN_CODES[a.pattern];
    this.aConfidence[i] = Math.round(a.confidence * 100);
    this.aTypical[i] = a.typicalAmount;
    this.aThreshold[i] = a.threshold;
    this.aDom[i] = a.dayOfMonth ?? 0;
    this.aAnchor[i] = a.anchorDay ?? NO_DAY;
    this.aGap[i] = a.meanGap === null ? -1 : Math.round(a.meanGap * 100);
    this.aLastDay[i] = a.lastIncomeDay ?? NO_DAY;
    this.aLastAmount[i] = a.lastIncomeAmount;
    this.aObserved[i] = a.observed;
  }

  /**
   * Make the analysis of account i current. A month end marks it due again as of that day
   * rather than analysing at once: a month that ends an advance, or an account that leaves the
   * working set, never pays for an analysis nobody reads (the result is the same whenever it
   * is made: it reads the credits up to that day only).
   */
  private ensureAnalysis(history: PostedHistory, i: number): void {
    if (this.aStarted[i] !== 1) this.startAnalysis(history, i, this.aDueDay[i]!);
  }

  /** The income analysis of account i, written into `into`. */
  analysis(history: PostedHistory, i: number, into: IncomeAnalysis): IncomeAnalysis {
    this.ensureAnalysis(history, i);
    const a = into;
    a.pattern = INCOME_PATTERNS[this.aPattern[i]!]!;
    a.confidence = this.aConfidence[i]! / 100;
    a.typicalAmount = this.aTypical[i]!;
    a.threshold = this.aThreshold[i]!;
    a.dayOfMonth = this.aDom[i] === 0 ? null : this.aDom[i]!;
    a.anchorDay = this.aAnchor[i] === NO_DAY ? null : this.aAnchor[i]!;
    a.meanGap = this.aGap[i]! < 0 ? null : this.aGap[i]! / 100;
    a.lastIncomeDay = this.aLastDay[i] === NO_DAY ? null : this.aLastDay[i]!;
    a.lastIncomeAmount = this.aLastAmount[i]!;
    a.observed = this.aObserved[i]!;
    return a;
  }

  /** The predicting part of the analysis (pattern, confidence, day of month, anchor) of account i, into the scratch forecast. */
  private forecastOf(history: PostedHistory, i: number): IncomeAnalysis {
    this.ensureAnalysis(history, i);
    const a = this.forecast;
    a.pattern = INCOME_PATTERNS[this.aPattern[i]!]!;
    a.confidence = this.aConfidence[i]! / 100;
    a.dayOfMonth = this.aDom[i] === 0 ? null : this.aDom[i]!;
    a.anchorDay = this.aAnchor[i] === NO_DAY ? null : this.aAnchor[i]!;
    return a;
  }

  incomePattern(history: PostedHistory, i: number): IncomePattern {
    this.ensureAnalysis(history, i);
    return INCOME_PATTERNS[this.aPattern[i]!]!;
  }

  incomeConfidence(history: PostedHistory, i: number): number {
    this.ensureAnalysis(history, i);
    return this.aConfidence[i]! / 100;
  }

  isIncomeExpected(history: PostedHistory, i: number, day: number): boolean {
    return isIncomeDay(this.forecastOf(history, i), day, this.calendar);
  }

  lastExpectedIncomeIn(history: PostedHistory, i: number, from: number, to: number): number | null {
    return lastIncomeDayIn(this.forecastOf(history, i), from, to, this.calendar);
  }

  /** Income observed on a recent day (one of the last two credit days) of at least the threshold. */
  incomeOn(history: PostedHistory, i: number, day: number): number {
    this.ensureAnalysis(history, i);
    const threshold = this.aThreshold[i]!;
    if (day === this.c1Day[i]) return this.c1Amount[i]! >= threshold ? this.c1Amount[i]! : 0;
    if (day === this.c2Day[i]) return this.c2Amount[i]! >= threshold ? this.c2Amount[i]! : 0;
    return 0;
  }

  /** The last day any credit posted (within the window the summary reads), or null. */
  lastCreditDay(i: number): number | null {
    return this.c1Day[i] === NO_DAY ? null : this.c1Day[i]!;
  }

  /** The last day any of the account's own debits posted (within the window the summary reads), or null. */
  lastDebitDay(i: number): number | null {
    return this.debitDay[i] === NO_DAY ? null : this.debitDay[i]!;
  }

  /**
   * Expected other debits on the k-th day after income: the average of that day after the
   * window's paydays (k < 4), or of the window's other days (k ≥ 4: the debit orders and
   * spending of payday and the three days after it are not what leaves later in the month).
   */
  expectedDebits(i: number, k: number): number {
    const base = i * BUCKETS * SUMS;
    let dSum = 0;
    let dCount = 0;
    let earlySum = 0;
    let earlyCount = 0;
    let sum = 0;
    let count = 0;
    for (let b = 0; b < BUCKETS; b++) {
      const at = base + b * SUMS;
      if (k >= 0 && k < 4) {
        dSum += this.sums[at + k]!;
        dCount += this.counts[at + k]!;
      }
      for (let j = 0; j < 4; j++) {
        earlySum += this.sums[at + j]!;
        earlyCount += this.counts[at + j]!;
      }
      sum += this.sums[at + 4]!;
      count += this.counts[at + 4]!;
    }
    if (dCount > 0) return Math.round(dSum / dCount);
    if (k >= 4 && count > earlyCount) return Math.round(Math.max(0, sum - earlySum) / (count - earlyCount));
    return count > 0 ? Math.round(sum / count) : 0;
  }

  /**
   * Learn from the day account i has just lived (posted facts only); call once per day, in
   * order. `analyse` false for the days up to the analysis day (a replay before the last month end).
   */
  endOfDay(history: PostedHistory, i: number, day: number, facts: Readonly<PostedDay>, analyse: boolean, month: MonthInfo): void {
    const at = i * BUCKETS * SUMS + (month.index % BUCKETS) * SUMS;
    // A new month reuses the bucket of the month three back, and starts without a payday; the
    // last credits and the last debit day kept are those of the window only (they are read for
    // recent days alone, and a replay sees no earlier day: summaryWindowStart).
    if (day === month.firstDay) {
      this.sums.fill(0, at, at + SUMS);
      this.counts.fill(0, at, at + SUMS);
      this.payday[i] = NO_DAY;
      this.monthMax[i] = 0;
      const windowStart = summaryWindowStart(day);
      if (this.c2Day[i]! < windowStart) {
        this.c2Day[i] = NO_DAY;
        this.c2Amount[i] = 0;
      }
      if (this.c1Day[i]! < windowStart) {
        this.c1Day[i] = NO_DAY;
        this.c1Amount[i] = 0;
      }
      if (this.debitDay[i]! < windowStart) this.debitDay[i] = NO_DAY;
    }
    const credits = facts.credits;
    if (credits > 0) {
      this.c2Day[i] = this.c1Day[i]!;
      this.c2Amount[i] = this.c1Amount[i]!;
      this.c1Day[i] = day;
      this.c1Amount[i] = credits;
      if (credits > this.monthMax[i]!) this.monthMax[i] = credits;
      if (credits >= Math.max(MIN_INCOME_CENTS, this.monthMax[i]! / 3)) this.payday[i] = day;
    }
    if (facts.postedDebits > 0) this.debitDay[i] = day;
    const k = day - this.payday[i]!;
    if (k >= 0 && k < 4) {
      this.sums[at + k] = Math.min(INT32_MAX, this.sums[at + k]! + facts.postedDebits);
      this.counts[at + k]!++;
    }
    this.sums[at + 4] = Math.min(INT32_MAX, this.sums[at + 4]! + facts.postedDebits);
    this.counts[at + 4]!++;
    if (!analyse) return;
    this.ensureAnalysis(history, i);
    if (credits >= this.aThreshold[i]!) {
      // an observed income credit: cycle-based predictions stay anchored on the latest pay
      this.aLastDay[i] = day;
      this.aLastAmount[i] = credits;
      const pattern = INCOME_PATTERNS[this.aPattern[i]!];
      if (pattern === 'weekly' || pattern === 'fortnightly') this.aAnchor[i] = reanchor(this.calendar, this.aAnchor[i]!, pattern === 'weekly' ? 7 : 14, day);
    }
    if (day === month.lastDay) this.analysisDue(i, day);
  }

  /**
   * Learn from the days first .. first + count - 1 account i has just lived, their credits and
   * posted debits in credits[k] and debits[k] (k = day - first): as endOfDay each day in order,
   * analysing after `asOf` (a replay's run of days: the days up to the analysis day in one
   * loop over the account's fields).
   */
  endOfDays(history: PostedHistory, i: number, first: number, count: number, credits: Float64Array, debits: Float64Array, asOf: number): void {
    const last = first + count - 1;
    const quietLast = last < asOf ? last : asOf;
    if (quietLast >= first) {
      let c1Day = this.c1Day[i]!;
      let c1Amount = this.c1Amount[i]!;
      let c2Day = this.c2Day[i]!;
      let c2Amount = this.c2Amount[i]!;
      let payday = this.payday[i]!;
      let monthMax = this.monthMax[i]!;
      let debitDay = this.debitDay[i]!;
      const sums = this.sums;
      const counts = this.counts;
      // A month at a time, its bucket's five sums and counts in locals (written back at the
      // month's end: the sums saturate once, the same as at every day, every amount being ≥ 0).
      for (let day = first; day <= quietLast; ) {
        const month = monthOf(day);
        const at = i * BUCKETS * SUMS + (month.index % BUCKETS) * SUMS;
        const end = quietLast < month.lastDay ? quietLast : month.lastDay;
        let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
        let n0 = 0, n1 = 0, n2 = 0, n3 = 0, n4 = 0;
        if (day === month.firstDay) {
          payday = NO_DAY;
          monthMax = 0;
          const windowStart = summaryWindowStart(day);
          if (c2Day < windowStart) {
            c2Day = NO_DAY;
            c2Amount = 0;
          }
          if (c1Day < windowStart) {
            c1Day = NO_DAY;
            c1Amount = 0;
          }
          if (debitDay < windowStart) debitDay = NO_DAY;
        } else {
          s0 = sums[at]!;
          s1 = sums[at + 1]!;
          s2 = sums[at + 2]!;
          s3 = sums[at + 3]!;
          s4 = sums[at + 4]!;
          n0 = counts[at]!;
          n1 = counts[at + 1]!;
          n2 = counts[at + 2]!;
          n3 = counts[at + 3]!;
          n4 = counts[at + 4]!;
        }
        for (; day <= end; day++) {
          const credit = credits[day - first]!;
          if (credit > 0) {
            c2Day = c1Day;
            c2Amount = c1Amount;
            c1Day = day;
            c1Amount = credit;
            if (credit > monthMax) monthMax = credit;
            if (credit >= Math.max(MIN_INCOME_CENTS, monthMax / 3)) payday = day;
          }
          const posted = debits[day - first]!;
          if (posted > 0) debitDay = day;
          const k = day - payday;
          if (k === 0) {
            s0 += posted;
            n0++;
          } else if (k === 1) {
            s1 += posted;
            n1++;
          } else if (k === 2) {
            s2 += posted;
            n2++;
          } else if (k === 3) {
            s3 += posted;
            n3++;
          }
          s4 += posted;
          n4++;
        }
        sums[at] = Math.min(INT32_MAX, s0);
        sums[at + 1] = Math.min(INT32_MAX, s1);
        sums[at + 2] = Math.min(INT32_MAX, s2);
        sums[at + 3] = Math.min(INT32_MAX, s3);
        sums[at + 4] = Math.min(INT32_MAX, s4);
        counts[at] = n0;
        counts[at + 1] = n1;
        counts[at + 2] = n2;
        counts[at + 3] = n3;
        counts[at + 4] = n4;
      }
      this.c1Day[i] = c1Day;
      this.c1Amount[i] = c1Amount;
      this.c2Day[i] = c2Day;
      this.c2Amount[i] = c2Amount;
      this.payday[i] = payday;
      this.monthMax[i] = monthMax;
      this.debitDay[i] = debitDay;
    }
    if (quietLast >= last) return;
    const facts = this.dayFacts;
    let month = monthOf(quietLast + 1);
    for (let day = Math.max(first, quietLast + 1); day <= last; day++) {
      if (day > month.lastDay) month = monthOf(day);
      facts.credits = credits[day - first]!;
      facts.postedDebits = debits[day - first]!;
      this.endOfDay(history, i, day, facts, true, month);
    }
  }

  /**
   * The analysis of account i is due again as of `day` (a month end): made when next read. Its
   * fields are cleared meanwhile (nothing reads them before it is made), so that the summary
   * stays one function of the clock date however the days were lived (resume.ts keeps it).
   */
  private analysisDue(i: number, day: number): void {
    this.aStarted[i] = 2;
    this.aDueDay[i] = day;
    this.aPattern[i] = 0;
    this.aConfidence[i] = 0;
    this.aTypical[i] = 0;
    this.aThreshold[i] = 0;
    this.aDom[i] = 0;
    this.aAnchor[i] = 0;
    this.aGap[i] = 0;
    this.aLastDay[i] = 0;
    this.aLastAmount[i] = 0;
    this.aObserved[i] = 0;
  }

  /**
   * What the engine asks the bank to report while it opens accounts as of `today`: the days
   * from the start of the outgoings window, taken into these summaries (the days after the last
   * month end with the income they show).
   */
  postedDays(today: number): PostedDays {
    const asOf = analysisDay(today);
    const from = summaryWindowStart(today);
    let month = monthOf(from);
    return {
      from,
      day: (history, i, day, facts) => {
        if (day > month.lastDay || day < month.firstDay) month = monthOf(day);
        this.endOfDay(history, i, day, facts, day > asOf, month);
      },
      days: (history, i, first, count, credits, debits) => this.endOfDays(history, i, first, count, credits, debits, asOf),
    };
  }
}

/** The accounts of a working set as strategies read them: the bank's balance and the engine's summary. */
export class AccountReads implements AccountFacts {
  constructor(
    private readonly accounts: BankAccounts,
    private readonly summaries: AccountSummaries,
  ) {}

  analysis(i: number, into: IncomeAnalysis): IncomeAnalysis {
    return this.summaries.analysis(this.accounts, i, into);
  }

  incomePattern(i: number): IncomePattern {
    return this.summaries.incomePattern(this.accounts, i);
  }

  incomeConfidence(i: number): number {
    return this.summaries.incomeConfidence(this.accounts, i);
  }

  isIncomeExpected(i: number, day: number): boolean {
    return this.summaries.isIncomeExpected(this.accounts, i, day);
  }

  lastExpectedIncomeIn(i: number, from: number, to: number): number | null {
    return this.summaries.lastExpectedIncomeIn(this.accounts, i, from, to);
  }

  incomeOn(i: number, day: number): number {
    return this.summaries.incomeOn(this.accounts, i, day);
  }

  expectedDebits(i: number, k: number): number {
    return this.summaries.expectedDebits(i, k);
  }

  lastCreditDay(i: number): number | null {
    return this.summaries.lastCreditDay(i);
  }

  lastDebitDay(i: number): number | null {
    return this.summaries.lastDebitDay(i);
  }

  isNewOn(i: number, day: number): boolean {
    return this.accounts.startDay !== undefined && this.accounts.startDay(i) > day;
  }

  balance(i: number): number {
    return this.accounts.balance(i);
  }
}

/** A CustomerView of one account (one object reused: `at` moves it). */
export class AccountView implements CustomerView {
  private i = 0;
  readonly analysis: IncomeAnalysis = {} as IncomeAnalysis;

  constructor(
    private readonly reads: AccountFacts,
    private readonly calendar: Calendar,
  ) {}

  at(i: number): this {
    this.i = i;
    this.reads.analysis(i, this.analysis);
    return this;
  }

  get balance(): number {
    return this.reads.balance(this.i);
  }

  incomeOn(day: number): number {
    return this.reads.incomeOn(this.i, day);
  }

  get lastCreditDay(): number | null {
    return this.reads.lastCreditDay(this.i);
  }

  get lastDebitDay(): number | null {
    return this.reads.lastDebitDay(this.i);
  }

  isNewOn(day: number): boolean {
    return this.reads.isNewOn(this.i, day);
  }

  expectedDebits(k: number): number {
    return this.reads.expectedDebits(this.i, k);
  }

  isPredicted(day: number): boolean {
    return isIncomeDay(this.analysis, day, this.calendar);
  }

  lastPredictedIn(from: number, to: number): number | null {
    return lastIncomeDayIn(this.analysis, from, to, this.calendar);
  }
}
