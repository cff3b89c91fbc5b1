/**
 * The collections report of a period (spec 4.6) as a streamed download. Rows come from the
 * store in batches (a separate read-only connection on a file store) and are written by
 * string concatenation from raw arrays, so a million-row period never sits in memory and a
 * closed period gives byte-identical output on every export. The CSV's lines come written from
 * the store (store/report-ranges.ts), on a large SQLite period by two threads in one snapshot
 * (store/repos/collection-reports.ts streamReportCsv); on PostgreSQL the server writes them
 * (COPY … TO STDOUT) and they are streamed through.
 */
import { encodeId, IdKind } from '../../domain/ids.js';
import { asCents, formatCents } from '../../domain/money.js';
import { lastDay, type IsoDate, type Period } from '../../domain/period.js';
import { periodStateOf, type PeriodState } from '../../domain/period-state.js';
import { validateReportQuery } from '../../domain/requests.js';
import { csvRow } from '../../lib/csv-writer.js';
import { copyReportCsv, streamReportCsv, streamReportRows, type ReportRow } from '../../store/repos/collection-reports.js';
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
    const body = ctx.store.kind === 'postgres' ? copyReportCsv(ctx.store, ctx.clientId, period, REPORT_COLUMNS) : reportCsv(ctx, period);
    return { filename: `collections-${period}.csv`, contentType: CSV_CONTENT_TYPE, body, periodState };
  }
  return { filename: `collections-${period}.json`, contentType: JSON_CONTENT_TYPE, body: reportJson(ctx, period, idSalt, periodState), periodState };
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

async function* reportCsv(ctx: LocalContext, period: Period): AsyncGenerator<string | Uint8Array> {
  yield CSV_HEADER;
  yield* streamReportCsv(ctx.store, ctx.clientId, period);
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

/** Text that JSON.stringify writes as it is, between quotes: no quote, backslash, control character or surrogate. */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const PLAIN_JSON_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
/** A string as JSON.stringify writes it (the quotes added directly to plain text: most report cells). */
const jsonString = (v: string): string => (PLAIN_JSON_TEXT.test(v) ? `"${v}"` : JSON.stringify(v));
const jsonText = (v: string | null): string => (v === null ? 'null' : jsonString(v));

/**
 * One result of the JSON report, written directly: byte for byte what
 * `stringifyJson({ id, ...toReportRow(period, r) })` gives (a test holds them equal), at a
 * fraction of its cost per row (no object, no key walk).
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

async function* reportJson(ctx: LocalContext, period: Period, idSalt: number, state: PeriodState): AsyncGenerator<string> {
  const periodJson = JSON.stringify(period);
  let chunk = `{"period_month":${periodJson},"period_state":${JSON.stringify(state)},"results":[`;
  let first = true;
  for await (const rows of streamReportRows(ctx.store, ctx.clientId, period)) {
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      chunk += (first ? '' : ',') + reportRowJson(encodeId(IdKind.collection, idSalt, r[11]), periodJson, r);
      first = false;
    }
    yield chunk;
    chunk = '';
  }
  yield `${chunk}]}\n`;
}
