/**
 * The collections report of a period (spec 4.6) as a streamed download. Rows come from the
 * store in batches (a separate read-only connection on a file store) and are written by
 * string concatenation from raw arrays, so a million-row period never sits in memory and a
 * closed period gives byte-identical output on every export. The CSV's lines and the JSON's
 * results come written from the store (store/report-ranges.ts), on a large SQLite period by two
 * threads in one snapshot (store/repos/collection-reports.ts streamPeriodText); on PostgreSQL
 * the server writes the CSV (COPY … TO STDOUT) and it is streamed through.
 */
import { asCents } from '../../domain/money.js';
import { lastDay, type IsoDate, type Period } from '../../domain/period.js';
import { periodStateOf, type PeriodState } from '../../domain/period-state.js';
import { validateReportQuery } from '../../domain/requests.js';
import { csvRow } from '../../lib/csv-writer.js';
import { copyReportCsv, streamPeriodText, type PeriodText, type ReportRow } from '../../store/repos/collection-reports.js';
import { periodHasCollections, periodOpenCounts } from '../../store/repos/collections.js';
import { REPORT_COLUMNS, type CollectionReportRow, type CollectionStatus, type Download, type ReportFormat } from '../types.js';
import type { LocalContext } from './context.js';
import { readWorld } from './world.js';

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export async function collectionsReport(ctx: LocalContext, periodInput: Period, formatInput: ReportFormat = 'csv'): Promise<Download> {
  const { period_month: period, format } = validateReportQuery({ period_month: periodInput, format: formatInput });
  // Read before the rows: a period only ever moves from open to closed, so the rows read after
  // it are at least as final as it says (a report said open may hold final rows, never the reverse).
  // The id salt is read now too, so a bad store fails before the first byte is written.
  const { idSalt, today } = await readWorld(ctx.store.db);
  const periodState = await readPeriodState(ctx, period, today);
  if (format === 'csv') {
    // PostgreSQL writes the CSV itself (COPY … TO STDOUT), the same bytes as reportCsv.
    const body =
      ctx.store.kind === 'postgres'
        ? copyReportCsv(ctx.store, ctx.clientId, period, REPORT_COLUMNS)
        : periodTextBody(ctx, period, { rows: 'collections', format, idSalt }, CSV_HEADER, '');
    return { filename: `collections-${period}.csv`, contentType: CSV_CONTENT_TYPE, body, periodState };
  }
  const head = `{"period_month":${JSON.stringify(period)},"period_state":${JSON.stringify(periodState)},"results":[`;
  const body = periodTextBody(ctx, period, { rows: 'collections', format, idSalt }, head, ']}\n');
  return { filename: `collections-${period}.json`, contentType: JSON_CONTENT_TYPE, body, periodState };
}

/**
 * Whether the period's report is final. A closed period needs only to know that it has a
 * collection; an open one counts those not paid in full yet (UNPAID or PAID_PARTIAL).
 */
async function readPeriodState(ctx: LocalContext, period: Period, today: IsoDate): Promise<PeriodState> {
  if (today >= lastDay(period)) {
    return periodStateOf(period, today, (await periodHasCollections(ctx.store.db, ctx.clientId, period)) ? 1 : 0, 0);
  }
  const { collections, open } = await periodOpenCounts(ctx.store.db, ctx.clientId, period);
  return periodStateOf(period, today, collections, open);
}

const CSV_HEADER = csvRow(REPORT_COLUMNS);

/**
 * The body of a download of a period's rows as the store writes them (the collections report's
 * or the attempts export's): `head` (the CSV header, or the JSON up to its list), the rows (the
 * JSON results without the first one's comma), then `tail`.
 */
export async function* periodTextBody(ctx: LocalContext, period: Period, text: PeriodText, head: string, tail: string): AsyncGenerator<string | Uint8Array> {
  yield head;
  const rows = streamPeriodText(ctx.store, ctx.clientId, period, text);
  yield* text.format === 'json' ? withoutFirstComma(rows) : rows;
  if (tail !== '') yield tail;
}

/** A report row as the API's object (13 fields, money in cents). */
export function toReportRow(period: Period, r: ReportRow): CollectionReportRow {
  return {
    period_month: period,
    customer_id: r[0],
    external_customer_ref: r[1],
    policy_number: r[2],
    product_code: r[3],
    collection_amount_due: r[4],
    collection_amount_collected: r[5],
    shortfall: asCents(r[4] - r[5]),
    collection_status: r[6] as CollectionStatus,
    first_attempt_date: r[7],
    last_attempt_date: r[8],
    number_of_attempts: r[9],
    last_failure_reason: r[10],
  };
}

/**
 * JSON results as the store writes them (the report's or the attempts export's), each after a
 * comma, with the first one's dropped: the first chunk is text from this thread or UTF-8 bytes
 * from the report reader's worker.
 */
export async function* withoutFirstComma(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<string | Uint8Array> {
  let first = true;
  for await (const chunk of chunks) {
    if (first) {
      const lead = typeof chunk === 'string' ? chunk.charCodeAt(0) : chunk[0];
      if (lead !== 0x2c) throw new Error(`a report's JSON results start with a comma, not ${JSON.stringify(String.fromCharCode(lead ?? 0))}`);
      yield typeof chunk === 'string' ? chunk.slice(1) : chunk.subarray(1);
      first = false;
    } else {
      yield chunk;
    }
  }
}
