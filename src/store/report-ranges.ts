/**
 * A period's rows read in ranges of a key and written as text (issue 13): the collections
 * report's rows (by policy_number) as CSV lines or JSON results, and the attempts export's (by
 * id) likewise. Shared by the reading thread (repos/collection-reports.ts) and the report
 * reader's worker (report-reader.ts), which read a large period's ranges side by side on two
 * connections in one snapshot, so that the bytes are the same whichever thread read a range.
 *
 * A range is [boundaries[k], boundaries[k + 1]) of the key in an index that gives its order
 * without a sort (the unique index (client_id, period_month, policy_number) of the
 * collections; (client_id, period_month) of the attempts, whose entries end with the id), the
 * last one open above; each is read in keyset pages of PAGE_ROWS rows (KeysetPages), as the
 * one-thread read of a period is.
 */
import type { MessagePort } from 'node:worker_threads';
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
 * An attempt of the export as a raw array, in this column order: collection id,
 * policy_number, customer_id, date, amount, outcome, failure_reason, the attempt's id.
 */
export type AttemptRow = [
  collection_id: number,
  policy_number: string,
  customer_id: string,
  date: string,
  amount: Cents,
  outcome: string,
  failure_reason: string | null,
  id: number,
];

/** A range's key: a policy number, or an attempt's id. */
export type RangeKey = string | number;

/**
 * Where a period's rows come from, and the key whose order they are read in: `where` takes the
 * client and the period, `keyFrom` is the table whose index gives the key's order (the ranges'
 * boundaries are stepped over it alone), `columns` put the key at `keyIndex`; `pgOrder`, the
 * rows' order on PostgreSQL where it is not the key's.
 */
export interface RowSource {
  from: string;
  keyFrom: string;
  where: string;
  key: string;
  columns: string;
  keyIndex: number;
  pgOrder?: string;
}

/** A period's collections, in policy_number order (the report's columns). */
export const REPORT_ROWS: RowSource = {
  from: 'collections',
  keyFrom: 'collections',
  where: 'client_id = ? and period_month = ?',
  key: 'policy_number',
  columns: REPORT_COLUMNS_SQL,
  keyIndex: 2,
};

/**
 * A period's attempts in id order: the order they were made in, by day, then client and
 * policy_number (engine/day-rows.ts), on SQLite. PostgreSQL's ids follow the order its shards
 * of a day committed in (store/copy.ts): there the same order is written out.
 */
export const ATTEMPT_ROWS: RowSource = {
  from: 'attempts a join collections c on c.id = a.collection_id',
  keyFrom: 'attempts a',
  where: 'a.client_id = ? and a.period_month = ?',
  key: 'a.id',
  columns: 'a.collection_id, c.policy_number, c.customer_id, a.date, a.amount, a.outcome, a.failure_reason, a.id',
  keyIndex: 7,
  pgOrder: 'a.date, c.policy_number',
};

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

/**
 * Attempts as CSV lines, in ATTEMPT_COLUMNS order (backend/types.ts), the collection ids
 * salted: byte for byte what `csvRow` gives for the same cells (a test holds them equal).
 */
export function attemptCsvLines(idSalt: number, rows: readonly AttemptRow[]): string {
  let chunk = '';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    chunk +=
      encodeId(IdKind.collection, idSalt, r[0]) + ',' +
      csvCell(r[1]) + ',' +
      csvCell(r[2]) + ',' +
      csvCell(r[3]) + ',' +
      formatCents(r[4]) + ',' +
      csvCell(r[5]) + ',' +
      csvCell(r[6]) + '\n';
  }
  return chunk;
}

/**
 * Attempts as JSON results, each after a comma (the caller drops the first): byte for byte
 * what `stringifyJson` gives for the export's objects (a test holds them equal).
 */
export function attemptJsonLines(idSalt: number, rows: readonly AttemptRow[]): string {
  let chunk = '';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    chunk +=
      ',{"collection_id":' + jsonString(encodeId(IdKind.collection, idSalt, r[0])) +
      ',"policy_number":' + jsonString(r[1]) +
      ',"customer_id":' + jsonString(r[2]) +
      ',"date":' + jsonString(r[3]) +
      ',"amount":' + formatCents(r[4]) +
      ',"outcome":' + jsonString(r[5]) +
      ',"failure_reason":' + jsonText(r[6]) +
      '}';
  }
  return chunk;
}

/**
 * What is written of a period's rows: the collections report's or the attempts export's, as
 * CSV lines or as JSON results each after a comma; collection ids salted with `idSalt`.
 */
export interface PeriodText {
  rows: 'collections' | 'attempts';
  format: 'csv' | 'json';
  idSalt: number;
}

