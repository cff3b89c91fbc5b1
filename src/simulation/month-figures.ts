/**
 * One period's month in numbers, read through the Backend interface only (so local and remote
 * mode give the same figures): the figures of `premia reports summary`, and of the month's
 * summary `premia simulate` prints (scenario.ts), both from:
 *   - the collections report (CSV, streamed) for what was due and collected, by status, and the
 *     unpaid and partial policies;
 *   - the attempts export (CSV, streamed) for what was collected on which day and why debits failed;
 *   - each customer's bank account view for its income pattern (up to PATTERN_CUSTOMER_LIMIT
 *     customers, or as many as the caller allows: beyond that, one request per customer is too
 *     slow, and the table is left out);
 *   - the period's settlement statement in force, if one was made.
 * Money stays in integer cents; shares are fractions rounded to four decimals (0.8839 = 88.39%).
 */
import { ATTEMPT_COLUMNS, REPORT_COLUMNS, type Backend, type CollectionStatus, type Download, type PeriodState, type Settlement } from '../backend/types.js';
import { PremiaError } from '../domain/errors.js';
import { centsFromJsonNumber } from '../domain/money.js';
import { CsvReader } from '../lib/csv-reader.js';
import { addDays, lastDay, firstDay, type IsoDate, type Period } from '../domain/period.js';

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

/**
 * A share rounded to four decimals; 0 of nothing is 0. As the printed percentages, a share short
 * of the whole is never rounded up to 1 (0.99996 is 0.9999), nor anything collected down to 0.
 */
export function share(part: number, whole: number): number {
  if (whole === 0) return 0;
  const r = Math.round((part / whole) * 10_000);
  if (r >= 10_000 && part < whole) return 0.9999;
  if (r === 0 && part > 0) return 0.0001;
  return r / 10_000;
}

export interface SummaryReadOptions {
  /** The period's collections report and attempts export as CSV, already fetched (simulate has just saved them). */
  downloads?: { report: Download; attempts: Download };
  /** The most customers looked up for the income-pattern table (PATTERN_CUSTOMER_LIMIT by default). */
  patternCustomers?: number;
}

/** What one customer's collections add up to (for the income-pattern table). */
interface CustomerTotals {
  policies: number;
  paid_full: number;
  due: number;
  collected: number;
  failed_attempts: number;
}

/**
 * The figures, from two streamed CSV downloads (the report and the attempts) read a chunk at a
 * time: what is kept is a total per day, the unpaid and partial rows, and one total per
 * customer while the income-pattern table can still be made (at most PATTERN_CUSTOMER_LIMIT
 * customers to look up), so a month of a million policies is summarised without holding its
 * report.
 */
