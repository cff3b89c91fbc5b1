/**
 * Customers' bank accounts as the collections engine sees them: the source of their activity
 * (imported rows, else a generated profile), a ledger replayed up to the clock date with
 * premia's past debits, and a summary of their posted history (income analysis, recent
 * income, usual outgoings after payday) that the strategies read.
 */
import type { StatementCache } from '../../store/sqlite-dialect.js';
import { generatedAccount } from '../../bank/generated.js';
import { ImportedAccount, type ImportedRow } from '../../bank/imported.js';
import { Ledger, type DayFacts, type LedgerObserver } from '../../bank/ledger.js';
import type { AccountSource, FailureReason } from '../../bank/types.js';
import { analyzeIncome, observeIncome, predictIncome, type IncomeAnalysis } from '../../engine/income.js';
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
 * canonical function of the clock date, whichever way the days were lived (one long advance,
 * day by day, or a resume after a crash), so the engine plans the same debits either way:
 *  - the income analysis is recomputed from the posted credits at every month end and
 *    updated only by newly observed income in between;
 *  - the usual outgoings after payday are averaged over exactly the current month and the two
 *    before it (per-month buckets), and replays start from a snapshot no later than that window.
 */
export class CustomerAccount implements CustomerView {
  readonly ledger: Ledger;
  analysis: IncomeAnalysis;
  private readonly recentIncome = new Map<number, number>();
  /** Per month (key: first day), sums and counts of posted debits k = 0..3 days after income, and of all days. */
  private readonly buckets = new Map<number, { drainSum: number[]; drainCount: number[]; dailySum: number; dailyCount: number }>();
  private predictionFrom = 0;
  private predictionTo = -1;
  private predictions: number[] = [];

  constructor(
    readonly clientId: number,
    readonly customerId: string,
    readonly source: AccountSource,
    startDay: number,
    startBalance: number,
  ) {
    this.ledger = new Ledger(source, startDay, startBalance);
    this.analysis = this.analyse(startDay);
  }

  get balance(): number {
    return this.ledger.balance;
  }

  incomeOn(day: number): number {
    return this.recentIncome.get(day) ?? 0;
  }

  expectedDebits(k: number): number {
    let dSum = 0;
    let dCount = 0;
    let sum = 0;
    let count = 0;
    for (const b of this.buckets.values()) {
      if (k >= 0 && k < 4) {
        dSum += b.drainSum[k]!;
        dCount += b.drainCount[k]!;
      }
      sum += b.dailySum;
      count += b.dailyCount;
    }
    if (dCount > 0) return Math.round(dSum / dCount);
    return count > 0 ? Math.round(sum / count) : 0;
  }

  /** Predicted income days in [from, to] (cached over a sliding two-month window). */
  predicted(from: number, to: number): number[] {
    if (from < this.predictionFrom || to > this.predictionTo) {
      this.predictionFrom = from;
      this.predictionTo = Math.max(to, from + 62);
      this.predictions = predictIncome(this.analysis, this.predictionFrom, this.predictionTo);
    }
    return this.predictions.filter((d) => d >= from && d <= to);
  }

  /** Learn from the day the account has just lived (posted facts only); call once per day, in order. */
  endOfDay(day: number, facts: DayFacts): void {
    const month = monthOf(day);
    if (day === month.firstDay) {
      // Keep the buckets of this month and the two before it.
      const oldest = monthOf(monthOf(month.firstDay - 1).firstDay - 1).firstDay;
      for (const key of this.buckets.keys()) if (key < oldest) this.buckets.delete(key);
    }
    if (facts.credits >= this.analysis.threshold) {
      this.recentIncome.set(day, facts.credits);
      const anchorMoves = this.analysis.pattern === 'weekly' || this.analysis.pattern === 'fortnightly';
      observeIncome(this.analysis, day, facts.credits);
      if (anchorMoves) this.predictionTo = -1;
    }
    for (const d of this.recentIncome.keys()) if (d < day - RECENT_INCOME_DAYS) this.recentIncome.delete(d);
    let b = this.buckets.get(month.firstDay);
    if (!b) this.buckets.set(month.firstDay, (b = { drainSum: [0, 0, 0, 0], drainCount: [0, 0, 0, 0], dailySum: 0, dailyCount: 0 }));
    const last = this.analysis.lastIncomeDay;
    if (last !== null) {
      const k = day - last;
      if (k >= 0 && k < 4) {
        b.drainSum[k]! += facts.postedDebits;
        b.drainCount[k]!++;
      }
    }
    b.dailySum += facts.postedDebits;
    b.dailyCount++;
    if (day === month.lastDay) {
      this.analysis = this.analyse(day);
      this.predictionTo = -1;
    }
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
  const past = inputs.attempts.get(key) ?? [];
  let next = 0;
  while (next < past.length && past[next]!.day <= startDay) next++;
  const outcomes: Array<FailureReason | null> = [];
  const amounts: number[] = [];
  let dayAttempts: PastAttempt[] = [];
  const decide = (_balance: number, day: number): number[] => {
    amounts.length = 0;
    dayAttempts = [];
    while (next < past.length && past[next]!.day === day) {
      dayAttempts.push(past[next]!);
      amounts.push(past[next++]!.amount);
    }
    return amounts;
  };
  while (account.ledger.day < today) {
    const facts = account.ledger.live(decide, outcomes, observer);
    for (let i = 0; i < outcomes.length; i++) {
      if (outcomes[i] !== dayAttempts[i]!.failure) {
        const a = dayAttempts[i]!;
        throw new PremiaError(
          'INTERNAL',
          `Replaying the account of customer ${customerId} gave a different outcome for premia's debit of ` +
            `${formatCents(a.amount)} on ${fromDayNumber(a.day)} (policy ${a.policyNumber}): recorded ` +
            `${a.failure ?? 'SUCCESS'}, replayed ${outcomes[i] ?? 'SUCCESS'}. The bank history changed after it was used.`,
        );
      }
    }
    account.endOfDay(account.ledger.day, facts);
  }
  return account;
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
