/**
 * Read-only queries behind the collections report, the attempts export and the settlement line
 * export: a period's collections in policy_number order, read through the unique index
 * (client_id, period_month, policy_number), and its attempts in id order, through the index
 * (client_id, period_month), each of which yields that order without a sort.
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
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { Cents } from '../../domain/money.js';
import { pgLiteral } from '../pg-copy.js';
import { reportReaderModule } from '../report-reader-url.js';
import {
  BEGUN,
  DECIDED,
  GO,
  KeysetPages,
  NEXT,
  PAGE_ROWS,
  periodTextWriter,
  RangeReader,
  rangeBoundaries,
  REPORT_ROWS,
  rowSourceOf,
  SHARED_SLOTS,
  STOP,
  TAKEN,
  type PeriodText,
  type ReportReaderData,
  type ReportReaderOut,
  type ReportRow,
  type RowSource,
} from '../report-ranges.js';
import { DEFAULT_BUSY_TIMEOUT_MS, type Store } from '../store.js';
import type { PgStore } from '../store-types.js';

export { PAGE_ROWS, type PeriodText, type ReportRow };

const require = createRequire(import.meta.url);

/**
 * A new read-only connection to a SQLite file store, or null for PostgreSQL and an in-memory
 * store (whose reads go through store.streamRows: one cursor, or the one connection).
 */
function openFileReader(store: Store): BetterSqlite3.Database | null {
  if (store.kind === 'postgres' || store.path === ':memory:' || store.path === '') return null;
  const BetterSqlite = require('better-sqlite3') as typeof BetterSqlite3;
  return new BetterSqlite(store.path, { readonly: true, fileMustExist: true, timeout: DEFAULT_BUSY_TIMEOUT_MS });
}

/** A period's rows of `source` in its key's order, in batches of raw rows. */
async function* periodRowsInOrder<T extends unknown[]>(store: Store, source: RowSource, clientId: number, period: string): AsyncGenerator<T[]> {
  // PostgreSQL: one cursor in one read-only snapshot (pg-store.ts streamRows), PAGE_ROWS at a
  // time, so a million rows never sit in memory and the writer is never held up.
  const reader = openFileReader(store);
  if (reader === null) {
    const order = (store.kind === 'postgres' ? source.pgOrder : undefined) ?? source.key;
    const sql = `select ${source.columns} from ${source.from} where ${source.where} order by ${order}`;
    yield* store.streamRows<T>(sql, [clientId, period], { raw: true, batch: PAGE_ROWS });
    return;
  }
  try {
    const keyset = new KeysetPages<T>(reader, source, clientId, period);
    reader.exec('begin'); // one snapshot for every page
    yield* keyset.pages(null, null);
  } finally {
    if (reader.inTransaction) reader.exec('commit');
    reader.close();
  }
}

/** Rows per range of the two-thread read (report-ranges.ts): a page, ~110 KB of CSV. */
const RANGE_ROWS = PAGE_ROWS;
/** From this many ranges a file store's report is read by two threads (below, the worker's start costs more than it saves). */
const THREADED_MIN_RANGES = 16;
/** Ranges the worker may read ahead of the streaming thread, and this thread ahead of the worker's next one. */
const READ_AHEAD = 16;
/**
 * The worker's young generation, MB, by format. At 4 MB the attempts export's worker spent as
 * long collecting as reading (1.5 s of 4.2 s at 1M); at 16, 1M attempts took 2.1–3.0 s against
 * 2.4–4.0 s, and the CSV report 3.0–3.4 s against 3.3–3.8 s, its peak the same. A JSON range's
 * text is three times a CSV one's: at 16 MB the JSON report's worker collected for 1.4 s of
 * 5.4; four runs each alternated, 3.89–4.83 s (16 MB), 3.37–4.48 s (32), 3.21–4.20 s (64), peak
 * 180–190, 201–207, 231–238 MB (2026-12-02).
 */
const READER_YOUNG_MB = { csv: 16, json: 32 } as const;

