/**
 * Customers' bank accounts as the collections engine sees them: the source of their activity
 * (imported rows, else a generated profile), a ledger replayed up to the clock date with
 * premia's past debits, and a summary of their posted history (income analysis, recent
 * income, usual outgoings after payday) that the strategies read.
 */
import type { StatementCache } from '../../store/sqlite-dialect.js';
import { generatedAccount } from '../../bank/generated.js';
import { ImportedAccount, type ImportedRow } from '../../bank/imported.js';
import { Ledger, type DayFacts, type LedgerObserver, type PremiaDebits } from '../../bank/ledger.js';
import type { AccountSource, FailureReason } from '../../bank/types.js';
import { analyzeIncome, isIncomeDay, lastIncomeDayIn, MIN_INCOME_CENTS, observeIncome, type IncomeAnalysis } from '../../engine/income.js';
import type { CustomerView } from '../../engine/strategies.js';
import { monthOf } from '../../domain/calendar.js';
import { dayNumber, firstDay, fromDayNumber, periodOf, shiftPeriod } from '../../domain/period.js';
import { PremiaError } from '../../domain/errors.js';
import { formatCents } from '../../domain/money.js';

/** Income history the analysis reads. */
export const ANALYSIS_WINDOW_DAYS = 120;
const RECENT_INCOME_DAYS = 10;

export function customerKey(clientId: number, customerId: string): string {
  return `${clientId}\u0000${customerId}`;
}

/**
 * The day generated accounts open: the first day of the month three months before the first
 * collections period (or, before any run, before the clock's month).
 */
export function epochFor(firstPeriod: string): number {
  return dayNumber(firstDay(shiftPeriod(firstPeriod, -3)));
}

export function provisionalEpoch(today: string): number {
  return epochFor(periodOf(today));
}

/**
 * One customer's account and the engine's summary of its posted history. The summary is a
 * canonical function of the clock date D, whichever way the days were lived (one long advance,
 * day by day, or a resume after a crash), so the engine plans the same debits either way:
 *  - the income analysis is the analysis of the posted credits up to the last month end E ≤ D,
 *    updated by the income observed on the days after E;
 *  - the usual outgoings after payday are averaged over exactly the current month and the two
 *    before it (a ring of three month buckets); a "payday" for these statistics is a day whose
 *    credits reach a third of the largest credit of its month so far, and only days after a
 *    payday of the same month count. So the statistics depend only on days inside the window
 *    (a replay from a snapshot before it sees them all) and need no income analysis: a replay
 *    analyses once, at E.
 * Memory matters (a million customers): the buckets live in one shared Float64Array, recent
 * credits are the last two credit days.
 */
const BUCKET = 10; // per month: debits on payday + 0..3 (sums, counts), all days (sum, count)
const STRIDE = 3 * BUCKET;
let statsPool = new Float64Array(STRIDE * 1024);
let statsUsed = 0;
const freeSlots: number[] = [];

function allocStats(): number {
  const slot = freeSlots.pop();
  if (slot !== undefined) {
    statsPool.fill(0, slot, slot + STRIDE);
    return slot;
  }
  if (statsUsed + STRIDE > statsPool.length) {
    const bigger = new Float64Array(statsPool.length * 2);
    bigger.set(statsPool);
    statsPool = bigger;
  }
  const at = statsUsed;
  statsUsed += STRIDE;
  return at;
}

export class CustomerAccount implements CustomerView {
  readonly ledger: Ledger;
  /** null while a replay has not reached the last month end yet (see openAccount). */
  private current: IncomeAnalysis | null = null;
  private credit1Day = Number.NEGATIVE_INFINITY;
  private credit1Amount = 0;
  private credit2Day = Number.NEGATIVE_INFINITY;
  private credit2Amount = 0;
  /** The last statistics payday of the current month, and the month's largest credit so far. */
  private payday = Number.NEGATIVE_INFINITY;
  private monthMaxCredit = 0;
  private readonly stats: number;

  constructor(
    readonly clientId: number,
    readonly customerId: string,
    readonly source: AccountSource,
    startDay: number,
    startBalance: number,
  ) {
    this.ledger = new Ledger(source, startDay, startBalance);
    this.stats = allocStats();
  }

  get analysis(): IncomeAnalysis {
    return (this.current ??= this.analyse(this.ledger.day));
  }

  /** Start the income analysis at `day` (a month end, or the day the replay started). */
  startAnalysis(day: number): void {
    this.current = this.analyse(day);
  }

  /** Give the statistics slot back (the account leaves the engine's working set). */
  release(): void {
    freeSlots.push(this.stats);
  }

  get balance(): number {
    return this.ledger.balance;
  }

