/**
 * Customers' bank accounts as the collections engine sees them: the source of their activity
 * (imported rows, else a generated profile), a ledger replayed up to the clock date with
 * premia's past debits, and a summary of their posted history (income analysis, recent
 * income, usual outgoings after payday) that the strategies read.
 */
import type { StatementCache } from '../../store/sqlite-dialect.js';
import { GeneratedBook } from '../../bank/generated.js';
import { ImportedAccount, type ImportedRow } from '../../bank/imported.js';
import { applyDay, blockedReason, eventDays, NEVER, SCRATCH, type DayFacts, type LedgerObserver, type PremiaDebits } from '../../bank/ledger.js';
import type { AccountSource, Credit, FailureReason } from '../../bank/types.js';
import type { Bank, BankAccounts } from '../bank.js';
import {
  analyzeIncome,
  INCOME_PATTERNS,
  isIncomeDay,
  lastIncomeDayIn,
  MIN_INCOME_CENTS,
  type IncomeAnalysis,
  type IncomePattern,
} from '../../engine/income.js';
import type { CustomerView } from '../../engine/strategies.js';
import { monthOf, type MonthInfo } from '../../domain/calendar.js';
import { dayNumber, firstDay, fromDayNumber, periodOf, shiftPeriod } from '../../domain/period.js';
import { PremiaError } from '../../domain/errors.js';
import { formatCents } from '../../domain/money.js';

/** Income history the analysis reads. */
export const ANALYSIS_WINDOW_DAYS = 120;

export function customerKey(clientId: number, customerId: string): string {
  return `${clientId}\u0000${customerId}`;
}

/**
 * The day generated accounts open: the first day of the month three months before
 * `firstPeriod` — the earlier of the first collections period and the clock's month at the first
 * run (or, before any run, the clock's month).
 */
export function epochFor(firstPeriod: string): number {
  return dayNumber(firstDay(shiftPeriod(firstPeriod, -3)));
}

export function provisionalEpoch(today: string): number {
  return epochFor(periodOf(today));
}

/**
 * Customers' accounts and the engine's summary of their posted history, column-wise: a working
 * set of a million customers is a few typed arrays, not millions of objects.
 *
 * The summary is a canonical function of the clock date D, whichever way the days were lived
 * (one long advance, day by day, or a resume after a crash), so the engine plans the same
 * debits either way:
 *  - the income analysis is the analysis of the posted credits up to the last month end E ≤ D,
 *    updated by the income observed on the days after E;
 *  - the usual outgoings after payday are averaged over exactly the current month and the two
 *    before it (a ring of three month buckets); a "payday" for these statistics is a day whose
 *    credits reach a third of the largest credit of its month so far, and only days after a
 *    payday of the same month count. So the statistics depend only on days inside the window
 *    (a replay from a snapshot before it sees them all) and need no income analysis: a replay
 *    analyses once, at E.
 */
const NEVER_DAY = NEVER;
const NO_DAY = -NEVER;
const BUCKETS = 3;
const INT32_MAX = 0x7fffffff;
const SUMS = 5; // per bucket: posted debits on payday + 0..3, and on all days
const PATTERN_CODES: Record<IncomePattern, number> = Object.fromEntries(INCOME_PATTERNS.map((p, i) => [p, i])) as Record<IncomePattern, number>;

