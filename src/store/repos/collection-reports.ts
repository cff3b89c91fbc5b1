/**
 * Read-only queries behind the collections report and the settlement line export: a period's
 * collections in policy_number order, read through the unique index (client_id, period_month,
 * policy_number), which yields that order without a sort.
 *
 * Why these do not simply call Store.streamRows: better-sqlite3's row iterator costs about
 * half a microsecond more per row than fetching a page of rows with one `all()` call, which
 * over a million rows matters for the report's speed budget. So on a file store the rows are
 * read in keyset pages (`policy_number > last one`, LIMIT n) on a separate read-only
 * connection, all inside ONE read transaction: every page comes from the same snapshot, exactly
 * as streamRows promises, and a long download never blocks the writer (WAL). On `:memory:` or
 * a temporary store (tests) they go through streamRows, which holds the one connection. On
 * PostgreSQL they come through a cursor (streamRows), from one snapshot as well.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { Cents } from '../../domain/money.js';
import { pgLiteral } from '../pg-copy.js';
import { DEFAULT_BUSY_TIMEOUT_MS, type Store } from '../store.js';
import type { PgStore } from '../store-types.js';

const require = createRequire(import.meta.url);

/**
 * Rows per page. Small pages keep the rows in flight young enough for the scavenger (a larger
 * page's rows outlive it, and the full collections they then need cost time and memory); below
 * 512 the per-page query costs more than it saves.
 */
export const PAGE_ROWS = 1024;

/**
 * A period's collections in policy_number order, in batches of raw rows. `columns` must put
 * policy_number at `keyIndex`.
 */
async function* periodRowsInOrder<T extends unknown[]>(
  store: Store,
  columns: string,
  keyIndex: number,
  clientId: number,
  period: string,
): AsyncGenerator<T[]> {
  const base = `select ${columns} from collections where client_id = ? and period_month = ?`;
  // PostgreSQL: one cursor in one read-only snapshot (pg-store.ts streamRows), PAGE_ROWS at a
  // time, so a million rows never sit in memory and the writer is never held up.
  if (store.kind === 'postgres' || store.path === ':memory:' || store.path === '') {
    yield* store.streamRows<T>(`${base} order by policy_number`, [clientId, period], { raw: true, batch: PAGE_ROWS });
    return;
  }
  const BetterSqlite = require('better-sqlite3') as typeof BetterSqlite3;
  const reader = new BetterSqlite(store.path, { readonly: true, fileMustExist: true, timeout: DEFAULT_BUSY_TIMEOUT_MS });
  try {
    const first = reader.prepare(`${base} order by policy_number limit ?`).raw(true);
    const next = reader.prepare(`${base} and policy_number > ? order by policy_number limit ?`).raw(true);
    reader.exec('begin'); // one snapshot for every page
    let rows = first.all(clientId, period, PAGE_ROWS) as T[];
    while (rows.length > 0) {
      yield rows;
      if (rows.length < PAGE_ROWS) break;
      rows = next.all(clientId, period, rows[rows.length - 1]![keyIndex], PAGE_ROWS) as T[];
    }
  } finally {
    if (reader.inTransaction) reader.exec('commit');
    reader.close();
  }
}

/**
 * A report row as a raw array, in this column order (period_month is the caller's):
 * customer_id, external_customer_ref, policy_number, product_code, amount_due,
 * amount_collected, status, first_attempt_date, last_attempt_date, attempts,
 * last_failure_reason, id.
 */
export type ReportRow = [
  customer_id: string,
  external_customer_ref: string,
  policy_number: string,
  product_code: string,
  amount_due: Cents,
  amount_collected: Cents,
  status: string,
  first_attempt_date: string | null,
  last_attempt_date: string | null,
  attempts: number,
  last_failure_reason: string | null,
  id: number,
];

const REPORT_COLUMNS_SQL = `customer_id, external_customer_ref, policy_number, product_code, amount_due, amount_collected,
  status, first_attempt_date, last_attempt_date, attempts, last_failure_reason, id`;

export function streamReportRows(store: Store, clientId: number, period: string): AsyncGenerator<ReportRow[]> {
  return periodRowsInOrder<ReportRow>(store, REPORT_COLUMNS_SQL, 2, clientId, period);
}

/**
 * PostgreSQL: the collections report as CSV, written by the server (`COPY (select …) TO STDOUT`)
 * and streamed as it comes: the bytes premia's CSV writer (lib/csv-writer.ts, as
 * backend/local/reports.ts uses it) gives for the same rows, header first. `columns`: the 13
 * header names, in report order. How each difference between the two writers is closed:
 *
 *  - money: integer cents × 0.01 is a numeric of scale 2, whose text is formatCents' (`149.50`,
 *    `0.00`, `-0.05`), exactly, with no float and no locale;
 *  - empty text: PostgreSQL writes NULL as an empty field but an empty string as `""`, where
 *    premia writes both as an empty field: every text column goes through nullif(…, '');
 *  - quoting: both quote a field only when it holds a comma, a double quote, CR or LF, doubling
 *    the quotes inside (PostgreSQL also quotes `\.` alone, but only in a one-column COPY);
 *  - order: policy_number (collate "C": byte order, as SQLite), the unique index's order;
 *  - line ends `\n`, UTF-8 (pg's connections are client_encoding UTF8).
 *
 * test/pg/report-copy.test.ts holds the bytes equal to SQLite's on awkward values.
 */
export function copyReportCsv(store: PgStore, clientId: number, period: string, columns: readonly string[]): AsyncGenerator<Buffer> {
  if (!Number.isSafeInteger(clientId)) throw new RangeError(`not a client id: ${clientId}`);
  if (columns.length !== 13) throw new RangeError(`the report has 13 columns, not ${columns.length}`);
  const text = (col: string) => `nullif(${col}, '')`;
  const money = (expr: string) => `(${expr}) * 0.01`;
  const cells = [
    text('period_month'),
    text('customer_id'),
    text('external_customer_ref'),
    text('policy_number'),
    text('product_code'),
    money('amount_due'),
    money('amount_collected'),
    money('amount_due - amount_collected'),
    'status',
    text('first_attempt_date'),
    text('last_attempt_date'),
    'attempts',
    text('last_failure_reason'),
  ];
  const select = cells.map((cell, i) => `${cell} as ${pgIdentifier(columns[i]!)}`).join(', ');
  return store.copyOut(
    `copy (select ${select} from collections where client_id = ${clientId} and period_month = ${pgLiteral(period)} ` +
      'order by policy_number) to stdout with (format csv, header true)',
  );
}

/** A column name as a quoted PostgreSQL identifier. */
function pgIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** [amount_collected, number of collections] per distinct collected amount of a period. */
export type CollectedCount = [amount_collected: Cents, count: number];

const COLLECTED_COUNTS_SQL = `select amount_collected, count(*)
from collections
where client_id = ? and period_month = ?
group by amount_collected`;

export function streamCollectedCounts(store: Store, clientId: number, period: string): AsyncGenerator<CollectedCount[]> {
  return store.streamRows<CollectedCount>(COLLECTED_COUNTS_SQL, [clientId, period], { raw: true, batch: PAGE_ROWS });
}

/** A line of `settlements export --lines`. */
export type LineRow = [
  policy_number: string,
  customer_id: string,
  external_customer_ref: string,
  product_code: string,
  amount_collected: Cents,
];

export function streamLineRows(store: Store, clientId: number, period: string): AsyncGenerator<LineRow[]> {
  return periodRowsInOrder<LineRow>(store, 'policy_number, customer_id, external_customer_ref, product_code, amount_collected', 0, clientId, period);
}
