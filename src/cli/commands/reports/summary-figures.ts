/**
 * The figures of `premia reports summary`: one period's month in numbers, read through the
 * Backend interface only (so local and remote mode give the same figures):
 *   - the collections report (JSON) for what was due and collected, by status, and the unpaid
 *     and partial policies;
 *   - the attempts export (JSON) for what was collected on which day and why debits failed;
 *   - each customer's bank account view for its income pattern (up to PATTERN_CUSTOMER_LIMIT
 *     customers: beyond that, one request per customer is too slow, and the table is left out);
 *   - the period's settlement statement in force, if one was made.
 * Money stays in integer cents; shares are fractions rounded to four decimals (0.8839 = 88.39%).
 */
import type { Backend, CollectionReportRow, CollectionStatus, Download, PeriodState, Settlement } from '../../../backend/types.js';
import { PremiaError } from '../../../domain/errors.js';
import { moneyToCents } from '../../../domain/json.js';
import { addDays, lastDay, firstDay, type IsoDate, type Period } from '../../../domain/period.js';

/** Customers above this count are not each looked up for the income-pattern table. */
export const PATTERN_CUSTOMER_LIMIT = 2_000;
/** Bank account look-ups in flight at once (remote mode: requests). */
const LOOKUPS_IN_FLIGHT = 8;

export interface DayFigures {
  date: IsoDate;
  /** Collected on this day (successful debits), cents. */
  collected: number;
  /** Collected from the first day to this one, cents. */
  amount_collected: number;
  /** amount_collected ÷ what is due. */
  cumulative_rate: number;
  succeeded: number;
  failed: number;
}

export interface PatternFigures {
  pattern: string;
  policies: number;
  paid_full: number;
  due: number;
  collected: number;
  /** collected ÷ due. */
  collection_rate: number;
  failed_attempts: number;
}

export interface FailureFigures {
  reason: string;
  /** Failed debits with this reason. */
  attempts: number;
  /** The collections whose last failure was this reason and that are not paid in full. */
  policies: number;
  /** What those failed debits asked for, cents. */
  failed_amount: number;
}

export interface OpenPolicy {
  policy_number: string;
  customer_id: string;
  external_customer_ref: string;
  product_code: string;
  collection_status: CollectionStatus;
  collection_amount_due: number;
  collection_amount_collected: number;
  shortfall: number;
  number_of_attempts: number;
  last_attempt_date: IsoDate | null;
  last_failure_reason: string | null;
}

export interface SummarySettlement {
  settlement_number: string;
  status: Settlement['status'];
  total_collections: number;
  distribution_fee: number;
  collections_fee: number;
  total_fees: number;
  vat: number;
  previously_paid: number;
  net_amount: number;
  payment_date: IsoDate;
  payment_reference: string;
  collections_count: number;
}

export interface SummaryFigures {
  period_month: Period;
  /** Whether the figures are final (null: the server does not say). */
  period_state: PeriodState | null;
  policies: number;
  by_status: Record<CollectionStatus, number>;
  due: number;
  collected: number;
  shortfall: number;
  /** collected ÷ due (excluding nothing: cancelled collections count with what they owed). */
  collection_rate: number;
  attempts: number;
  failed_attempts: number;
  /** Every day of the period up to the last day with an attempt (empty without attempts). */
  by_day: DayFigures[];
  /** null: not analysed (see patterns_note). */
  by_income_pattern: PatternFigures[] | null;
  patterns_note: string | null;
  failures_by_reason: FailureFigures[];
  settlement: SummarySettlement | null;
  /** UNPAID and PAID_PARTIAL collections, largest shortfall first. */
  unpaid_and_partial: OpenPolicy[];
}

interface AttemptRow {
  collection_id: string;
  policy_number: string;
  customer_id: string;
  date: IsoDate;
  amount: number;
  outcome: 'SUCCESS' | 'FAILED';
  failure_reason: string | null;
}

/** A share rounded to four decimals; 0 of nothing is 0. */
export function share(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
}