export interface ReportTextOptions {
  /** Rows per range (tests: small ranges on a small period). */
  rangeRows?: number;
  /** From this many ranges, two threads (tests: 1). */
  threadedMinRanges?: number;
  /** Told what happens, for tests: this thread's snapshot taken, the worker started, each range yielded and who read it. */
  observe?: (event: ReportReadEvent) => void;
  /**
   * For tests: this thread claims no range before the worker has handed this many over (or
   * ended), so that the worker reads the first ones whatever the machine's speed.
   */
  workerFirst?: number;
}

export type ReportReadEvent = { type: 'snapshot' } | { type: 'worker'; worker: Worker } | { type: 'range'; k: number; by: 'worker' | 'this thread' };

/**
 * A period's rows as `text` says (the collections report's in policy_number order or the
 * attempts export's in the order they were made; CSV lines, or JSON results each after a comma;
 * no header), in chunks of text or UTF-8 bytes. A file store's period of THREADED_MIN_RANGES
 * ranges or more is read by two threads (issue 13): this one and the report reader
 * (store/report-reader.ts), each on its own read-only connection, each claiming the next range
 * not yet claimed; this thread yields the ranges in order, its own as it reads them, the
 * worker's as they come, and while the worker's next one has not come it reads the ranges after
 * it (at most READ_AHEAD) rather than wait. Both connections read one snapshot: the worker reads
 * only once `PRAGMA data_version` of a third connection, taken before this thread's snapshot and
 * again after the worker's, shows that nothing committed in between; else (an advance
 * committing meanwhile), or when the worker cannot start or fails, this thread reads every range
 * the worker has not handed over, alone, in its own snapshot. 1M rows on this 2-core machine:
 * 3.6–5.4 s with one thread, 2.7–2.9 s with two (a prototype, 2026-12-02).
 */
export async function* streamPeriodText(store: Store, clientId: number, period: string, text: PeriodText, options: ReportTextOptions = {}): AsyncGenerator<string | Uint8Array> {
  const write = periodTextWriter(text, period);
  const source = rowSourceOf(text);
  const reader = openFileReader(store);
  if (reader === null) {
    for await (const rows of periodRowsInOrder<unknown[]>(store, source, clientId, period)) yield write(rows);
    return;
  }
  let probe: BetterSqlite3.Database | null = null;
  let helper: ReportHelper | null = null;
  try {
    // A third connection, outside any transaction: its data_version moves when anything commits.
    const third = (probe = openFileReader(store)!);
    const before = dataVersionOf(third);
    const unchanged = () => dataVersionOf(third) === before;
    reader.exec('begin'); // one snapshot for every range: the boundaries' read takes it
    const boundaries = rangeBoundaries(reader, source, clientId, period, options.rangeRows ?? RANGE_ROWS);
    const ranges = new RangeReader(reader, source, clientId, period, boundaries);
    options.observe?.({ type: 'snapshot' });
    const module = boundaries.length >= (options.threadedMinRanges ?? THREADED_MIN_RANGES) ? reportReaderModule() : null;
    if (module !== null) {
      helper = ReportHelper.start(module, {
        path: store.path,
        busyTimeoutMs: DEFAULT_BUSY_TIMEOUT_MS,
        clientId,
        period,
        text,
        boundaries,
        shared: new SharedArrayBuffer(SHARED_SLOTS * 4),
        window: READ_AHEAD,
      });
      if (helper !== null) options.observe?.({ type: 'worker', worker: helper.worker });
    }
    const own = function* (k: number): Generator<string> {
      for (const rows of ranges.pages(k)) yield write(rows);
    };
    const claimed = new Int32Array(helper?.shared ?? new SharedArrayBuffer(SHARED_SLOTS * 4));
    if (helper !== null && options.workerFirst) {
      await helper.begun();
      helper.decide(unchanged);
      await helper.handedOver(options.workerFirst);
    }
    /** This thread's ranges read before their turn, by index (at most READ_AHEAD). */
    const ahead = new Map<number, string>();
    const whole = (k: number): string => {
      let t = '';
      for (const piece of own(k)) t += piece;
      return t;
    };
    /** The next range to yield: those below it were yielded. */
    let next = 0;
    while (next < boundaries.length) {
      helper?.decide(unchanged);
      const early = ahead.get(next);
      if (early !== undefined) {
        ahead.delete(next);
        options.observe?.({ type: 'range', k: next, by: 'this thread' });
        yield early;
        next++;
        continue;
      }
      if (next < Atomics.load(claimed, NEXT)) {
        // The worker's range. Until it is handed over, this thread reads the next ones itself,
        // rather than wait (the worker's ranges take longer when it collects garbage).
        while (helper !== null && ahead.size < READ_AHEAD && !helper.ready(next)) {
          const k = Atomics.add(claimed, NEXT, 1);
          if (k >= boundaries.length) break;
          ahead.set(k, whole(k));
        }
        const text = helper === null ? null : await helper.take(next);
        options.observe?.({ type: 'range', k: next, by: text === null ? 'this thread' : 'worker' });
        if (text === null) yield* own(next); // the worker stopped before handing it over
        else yield text;
        next++;
        continue;
      }
      const k = Atomics.add(claimed, NEXT, 1);
      if (k === next) {
        options.observe?.({ type: 'range', k, by: 'this thread' });
        yield* own(k);
        next++;
      } else if (k < boundaries.length) {
        ahead.set(k, whole(k)); // the worker claimed `next` in between
      }
    }
  } finally {
    helper?.stop();
    if (reader.inTransaction) reader.exec('commit');
    reader.close();
    probe?.close();
  }
}