  incomeOn(day: number): number {
    const threshold = this.analysis.threshold;
    if (day === this.credit1Day) return this.credit1Amount >= threshold ? this.credit1Amount : 0;
    if (day === this.credit2Day) return this.credit2Amount >= threshold ? this.credit2Amount : 0;
    return 0;
  }

  expectedDebits(k: number): number {
    const pool = statsPool;
    let dSum = 0;
    let dCount = 0;
    let sum = 0;
    let count = 0;
    for (let b = 0; b < 3; b++) {
      const at = this.stats + b * BUCKET;
      if (k >= 0 && k < 4) {
        dSum += pool[at + k]!;
        dCount += pool[at + 4 + k]!;
      }
      sum += pool[at + 8]!;
      count += pool[at + 9]!;
    }
    if (dCount > 0) return Math.round(dSum / dCount);
    return count > 0 ? Math.round(sum / count) : 0;
  }

  isPredicted(day: number): boolean {
    return isIncomeDay(this.analysis, day);
  }

  lastPredictedIn(from: number, to: number): number | null {
    return lastIncomeDayIn(this.analysis, from, to);
  }

  /**
   * Learn from the day the account has just lived (posted facts only); call once per day, in
   * order. `analyse` false while a replay is still before the last month end.
   */
  endOfDay(day: number, facts: DayFacts, analyse = true): void {
    const month = monthOf(day);
    const at = this.stats + (month.index % 3) * BUCKET;
    const pool = statsPool;
    // A new month reuses the bucket of the month three back, and starts without a payday.
    if (day === month.firstDay) {
      pool.fill(0, at, at + BUCKET);
      this.payday = Number.NEGATIVE_INFINITY;
      this.monthMaxCredit = 0;
    }
    if (facts.credits > 0) {
      this.credit2Day = this.credit1Day;
      this.credit2Amount = this.credit1Amount;
      this.credit1Day = day;
      this.credit1Amount = facts.credits;
      if (facts.credits > this.monthMaxCredit) this.monthMaxCredit = facts.credits;
      if (facts.credits >= Math.max(MIN_INCOME_CENTS, this.monthMaxCredit / 3)) this.payday = day;
    }
    const k = day - this.payday;
    if (k >= 0 && k < 4) {
      pool[at + k]! += facts.postedDebits;
      pool[at + 4 + k]!++;
    }
    pool[at + 8]! += facts.postedDebits;
    pool[at + 9]!++;
    if (!analyse) return;
    const a = this.analysis;
    if (facts.credits >= a.threshold) observeIncome(a, day, facts.credits);
    if (day === month.lastDay) this.current = this.analyse(day);
  }

  private analyse(today: number): IncomeAnalysis {
    const windowStart = Math.max(today - ANALYSIS_WINDOW_DAYS + 1, this.source.startDay);
    return analyzeIncome(this.source.credits(windowStart, today), today, windowStart);
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

export function sourceFor(inputs: Pick<AccountInputs, 'seed' | 'epochDay' | 'imported'>, clientId: number, customerId: string): AccountSource {
  const rows = inputs.imported.get(customerKey(clientId, customerId));
  if (rows && rows.length > 0) return new ImportedAccount(rows);
  return generatedAccount(inputs.seed, customerId, inputs.epochDay);
}

/**
 * Build a customer's account and replay it to `today`, re-applying premia's past attempts in
 * their order. Each replayed attempt must reproduce its recorded outcome exactly (a check that
 * the store's history and the bank's rules agree); a mismatch means the bank history changed
 * after it was used, which premia's own commands never allow.
 */
export function openAccount(inputs: AccountInputs, clientId: number, customerId: string, today: number, observer?: LedgerObserver): CustomerAccount {
  const key = customerKey(clientId, customerId);
  const source = sourceFor(inputs, clientId, customerId);
  const snap = observer ? undefined : inputs.snapshots.get(key);
  const usable = snap && snap.day < summaryWindowStart(today) ? snap : undefined;
  const startDay = usable ? usable.day : source.startDay - 1;
  const account = new CustomerAccount(clientId, customerId, source, startDay, usable ? usable.balance : 0);
  const replay = new Replay(inputs.attempts.get(key) ?? [], startDay, customerId);
  const facts: DayFacts = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
  // The income analysis starts at the last month end before today (or where the replay starts).
  const lastMonthEnd = Math.max(startDay, monthOf(today).firstDay - 1);
  if (lastMonthEnd === startDay) account.startAnalysis(startDay);
  while (account.ledger.day < today) {
    account.ledger.live(replay, replay.outcomes, facts, observer);
    replay.check();
    const day = account.ledger.day;
    if (day < lastMonthEnd) account.endOfDay(day, facts, false);
    else if (day === lastMonthEnd) {
      account.endOfDay(day, facts, false);
      account.startAnalysis(day);
    } else account.endOfDay(day, facts);
  }
  return account;
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