/** Where `text`'s rows come from. */
export const rowSourceOf = (text: PeriodText): RowSource => (text.rows === 'attempts' ? ATTEMPT_ROWS : REPORT_ROWS);

/** The writer of `text` for a page of `period`'s rows. */
export function periodTextWriter(text: PeriodText, period: string): (rows: readonly unknown[][]) => string {
  const { idSalt } = text;
  if (text.rows === 'attempts') {
    return text.format === 'csv' ? (rows) => attemptCsvLines(idSalt, rows as AttemptRow[]) : (rows) => attemptJsonLines(idSalt, rows as AttemptRow[]);
  }
  if (text.format === 'csv') {
    const periodCell = csvCell(period);
    return (rows) => reportCsvLines(periodCell, rows as ReportRow[]);
  }
  const periodJson = JSON.stringify(period);
  return (rows) => reportJsonLines(periodJson, idSalt, rows as ReportRow[]);
}

/**
 * The first key of every `rangeRows` rows of the period, in order (empty: no rows): each found
 * from the one before by stepping over `rangeRows - 1` entries of the index, so the whole takes
 * one walk of the index (~90 ms for the report at 1M; a `row_number()` window took 1.75 s).
 */
export function rangeBoundaries(db: BetterSqlite3.Database, source: RowSource, clientId: number, period: string, rangeRows: number): RangeKey[] {
  const { key, keyFrom, where } = source;
  const first = db.prepare(`select ${key} from ${keyFrom} where ${where} order by ${key} limit 1`).pluck();
  const next = db.prepare(`select ${key} from ${keyFrom} where ${where} and ${key} > ? order by ${key} limit 1 offset ?`).pluck();
  const out: RangeKey[] = [];
  for (let at = first.get(clientId, period) as RangeKey | undefined; at !== undefined; at = next.get(clientId, period, at, rangeRows - 1) as RangeKey | undefined) {
    out.push(at);
  }
  return out;
}

/**
 * A period's rows of `source` in its key's order on one connection, in keyset pages of
 * PAGE_ROWS rows (each page from the last key of the one before), inside the caller's read
 * transaction.
 */
export class KeysetPages<T extends unknown[]> {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly source: RowSource,
    private readonly clientId: number,
    private readonly period: string,
  ) {}

  /** The rows from `from` (null: the first) up to below `below` (null: the last), a page at a time. */
  *pages(from: RangeKey | null, below: RangeKey | null): Generator<T[]> {
    let rows = this.page(from === null ? '' : '>=', from, below);
    while (rows.length > 0) {
      yield rows;
      if (rows.length < PAGE_ROWS) return;
      rows = this.page('>', rows[rows.length - 1]![this.source.keyIndex] as RangeKey, below);
    }
  }

  /** A page above `low` (by `op`; none when op is ''), below `below` if given. */
  private page(op: '' | '>=' | '>', low: RangeKey | null, below: RangeKey | null): T[] {
    const key = `${op}|${below === null ? '' : '<'}`;
    let stmt = this.statements.get(key);
    if (stmt === undefined) {
      const { columns, from, where, key: k } = this.source;
      const bounds = `${op === '' ? '' : ` and ${k} ${op} ?`}${below === null ? '' : ` and ${k} < ?`}`;
      stmt = this.db.prepare(`select ${columns} from ${from} where ${where}${bounds} order by ${k} limit ?`).raw(true);
      this.statements.set(key, stmt);
    }
    const params: unknown[] = [this.clientId, this.period];
    if (op !== '') params.push(low);
    if (below !== null) params.push(below);
    params.push(PAGE_ROWS);
    return stmt.all(...params) as T[];
  }
}

/** Reads the ranges of one period's rows of `source` on one connection, inside the caller's read transaction. */
export class RangeReader {
  private readonly keyset: KeysetPages<unknown[]>;

  constructor(
    db: BetterSqlite3.Database,
    source: RowSource,
    clientId: number,
    period: string,
    private readonly boundaries: readonly RangeKey[],
  ) {
    this.keyset = new KeysetPages<unknown[]>(db, source, clientId, period);
  }

  /** Range `k`'s rows, a page at a time. */
  pages(k: number): Generator<unknown[][]> {
    return this.keyset.pages(this.boundaries[k]!, this.boundaries[k + 1] ?? null);
  }
}

/** The worker's data (report-reader.ts). */
export interface ReportReaderData {
  path: string;
  busyTimeoutMs: number;
  clientId: number;
  period: string;
  text: PeriodText;
  boundaries: RangeKey[];
  /** Int32Array over it: see the slots below. */
  shared: SharedArrayBuffer;
  /** Ranges the worker may have read and the reading thread not yet taken, at most. */
  window: number;
  /** Where it hands them over: a channel of its own (ReportHelper). */
  port: MessagePort;
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
