/**
 * The collections report's rows read in ranges of policy numbers and written as text, CSV lines
 * or JSON results (issue 13): shared by the reading thread (repos/collection-reports.ts) and the
 * report reader's worker (report-reader.ts), which read a large period's ranges side by side on
 * two connections in one snapshot, so that the bytes are the same whichever thread read a range.
 *
 * A range is [boundaries[k], boundaries[k + 1]) of policy_number in the unique index
 * (client_id, period_month, policy_number), the last one open above; each is read in keyset
 * pages of PAGE_ROWS rows (KeysetPages), as the one-thread read of a period is.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { encodeId, IdKind } from '../domain/ids.js';
import { formatCents, type Cents } from '../domain/money.js';
import { csvCell } from '../lib/csv-writer.js';

/**
 * Rows per page. Small pages keep the rows in flight young enough for the scavenger (a larger
 * page's rows outlive it, and the full collections they then need cost time and memory); below
 * 512 the per-page query costs more than it saves.
 */
export const PAGE_ROWS = 1024;

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

export const REPORT_COLUMNS_SQL = `customer_id, external_customer_ref, policy_number, product_code, amount_due, amount_collected,
  status, first_attempt_date, last_attempt_date, attempts, last_failure_reason, id`;

/**
 * Report rows as CSV lines, in REPORT_COLUMNS order (backend/types.ts), `periodCell` the period
 * as a CSV cell. Identifiers cannot hold a comma or a quote when they come through premia's
 * validation, but are quoted if they ever do.
 */
export function reportCsvLines(periodCell: string, rows: readonly ReportRow[]): string {
  let chunk = '';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const due = r[4];
    const collected = r[5];
    chunk +=
      periodCell + ',' +
      csvCell(r[0]) + ',' +
      csvCell(r[1]) + ',' +
      csvCell(r[2]) + ',' +
      csvCell(r[3]) + ',' +
      formatCents(due) + ',' +
      formatCents(collected) + ',' +
      formatCents(due - collected) + ',' +
      r[6] + ',' + // status: one of four words (CHECK constraint)
      csvCell(r[7]) + ',' +
      csvCell(r[8]) + ',' +
      r[9] + ',' +
      csvCell(r[10]) + '\n';
  }
  return chunk;
}

/** Text that JSON.stringify writes as it is, between quotes: no quote, backslash, control character or surrogate. */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const PLAIN_JSON_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
/** A string as JSON.stringify writes it (the quotes added directly to plain text: most report cells). */
const jsonString = (v: string): string => (PLAIN_JSON_TEXT.test(v) ? `"${v}"` : JSON.stringify(v));
const jsonText = (v: string | null): string => (v === null ? 'null' : jsonString(v));

/**
 * One result of the JSON report, written directly: byte for byte what
 * `stringifyJson({ id, ...toReportRow(period, r) })` (backend/local/reports.ts) gives (a test
 * holds them equal), at a fraction of its cost per row (no object, no key walk).
 */
export function reportRowJson(id: string, periodJson: string, r: ReportRow): string {
  return (
    '{"id":' + jsonString(id) +
    ',"period_month":' + periodJson +
    ',"customer_id":' + jsonString(r[0]) +
    ',"external_customer_ref":' + jsonString(r[1]) +
    ',"policy_number":' + jsonString(r[2]) +
    ',"product_code":' + jsonString(r[3]) +
    ',"collection_amount_due":' + formatCents(r[4]) +
    ',"collection_amount_collected":' + formatCents(r[5]) +
    ',"shortfall":' + formatCents(r[4] - r[5]) +
    ',"collection_status":' + jsonString(r[6]) +
    ',"first_attempt_date":' + jsonText(r[7]) +
    ',"last_attempt_date":' + jsonText(r[8]) +
    ',"number_of_attempts":' + String(r[9]) +
    ',"last_failure_reason":' + jsonText(r[10]) +
    '}'
  );
}

/** Report rows as JSON results, each after a comma (the caller drops the report's first). */
export function reportJsonLines(periodJson: string, idSalt: number, rows: readonly ReportRow[]): string {
  let chunk = '';
  for (let i = 0; i < rows.length; i++) chunk += ',' + reportRowJson(encodeId(IdKind.collection, idSalt, rows[i]![11]), periodJson, rows[i]!);
  return chunk;
}

/** How a report's rows are written: CSV lines, or JSON results (their ids salted). */
export type ReportText = { kind: 'csv' } | { kind: 'json'; idSalt: number };

