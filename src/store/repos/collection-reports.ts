/**
 * Read-only queries behind the collections report and the settlement line export. They are
 * streamed (Store.streamRows, raw arrays) and read the unique index (client_id, period_month,
 * policy_number), which yields rows in policy_number order without a sort.
 */
import type { Store } from '../store.js';

/**
 * The report row as a raw array, in this column order: period_month, customer_id,
 * external_customer_ref, policy_number, product_code, amount_due, amount_collected, status,
 * first_attempt_date, last_attempt_date, attempts, last_failure_reason, id.
 */
export type ReportRow = [
  period_month: string,
  customer_id: string,
  external_customer_ref: string,
  policy_number: string,
  product_code: string,
  amount_due: number,
  amount_collected: number,
  status: string,
  first_attempt_date: string | null,
  last_attempt_date: string | null,
  attempts: number,
  last_failure_reason: string | null,
  id: number,
];

const REPORT_SQL = `select period_month, customer_id, external_customer_ref, policy_number, product_code,
  amount_due, amount_collected, status, first_attempt_date, last_attempt_date, attempts,
  last_failure_reason, id
from collections
where client_id = ? and period_month = ?
order by policy_number`;

export function streamReportRows(store: Store, clientId: number, period: string, batch = 4096): AsyncGenerator<ReportRow[]> {
  return store.streamRows<ReportRow>(REPORT_SQL, [clientId, period], { raw: true, batch });
}

/** [amount_collected, number of collections] per distinct collected amount of a period. */
export type CollectedCount = [amount_collected: number, count: number];

const COLLECTED_COUNTS_SQL = `select amount_collected, count(*)
from collections
where client_id = ? and period_month = ?
group by amount_collected`;

export function streamCollectedCounts(store: Store, clientId: number, period: string): AsyncGenerator<CollectedCount[]> {
  return store.streamRows<CollectedCount>(COLLECTED_COUNTS_SQL, [clientId, period], { raw: true, batch: 4096 });
}

/** A line of `settlements export --lines`. */
export type LineRow = [
  policy_number: string,
  customer_id: string,
  external_customer_ref: string,
  product_code: string,
  amount_collected: number,
];

const LINES_SQL = `select policy_number, customer_id, external_customer_ref, product_code, amount_collected
from collections
where client_id = ? and period_month = ?
order by policy_number`;

export function streamLineRows(store: Store, clientId: number, period: string, batch = 4096): AsyncGenerator<LineRow[]> {
  return store.streamRows<LineRow>(LINES_SQL, [clientId, period], { raw: true, batch });
}
