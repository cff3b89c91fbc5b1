/**
 * The HTTP client of remote mode: one undici Pool on the service's origin (keep-alive), a connect
 * timeout, an overall deadline per request, and retries with exponential backoff and full jitter
 * on connection failures, 429 (honouring Retry-After) and 502/503/504 — at most 4 attempts.
 *
 * Every write whose row of the operations table takes an Idempotency-Key (POST and PATCH) carries
 * one (the invocation's key, then key:2, key:3 … for later writes of the same invocation), so a retry, or a rerun with --idempotency-key, can never
 * act twice on a premia service. A retry resends exactly the same request with the same key.
 * The spec has no idempotency: a write that may have reached the server is resent only to a
 * server known to be premia (its marker header); otherwise it fails with OUTCOME_UNKNOWN.
 *
 * Responses are checked before they are believed: JSON must be JSON (an HTML page from a proxy,
 * a truncated body or a wrong content type is a clear REMOTE_ERROR, never a stack trace), and
 * error bodies of spec section 7 become the same PremiaError as local mode, with request_id.
 * The API key is sent only in X-API-Key and appears in no message or debug line (last 4 only).
 */
import { randomInt } from 'node:crypto';
import { Readable } from 'node:stream';
import { brotliDecompressSync, constants as zlibConstants, createBrotliDecompress, createGunzip, createInflate, gunzipSync, inflateSync } from 'node:zlib';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import type { AsyncOperation, Download, ImportProgress, ReplayedWrite, Upload } from '../types.js';
import { ExitCode, PremiaError } from '../../domain/errors.js';
import { requestKey } from '../../domain/idempotency.js';
import { parsePeriodStateHeader, PERIOD_STATE_HEADER } from '../../domain/period-state.js';
import { ForeignValue, MONEY_FIELDS, moneyToCents, stringifyJson } from '../../domain/json.js';
import {
  connectionError,
  connectionWords,
  errorFromResponse,
  failureCode,
  maskKey,
  outcomeUnknown,
  parseErrorBody,
  withoutControlsDeep,
  redactText,
  remoteError,
  wrongBaseUrl,
  type RouteInfo,
} from './errors.js';
import { JsonOutline, pagedAnswer } from './json-outline.js';
import { CsvReader, isBlankRecord } from '../../lib/csv-reader.js';
import { multipartBody, multipartLength, newBoundary, type BodyState } from './multipart.js';
import { VERSION } from '../../lib/version.js';
import { holdsKey } from '../../lib/key-text.js';
import { parseBaseUrl } from '../wire.js';


/** A placeholder id that no service has: used to probe a spec route without touching anything. */
export const PROBE_ID = '00000000-0000-4000-8000-000000000000';

/** The response header by which a premia service marks every answer (its version). */
export const MARKER_HEADER = 'x-premia-version';

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Long enough for a clock advance through a month of a large book. */
export const DEFAULT_TIMEOUT_MS = 600_000;
export const MAX_ATTEMPTS = 4;
const RETRY_BASE_MS = 250;
const RETRY_CAP_MS = 8_000;
/**
 * A write to a server that has not yet shown what it is keeps the last quarter of --timeout, at
 * most this, to ask GET /whoami whether it honours Idempotency-Key should its time run out.
 */
const WHOAMI_RESERVE_MS = 1_000;
/** A Retry-After longer than this is not waited for: the error is reported instead. */
const MAX_RETRY_AFTER_MS = 60_000;
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
/** A gateway's answer: the request may or may not have reached the service behind it. */
const GATEWAY_STATUSES = new Set([502, 503, 504]);
/**
 * A download must bring at least this many bytes in every window of --timeout spent waiting for
 * it: a server that trickles (a byte now and then, never stalling long enough for the idle
 * timeout) is stopped instead of holding the command for ever.
 */
const LOW_SPEED_BYTES = 1024;
/** Error bodies are read up to this size (an error page can be anything). */
const MAX_ERROR_BODY = 64 * 1024;
const MIB = 1024 * 1024;
/**
 * The most of a JSON answer premia reads: its largest answers (a page of a list, an import's
 * first errors, an advance's days) are a few MiB; past this (a runaway server or proxy) it would
 * only fill memory and fail inside the JSON parser.
 */
const MAX_JSON_BODY = 64 * MIB;

export interface HttpOptions {
  /** The base URL including /v1, used exactly as given (a trailing slash is ignored). */
  baseUrl: string;
  apiKey: string;
  /** The invocation's idempotency key (generated, or given with --idempotency-key). */
  idempotencyKey: string;
  connectTimeoutMs?: number;
  /** Overall time for one request, all attempts and waits included (downloads: until the body starts). */
  timeoutMs?: number;
  /** How to get a working key, for the message of a 401. */
  keyHint?: string;
  /** --debug: request lines and timings. */
  debug?: (line: string) => void;
  /** Tests: waiting and jitter. */
  sleep?: (ms: number) => Promise<void>;
  /** Tests: the low-speed window of downloads (default: the timeout; see LOW_SPEED_BYTES). */
  lowSpeedWindowMs?: number;
  random?: () => number;
  maxAttempts?: number;
}

export type Query = Record<string, string | number | boolean | undefined>;

/** One request; the calls of backend methods are built from their rows (remote/index.ts `callOf`). */
export interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  /** Path below the base URL, segments already encoded, e.g. `/policies/abc`. */
  path: string;
  /** The status of a success (any 2xx is taken: another server implementing the spec may differ; --debug says so). */
  status?: number;
  /** Send the invocation's Idempotency-Key (a write that must never act twice). */
  idempotencyKey?: boolean;
  /** The name of its row of the operations table (`importPolicies`), for replayedWrites. */
  operation?: string;
  /** The Prefer header: `respond-async, wait=1` for long work a premia service may answer 202. */
  prefer?: string | null;
  query?: Query;
  /** A JSON body, written with stringifyJson (money as two-decimal numbers). */
  json?: unknown;
  /**
   * A spec route's answer: the top-level fields where the spec puts money. In another server's
   * answer, a top-level field of a money field's name that is not one of these (`due` as a date,
   * `debits` as a count) is its own, kept as it came (unset: every such field is money).
   */
  money?: readonly string[];
  /** A file sent as multipart/form-data in the part `file`, streamed. */
  upload?: { file: Upload; onProgress?: (p: ImportProgress) => void };
  route: RouteInfo;
  /** A probe: every final answer, whatever its status, goes to the caller (with `text`). */
  raw?: boolean;
  /** A probe: send no X-API-Key (does the server check keys at this URL?). */
  noKey?: boolean;
  /** Ctrl-C: abandon the request (and its retries); fails with CANCELLED. */
  signal?: AbortSignal;
  /**
   * Long work (sent with `prefer`): follow the operation a premia service names in a 202 until it
   * has ended, telling each state seen (its days, its progress).
   */
  follow?: { onProgress?: (operation: OperationView) => void };
  /**
   * A created resource whose answer carries no id (the spec does not show one for a statement):
   * its id is taken from a Location header naming `{path}/{id}` below the base URL.
   */
  idFromLocation?: boolean;
}

/** A premia service's operation (GET /operations/{id}), money fields in cents. */
export type OperationView = AsyncOperation;

/** How often an operation is asked after, without a Retry-After: 250 ms, growing by half to 2 s. */
const FOLLOW_FIRST_MS = 250;
const FOLLOW_CAP_MS = 2_000;

/** A probe's answer. */
export interface RawAnswer {
  status: number;
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  requestId: string | null;
  premia: string | null;
  /** The body (at most 64 KiB), the key removed. */
  text: string;
  /** How many times the request was sent (retries of a 5xx or a broken connection). */
  attempts: number;
}

/** Headers of every request: bodies uncompressed (a server may still compress a download: see `download`), and who asks. */
const BASE_HEADERS = { 'accept-encoding': 'identity', 'user-agent': `premia/${VERSION}` } as const;

export interface Exchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
  requestId: string | null;
  /** The premia version the service reports, or null when it did not mark the response. */
  premia: string | null;
  /** A write's answer: the Idempotency-Key it was sent with (see Sent). */
  sent?: Sent;
}

/**
 * A write as sent: its Idempotency-Key, and whether an earlier attempt of it may have reached
 * the service (a connection that broke after sending, a 5xx page; not a 429, which refused it):
 * a replay answering a later attempt may then be this invocation's own answer, not an earlier run's.
 */
interface Sent {
  key: string;
  resent: boolean;
}