export async function readSummary(b: Backend, period: Period, options: SummaryReadOptions = {}): Promise<SummaryFigures> {
  const report = options.downloads?.report ?? (await b.collectionsReport(period, 'csv'));
  const byStatus: Record<CollectionStatus, number> = { PAID_FULL: 0, PAID_PARTIAL: 0, UNPAID: 0, CANCELLED: 0 };
  let policies = 0;
  let due = 0;
  let collected = 0;
  const limit = options.patternCustomers ?? PATTERN_CUSTOMER_LIMIT;
  const customers = new CustomerTable(limit);
  const lastFailures = new Map<string, number>();
  const open: OpenPolicy[] = [];
  await readCsv(report, 'collections report', REPORT_COLUMNS, (f) => {
    const [, customer_id, external_customer_ref, policy_number, product_code, dueText, collectedText, , statusText, , lastAttempt, attemptsText, lastFailure] = f;
    const status = statusText as CollectionStatus;
    if (!(status in byStatus)) throw new Error(`unknown collection_status '${statusText}'`);
    const rowDue = moneyCents(dueText!, 'collection_amount_due');
    const rowCollected = moneyCents(collectedText!, 'collection_amount_collected');
    policies++;
    byStatus[status]++;
    due += rowDue;
    collected += rowCollected;
    const c = customers.totals(customer_id!);
    if (c !== null) {
      c.policies++;
      if (status === 'PAID_FULL') c.paid_full++;
      c.due += rowDue;
      c.collected += rowCollected;
    }
    const failure = lastFailure === '' ? null : lastFailure!;
    if (failure !== null && status !== 'PAID_FULL') lastFailures.set(failure, (lastFailures.get(failure) ?? 0) + 1);
    if (status === 'UNPAID' || status === 'PAID_PARTIAL') {
      open.push({
        policy_number: policy_number!,
        customer_id: customer_id!,
        external_customer_ref: external_customer_ref!,
        product_code: product_code!,
        collection_status: status,
        collection_amount_due: rowDue,
        collection_amount_collected: rowCollected,
        shortfall: rowDue - rowCollected,
        number_of_attempts: Number(attemptsText),
        last_attempt_date: lastAttempt === '' ? null : lastAttempt!,
        last_failure_reason: failure,
      });
    }
  });

  // Days: what succeeded and failed on each, then the running total.
  const perDay = new Map<IsoDate, { collected: number; succeeded: number; failed: number }>();
  let lastAttempt: IsoDate | null = null;
  let attempts = 0;
  let failedAttempts = 0;
  const failures = new Map<string, FailureFigures>();
  const attemptsExport = options.downloads?.attempts ?? (await b.exportAttempts(period, 'csv'));
  await readCsv(attemptsExport, 'attempts export', ATTEMPT_COLUMNS, (f) => {
    const [, , customer_id, date, amountText, outcome, reasonText] = f;
    const amount = moneyCents(amountText!, 'amount');
    attempts++;
    let d = perDay.get(date!);
    if (!d) perDay.set(date!, (d = { collected: 0, succeeded: 0, failed: 0 }));
    if (lastAttempt === null || date! > lastAttempt) lastAttempt = date!;
    if (outcome === 'SUCCESS') {
      d.collected += amount;
      d.succeeded++;
      return;
    }
    d.failed++;
    failedAttempts++;
    const c = customers.byId?.get(customer_id!);
    if (c) c.failed_attempts++;
    const reason = reasonText === '' ? 'UNKNOWN' : reasonText!;
    let r = failures.get(reason);
    if (!r) failures.set(reason, (r = { reason, attempts: 0, policies: 0, failed_amount: 0 }));
    r.attempts++;
    r.failed_amount += amount;
  });
  for (const [reason, n] of lastFailures) {
    let r = failures.get(reason);
    if (!r) failures.set(reason, (r = { reason, attempts: 0, policies: 0, failed_amount: 0 }));
    r.policies = n;
  }

  const byDay: DayFigures[] = [];
  const last = lastAttempt as IsoDate | null; // set in the callback above
  if (last !== null) {
    const end: IsoDate = last < lastDay(period) ? last : lastDay(period);
    let running = 0;
    // Attempts dated before the period (none are expected) count on its first day.
    for (const [date, d] of perDay) if (date < firstDay(period)) running += d.collected;
    for (let date = firstDay(period); date <= end; date = addDays(date, 1)) {
      const d = perDay.get(date) ?? { collected: 0, succeeded: 0, failed: 0 };
      running += d.collected;
      byDay.push({ date, collected: d.collected, amount_collected: running, cumulative_rate: share(running, due), succeeded: d.succeeded, failed: d.failed });
    }
  }

  const { patterns, note } = customers.byId === null ? { patterns: null, note: tooManyToLookUp(limit) } : await incomePatterns(b, customers.byId);
  open.sort((x, y) => y.shortfall - x.shortfall || (x.policy_number < y.policy_number ? -1 : x.policy_number > y.policy_number ? 1 : 0));

  return {
    period_month: period,
    period_state: report.periodState ?? null,
    policies,
    by_status: byStatus,
    due,
    collected,
    shortfall: due - collected,
    collection_rate: share(collected, due),
    attempts,
    failed_attempts: failedAttempts,
    by_day: byDay,
    by_income_pattern: patterns,
    patterns_note: note,
    failures_by_reason: [...failures.values()].sort((x, y) => y.attempts - x.attempts || y.policies - x.policies || (x.reason < y.reason ? -1 : 1)),
    settlement: await currentSettlement(b, period),
    unpaid_and_partial: open,
  };
}

/**
 * Each customer's totals, while there are at most `limit` customers; past that the table cannot
 * be made, and nothing more is kept (a million customers' totals, or only their ids to count
 * them, took 60–150 MB and ~1 s).
 */