export interface SummaryReadOptions {
  /** Each customer's income pattern, already looked up (simulate's month summary has them). */
  incomePatterns?: ReadonlyMap<string, string> | null;
}

export async function readSummary(b: Backend, period: Period, options: SummaryReadOptions = {}): Promise<SummaryFigures> {
  const report = await b.collectionsReport(period, 'json');
  const reportBody = moneyToCents(JSON.parse(await readAll(report)) as { period_state?: PeriodState; results: CollectionReportRow[] });
  const rows = reportBody.results;
  const attemptsBody = moneyToCents(JSON.parse(await readAll(await b.exportAttempts(period, 'json'))) as { attempts: AttemptRow[] });
  const attempts = attemptsBody.attempts;
  const periodState = report.periodState ?? reportBody.period_state ?? null;

  const byStatus: Record<CollectionStatus, number> = { PAID_FULL: 0, PAID_PARTIAL: 0, UNPAID: 0, CANCELLED: 0 };
  let due = 0;
  let collected = 0;
  for (const r of rows) {
    byStatus[r.collection_status]++;
    due += r.collection_amount_due;
    collected += r.collection_amount_collected;
  }

  // Days: what succeeded and failed on each, then the running total.
  const perDay = new Map<IsoDate, { collected: number; succeeded: number; failed: number }>();
  let lastAttempt: IsoDate | null = null;
  let failedAttempts = 0;
  const failedByPolicy = new Map<string, number>();
  const failures = new Map<string, FailureFigures>();
  for (const a of attempts) {
    let d = perDay.get(a.date);
    if (!d) perDay.set(a.date, (d = { collected: 0, succeeded: 0, failed: 0 }));
    if (lastAttempt === null || a.date > lastAttempt) lastAttempt = a.date;
    if (a.outcome === 'SUCCESS') {
      d.collected += a.amount;
      d.succeeded++;
    } else {
      d.failed++;
      failedAttempts++;
      failedByPolicy.set(a.policy_number, (failedByPolicy.get(a.policy_number) ?? 0) + 1);
      const reason = a.failure_reason ?? 'UNKNOWN';
      let f = failures.get(reason);
      if (!f) failures.set(reason, (f = { reason, attempts: 0, policies: 0, failed_amount: 0 }));
      f.attempts++;
      f.failed_amount += a.amount;
    }
  }
  for (const r of rows) {
    if (r.last_failure_reason === null || r.collection_status === 'PAID_FULL') continue;
    let f = failures.get(r.last_failure_reason);
    if (!f) failures.set(r.last_failure_reason, (f = { reason: r.last_failure_reason, attempts: 0, policies: 0, failed_amount: 0 }));
    f.policies++;
  }
  const byDay: DayFigures[] = [];
  if (lastAttempt !== null) {
    const end = lastAttempt < lastDay(period) ? lastAttempt : lastDay(period);
    let running = 0;
    // Attempts dated before the period (none are expected) count on its first day.
    for (const [date, d] of perDay) if (date < firstDay(period)) running += d.collected;
    for (let date = firstDay(period); date <= end; date = addDays(date, 1)) {
      const d = perDay.get(date) ?? { collected: 0, succeeded: 0, failed: 0 };
      running += d.collected;
      byDay.push({ date, collected: d.collected, amount_collected: running, cumulative_rate: share(running, due), succeeded: d.succeeded, failed: d.failed });
    }
  }

  const { patterns, note } = await incomePatterns(b, rows, failedByPolicy, options.incomePatterns ?? null);

  const open: OpenPolicy[] = rows
    .filter((r) => r.collection_status === 'UNPAID' || r.collection_status === 'PAID_PARTIAL')
    .map((r) => ({
      policy_number: r.policy_number,
      customer_id: r.customer_id,
      external_customer_ref: r.external_customer_ref,
      product_code: r.product_code,
      collection_status: r.collection_status,
      collection_amount_due: r.collection_amount_due,
      collection_amount_collected: r.collection_amount_collected,
      shortfall: r.collection_amount_due - r.collection_amount_collected,
      number_of_attempts: r.number_of_attempts,
      last_attempt_date: r.last_attempt_date,
      last_failure_reason: r.last_failure_reason,
    }))
    .sort((x, y) => y.shortfall - x.shortfall || (x.policy_number < y.policy_number ? -1 : x.policy_number > y.policy_number ? 1 : 0));

  return {
    period_month: period,
    period_state: periodState,
    policies: rows.length,
    by_status: byStatus,
    due,
    collected,
    shortfall: due - collected,
    collection_rate: share(collected, due),
    attempts: attempts.length,
    failed_attempts: failedAttempts,
    by_day: byDay,
    by_income_pattern: patterns,
    patterns_note: note,
    failures_by_reason: [...failures.values()].sort((x, y) => y.attempts - x.attempts || y.policies - x.policies || (x.reason < y.reason ? -1 : 1)),
    settlement: await currentSettlement(b, period),
    unpaid_and_partial: open,
  };
}