export class HttpClient {
  readonly baseUrl: string;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly pool: Pool;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private writes = 0;
  /** The writes answered with the answer kept for their key by an earlier request (replayedWrites). */
  private readonly replays: ReplayedWrite[] = [];
  private readonly apiKey: string;
  /**
   * What the service is: its premia version once an answer carried the marker header; null once
   * an API answer came without it; undefined while nothing has told (a proxy's 5xx tells nothing).
   */
  premiaVersion: string | null | undefined;
  /** The answer of missingVersionHint, once asked. */
  private versionHint: Promise<PremiaError | null> | undefined;
  /** The answer of noApiHere, once asked. */
  private noApiHint: Promise<PremiaError | null> | undefined;

  constructor(private readonly options: HttpOptions) {
    const url = parseBaseUrl(options.baseUrl);
    this.apiKey = checkKey(options.apiKey);
    this.baseUrl = options.baseUrl;
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = options.random ?? (() => randomInt(0, 1 << 30) / (1 << 30));
    this.pool = new Pool(this.origin, {
      connect: { timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS },
      keepAliveTimeout: 10_000,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connections: 4,
    });
  }

  /**
   * The writes a premia service answered with the answer it kept for their Idempotency-Key
   * (`idempotent-replayed: true`, or an operation's `result.replayed`): an earlier run's, nothing
   * done now. One answering a resend of a write that may have reached the service before is left
   * out (it may be this invocation's own answer), as is anything from a server that does not say.
   */
  replayedWrites(): readonly ReplayedWrite[] {
    return [...this.replays];
  }

  private noteReplay(call: Call, sent: Sent): void {
    if (sent.resent) {
      this.debug(`  replayed after a resend: perhaps this run's own earlier attempt's answer, not said to be an earlier run's`);
      return;
    }
    this.replays.push({ operation: call.operation ?? `${call.method} ${call.path}`, key: sent.key });
  }