/** The writer of `format`'s text for a page of `period`'s rows. */
export function reportTextWriter(format: ReportText, period: string): (rows: readonly ReportRow[]) => string {
  if (format.kind === 'csv') {
    const periodCell = csvCell(period);
    return (rows) => reportCsvLines(periodCell, rows);
  }
  const periodJson = JSON.stringify(period);
  return (rows) => reportJsonLines(periodJson, format.idSalt, rows);
}

/**
 * The first policy number of every `rangeRows` rows of the period, in order (empty: no rows):
 * each found from the one before by stepping over `rangeRows - 1` entries of the index, so the
 * whole takes one walk of the index (~90 ms at 1M; a `row_number()` window took 1.75 s).
 */
export function rangeBoundaries(db: BetterSqlite3.Database, clientId: number, period: string, rangeRows: number): string[] {
  const first = db.prepare('select policy_number from collections where client_id = ? and period_month = ? order by policy_number limit 1').pluck();
  const next = db
    .prepare('select policy_number from collections where client_id = ? and period_month = ? and policy_number > ? order by policy_number limit 1 offset ?')
    .pluck();
  const out: string[] = [];
  for (let key = first.get(clientId, period) as string | undefined; key !== undefined; key = next.get(clientId, period, key, rangeRows - 1) as string | undefined) {
    out.push(key);
  }
  return out;
}

/**
 * A period's rows in policy_number order on one connection, in keyset pages of PAGE_ROWS rows
 * (each page from the last key of the one before), inside the caller's read transaction.
 * `columns` must put policy_number at `keyIndex`.
 */
export class KeysetPages<T extends unknown[]> {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly columns: string,
    private readonly keyIndex: number,
    private readonly clientId: number,
    private readonly period: string,
  ) {}

  /** The rows from `from` (null: the first) up to below `below` (null: the last), a page at a time. */
  *pages(from: string | null, below: string | null): Generator<T[]> {
    let rows = this.page(from === null ? '' : '>=', from, below);
    while (rows.length > 0) {
      yield rows;
      if (rows.length < PAGE_ROWS) return;
      rows = this.page('>', rows[rows.length - 1]![this.keyIndex] as string, below);
    }
  }

  /** A page above `low` (by `op`; none when op is ''), below `below` if given. */
  private page(op: '' | '>=' | '>', low: string | null, below: string | null): T[] {
    const key = `${op}|${below === null ? '' : '<'}`;
    let stmt = this.statements.get(key);
    if (stmt === undefined) {
      const where = `${op === '' ? '' : ` and policy_number ${op} ?`}${below === null ? '' : ' and policy_number < ?'}`;
      stmt = this.db.prepare(`select ${this.columns} from collections where client_id = ? and period_month = ?${where} order by policy_number limit ?`).raw(true);
      this.statements.set(key, stmt);
    }
    const params: unknown[] = [this.clientId, this.period];
    if (op !== '') params.push(low);
    if (below !== null) params.push(below);
    params.push(PAGE_ROWS);
    return stmt.all(...params) as T[];
  }
}

/** Reads the ranges of one period's report rows on one connection, inside the caller's read transaction. */
export class RangeReader {
  private readonly keyset: KeysetPages<ReportRow>;

  constructor(
    db: BetterSqlite3.Database,
    clientId: number,
    period: string,
    private readonly boundaries: readonly string[],
  ) {
    this.keyset = new KeysetPages<ReportRow>(db, REPORT_COLUMNS_SQL, 2, clientId, period);
  }

  /** Range `k`'s rows, a page at a time. */
  pages(k: number): Generator<ReportRow[]> {
    return this.keyset.pages(this.boundaries[k]!, this.boundaries[k + 1] ?? null);
  }
}

/** The worker's data (report-reader.ts). */
export interface ReportReaderData {
  path: string;
  busyTimeoutMs: number;
  clientId: number;
  period: string;
  format: ReportText;
  boundaries: string[];
  /** Int32Array over it: see the slots below. */
  shared: SharedArrayBuffer;
  /** Ranges the worker may have read and the reading thread not yet taken, at most. */
  window: number;
}

/** Shared slots: the next range not yet claimed (each thread claims with Atomics.add). */
export const NEXT = 0;
/** 1 once the worker is in its read transaction (its snapshot taken); the streaming thread looks, nobody waits. */
export const BEGUN = 1;
/** 0 until decided; GO: the snapshots are one, read; STOP: not (or no longer wanted), end. */
export const DECIDED = 2;
export const GO = 1;
export const STOP = 2;
/** The worker's ranges the reading thread has taken so far. */
export const TAKEN = 3;
export const SHARED_SLOTS = 4;

/** Messages from the worker: a range's text (UTF-8), then done. Failures end the thread (its 'error'). */
export type ReportReaderOut = { type: 'range'; k: number; text: Uint8Array } | { type: 'done' };