class CustomerTable {
  /** Null once there are too many customers to look up. */
  byId: Map<string, CustomerTotals> | null = new Map();

  constructor(private readonly limit: number) {}

  /** The customer's totals to add to, or null when they are no longer kept. */
  totals(id: string): CustomerTotals | null {
    if (this.byId === null) return null;
    let c = this.byId.get(id);
    if (c === undefined) {
      if (this.byId.size >= this.limit) return (this.byId = null);
      this.byId.set(id, (c = { policies: 0, paid_full: 0, due: 0, collected: 0, failed_attempts: 0 }));
    }
    return c;
  }
}

const tooManyToLookUp = (limit: number) => `not analysed: more than ${limit} customers (the table looks each one up)`;

async function incomePatterns(b: Backend, customers: Map<string, CustomerTotals>): Promise<{ patterns: PatternFigures[] | null; note: string | null }> {
  const patternOf = new Map<string, string>();
  const ids = [...customers.keys()]; // at most the table's limit
  let refused: PremiaError | null = null;
  let next = 0;
  const worker = async () => {
    while (next < ids.length && refused === null) {
      const id = ids[next++]!;
      try {
        patternOf.set(id, (await b.showBankAccount(id)).income.pattern);
      } catch (e) {
        if (!(e instanceof PremiaError)) throw e;
        if (e.code === 'NOT_FOUND') patternOf.set(id, 'unknown');
        else refused = e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_IN_FLIGHT, ids.length) }, worker));
  if (refused !== null) return { patterns: null, note: `not analysed: bank accounts cannot be read here (${(refused as PremiaError).code})` };
  const acc = new Map<string, PatternFigures>();
  for (const [id, c] of customers) {
    const pattern = patternOf.get(id) ?? 'unknown';
    let p = acc.get(pattern);
    if (!p) acc.set(pattern, (p = { pattern, policies: 0, paid_full: 0, due: 0, collected: 0, collection_rate: 0, failed_attempts: 0 }));
    p.policies += c.policies;
    p.paid_full += c.paid_full;
    p.due += c.due;
    p.collected += c.collected;
    p.failed_attempts += c.failed_attempts;
  }
  for (const p of acc.values()) p.collection_rate = share(p.collected, p.due);
  return { patterns: [...acc.values()].sort((x, y) => y.policies - x.policies || (x.pattern < y.pattern ? -1 : 1)), note: null };
}

/** "149.50" → 14950 (read by character, no expression: 3 million a month at 1M); other decimal forms through the strict money parser. */
export function moneyCents(text: string, field: string): number {
  const n = text.length;
  const negative = text.charCodeAt(0) === 45;
  const from = negative ? 1 : 0;
  // 1 to 13 digits, a point, two digits.
  if (n - from >= 4 && n - from <= 16 && text.charCodeAt(n - 3) === 46) {
    let v = 0;
    let k = from;
    for (; k < n; k++) {
      if (k === n - 3) continue;
      const d = text.charCodeAt(k) - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (k === n) return negative ? -v : v;
  }
  return centsFromJsonNumber(text, field);
}

/**
 * Stream a CSV download through the reader, checking its header, calling `onRow` with each
 * record's fields. A body that is not the expected CSV is an error naming the download.
 */
async function readCsv(d: Download, what: string, columns: readonly string[], onRow: (fields: string[]) => void): Promise<void> {
  let header = true;
  const failed: { error: PremiaError | null } = { error: null };
  const reader = new CsvReader({
    onRecord: (fields, line, problem) => {
      if (failed.error !== null) return;
      try {
        if (problem !== null) throw new Error(problem);
        if (header) {
          header = false;
          if (fields.join(',') !== columns.join(',')) throw new Error(`its header is not ${columns.join(',')}`);
          return;
        }
        if (fields.length !== columns.length) throw new Error(`${fields.length} fields instead of ${columns.length}`);
        onRow(fields);
      } catch (e) {
        failed.error = new PremiaError('INTERNAL', `The ${what} could not be read (line ${line}: ${(e as Error).message}).`, { cause: e });
      }
    },
  });
  for await (const chunk of d.body) {
    reader.push(chunk);
    if (failed.error !== null) throw failed.error;
  }
  reader.end();
  if (failed.error !== null) throw failed.error;
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