  /** A request whose answer is a JSON object: parsed, money fields turned into cents. */
  async json<T>(call: Call): Promise<T> {
    const answer = await this.exchange(call, 'application/json', async (x) => {
      const body = await readJson(x, this.describe(call), this.apiKey, call.route.verify, x.premia ? undefined : call.money);
      const location = headerText(x.headers.location);
      if (call.idFromLocation && location && body !== null && typeof body === 'object' && !Array.isArray(body)) {
        const answer = body as Record<string, unknown>;
        const named = this.pathOf(location);
        const seg = named?.startsWith(`${call.path}/`) ? named.slice(call.path.length + 1) : '';
        if ((answer.id === undefined || answer.id === null || answer.id === '') && /^[^/?#]+$/.test(seg)) {
          try {
            answer.id = decodeURIComponent(seg);
          } catch {
            // Not an id premia can read: the answer stays without one (a warning says so).
          }
        }
      }
      if (call.follow && x.status === 202 && x.premia && location && /\brespond-async\b/i.test(headerText(x.headers['preference-applied']) ?? '')) {
        return new Accepted(location, body as OperationView, retryAfterMs(headerText(x.headers['retry-after']), Date.now()), x.sent);
      }
      return body;
    });
    if (answer instanceof Accepted) return this.follow<T>(call, answer);
    return answer as T;
  }

  /**
   * Follow an operation answered 202 until it has ended, waiting Retry-After between asks (or
   * 250 ms growing to 2 s), within the request's time limit; then its result is the answer.
   */
  private async follow<T>(call: Call, accepted: Accepted): Promise<T> {
    const path = this.pathOf(accepted.location);
    if (path === null) {
      throw remoteError(`${this.describe(call)} was accepted, but the service pointed to '${accepted.location.slice(0, 200)}' to follow it, outside ${this.baseUrl}.`, null);
    }
    const deadline = Date.now() + this.timeoutMs;
    const route: RouteInfo = { what: 'operations (GET /operations/{id})', extension: true };
    let op = accepted.operation;
    let retryAfter = accepted.retryAfterMs;
    for (let asked = 0; ; asked++) {
      call.follow?.onProgress?.(op);
      if (op.result !== null) break;
      const wait = retryAfter ?? Math.min(FOLLOW_CAP_MS, Math.round(FOLLOW_FIRST_MS * 1.5 ** asked));
      if (Date.now() + wait > deadline) {
        const seconds = Math.round(this.timeoutMs / 1000);
        throw remoteError(
          `${this.describe(call)} is still running at the service after ${seconds} s (raise the limit with --timeout or PREMIA_TIMEOUT); ` +
            `it goes on there: see GET ${this.basePath}${path}, or rerun the same command with --idempotency-key ${this.options.idempotencyKey} to get its answer once it is done.`,
          null,
        );
      }
      this.debug(`  operation ${op.id} ${op.status}; asking again in ${wait} ms`);
      await this.sleep(wait);
      if (call.signal?.aborted) throw this.cancelled(call);
      let next: { body: OperationView; retryAfter: number | null };
      try {
        next = await this.exchange({ method: 'GET', path, route, signal: call.signal }, 'application/json', async (x) => ({
          body: (await readJson(x, `GET ${this.basePath}${path}`, this.apiKey)) as OperationView,
          retryAfter: retryAfterMs(headerText(x.headers['retry-after']), Date.now()),
        }));
      } catch (e) {
        // The write was accepted and is under way: a failure to follow it must not read as a
        // request that failed (or was never sent).
        if (!(e instanceof PremiaError) || e.code === 'CANCELLED') throw e;
        e.message =
          `${this.describe(call)} was accepted by the service, but following it failed: ${e.message.replace(/\.$/, '')}. Whether it has finished is unknown: ` +
          `see GET ${this.basePath}${path} once the service answers, or rerun the same command with --idempotency-key ${this.options.idempotencyKey} to get its answer.` +
          (call.route.inParts === true ? " If the service stopped before the end, 'premia clock' shows the date it reached: resume from there with --to DATE." : '');
        throw e;
      }
      op = next.body;
      retryAfter = next.retryAfter;
    }
    const result = op.result;
    // The job's own answer or the one kept for its key (a replay finished after a second).
    if (result.status < 400 && result.replayed === true && accepted.sent) this.noteReplay(call, accepted.sent);
    if (result.status >= 400) {
      const text = JSON.stringify(result.body);
      const error = (result.body as { error?: { request_id?: unknown } } | null)?.error;
      const requestId = typeof error?.request_id === 'string' ? error.request_id : null;
      throw this.failure(call, { status: result.status, headers: { 'content-type': 'application/json' }, requestId, premia: this.premiaVersion ?? 'premia' }, text);
    }
    return result.body as T;
  }

  /** The path below the base URL of a Location on this service, or null when it leads elsewhere. */
  private pathOf(location: string): string | null {
    let url: URL;
    try {
      url = new URL(location, this.origin);
    } catch {
      return null;
    }
    if (url.origin !== this.origin || !url.pathname.startsWith(`${this.basePath}/`)) return null;
    return url.pathname.slice(this.basePath.length) + url.search;
  }

  /**
   * A probe: the final answer whatever its status (retries as for any request), the body read
   * and the key removed from it.
   */
  async probe(call: Call): Promise<RawAnswer> {
    return this.exchange({ ...call, raw: true }, 'application/json', async (x) => {
      const raw = x as Exchange & { text?: string; attempts?: number };
      const text = raw.text ?? (await readBounded(x.body, MAX_ERROR_BODY, x.headers['content-encoding']));
      return {
        status: x.status,
        contentType: mediaType(x.headers['content-type']),
        headers: x.headers,
        requestId: x.requestId,
        premia: x.premia,
        text: redactText(text, this.apiKey),
        attempts: raw.attempts ?? 1,
      };
    });
  }

  /**
   * A request whose answer is a file (CSV or JSON), streamed. The spec leaves the media types
   * open: a CSV may come as text/csv, text/plain, application/csv, application/octet-stream or
   * without a type; only what is clearly not the file is refused (an HTML page, or JSON when CSV
   * was asked). A JSON report is taken whatever its type when the body is JSON, and a CSV when
   * the body is not.
   */
  async download(call: Call, format: 'csv' | 'json', defaultName: string, expect: DownloadShape = {}): Promise<Download> {
    return this.exchange(call, format === 'csv' ? 'text/csv' : 'application/json', async (x) => {
      const type = mediaType(x.headers['content-type']);
      const what = this.describe(call);
      const refuse = async (why: string): Promise<never> => {
        // Not dump(): a body read in part whose connection has closed (no length) never settles
        // it, and with nothing else pending Node would exit 0 without a word. Destroyed unread,
        // undici's body emits an AbortError: nothing is left to hear it.
        x.body.on('error', () => undefined);
        x.body.destroy();
        throw remoteError(`${what} answered with ${why} instead of ${format === 'csv' ? 'a CSV file' : 'a JSON report'}; is something other than the service answering at ${this.baseUrl}?`, x.requestId);
      };
      const html = type === 'text/html' || type === 'application/xhtml+xml';
      const json = type === 'application/json' || type.endsWith('+json');
      // A page is refused by its type alone unless the body can show it is the file all the
      // same: Express's res.send(text) labels whatever it sends text/html, so the spec's CSV
      // (its header known) or a JSON report may come so, and is taken when its body is that.
      const bodyDecides = format === 'json' || expect.columns !== undefined;
      if (html && !bodyDecides) await refuse(type);
      // A body compressed all the same (Content-Encoding) is decompressed: never saved as it came.
      const encoding = headerText(x.headers['content-encoding'])?.trim().toLowerCase() ?? '';
      let source: AsyncIterable<Buffer> = x.body as AsyncIterable<Buffer>;
      if (encoding !== '' && encoding !== 'identity') {
        const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : null;
        if (decoder === null) await refuse(`a body encoded as '${encoding.slice(0, 40)}', which premia cannot decode,`);
        source = (x.body as Readable).pipe(decoder!);
        x.body.on('error', (e: Error) => decoder!.destroy(e));
      }
      // Look at the start of the body: an error page sent with a neutral type is refused too.
      const iterator = source[Symbol.asyncIterator]();
      const head: Buffer[] = [];
      let seen = '';
      // A CSV of known columns: its whole first line (the header), however the server split its writes.
      const needLine = format === 'csv' && expect.columns !== undefined;
      let ended = false;
      while (seen.trim().length < 16 || (needLine && !seen.includes('\n') && seen.length < KEEP)) {
        let next: IteratorResult<Buffer>;
        try {
          next = await iterator.next();
        } catch (e) {
          throw remoteError(`${what}: the download broke off before it was complete (${connectionWords(e)}); nothing complete was received, run it again.`, x.requestId);
        }
        if (next.done) {
          ended = true;
          break;
        }
        head.push(next.value);
        seen += next.value.toString('utf8');
      }
      const start = seen.replace(/^\uFEFF/, '').trimStart();
      if (html && start.startsWith('<')) await refuse(type);
      if (/^<(!doctype|html|head|body)\b/i.test(start)) await refuse(`an HTML page${type ? ` (${type})` : ''}`);
      if (format === 'json' && start !== '' && !start.startsWith('{') && !start.startsWith('[')) await refuse(`${type || 'no content type'} that is not JSON`);
      // JSON when CSV was asked, by its body: a CSV sent as application/json (a server whose every
      // answer says JSON) is taken, as a JSON report is whatever its type.
      if (format === 'csv' && json && /^[[{]/.test(start)) await refuse(type);
      if (format === 'csv' && !json && /^\{\s*"/.test(start) && type !== 'text/csv') await refuse(`JSON${type ? ` (${type})` : ''}`);
      if (start === '') await refuse('an empty body');
      // A page of a longer answer (a Link to the next page): premia cannot tell how to read the rest.
      if (/<[^>]*>\s*;[^,]*rel\s*=\s*"?next"?/i.test(headerText(x.headers.link) ?? '')) await refuse('one page of a longer answer (Link: rel="next")');
      const nextHeader = ['x-next-page', 'x-next-cursor', 'x-next-page-token', 'x-has-more'].find((h) => {
        const v = headerText(x.headers[h])?.trim().toLowerCase() ?? '';
        return h === 'x-has-more' ? v === 'true' : v !== '';
      });
      if (nextHeader !== undefined) await refuse(`one page of a longer answer (${nextHeader})`);
      // A body without a length or chunks ends where the connection closed, whole or cut off.
      const closeDelimited = x.headers['content-length'] === undefined && x.headers['transfer-encoding'] === undefined && (encoding === '' || encoding === 'identity');
      const totalCount = /^\d+$/.test(headerText(x.headers['x-total-count'])?.trim() ?? '') ? Number(headerText(x.headers['x-total-count'])!.trim()) : null;
      if (format === 'csv' && expect.columns) {
        // A body of one line without a line end is all header (a report without rows).
        const header = firstCsvLine(seen.replace(/^\uFEFF/, '') + (ended && !seen.includes('\n') ? '\n' : ''));
        if (header !== null && header.join(',') !== expect.columns.join(',')) {
          if (html) await refuse(type);
          await refuse(`a CSV whose header is '${header.join(',').slice(0, 120)}', not the spec's columns (${expect.columns.join(',')}),`);
        }
      }
      // A premia service says whether a collections report is final (another server says nothing).
      const periodState = parsePeriodStateHeader(x.headers[PERIOD_STATE_HEADER]);
      // A JSON report's outline (its top-level members, the count of its results): a paged answer says so there.
      const outline = format === 'json' ? new JsonOutline() : null;
      const download: Download = {
        filename: suggestedName(filenameOf(x.headers['content-disposition']), expect.nameHolds, this.apiKey) ?? safeName(defaultName, format),
        contentType: String(x.headers['content-type'] ?? (format === 'csv' ? 'text/csv' : 'application/json')),
        body: guardStream(head, iterator, what, x.requestId, {
          observe: outline ? (chunk) => outline.write(chunk) : undefined,
          done: (text) => {
            const why = wholeDownloadProblem(text, format, expect, outline, totalCount, closeDelimited);
            if (why !== null) throw remoteError(`${what} answered with ${why}; nothing complete was received.`, x.requestId);
            const other = expect.period === undefined ? null : otherReportPeriod(text, format, outline, expect.period);
            if (other !== null) {
              throw remoteError(
                `${what} answered with the report of ${other.slice(0, 40)}, not of ${expect.period} as asked (did the server read period_month?): it is not the ${expect.period} report; nothing complete was received.`,
                x.requestId,
              );
            }
            // Another server's one-row statement: its cells, for the caller to check the figures of
            // (a premia service's follow the rule, a superseding one's net less what was paid).
            if (!x.premia && expect.dataRows === 1 && expect.columns && text.bytes <= KEEP) {
              const row = csvRecords(text.tail)?.[1];
              if (row && row.length === expect.columns.length) download.statementRow = Object.fromEntries(expect.columns.map((c, i) => [c, row[i]!]));
            }
          },
          lowSpeed: { windowMs: this.options.lowSpeedWindowMs ?? this.timeoutMs, stop: () => x.body.destroy() },
        }),
        ...(periodState ? { periodState } : {}),
      };
      return download;
    });
  }

  async close(): Promise<void> {
    await this.pool.destroy().catch(() => undefined);
  }

  private describe(call: Call): string {
    return `${call.method} ${this.basePath}${call.path}`;
  }

  /** A write answered by a gateway's or an error page (not the API's error), from a service that may have acted on it. */
  private gatewayAnswered(call: Call, exchange: { status: number; requestId?: string | null }, contentType: string | null | undefined): PremiaError {
    return outcomeUnknown({
      what: this.describe(call),
      baseUrl: this.baseUrl,
      happened: `it answered HTTP ${exchange.status}${contentType ? ` with ${contentType}` : ''} (${exchange.status === 500 ? "an error page, not the API's error" : 'from a gateway, not the API'})`,
      verify: call.route.verify,
      requestId: exchange.requestId,
    });
  }

  /**
   * Send the call, retrying what may be retried, and hand a successful (2xx) exchange to `take`
   * (a raw call: any final answer). Errors become PremiaErrors.
   *
   * A write (POST, PATCH) is sent again only when it cannot have reached the service (the
   * connection was never made, or a 429 refused it) or when the service is known to honour
   * Idempotency-Key (a premia service: its answers carry the marker header). Otherwise a write
   * whose outcome is unknown fails with OUTCOME_UNKNOWN instead of risking acting twice.
   */
  private async exchange<T>(call: Call, accept: string, take: (x: Exchange) => Promise<T>): Promise<T> {
    const write = call.idempotencyKey === true;
    const key = write ? requestKey(this.options.idempotencyKey, ++this.writes) : undefined;
    let path = `${this.basePath}${call.path}${queryString(call.query)}`;
    let url = `${this.origin}${path}`;
    let redirects = 0;
    const controller = new AbortController();
    const deadline = Date.now() + this.timeoutMs;
    // The whole command stays within --timeout: what the check after a timeout needs is kept back.
    const reserve = key !== undefined && this.premiaVersion === undefined ? Math.min(WHOAMI_RESERVE_MS, Math.floor(this.timeoutMs / 4)) : 0;
    // When the request itself is cut off: a retry's wait must end before it, or the next attempt
    // is never sent and the command reports a timeout (for a write: an unknown outcome) instead of
    // the answer it had (a 429: nothing was done).
    const abortAt = deadline - reserve;
    const timer = setTimeout(() => controller.abort(), this.timeoutMs - reserve);
    timer.unref?.();
    const user = call.signal;
    if (user?.aborted) throw this.cancelled(call);
    const onUserAbort = () => controller.abort();
    user?.addEventListener('abort', onUserAbort, { once: true });
    /** Why the request was aborted: the user (Ctrl-C) or the deadline. */
    const aborted = async () => (user?.aborted ? this.cancelled(call) : this.timeoutError(call, key, Math.min(deadline, Date.now() + reserve)));
    const bodyState: BodyState = { started: false, bytes: 0, lines: 0 };
    const boundary = call.upload ? newBoundary() : '';
    /** Some attempt may have reached the service (a write: it may have acted). */
    let maybeSent = false;
    /** An attempt before this one may have been acted on (Sent.resent). */
    let resent = false;
    try {
      for (let attempt = 1; ; attempt++) {
        const headers: Record<string, string> = { accept, ...BASE_HEADERS };
        if (!call.noKey) headers['x-api-key'] = this.apiKey;
        let body: string | Readable | undefined;
        if (call.json !== undefined) {
          headers['content-type'] = 'application/json';
          body = stringifyJson(call.json);
        } else if (call.upload) {
          // A retry reads a file again from the start (closing the first stream); a one-time stream
          // (stdin) is only resent when reading it had not begun.
          let source = call.upload.file.stream;
          if (attempt > 1 && call.upload.file.reopen) {
            (source as Partial<Readable>).destroy?.();
            source = call.upload.file.reopen();
          }
          bodyState.started = false;
          bodyState.bytes = 0;
          bodyState.lines = 0;
          headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
          const size = call.upload.file.size;
          if (size !== undefined) headers['content-length'] = String(multipartLength(boundary, call.upload.file.name, size));
          body = Readable.from(multipartBody(boundary, call.upload.file.name, source, bodyState, call.upload.onProgress), { objectMode: false });
        }
        if (key !== undefined) headers['idempotency-key'] = key;
        // RFC 7240: a server that does not know the preference ignores it.
        if (call.prefer) headers.prefer = call.prefer;
        const started = performance.now();
        this.debug(
          `→ ${call.method} ${url} (attempt ${attempt} of ${this.maxAttempts}${key ? `, Idempotency-Key ${key}` : ''}${call.noKey ? ', no X-API-Key' : `, X-API-Key ${maskKey(this.apiKey)}`})`,
        );

        let response: Dispatcher.ResponseData;
        try {
          response = await this.pool.request({ path, method: call.method, headers, body, signal: controller.signal });
        } catch (e) {
          if (controller.signal.aborted) throw await aborted();
          // The upload's own file refused to be read whole (it changed while read): the body was
          // never completed, so the service took nothing, and sending it again would not help.
          if (call.upload && e instanceof PremiaError) throw e;
          if (!NEVER_SENT_CODES.has(errorCodeOf(e))) maybeSent = true;
          const canResend = !call.upload || !bodyState.started || call.upload.file.reopen !== undefined;
          const wait = this.backoff(attempt);
          const retry = retryableConnectionError(e) && canResend && attempt < this.maxAttempts && Date.now() + wait < abortAt;
          this.debug(`✗ ${errorCodeOf(e)} after ${elapsed(started)}${retry ? `; retrying in ${wait} ms` : ''}`);
          if (write && maybeSent && !(await this.honoursKeys(deadline))) {
            throw outcomeUnknown({ what: this.describe(call), baseUrl: this.baseUrl, happened: `the connection failed before an answer came (${connectionWords(e)})`, verify: call.route.verify, cause: e });
          }
          if (retry) {
            if (!NEVER_SENT_CODES.has(errorCodeOf(e))) resent = true;
            await this.sleep(wait);
            if (user?.aborted) throw await aborted();
            continue;
          }
          throw connectionError(e, {
            url: this.baseUrl,
            attempts: attempt,
            baseKey: write && maybeSent ? this.options.idempotencyKey : undefined,
            neverSent: write && !maybeSent,
            stdinStarted: !!call.upload && bodyState.started && !call.upload.file.reopen,
          });
        }
        maybeSent = true;

        const exchange = toExchange(response);
        this.noteServer(exchange);
        const unexpected = call.status !== undefined && exchange.status >= 200 && exchange.status < 300 && exchange.status !== call.status && exchange.status !== 202;
        this.debug(
          `← ${exchange.status}${unexpected ? ` (premia answers ${call.status})` : ''} ${mediaType(exchange.headers['content-type']) || '-'} in ${elapsed(started)}` +
            `${exchange.requestId ? ` (request ${exchange.requestId})` : ''}${exchange.headers['idempotent-replayed'] === 'true' ? ' replayed' : ''}`,
        );

        // A read redirected to another path of the same service under its base path (a server
        // that adds or drops a trailing slash) is followed: the key goes to no other origin or
        // application. Anything else (another host, a write, another path) is refused below.
        if (call.method === 'GET' && REDIRECT_STATUSES.has(exchange.status) && redirects < MAX_REDIRECTS) {
          const target = redirectTarget(headerText(exchange.headers.location), url, this.origin, this.basePath);
          if (target !== null) {
            await exchange.body.dump().catch(() => undefined);
            this.debug(`  following the redirect to ${target}`);
            redirects += 1;
            path = target;
            url = `${this.origin}${path}`;
            attempt -= 1;
            continue;
          }
        }

        if (exchange.status >= 200 && exchange.status < 300) {
          if (key !== undefined) exchange.sent = { key, resent };
          try {
            const taken = await take(exchange);
            if (exchange.sent && headerText(exchange.headers['idempotent-replayed'])?.trim().toLowerCase() === 'true') this.noteReplay(call, exchange.sent);
            return taken;
          } catch (e) {
            if (controller.signal.aborted) throw await aborted();
            if (e instanceof PremiaError) throw e;
            // A body cut off in the middle is a connection failure: the request may be sent again.
            const canResend = !call.upload || call.upload.file.reopen !== undefined;
            const retry = retryableConnectionError(e) && canResend && attempt < this.maxAttempts;
            if (write && !(await this.honoursKeys(deadline))) {
              throw outcomeUnknown({
                what: this.describe(call),
                baseUrl: this.baseUrl,
                happened: `the service answered ${exchange.status}, but the answer broke off before it was complete (${connectionWords(e)})`,
                done: true,
                verify: call.route.verify,
                requestId: exchange.requestId,
                cause: e,
              });
            }
            if (retry) {
              resent = true;
              const wait = this.backoff(attempt);
              this.debug(`✗ the response broke off (${errorCodeOf(e)}); retrying in ${wait} ms`);
              await this.sleep(wait);
              if (user?.aborted) throw await aborted();
              continue;
            }
            throw connectionError(e, { url: this.baseUrl, attempts: attempt, baseKey: key && this.options.idempotencyKey, broken: true });
          }
        }

        // Not a success: read (a bounded part of) the body to explain it.
        let text: string;
        try {
          text = await readBounded(exchange.body, MAX_ERROR_BODY, exchange.headers['content-encoding']);
        } catch {
          if (controller.signal.aborted) throw await aborted();
          text = '';
        }
        const contentType = mediaType(exchange.headers['content-type']);
        let wait: number | null = null;
        let longWait: number | null = null;
        if (RETRY_STATUSES.has(exchange.status)) {
          const after = retryAfterMs(headerText(exchange.headers['retry-after']), Date.now());
          if (after !== null && after > MAX_RETRY_AFTER_MS) longWait = after;
          else wait = after ?? this.backoff(attempt);
        } else if (exchange.status === 409 && parseErrorBody(text)?.code === 'IDEMPOTENCY_IN_PROGRESS' && attempt > 1) {
          // Our own earlier attempt is still running on the service (its connection broke).
          wait = this.backoff(attempt + 1);
        }
        if (wait !== null && (attempt >= this.maxAttempts || Date.now() + wait >= abortAt)) wait = null;
        // A request that commits in parts (an advance) and failed on the service may have done
        // some of its work: sent again, it would redo from there (`days` from the later clock).
        // Reported, not resent (the error says to resume with a date).
        if (wait !== null && exchange.status >= 500 && call.route.inParts === true) wait = null;
        // A gateway's 502/503/504 to a write may come after the service acted: resent only to a
        // service that honours Idempotency-Key (a 429 refused the request: nothing was done).
        if (wait !== null && write && exchange.status !== 429 && !(await this.honoursKeys(deadline))) {
          if (parseErrorBody(text) === null) {
            throw this.gatewayAnswered(call, exchange, contentType);
          }
          wait = null; // the API's own error: report it, do not resend
        }
        // An upload from stdin that has been read cannot be sent again: a retry would send an empty file.
        const kept = wait !== null && call.upload !== undefined && bodyState.started && call.upload.file.reopen === undefined;
        if (kept) wait = null;
        if (wait !== null) {
          if (exchange.status !== 429) resent = true;
          this.debug(`  retrying in ${wait} ms`);
          await this.sleep(wait);
          if (user?.aborted) throw await aborted();
          continue;
        }
        if (call.raw) {
          return take({ ...exchange, text, attempts: attempt } as Exchange);
        }
        // A missing route may be a base URL without /v1, or a premia service's under another path
        // (/v2, /api/v1): say so rather than "not offered" or "not found".
        if ((exchange.status === 404 || exchange.status === 405) && !call.noKey) {
          const wrongBase = (await this.missingVersionHint(deadline)) ?? (exchange.premia !== null && call.route.idless === true ? await this.noApiHere(deadline) : null);
          if (wrongBase) throw wrongBase;
        }
        const failed = this.failure(call, exchange, text, attempt, longWait);
        if (!exchange.premia) keepRefusal(failed, exchange.status, redactText(text, this.apiKey), call.money);
        if (kept) failed.message = `${failed.message.replace(/\.$/, '')}. An upload from stdin cannot be sent again; give the file by name to let premia retry.`;
        // A server may refuse a chunked body (stdin's, whose length premia cannot know): say what to do.
        if (exchange.status === 411 && call.upload !== undefined && call.upload.file.size === undefined) {
          failed.message = `${failed.message.replace(/\.$/, '')}. The service wants the upload's length (Content-Length), which premia cannot know of stdin: give the file by name, and premia sends its length.`;
        }
        // A gateway's page (not the API's own error) to a write that a premia service may have
        // acted on, the last of the retries: rerunning with a fresh key could act twice.
        // So may a 500 page (a framework's default page for a handler that failed after it acted).
        if (key !== undefined && (GATEWAY_STATUSES.has(exchange.status) || exchange.status === 500) && parseErrorBody(text) === null) {
          if (!(await this.honoursKeys(deadline))) {
            throw this.gatewayAnswered(call, exchange, contentType);
          }
          if (call.route.inParts === true) {
            // An advance may have lived its days, or some of them, behind the gateway: run again
            // (--days N), it would count them again from the later clock.
            failed.message =
              `${failed.message.replace(/\. Try again later( \(\d+ attempts\))?\.$/, '$1.')} Whether the service acted on it is unknown (it may have lived some or all of its days): ` +
              "'premia clock' shows the date it reached; resume from there with --to DATE rather than running the same command again.";
          } else {
            failed.message += ` Whether the service acted on it is unknown: rerun the same command with --idempotency-key ${this.options.idempotencyKey} to complete it without acting twice.`;
          }
        }
        throw failed;
      }
    } finally {
      // JSON: the deadline covered reading the body. Downloads: it covered the wait for the
      // answer; the stream that follows is guarded by undici's idle timeout (bodyTimeout).
      clearTimeout(timer);
      user?.removeEventListener('abort', onUserAbort);
    }
  }

  /** The error for an answer that is not a success. */
  failure(call: Call, x: Pick<Exchange, 'status' | 'headers' | 'requestId' | 'premia'>, text: string, attempts = 1, longWait: number | null = null): PremiaError {
    return errorFromResponse({
      status: x.status,
      contentType: mediaType(x.headers['content-type']),
      text,
      requestId: x.requestId,
      premia: x.premia !== null,
      route: call.route,
      baseUrl: this.baseUrl,
      keyHint: this.options.keyHint,
      location: headerText(x.headers.location),
      movedTo: movedBaseUrl(headerText(x.headers.location), this.baseUrl, call.path),
      apiKey: this.apiKey,
      attempts,
      retryAfterMs: longWait,
    });
  }

  /** What the answers say of the server: premia's marker is remembered; a proxy's 5xx says nothing. */
  private noteServer(x: Exchange): void {
    if (x.premia) this.premiaVersion = x.premia;
    else if (this.premiaVersion === undefined && x.status < 500 && (x.status < 300 || x.status >= 400)) this.premiaVersion = null;
  }

  /**
   * Whether the service is known to honour Idempotency-Key: a premia service (its answers carry
   * the marker header). When nothing has told yet, a GET /whoami (safe to send) asks.
   */
  private async honoursKeys(deadline: number): Promise<boolean> {
    if (this.premiaVersion !== undefined) return this.premiaVersion !== null;
    const left = Math.min(DEFAULT_CONNECT_TIMEOUT_MS, deadline - Date.now());
    if (left <= 0) {
      this.debug(`  does the service honour Idempotency-Key? no time is left of --timeout to ask: not known`);
      return false;
    }
    try {
      this.debug(`  does the service honour Idempotency-Key? asking GET ${this.basePath}/whoami within ${left} ms`);
      const started = performance.now();
      const res = await this.pool.request({
        path: `${this.basePath}/whoami`,
        method: 'GET',
        headers: { 'x-api-key': this.apiKey, accept: 'application/json', ...BASE_HEADERS },
        signal: AbortSignal.timeout(left),
      });
      await res.body.dump().catch(() => undefined);
      const marker = headerText((res.headers as Record<string, string | string[] | undefined>)[MARKER_HEADER]);
      this.debug(`  does the service honour Idempotency-Key? GET ${this.basePath}/whoami → ${res.statusCode}${marker ? `, premia ${marker}: yes` : ', no premia marker: not known'} (${elapsed(started)})`);
      if (marker) this.premiaVersion = marker;
      return marker !== null;
    } catch (e) {
      this.debug(`  does the service honour Idempotency-Key? GET ${this.basePath}/whoami failed (${errorCodeOf(e)}): not known`);
      return false;
    }
  }

  /**
   * Whether the base URL lacks `/v1` while the API answers under it: the error that says so
   * (naming the corrected URL), or null. Asked once per client, after a 404 or 405, and only for
   * a base URL not already ending in a version: GET {base}/v1/whoami carrying premia's marker
   * (200, or 401 for a key it refuses) is a premia service; otherwise a service implementing the
   * spec answers 401 with the spec's error body to a request without a key at
   * {base}/v1/collections/{id}, which must not also be the answer at {base}/collections/{id}
   * (a server that checks keys on every path proves nothing).
   */
  missingVersionHint(deadline = Date.now() + DEFAULT_CONNECT_TIMEOUT_MS): Promise<PremiaError | null> {
    if (/\/v\d+$/.test(this.basePath)) return Promise.resolve(null);
    this.versionHint ??= this.findVersionHint(deadline).catch(() => null);
    return this.versionHint;
  }

  /**
   * Whether a premia service answers at the base URL but its API is not there (a path such as /v2
   * or /api/v1, where every route is missing): GET {base}/whoami, which every premia service
   * offers, missing too. The error that says so, or null. Asked once per client, after a premia
   * service's 404 or 405 to a route that names no resource (the route itself is missing).
   */
  noApiHere(deadline = Date.now() + DEFAULT_CONNECT_TIMEOUT_MS): Promise<PremiaError | null> {
    this.noApiHint ??= (async () => {
      const who = await this.peek(`${this.basePath}/whoami`, true, deadline);
      if (!who?.premia || (who.status !== 404 && who.status !== 405)) return null;
      return wrongBaseUrl(this.baseUrl.replace(/\/+$/, ''), `it is a premia service (X-Premia-Version ${who.premia}), but it has no GET ${this.basePath}/whoami`, null);
    })().catch(() => null);
    return this.noApiHint;
  }

  private async findVersionHint(deadline: number): Promise<PremiaError | null> {
    const base = this.baseUrl.replace(/\/+$/, '');
    const candidate = `${this.basePath}/v1`;
    const told = (evidence: string) =>
      remoteError(
        `The base URL ${base} lacks the API version: the API answers at ${base}/v1 (${evidence}). ` +
          `Add /v1: --base-url ${base}/v1 (or PREMIA_BASE_URL, or premia login --base-url ${base}/v1).`,
        null,
      );
    const who = await this.peek(`${candidate}/whoami`, true, deadline);
    if (who?.premia && (who.status === 200 || who.status === 401)) return told(`a premia service, X-Premia-Version ${who.premia}, answers there`);
    const there = await this.peek(`${candidate}/collections/${PROBE_ID}`, false, deadline);
    if (there?.status !== 401 || parseErrorBody(there.text) === null) return null;
    const here = await this.peek(`${this.basePath}/collections/${PROBE_ID}`, false, deadline);
    if (here === null || here.status === 401) return null;
    return told(
      `a service implementing the spec: it answers 401 to a request without a key at ${base}/v1/collections/${PROBE_ID}, and HTTP ${here.status} at ${base}/collections/${PROBE_ID}`,
    );
  }

  /** A GET outside the retry machinery (for the diagnosis above): status, marker and a bounded body; null on failure. */
  private async peek(path: string, withKey: boolean, deadline: number): Promise<{ status: number; premia: string | null; text: string } | null> {
    const left = Math.min(DEFAULT_CONNECT_TIMEOUT_MS, deadline - Date.now());
    if (left <= 0) return null;
    try {
      const headers: Record<string, string> = { accept: 'application/json', ...BASE_HEADERS };
      if (withKey) headers['x-api-key'] = this.apiKey;
      const res = await this.pool.request({ path, method: 'GET', headers, signal: AbortSignal.timeout(left) });
      const text = await readBounded(res.body, MAX_ERROR_BODY, (res.headers as Record<string, string | string[] | undefined>)['content-encoding']);
      const premia = headerText((res.headers as Record<string, string | string[] | undefined>)[MARKER_HEADER]);
      this.debug(`  is the API under /v1? GET ${path}${withKey ? '' : ' (no X-API-Key)'} → ${res.statusCode}${premia ? `, premia ${premia}` : ''}`);
      return { status: res.statusCode, premia, text };
    } catch (e) {
      this.debug(`  is the API under /v1? GET ${path} failed (${errorCodeOf(e)})`);
      return null;
    }
  }

  /** Full jitter: a uniform wait in [0, min(cap, base·2^(attempt-1))). */
  private backoff(attempt: number): number {
    const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (attempt - 1));
    return Math.floor(this.random() * ceiling);
  }

  /** Ctrl-C: the request was abandoned (exit 130); a write may still be carried out by the service. */
  private cancelled(call: Call): PremiaError {
    const write = call.method !== 'GET';
    return new PremiaError(
      'CANCELLED',
      `Stopped by Ctrl-C: premia stopped waiting for ${this.describe(call)}${write ? '; the service may still finish it' : ''}.`,
      { exitCode: ExitCode.CANCELLED },
    );
  }

  /** The time ran out; `checkBy`: until when the service may be asked what it is (what is left of --timeout). */
  private async timeoutError(call: Call, key: string | undefined, checkBy: number): Promise<PremiaError> {
    const seconds = Math.round(this.timeoutMs / 1000);
    const happened = `${this.describe(call)} got no complete answer from ${this.baseUrl} within ${seconds} s (raise it with --timeout or PREMIA_TIMEOUT).`;
    if (!key) return remoteError(happened, null);
    // Nothing has shown what the server is yet (the time ran out before any answer): ask, as a
    // broken connection does, within what is left of --timeout (the part kept back for it).
    if (this.premiaVersion === undefined) await this.honoursKeys(checkBy);
    if (this.premiaVersion) {
      return remoteError(`${happened} Whether it was done is unknown: rerun the same command with --idempotency-key ${this.options.idempotencyKey} to finish it safely.`, null);
    }
    return outcomeUnknown({ what: this.describe(call), baseUrl: this.baseUrl, happened: `no complete answer came within ${seconds} s (raise it with --timeout or PREMIA_TIMEOUT)`, verify: call.route.verify });
  }

  private debug(line: string): void {
    this.options.debug?.(line);
  }
}

/** A 202 that names an operation to follow. */
class Accepted {
  constructor(
    readonly location: string,
    readonly operation: OperationView,
    readonly retryAfterMs: number | null,
    readonly sent: Sent | undefined,
  ) {}
}

function toExchange(response: Dispatcher.ResponseData): Exchange {
  const headers = response.headers as Record<string, string | string[] | undefined>;
  return {
    status: response.statusCode,
    headers,
    body: response.body,
    requestId: headerText(headers['x-request-id']),
    premia: headerText(headers[MARKER_HEADER]),
  };
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** How many redirects of one read are followed. */
const MAX_REDIRECTS = 3;

/**
 * Where a redirect of a read to `from` leads, as a path to send to the same origin: only a
 * target on that origin (scheme, host and port) and under the base path, without credentials
 * in it; else null.
 */
/**
 * The base URL a redirect points to when it sends the request to the same path below another
 * base (`https://` for `http://`, another host or prefix), or null: what to give as --base-url,
 * rather than the URL of one request. Never the base URL in use, never one with a user or password.
 */
function movedBaseUrl(location: string | null, baseUrl: string, below: string): string | null {
  if (!location) return null;
  let target: URL;
  try {
    target = new URL(location, `${baseUrl}${below}`);
  } catch {
    return null;
  }
  if (target.username !== '' || target.password !== '' || !/^https?:$/.test(target.protocol)) return null;
  const path = target.pathname.replace(/\/$/, '');
  if (below === '' || !path.endsWith(below)) return null;
  const moved = `${target.origin}${path.slice(0, path.length - below.length)}`;
  return moved === baseUrl.replace(/\/$/, '') ? null : moved;
}

function redirectTarget(location: string | null, from: string, origin: string, basePath: string): string | null {
  if (location === null || location.trim() === '') return null;
  let target: URL;
  try {
    target = new URL(location.trim(), from);
  } catch {
    return null;
  }
  if (target.origin !== origin || target.username !== '' || target.password !== '') return null;
  const base = basePath.replace(/\/+$/, '');
  if (target.pathname !== base && !target.pathname.startsWith(`${base}/`)) return null;
  return `${target.pathname}${target.search}`;
}

function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

export function mediaType(value: string | string[] | undefined): string {
  return (headerText(value) ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * A 2xx answer's JSON object, money fields in cents. `verify`: the answer is a write's, which
 * its status says was done: an answer premia cannot read says what to check before a rerun.
 * `money`: the top-level fields read as money (Call.money); others of a money field's name are kept as they came.
 */
async function readJson(x: Exchange, what: string, apiKey: string, verify?: string, money?: readonly string[]): Promise<unknown> {
  const fail = (message: string) =>
    remoteError(verify ? `${message} The service answered ${x.status}, so it may have done it: ${verify} before running the command again.` : message, x.requestId);
  const type = mediaType(x.headers['content-type']);
  // Another type is judged by the body: a Go server that does not set one has its JSON sniffed
  // as text/plain, Express's res.send(text) labels it text/html. A JSON object is the answer
  // (as an error body of those types is read); anything else is refused by its type.
  const labelled = type === 'application/json' || type.endsWith('+json');
  const wrongType = () => fail(`${what} answered ${x.status} with ${type || 'no content type'} instead of JSON; is something other than the service answering there?`);
  // A body compressed although premia asked for identity (Content-Encoding) is decompressed.
  const chunks: Buffer[] = [];
  let size = 0;
  const tooLarge = () => fail(`${what} answered ${x.status} with a JSON body of over ${MAX_JSON_BODY / MIB} MiB, far more than any answer of the API; premia stopped reading it.`);
  const plain = (headerText(x.headers['content-encoding'])?.trim().toLowerCase() ?? 'identity') === 'identity';
  for await (const chunk of x.body as AsyncIterable<Buffer>) {
    // A page of another type (HTML) is refused at its first bytes, not read to the limit.
    if (!labelled && plain && size === 0 && !/^(\uFEFF)?\s*(\{|$)/.test(chunk.toString('utf8'))) {
      x.body.destroy();
      throw wrongType();
    }
    size += chunk.length;
    if (size > MAX_JSON_BODY) {
      x.body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  // A compressed body is bounded once decoded too: a small gzip can hold gigabytes.
  const bytes = decodeContent(Buffer.concat(chunks), x.headers['content-encoding'], undefined, MAX_JSON_BODY);
  if (bytes === null) throw tooLarge();
  if (typeof bytes === 'string') throw fail(`${what} answered ${x.status} with a body encoded as '${bytes}', which premia cannot decode.`);
  // The key never reaches the screen, even if the service echoes it.
  const text = redactText(new TextDecoder().decode(bytes), apiKey);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (!labelled) throw wrongType();
    throw fail(text.length === 0 ? `${what} answered ${x.status} with an empty body instead of JSON.` : `${what} answered ${x.status} with a body that is not valid JSON (cut off?): ${text.length} bytes received.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    if (!labelled) throw wrongType();
    throw fail(`${what} answered ${x.status} with JSON that is not an object.`);
  }
  try {
    return answerOf(value as Record<string, unknown>, money);
  } catch (e) {
    throw fail(`${what} answered with an amount premia cannot read: ${(e as Error).message}.`);
  }
}

/**
 * A parsed answer as premia reads it, in place: no string of the server's drives the terminal it
 * is shown on (withoutControls); money fields in cents, an amount off a whole cent only by
 * floating point's last digits being that cent (centsFromJsonNumber); `money` as in readJson.
 * Throws on an amount premia cannot read.
 */
function answerOf(value: Record<string, unknown>, money?: readonly string[]): unknown {
  const shown = withoutControlsDeep(value) as Record<string, unknown>;
  if (money !== undefined) {
    for (const [k, v] of Object.entries(shown)) {
      if (MONEY_FIELDS.has(k) && !money.includes(k) && (typeof v === 'number' || typeof v === 'string')) shown[k] = new ForeignValue(v);
    }
  }
  return moneyToCents(shown, true);
}

/** The JSON object another server answered a refusal (4xx) with, when it is not the spec's error body. */
const refusals = new WeakMap<PremiaError, unknown>();

/**
 * What another server answered with a refusal (a 4xx whose body is a JSON object of its own, not
 * the spec's error body), read as an answer is; undefined otherwise. A server may refuse a file
 * of bad rows (422) with the import's result all the same: premia reads its counts from it.
 */
export function refusalAnswer(e: PremiaError): unknown {
  return refusals.get(e);
}

function keepRefusal(e: PremiaError, status: number, text: string, money: readonly string[] | undefined): void {
  if (status < 400 || status >= 500 || parseErrorBody(text) !== null) return;
  try {
    const value = JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) refusals.set(e, answerOf(value as Record<string, unknown>, money));
  } catch {
    // Not JSON, or an amount premia cannot read: the error stands as it is.
  }
}

async function readBounded(body: Exchange['body'], limit: number, contentEncoding?: string | string[]): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size < limit) chunks.push(chunk.subarray(0, limit - size));
    size += chunk.length;
  }
  const bytes = decodeContent(Buffer.concat(chunks), contentEncoding, limit);
  if (typeof bytes === 'string') return `(a body encoded as '${bytes}', which premia cannot decode)`;
  // Decoded as undici decodes a success body: a leading byte order mark is dropped.
  return new TextDecoder().decode(bytes.subarray(0, limit));
}

/**
 * A body as the server meant it: undone of its Content-Encoding (gzip, deflate, br; a list is
 * undone from its last), as a server may compress although premia asks for identity. A body cut
 * off (or bounded) is decoded as far as it goes; `limit` (times 256) bounds what it may grow to.
 * An encoding premia cannot undo is returned as its name.
 */
function decodeContent(bytes: Buffer, contentEncoding: string | string[] | undefined, limit?: number): Buffer | string;
/** `maxOutput`: the most a body may grow to once decoded; null when it would grow past it (a compression bomb). */
function decodeContent(bytes: Buffer, contentEncoding: string | string[] | undefined, limit: undefined, maxOutput: number): Buffer | string | null;
function decodeContent(bytes: Buffer, contentEncoding: string | string[] | undefined, limit?: number, maxOutput?: number): Buffer | string | null {
  const codings = (headerText(contentEncoding) ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  let out = bytes;
  for (const coding of codings.reverse()) {
    // A bounded body (an error page) may grow well past its bound once decoded: it is cut after.
    const max = maxOutput ?? (limit === undefined ? undefined : limit * 256);
    const options = max === undefined ? {} : { maxOutputLength: max };
    try {
      if (coding === 'gzip' || coding === 'x-gzip') out = gunzipSync(out, { ...options, finishFlush: zlibConstants.Z_SYNC_FLUSH });
      else if (coding === 'deflate') out = inflateSync(out, { ...options, finishFlush: zlibConstants.Z_SYNC_FLUSH });
      else if (coding === 'br') out = brotliDecompressSync(out, { ...options, finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH });
      else return coding.slice(0, 40);
    } catch (e) {
      if (maxOutput !== undefined && (e as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') return null;
      return coding.slice(0, 40);
    }
  }
  return out;
}

/** What a download must be, beyond its media type (checked on its first line, and once it has all come). */
export interface DownloadShape {
  /** A CSV's header: exactly these columns, in this order. */
  columns?: readonly string[];
  /** A CSV's number of data rows (the settlement export's one). */
  dataRows?: number;
  /**
   * What the server's file name must hold to be used (a report's period): one that does not
   * (`report.csv` every month) would have each month's download in a --output directory replace
   * the last, so premia's own name is used instead.
   */
  nameHolds?: string;
  /** The period asked for, which a collections report's period_month must be (a server that did not read the query answers another month's). */
  period?: string;
}

/** The cells of the first line of a CSV (quotes removed), or null when the line has not all come. */
function firstCsvLine(text: string): string[] | null {
  const end = text.indexOf('\n');
  if (end < 0) return null;
  return text
    .slice(0, end)
    .replace(/\r$/, '')
    .split(',')
    .map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
}

/** The start and the end of a download, and its lines: what the checks once it has all come read. */
interface DownloadText {
  head: string;
  tail: string;
  lines: number;
  /** Bytes, and double quotes (whose parity says whether the tail begins inside a quoted CSV field). */
  bytes: number;
  quotes: number;
}

/** Why a whole download is not what was asked for, or null. */
function wholeDownloadProblem(text: DownloadText, format: 'csv' | 'json', expect: DownloadShape, outline: JsonOutline | null = null, totalCount: number | null = null, closeDelimited = false): string | null {
  // A count of all results (X-Total-Count) beyond those that came: the answer is one page of it.
  const carried = format === 'json' ? (outline?.results ?? null) : dataRowsOf(text);
  if (totalCount !== null && carried !== null && totalCount > carried) {
    return `one page of a longer answer (${carried} of the ${totalCount} results its X-Total-Count counts), which premia cannot follow`;
  }
  if (format === 'json') {
    // A paginated JSON answer (the spec shows none): its first page is not the report. A last
    // page is the whole of it: an empty cursor, a cursor beside an explicit has_more false, a
    // count of all results that it carries, its last page. Only the report's own members (and
    // those of objects directly in it) are read: never the rows' fields.
    const paged = outline ? pagedAnswer(outline) : null;
    if (paged !== null) return `one page of a longer answer (${paged}), which premia cannot follow`;
    // A body without a length ends where the connection closed, cut off or not: the report must
    // at least end by closing what it opened.
    const opened = text.head.replace(/^\uFEFF/, '').trimStart()[0];
    const closed = text.tail.trimEnd().at(-1);
    if (closed !== (opened === '[' ? ']' : '}')) return `JSON that does not end where it began ('${opened}' without its '${opened === '[' ? ']' : '}'}'), as if cut off`;
    // Cut off just after a row's own '}': its last character closes something, not all it opened.
    if (outline?.open) return 'JSON that ends before all it opened is closed, as if cut off';
    // A collections report (spec 4.6) is an object with a results array: a bare list, a job's
    // answer or a wrapped report is not it, as a CSV of other columns is not.
    if (expect.columns && outline && !outline.resultsArray) return "JSON that is not a collections report (the spec's object with a results array of collections)";
    return null;
  }
  if (expect.columns) {
    const cells = lastRecordCells(text);
    if (cells === 'open') return 'a CSV cut off: it ends inside a quoted field';
    if (cells !== null && cells !== expect.columns.length) return `a CSV cut off: its last row has ${cells} of the ${expect.columns.length} columns`;
  }
  // Without a length, a CSV cut inside its last cell (a payment reference, a failure reason) has
  // all its columns: only a final line end shows that the last row came whole.
  if (closeDelimited && !/\n\s*$/.test(text.tail)) {
    return 'a CSV that may be cut off in its last cell: the server sent no length (the body ends where the connection closed) and the CSV does not end with a line end';
  }
  if (expect.dataRows !== undefined) {
    const rows = dataRowsOf(text);
    if (rows !== expect.dataRows) return `a CSV with ${rows} data row${rows === 1 ? '' : 's'} where ${expect.dataRows} ${expect.dataRows === 1 ? 'was' : 'were'} expected`;
  }
  return null;
}

/**
 * Another period than `asked` that a collections report says it is of, or null: a JSON report's
 * own period_month, or that of a CSV's first or last row (its first cell).
 */
function otherReportPeriod(text: DownloadText, format: 'csv' | 'json', outline: JsonOutline | null, asked: string): string | null {
  if (format === 'json') {
    const own = outline?.fields.find((f) => f.within === null && f.key === 'period_month');
    return typeof own?.value === 'string' && own.value !== asked ? own.value : null;
  }
  const firstCell = (line: string | undefined): string | null => {
    const cell = line?.replace(/^\uFEFF/, '').split(',')[0]?.trim().replace(/^"(.*)"$/, '$1');
    return cell !== undefined && /^\d{4}-\d{2}$/.test(cell) ? cell : null;
  };
  const headLines = text.head.split('\n');
  const first = headLines.length > 2 ? firstCell(headLines[1]) : null;
  const last = firstCell(text.tail.split('\n').filter((l) => l.trim() !== '').at(-1));
  return [first, last].find((p) => p !== null && p !== asked) ?? null;
}

/** The records of a whole CSV (lib/csv-reader.ts: RFC 4180, CRLF or LF), blank ones left out; null when it is not CSV text. */
function csvRecords(text: string): string[][] | null {
  const records: string[][] = [];
  const reader = new CsvReader({ onRecord: (fields) => (isBlankRecord(fields) ? undefined : records.push(fields)) });
  try {
    reader.push(text);
    reader.end();
  } catch {
    return null;
  }
  return records;
}

/** A CSV's data rows, by its line ends: blank lines after the last row (a writer's extra line end) are no rows. */
function dataRowsOf(text: DownloadText): number {
  const blankEnd = /[\r\n\t ]*$/.exec(text.tail)![0];
  return text.lines - (blankEnd.split('\n').length - 1);
}

/** How much of a download's start and end the checks keep. */
const KEEP = 4096;

const countQuotes = (text: string): number => text.split('"').length - 1;

/**
 * The cells of a CSV's last record (blank lines after it are none), read from the kept tail:
 * 'open' when the body ends inside a quoted field, null when that record began before the tail.
 * A body sent without a length ends where the connection closed, so a cut one is told by this.
 */
function lastRecordCells(text: DownloadText): number | 'open' | null {
  let quoted = (text.quotes - countQuotes(text.tail)) % 2 === 1;
  let begun = text.bytes <= KEEP; // the tail is the whole body: a record starts where it does
  let cells = 1;
  let blank = true;
  let last: number | null = null;
  for (const ch of text.tail) {
    if (ch === '"') quoted = !quoted;
    if (quoted) continue;
    if (ch === '\n') {
      if (begun && !blank) last = cells;
      begun = true;
      cells = 1;
      blank = true;
    } else if (ch === ',') cells++;
    if (ch !== '\n' && ch !== '\r' && ch !== ' ' && ch !== '\t') blank = false;
  }
  if (quoted) return 'open';
  return begun && !blank ? cells : last;
}

/**
 * A downloaded body, whose failures halfway (connection lost) are REMOTE_ERRORs, not stack
 * traces; `done` checks the whole of it once it has come (and may throw: the download is then a
 * failure, and a file being written is not kept).
 */
async function* guardStream(
  head: Buffer[],
  rest: AsyncIterator<Buffer>,
  what: string,
  requestId: string | null,
  checks: { done?: (text: DownloadText) => void; observe?: (chunk: Buffer) => void; lowSpeed?: { windowMs: number; stop: () => void } } = {},
): AsyncGenerator<Uint8Array> {
  const { done, observe, lowSpeed } = checks;
  const text: DownloadText = { head: '', tail: '', lines: 0, bytes: 0, quotes: 0 };
  const see = (chunk: Buffer) => {
    observe?.(chunk);
    text.bytes += chunk.length;
    for (let i = chunk.indexOf(34); i >= 0; i = chunk.indexOf(34, i + 1)) text.quotes++;
    if (text.head.length < KEEP) text.head += chunk.subarray(0, KEEP).toString('utf8');
    text.tail = (text.tail + chunk.subarray(Math.max(0, chunk.length - KEEP)).toString('utf8')).slice(-KEEP);
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) text.lines++;
  };
  for (const chunk of head) {
    see(chunk);
    yield chunk;
  }
  // The low-speed window counts only time spent waiting for the server (not for the reader of
  // the output); it starts again each time LOW_SPEED_BYTES have come.
  let waited = 0;
  let arrived = 0;
  try {
    for (;;) {
      const started = Date.now();
      const next = lowSpeed ? await withinWindow(rest.next(), lowSpeed.windowMs - waited) : await rest.next();
      if (next === null) {
        lowSpeed!.stop();
        const seconds = Math.round(lowSpeed!.windowMs / 100) / 10;
        throw remoteError(
          `${what}: the server is too slow: only ${arrived} byte${arrived === 1 ? '' : 's'} arrived in ${seconds} s, where premia needs at least ${LOW_SPEED_BYTES} bytes ` +
            `every ${seconds} s (--timeout); premia stopped the download, nothing complete was received (an --output file is not kept), run it again.`,
          requestId,
        );
      }
      if (next.done) break;
      waited += Date.now() - started;
      arrived += next.value.length;
      if (arrived >= LOW_SPEED_BYTES) {
        waited = 0;
        arrived = 0;
      }
      see(next.value);
      yield next.value;
    }
  } catch (e) {
    if (e instanceof PremiaError) throw e;
    throw remoteError(`${what}: the download broke off before it was complete (${connectionWords(e)}); nothing complete was received, run it again.`, requestId);
  }
  done?.(text);
}

/** The next chunk, or null when `ms` pass first (the chunk still on its way is then dropped). */
async function withinWindow<T>(next: Promise<T>, ms: number): Promise<T | null> {
  if (ms <= 0) {
    next.catch(() => undefined);
    return null;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([next, late]);
  } finally {
    clearTimeout(timer);
    next.catch(() => undefined);
  }
}

/**
 * The file name the service suggests (Content-Disposition), when it is safe to write into the
 * --output directory: a plain name, not hidden (no leading dot), without path separators or
 * control characters, at most 255 bytes. Otherwise null: premia's own name is used.
 */
export function filenameOf(value: string | string[] | undefined): string | null {
  const text = headerText(value);
  if (!text) return null;
  const m = /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i.exec(text);
  if (!m) return null;
  const name = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!.trim();
  return isSafeName(name) ? name : null;
}

function isSafeName(name: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  return name !== '' && !name.startsWith('.') && !/[/\\\u0000-\u001f\u007f]/.test(name) && Buffer.byteLength(name) <= 255;
}

/**
 * The server's safe file name, when it holds `holds` (if given) and no API key, else null. A name
 * that echoes the key (or any premia key) would put it on disk and in the "Wrote …" line.
 */
function suggestedName(name: string | null, holds: string | undefined, apiKey: string): string | null {
  if (name === null || (holds !== undefined && !name.includes(holds))) return null;
  return redactText(name, apiKey) === name && !holdsKey(name) ? name : null;
}

/** premia's own name for a download (from the user's reference), made safe the same way. */
function safeName(name: string, format: 'csv' | 'json'): string {
  return isSafeName(name) ? name : `download.${format}`;
}

/**
 * The key as it goes into the X-API-Key header: without surrounding whitespace (a key read from a
 * file often ends in a newline); a key with characters a header cannot carry is refused (exit 4).
 */
export function checkKey(key: string): string {
  const trimmed = key.trim();
  if (trimmed === '' || /[^\x20-\x7e]/.test(trimmed)) {
    throw new PremiaError(
      'UNAUTHORIZED',
      trimmed === ''
        ? 'The API key is empty: set PREMIA_API_KEY to the key, or run premia login.'
        : 'The API key has characters an HTTP header cannot carry (control characters or non-ASCII): check where it was copied from.',
    );
  }
  return trimmed;
}

/** Seconds or an HTTP date, as milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  // Seconds (RFC 9110 says whole ones; a server that sends 1.5 means a second and a half).
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  // An HTTP date names its month (an ISO timestamp is taken too): Date.parse would take '1.5'
  // or '-5' for a day of 2001, and the retry would not wait at all.
  if (!/[a-z]{3}/i.test(text) && !/^\d{4}-\d{2}-\d{2}T/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/** Failures before the request could be sent: a write is safely sent again after these. */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
  // The TLS handshake failed: nothing of the request is written before it succeeds.
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const RETRYABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'UND_ERR_SOCKET',
  // A body cut off by a server that answered `Connection: close` (a chunked one ended mid-way).
  'HPE_INVALID_EOF_STATE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

export function errorCodeOf(e: unknown): string {
  const err = e as { message?: unknown };
  const code = failureCode(e);
  if (code !== '') return code;
  return typeof err?.message === 'string' ? err.message : String(e);
}

export function retryableConnectionError(e: unknown): boolean {
  return RETRYABLE_CODES.has(errorCodeOf(e));
}

function elapsed(started: number): string {
  return `${(performance.now() - started).toFixed(1)} ms`;
}