function dataVersionOf(db: BetterSqlite3.Database): number {
  return db.pragma('data_version', { simple: true }) as number;
}

/** The report reader's worker, seen from the streaming thread. */
class ReportHelper {
  readonly shared: SharedArrayBuffer;
  private readonly state: Int32Array;
  readonly worker: Worker;
  private readonly texts = new Map<number, Uint8Array>();
  /** Where the worker hands its ranges over: its own channel, so that they can be taken without waiting for the event loop (ready()). */
  private readonly port: MessagePort;
  /** The channel is closed (stop()): nothing more is taken from it. */
  private closed = false;
  /** The worker has ended (done, failed, or stopped): what it has not handed over, it never will. */
  private ended = false;
  /** Ranges handed over so far. */
  private received = 0;
  private wake: (() => void) | null = null;

  /** The worker started, or null when it cannot be (this thread then reads every range). */
  static start(module: URL, data: Omit<ReportReaderData, 'port'>): ReportHelper | null {
    try {
      return new ReportHelper(module, data);
    } catch {
      return null;
    }
  }

  private constructor(module: URL, data: Omit<ReportReaderData, 'port'>) {
    this.shared = data.shared;
    this.state = new Int32Array(data.shared);
    // Its young generation small: each range's rows and text are short-lived, and a young
    // generation left to grow to V8's default would add tens of MB to the report's flat memory.
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(module, {
      workerData: { ...data, port: port2 } satisfies ReportReaderData,
      transferList: [port2],
      resourceLimits: { maxYoungGenerationSizeMb: READER_YOUNG_MB[data.text.format] },
    });
    port1.on('message', (m: ReportReaderOut) => {
      this.receive(m);
      this.notify();
    });
    // The worker keeps the process alive while it runs; its channel never does.
    port1.unref();
    // A worker that fails leaves its ranges to the streaming thread (take() answers null).
    this.worker.on('error', () => this.end());
    this.worker.on('exit', () => this.end());
  }

  private receive(m: ReportReaderOut): void {
    if (m.type === 'range') {
      this.texts.set(m.k, m.text);
      this.received++;
    } else {
      this.ended = true;
    }
  }

  /** What the worker has handed over and the event loop has not delivered yet, taken now. */
  private pull(): void {
    if (this.closed) return;
    for (let m = receiveMessageOnPort(this.port); m !== undefined; m = receiveMessageOnPort(this.port)) this.receive(m.message as ReportReaderOut);
  }