export class AccountSet implements BankAccounts {
  private n = 0;
  private cap: number;
  readonly book: GeneratedBook;
  // identity and source: an imported source object, else an index into the book
  clientId: Int32Array;
  readonly customerId: string[] = [];
  private readonly imported: Array<AccountSource | null> = [];
  private genIndex: Int32Array;
  // the ledger
  private balanceOf: Float64Array;
  private dayOf: Int32Array;
  private closedFrom: Int32Array;
  private frozenFrom: Int32Array;
  private stoppedFrom: Int32Array;
  // the last two credit days, the statistics payday and the month's largest credit
  private c1Day: Int32Array;
  private c2Day: Int32Array;
  private c1Amount: Float64Array;
  private c2Amount: Float64Array;
  private payday: Int32Array;
  private monthMax: Float64Array;
  // the outgoing statistics: BUCKETS × SUMS sums (integer cents, saturating) and day counts
  private sums: Int32Array;
  private counts: Uint8Array;
  // the income analysis (aStarted: 0 none yet, 1 current, 2 due again as of aDueDay)
  private aStarted: Uint8Array;
  private aDueDay: Int32Array;
  private aPattern: Uint8Array;
  /** confidence × 100 (the analysis rounds it to two decimals). */
  private aConfidence: Int16Array;
  private aTypical: Float64Array;
  private aThreshold: Float64Array;
  private aDom: Int8Array;
  private aAnchor: Int32Array;
  /** mean gap × 100 (rounded to two decimals), -1 when none. */
  private aGap: Int32Array;
  private aLastDay: Int32Array;
  private aLastAmount: Float64Array;
  private aObserved: Int32Array;