async function incomePatterns(
  b: Backend,
  rows: CollectionReportRow[],
  failedByPolicy: Map<string, number>,
  known: ReadonlyMap<string, string> | null,
): Promise<{ patterns: PatternFigures[] | null; note: string | null }> {
  const patternOf = new Map<string, string>(known ?? []);
  const customers = [...new Set(rows.map((r) => r.customer_id))].filter((id) => !patternOf.has(id));
  if (customers.length > PATTERN_CUSTOMER_LIMIT) {
    return { patterns: null, note: `not analysed: ${customers.length} customers (the table looks each one up, up to ${PATTERN_CUSTOMER_LIMIT})` };
  }
  let refused: PremiaError | null = null;
  let next = 0;
  const worker = async () => {
    while (next < customers.length && refused === null) {
      const id = customers[next++]!;
      try {
        patternOf.set(id, (await b.showBankAccount(id)).income.pattern);
      } catch (e) {
        if (!(e instanceof PremiaError)) throw e;
        if (e.code === 'NOT_FOUND') patternOf.set(id, 'unknown');
        else refused = e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_IN_FLIGHT, customers.length) }, worker));
  if (refused !== null) return { patterns: null, note: `not analysed: bank accounts cannot be read here (${(refused as PremiaError).code})` };
  const acc = new Map<string, PatternFigures>();
  for (const r of rows) {
    const pattern = patternOf.get(r.customer_id) ?? 'unknown';
    let p = acc.get(pattern);
    if (!p) acc.set(pattern, (p = { pattern, policies: 0, paid_full: 0, due: 0, collected: 0, collection_rate: 0, failed_attempts: 0 }));
    p.policies++;
    if (r.collection_status === 'PAID_FULL') p.paid_full++;
    p.due += r.collection_amount_due;
    p.collected += r.collection_amount_collected;
    p.failed_attempts += failedByPolicy.get(r.policy_number) ?? 0;
  }
  for (const p of acc.values()) p.collection_rate = share(p.collected, p.due);
  return { patterns: [...acc.values()].sort((x, y) => y.policies - x.policies || (x.pattern < y.pattern ? -1 : 1)), note: null };
}

/** The period's statement in force: the one no later statement replaced (the latest made). */
async function currentSettlement(b: Backend, period: Period): Promise<SummarySettlement | null> {
  // A period has a few statements (one, plus one per dispute): they come on one page.
  const all = (await b.listSettlements({ period_month: period })).data;
  const current = all.filter((s) => s.superseded_by === null).sort((x, y) => (x.settlement_number < y.settlement_number ? 1 : -1))[0];
  if (!current) return null;
  return {
    settlement_number: current.settlement_number,
    status: current.status,
    total_collections: current.total_collections,
    distribution_fee: current.distribution_fee,
    collections_fee: current.collections_fee,
    total_fees: current.total_fees,
    vat: current.vat,
    previously_paid: current.previously_paid,
    net_amount: current.net_amount,
    payment_date: current.payment_date,
    payment_reference: current.payment_reference,
    collections_count: current.collections_count,
  };
}

async function readAll(d: Download): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of d.body) parts.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}