  /** Whether range `k` has been handed over and waits to be taken. */
  ready(k: number): boolean {
    this.pull();
    return this.texts.has(k);
  }

  /** Once the worker has taken its snapshot: GO when `same()` says nothing committed since before ours, else STOP. */
  decide(same: () => boolean): void {
    if (Atomics.load(this.state, DECIDED) !== 0 || Atomics.load(this.state, BEGUN) === 0) return;
    Atomics.store(this.state, DECIDED, same() ? GO : STOP);
    Atomics.notify(this.state, DECIDED);
  }

  /** Once the worker has taken its snapshot, or ended (tests: ReportTextOptions.workerFirst). */
  async begun(): Promise<void> {
    while (Atomics.load(this.state, BEGUN) === 0 && !this.ended) await new Promise((resolve) => setTimeout(resolve, 2));
  }

  /** Once the worker has handed `n` ranges over, or ended. */
  async handedOver(n: number): Promise<void> {
    while (this.received < n && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
  }

  /** Range `k`'s text once the worker hands it over, or null when it never will. */
  async take(k: number): Promise<Uint8Array | null> {
    for (;;) {
      const text = this.texts.get(k);
      if (text !== undefined) {
        this.texts.delete(k);
        Atomics.add(this.state, TAKEN, 1);
        Atomics.notify(this.state, TAKEN);
        return text;
      }
      if (this.ended) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** No more ranges wanted: the worker ends after the one it is reading, if any. */
  stop(): void {
    if (Atomics.load(this.state, DECIDED) === 0) Atomics.store(this.state, DECIDED, STOP);
    else Atomics.compareExchange(this.state, DECIDED, GO, STOP);
    Atomics.notify(this.state, DECIDED);
    Atomics.notify(this.state, TAKEN);
    void this.worker.terminate();
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.port.close();
  }

  private end(): void {
    // What it posted before it ended is in the channel already.
    this.pull();
    this.close();
    this.ended = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
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

/**
 * The counts in ascending amount order, PAGE_ROWS pairs at a time. On a SQLite file the GROUP BY
 * sorted every collection of the period in a temporary b-tree (0.94–1.07 s at 1M, 242,745
 * amounts); the amounts alone, read in one statement (one snapshot) and sorted and counted in
 * runs here, take 0.44 s, the same pairs in the same order.
 */
export async function* streamCollectedCounts(store: Store, clientId: number, period: string): AsyncGenerator<CollectedCount[]> {
  const reader = openFileReader(store);
  if (reader === null) {
    yield* store.streamRows<CollectedCount>(COLLECTED_COUNTS_SQL, [clientId, period], { raw: true, batch: PAGE_ROWS });
    return;
  }
  let amounts: Float64Array;
  try {
    amounts = Float64Array.from(reader.prepare('select amount_collected from collections where client_id = ? and period_month = ?').pluck().all(clientId, period) as number[]);
  } finally {
    reader.close();
  }
  amounts.sort();
  let batch: CollectedCount[] = [];
  for (let i = 0; i < amounts.length; ) {
    const amount = amounts[i]!;
    let j = i + 1;
    while (j < amounts.length && amounts[j] === amount) j++;
    batch.push([amount as Cents, j - i]);
    if (batch.length === PAGE_ROWS) {
      yield batch;
      batch = [];
    }
    i = j;
  }
  if (batch.length > 0) yield batch;
}

/** A line of `settlements export --lines`. */
export type LineRow = [
  policy_number: string,
  customer_id: string,
  external_customer_ref: string,
  product_code: string,
  amount_collected: Cents,
];

const LINE_ROWS: RowSource = { ...REPORT_ROWS, columns: 'policy_number, customer_id, external_customer_ref, product_code, amount_collected', keyIndex: 0 };

export function streamLineRows(store: Store, clientId: number, period: string): AsyncGenerator<LineRow[]> {
  return periodRowsInOrder<LineRow>(store, LINE_ROWS, clientId, period);
}