  constructor(capacity: number, book?: GeneratedBook) {
    this.cap = Math.max(1, capacity);
    this.book = book ?? new GeneratedBook(this.cap);
    const c = this.cap;
    this.clientId = new Int32Array(c);
    this.genIndex = new Int32Array(c);
    this.balanceOf = new Float64Array(c);
    this.dayOf = new Int32Array(c);
    this.closedFrom = new Int32Array(c);
    this.frozenFrom = new Int32Array(c);
    this.stoppedFrom = new Int32Array(c);
    this.c1Day = new Int32Array(c);
    this.c2Day = new Int32Array(c);
    this.c1Amount = new Float64Array(c);
    this.c2Amount = new Float64Array(c);
    this.payday = new Int32Array(c);
    this.monthMax = new Float64Array(c);
    this.sums = new Int32Array(c * BUCKETS * SUMS);
    this.counts = new Uint8Array(c * BUCKETS * SUMS);
    this.aStarted = new Uint8Array(c);
    this.aDueDay = new Int32Array(c);
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

  get size(): number {
    return this.n;
  }

  /**
   * Add an account that has lived through `lastDay` with `balance`: a generated one (source
   * null: it is added to the book) or one with its own source (imported rows).
   */
  add(clientId: number, customerId: string, source: AccountSource | null, seed: number, epochDay: number, lastDay: number, balance: number): number {
    if (this.n === this.cap) throw new Error('AccountSet is full');
    const i = this.n++;
    this.clientId[i] = clientId;
    this.customerId[i] = customerId;
    this.imported[i] = source;
    let events;
    if (source === null) {
      const g = this.book.add(seed, customerId, epochDay);
      this.genIndex[i] = g;
      events = eventDays({ events: () => this.book.events(g) } as AccountSource);
    } else {
      this.genIndex[i] = -1;
      events = eventDays(source);
    }
    this.closedFrom[i] = events.closed;
    this.frozenFrom[i] = events.frozen;
    this.stoppedFrom[i] = events.stopped;
    this.balanceOf[i] = balance;
    this.dayOf[i] = lastDay;
    this.c1Day[i] = NO_DAY;
    this.c2Day[i] = NO_DAY;
    this.payday[i] = NO_DAY;
    return i;
  }

  startDayOf(i: number): number {
    const source = this.imported[i];
    return source ? source.startDay : this.book.startDay(this.genIndex[i]!);
  }

  sourceKind(i: number): 'imported' | 'generated' {
    return this.imported[i] ? 'imported' : 'generated';
  }

  private credits(i: number, from: number, to: number): Credit[] {
    const source = this.imported[i];
    return source ? source.credits(from, to) : this.book.credits(this.genIndex[i]!, from, to);
  }

  balance(i: number): number {
    return this.balanceOf[i]!;
  }

  day(i: number): number {
    return this.dayOf[i]!;
  }

  blockedOn(i: number, day: number): FailureReason | null {
    return blockedReason(day, this.closedFrom[i]!, this.frozenFrom[i]!, this.stoppedFrom[i]!);
  }

  /** Live account i through its next day (the account rules: bank/ledger.ts applyDay). */
  live(i: number, premia: PremiaDebits | null, outcomes: Array<FailureReason | null>, facts: DayFacts, observer?: LedgerObserver): DayFacts {
    const day = this.dayOf[i]! + 1;
    this.dayOf[i] = day;
    const source = this.imported[i];
    if (source) source.dayActivity(day, SCRATCH);
    else this.book.dayActivity(this.genIndex[i]!, day, SCRATCH);
    this.balanceOf[i] = applyDay(SCRATCH, day, this.balanceOf[i]!, this.blockedOn(i, day), premia, outcomes, facts, observer);
    return facts;
  }

  /** Start (or restart) the income analysis of account i as of `day`. */
  startAnalysis(i: number, day: number): void {
    const windowStart = Math.max(day - ANALYSIS_WINDOW_DAYS + 1, this.startDayOf(i));
    const a = analyzeIncome(this.credits(i, windowStart, day), day, windowStart);
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
  private ensureAnalysis(i: number): void {
    const state = this.aStarted[i];
    if (state === 1) return;
    this.startAnalysis(i, state === 2 ? this.aDueDay[i]! : this.dayOf[i]!);
  }

  /** The income analysis of account i, written into `into` (a fresh object when omitted). */
  analysis(i: number, into?: IncomeAnalysis): IncomeAnalysis {
    this.ensureAnalysis(i);
    const a = into ?? ({} as IncomeAnalysis);
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

  private readonly scratch = {} as IncomeAnalysis;

  /**
   * Whether the smart strategy could plan a debit for account i on action day A at the end of D:
   * a cheap test on the columns that is true whenever planCustomer might plan (income seen or
   * expected 1-2 days before A, the last chance of the period, or no income pattern), so most
   * customers waiting for their payday are skipped without building views.
   */
  smartMayPlan(i: number, D: number, A: number, periodLast: number): boolean {
    // Only the fields the prediction functions read are copied into the scratch analysis.
    this.ensureAnalysis(i);
    const a = this.scratch;
    a.pattern = INCOME_PATTERNS[this.aPattern[i]!]!;
    a.confidence = this.aConfidence[i]! / 100;
    a.dayOfMonth = this.aDom[i] === 0 ? null : this.aDom[i]!;
    a.anchorDay = this.aAnchor[i] === NO_DAY ? null : this.aAnchor[i]!;
    if (a.pattern === 'none') return true;
    for (let k = 1; k <= 2; k++) {
      const day = A - k;
      if (day <= D && this.incomeOn(i, day) > 0) return true;
    }
    if (a.pattern === 'irregular') return A >= periodLast - 3;
    if (a.confidence < 0.5) return A >= periodLast - 3 || lastIncomeDayIn(a, A, periodLast - 1) === null;
    for (let k = 1; k <= 2; k++) {
      const day = A - k;
      if (day > D && isIncomeDay(a, day)) return true;
    }
    return lastIncomeDayIn(a, A, periodLast - 1) === null;
  }

  /** Income observed on a recent day (one of the last two credit days) of at least the threshold. */
  incomeOn(i: number, day: number): number {
    this.ensureAnalysis(i);
    const threshold = this.aThreshold[i]!;
    if (day === this.c1Day[i]) return this.c1Amount[i]! >= threshold ? this.c1Amount[i]! : 0;
    if (day === this.c2Day[i]) return this.c2Amount[i]! >= threshold ? this.c2Amount[i]! : 0;
    return 0;
  }

  expectedDebits(i: number, k: number): number {
    const base = i * BUCKETS * SUMS;
    let dSum = 0;
    let dCount = 0;
    let sum = 0;
    let count = 0;
    for (let b = 0; b < BUCKETS; b++) {
      const at = base + b * SUMS;
      if (k >= 0 && k < 4) {
        dSum += this.sums[at + k]!;
        dCount += this.counts[at + k]!;
      }
      sum += this.sums[at + 4]!;
      count += this.counts[at + 4]!;
    }
    if (dCount > 0) return Math.round(dSum / dCount);
    return count > 0 ? Math.round(sum / count) : 0;
  }

  /**
   * Learn from the day account i has just lived (posted facts only); call once per day, in
   * order. `analyse` false while a replay is still before the last month end.
   */
  endOfDay(i: number, day: number, facts: DayFacts, analyse = true, month: MonthInfo = monthOf(day)): void {
    const at = i * BUCKETS * SUMS + (month.index % BUCKETS) * SUMS;
    // A new month reuses the bucket of the month three back, and starts without a payday.
    if (day === month.firstDay) {
      this.sums.fill(0, at, at + SUMS);
      this.counts.fill(0, at, at + SUMS);
      this.payday[i] = NO_DAY;
      this.monthMax[i] = 0;
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
    const k = day - this.payday[i]!;
    if (k >= 0 && k < 4) {
      this.sums[at + k] = Math.min(INT32_MAX, this.sums[at + k]! + facts.postedDebits);
      this.counts[at + k]!++;
    }
    this.sums[at + 4] = Math.min(INT32_MAX, this.sums[at + 4]! + facts.postedDebits);
    this.counts[at + 4]!++;
    if (!analyse) return;
    this.ensureAnalysis(i);
    if (credits >= this.aThreshold[i]!) {
      // observeIncome, on the columns
      this.aLastDay[i] = day;
      this.aLastAmount[i] = credits;
      const pattern = INCOME_PATTERNS[this.aPattern[i]!];
      if (pattern === 'weekly' || pattern === 'fortnightly') this.aAnchor[i] = day;
    }
    if (day === month.lastDay) {
      this.aStarted[i] = 2;
      this.aDueDay[i] = day;
    }
  }
}

/** A CustomerView of one account of a set, for the strategies (one object reused). */
export class AccountView implements CustomerView {
  private set!: BankAccounts;
  private i = 0;
  readonly analysis: IncomeAnalysis = {} as IncomeAnalysis;

  at(set: BankAccounts, i: number): this {
    this.set = set;
    this.i = i;
    set.analysis(i, this.analysis);
    return this;
  }

  get balance(): number {
    return this.set.balance(this.i);
  }

  incomeOn(day: number): number {
    return this.set.incomeOn(this.i, day);
  }

  expectedDebits(k: number): number {
    return this.set.expectedDebits(this.i, k);
  }

  isPredicted(day: number): boolean {
    return isIncomeDay(this.analysis, day);
  }

  lastPredictedIn(from: number, to: number): number | null {
    return lastIncomeDayIn(this.analysis, from, to);
  }
}

/** One customer's account (for `bank show`, `explain` and tests): a set of one. */
export class CustomerAccount {
  constructor(
    private readonly set: AccountSet,
    private readonly i: number,
  ) {}

  get balance(): number {
    return this.set.balance(this.i);
  }

  get analysis(): IncomeAnalysis {
    return this.set.analysis(this.i);
  }

  get sourceKind(): 'imported' | 'generated' {
    return this.set.sourceKind(this.i);
  }

  blockedOn(day: number): FailureReason | null {
    return this.set.blockedOn(this.i, day);
  }
}

/** The first day of the outgoings window of the canonical summary at `today` (two months back). */
export function summaryWindowStart(today: number): number {
  const m = monthOf(today);
  return monthOf(monthOf(m.firstDay - 1).firstDay - 1).firstDay;
}

export interface PastAttempt {
  day: number;
  amount: number;
  /** null for a success. */
  failure: string | null;
  policyNumber: string;
}

export interface AccountInputs {
  seed: number;
  epochDay: number;
  /** Imported rows by customer key, in file order. */
  imported: Map<string, ImportedRow[]>;
  /** Latest usable snapshot by customer key. */
  snapshots: Map<string, { day: number; balance: number }>;
  /** premia's past attempts by customer key, in (date, policy_number) order. */
  attempts: Map<string, PastAttempt[]>;
}

/** The imported source of a customer, or null when the customer has a generated account. */
export function importedSource(inputs: Pick<AccountInputs, 'imported'>, clientId: number, customerId: string): AccountSource | null {
  const rows = inputs.imported.get(customerKey(clientId, customerId));
  return rows && rows.length > 0 ? new ImportedAccount(rows) : null;
}

/** Add a customer's account to `set` and replay it to `today`; returns its index. */
export function replayInto(set: AccountSet, inputs: AccountInputs, clientId: number, customerId: string, today: number, observer?: LedgerObserver): number {
  const key = customerKey(clientId, customerId);
  const source = importedSource(inputs, clientId, customerId);
  const startDay = source ? source.startDay : inputs.epochDay;
  const snap = observer ? undefined : inputs.snapshots.get(key);
  const usable = snap && snap.day < summaryWindowStart(today) ? snap : undefined;
  const lastDay = usable ? usable.day : startDay - 1;
  const i = set.add(clientId, customerId, source, inputs.seed, inputs.epochDay, lastDay, usable ? usable.balance : 0);
  const replay = new Replay(inputs.attempts.get(key) ?? [], lastDay, customerId);
  const facts: DayFacts = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
  // The income analysis starts at the last month end before today (or where the replay starts).
  const lastMonthEnd = Math.max(lastDay, monthOf(today).firstDay - 1);
  if (lastMonthEnd === lastDay) set.startAnalysis(i, lastDay);
  let month = monthOf(set.day(i) + 1);
  while (set.day(i) < today) {
    set.live(i, replay, replay.outcomes, facts, observer);
    replay.check();
    const day = set.day(i);
    if (day > month.lastDay) month = monthOf(day);
    if (day < lastMonthEnd) set.endOfDay(i, day, facts, false, month);
    else if (day === lastMonthEnd) {
      set.endOfDay(i, day, facts, false, month);
      set.startAnalysis(i, day);
    } else set.endOfDay(i, day, facts, true, month);
  }
  return i;
}

/**
 * The simulated bank (the only bank premia has today): accounts generated from the store's seed
 * or built from imported rows, replayed from the last usable balance snapshot with premia's past
 * debits, so each account stands exactly where the days already lived left it.
 */
export const simulatedBank: Bank<StatementCache> = {
  openAccounts(statements, customers, today, settings) {
    const n = customers.customerId.length;
    const accounts = new AccountSet(n);
    if (n === 0) return accounts;
    const keys = new Set<string>();
    for (let k = 0; k < n; k++) keys.add(customerKey(customers.clientId[k]!, customers.customerId[k]!));
    const inputs: AccountInputs = {
      seed: settings.seed,
      epochDay: settings.epochDay,
      imported: readImportedRows(statements, keys),
      snapshots: readSnapshots(statements, keys, fromDayNumber(summaryWindowStart(today) - 1)),
      attempts: new Map(),
    };
    // premia's debits since the oldest snapshot used (all of them when an account has none).
    let oldest = fromDayNumber(today);
    for (const key of keys) {
      const snap = inputs.snapshots.get(key);
      if (!snap) {
        oldest = '0000-00-00';
        break;
      }
      const d = fromDayNumber(snap.day);
      if (d < oldest) oldest = d;
    }
    inputs.attempts = readAttempts(statements, keys, oldest);
    keys.clear();
    for (let k = 0; k < n; k++) replayInto(accounts, inputs, customers.clientId[k]!, customers.customerId[k]!, today);
    return accounts;
  },
};

/** One customer's account replayed to `today` (bank show, explain). */
export function openAccount(inputs: AccountInputs, clientId: number, customerId: string, today: number, observer?: LedgerObserver): CustomerAccount {
  const set = new AccountSet(1);
  return new CustomerAccount(set, replayInto(set, inputs, clientId, customerId, today, observer));
}

/** Feeds a ledger premia's past attempts of each day, then checks the outcomes match. */
class Replay implements PremiaDebits {
  readonly outcomes: Array<FailureReason | null> = [];
  private next = 0;
  private first = 0;
  private count = 0;

  constructor(
    private readonly past: PastAttempt[],
    startDay: number,
    private readonly customerId: string,
  ) {
    while (this.next < past.length && past[this.next]!.day <= startDay) this.next++;
  }

  debitsFor(_balance: number, day: number, amounts: number[]): number {
    this.first = this.next;
    let n = 0;
    while (this.next < this.past.length && this.past[this.next]!.day === day) amounts[n++] = this.past[this.next++]!.amount;
    this.count = n;
    return n;
  }

  check(): void {
    for (let i = 0; i < this.count; i++) {
      const a = this.past[this.first + i]!;
      if (this.outcomes[i] !== a.failure) {
        throw new PremiaError(
          'INTERNAL',
          `Replaying the account of customer ${this.customerId} gave a different outcome for premia's debit of ` +
            `${formatCents(a.amount)} on ${fromDayNumber(a.day)} (policy ${a.policyNumber}): recorded ` +
            `${a.failure ?? 'SUCCESS'}, replayed ${this.outcomes[i] ?? 'SUCCESS'}. The bank history changed after it was used.`,
        );
      }
    }
    this.count = 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading the inputs from the store (raw statements: these run over up to a million customers).

export function readImportedRows(statements: StatementCache, keys: Set<string> | null): Map<string, ImportedRow[]> {
  const out = new Map<string, ImportedRow[]>();
  const stmt = statements.get('select client_id, customer_id, date, amount, description from bank_transactions order by client_id, customer_id, id');
  for (const r of stmt.iterate() as Iterable<{ client_id: number; customer_id: string; date: string; amount: number; description: string }>) {
    const key = customerKey(r.client_id, r.customer_id);
    if (keys && !keys.has(key)) continue;
    let list = out.get(key);
    if (!list) out.set(key, (list = []));
    list.push({ day: dayNumber(r.date), amount: r.amount, description: r.description });
  }
  return out;
}

export function readSnapshots(statements: StatementCache, keys: Set<string> | null, notAfter: string): Map<string, { day: number; balance: number }> {
  const out = new Map<string, { day: number; balance: number }>();
  const stmt = statements.get('select client_id, customer_id, as_of, balance from bank_snapshots where as_of <= ? order by as_of');
  for (const r of stmt.iterate(notAfter) as Iterable<{ client_id: number; customer_id: string; as_of: string; balance: number }>) {
    const key = customerKey(r.client_id, r.customer_id);
    if (keys && !keys.has(key)) continue;
    out.set(key, { day: dayNumber(r.as_of), balance: r.balance });
  }
  return out;
}

export function readAttempts(statements: StatementCache, keys: Set<string> | null, after: string): Map<string, PastAttempt[]> {
  const out = new Map<string, PastAttempt[]>();
  const stmt = statements.get(
    `select c.client_id, c.customer_id, c.policy_number, a.date, a.amount, a.failure_reason
     from attempts a join collections c on c.id = a.collection_id
     where a.date > ? order by a.date, c.client_id, c.policy_number`,
  );
  for (const r of stmt.iterate(after) as Iterable<{
    client_id: number;
    customer_id: string;
    policy_number: string;
    date: string;
    amount: number;
    failure_reason: string | null;
  }>) {
    const key = customerKey(r.client_id, r.customer_id);
    if (keys && !keys.has(key)) continue;
    let list = out.get(key);
    if (!list) out.set(key, (list = []));
    list.push({ day: dayNumber(r.date), amount: r.amount, failure: r.failure_reason, policyNumber: r.policy_number });
  }
  return out;
}
