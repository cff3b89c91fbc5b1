/**
 * Days handed over before they commit (issue 13): on a SQLite file store the engine's days are
 * written by the day writer (day-writer.ts), a thread with its own connection, while the engine
 * lives the next day. A day unit here serves the engine's reads on the store's connection (only
 * when it loads its working set, inside a transaction) and records its writes as operations
 * (engine-days.ts) that the writer applies, one transaction per day, in order.
 *
 * What stays as it was: each day commits as one unit (its attempts, collection updates, plans,
 * period close and clock move), in order; a crash leaves the store at the end of the last day
 * committed, and the next advance lives the rest again exactly. What a store that commits each
 * day before the next is lived also did: stop when something else wrote — here the writer checks,
 * before each day, that nothing but itself committed since the engine read the store; when
 * something did, that day and those after it are dropped and the next unit tells the engine
 * (changedSinceLastDay), which reads the store again from the last day committed.
 */
import { Worker } from 'node:worker_threads';
import { PremiaError, type ErrorCode } from '../../domain/errors.js';
import type { IsoDate, Period } from '../../domain/period.js';
import type { SubmittedDebit } from '../../domain/plan-reason.js';
import type {
  AdvanceClaim,
  AttemptColumns,
  DayUnit,
  ImageBlock,
  ImageHead,
  LapseCandidate,
  OpenCollection,
  PlanColumns,
  UpdateColumns,
} from '../../engine/ports.js';
import type { AdvanceLease } from '../advance-lease.js';
import { dayWriterModule } from '../day-writer-url.js';
import { sqliteDiskFullError } from '../../domain/disk-full.js';
import { ACKED, dayRows, sharedOps, STOP, type DayOp, type DayWriterData, type DayWriterIn, type DayWriterOut, type SnapshotRows } from '../engine-days.js';
import type { SqliteStore } from '../store-types.js';
import { releaseFreedMemory } from '../../lib/memory.js';

/**
 * Days handed over and not yet committed, at most (beyond, `settle('room')` waits): two, or up
 * to LIGHT_DAYS while together they write at most LIGHT_ROWS attempts and updates (the writer
 * then writes the light days waiting together: day-writer.ts).
 */
const IN_FLIGHT = 2;
/** Blocks of a streamed image sent to the writer and not yet taken, at most (~5 MB at 1M). */
const IMAGE_WINDOW = 8;
const LIGHT_DAYS = 8;
const LIGHT_ROWS = 400_000;
/**
 * A day that wrote at least this many attempts and updates frees enough (its rows, the writer's
 * statements' buffers) to give back (lib/memory.ts) once it commits.
 */
const TRIM_ROWS = 100_000;
/** The day writer's young generation, MiB (see `start`). */
const WRITER_YOUNG_MB = 4;

/** Writes a store's bank makes while a handed-over day is being lived go into that day (bank.ts keepBalances). */
const divertedSnapshots = new WeakMap<SqliteStore, (rows: SnapshotRows) => void>();

/** Where the bank's snapshots of `store` go now, if not to the store itself. */
export function snapshotsDiverted(store: SqliteStore): ((rows: SnapshotRows) => void) | undefined {
  return divertedSnapshots.get(store);
}

interface Handed {
  seq: number;
  /** Attempts and updates the day writes. */
  rows: number;
  /** Resolved with the day's lapsed policies when it commits. */
  lapsed: (result: Map<number, number>) => void;
  failed: (e: unknown) => void;
}

/**
 * A day writer's failure, rebuilt on this thread from what crossed (its message, and its code
 * when it was premia's): SQLite's full disk is known by its message alone (disk-full.ts).
 */
export function dayWriterError(sent: { message: string; code?: string }): Error {
  if (sent.code) return new PremiaError(sent.code as ErrorCode, sent.message);
  const e = new Error(sent.message);
  return sqliteDiskFullError(e) ?? e;
}

/** The day writer of one run of days, and the days handed to it. */
export class DayPipeline {
  private readonly worker: Worker;
  private seq = 0;
  private readonly inFlight: Handed[] = [];
  /** Days committed since the last `settle`. */
  private committed = 0;
  /** A day was dropped because something else wrote: the next unit loads again. */
  changed = false;
  private error: Error | null = null;
  /** Waiters for the in-flight list to shrink, or for a baseline or close answer. */
  private waiters: Array<() => void> = [];
  private answer: ((m: DayWriterOut) => void) | null = null;
  /** Blocks of streamed images the writer has taken. */
  private imageTaken = 0;
  /** Buffers of image blocks the writer has written, for the next blocks (streamImage). */
  private imageBuffers: SharedArrayBuffer[] = [];

  /** The cells shared with the writer (day-writer.ts ACKED, STOP). */
  private readonly shared: Int32Array;
  /** The last day (seq) committed and reported by `settle`. */
  private lastCommitted = 0;

  /** The writer's thread has ended (closed, or stopped by a failure): nothing more comes from it. */
  private exited = false;
  /** `close` asked it to end. */
  private closing = false;

  private constructor(worker: Worker, shared: SharedArrayBuffer) {
    this.worker = worker;
    this.shared = new Int32Array(shared);
    worker.on('message', (m: DayWriterOut) => this.receive(m));
    worker.on('error', (e) => this.fail(e));
    // A thread that ends unasked (an 'error' comes first when something threw there; a native
    // fault or a terminate brings none) fails what waits on it: a day handed over and never
    // answered left the advance waiting for nothing, and the process ended with exit code 0.
    worker.on('exit', (code) => {
      this.exited = true;
      if (!this.closing) this.fail(new PremiaError('INTERNAL', `the day writer's thread ended unexpectedly (exit code ${code}): the advance stopped after the last day it wrote (premia clock show says which)`));
    });
  }

  /** Start a writer on `store`'s file (null when there is none to start). */
  static async start(store: SqliteStore, cacheSize: number, busyTimeoutMs: number, waitInTransaction: boolean): Promise<DayPipeline | null> {
    const module = dayWriterModule();
    if (module === null || store.path === ':memory:' || store.path === '') return null;
    const shared = new SharedArrayBuffer(8);
    const data: DayWriterData = { path: store.path, busyTimeoutMs, cacheSize, shared, waitInTransaction };
    // Its young generation small: what it allocates is short-lived and little (its rows come as
    // buffers), and a young generation left to grow to V8's default would add to the peak.
    const worker = new Worker(module, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: WRITER_YOUNG_MB } });
    // Not waited for: its thread starts (~0.1 s: its modules, SQLite, the file) while the engine
    // reads the working set (`askBaseline`).
    return new DayPipeline(worker, shared);
  }

  private receive(m: DayWriterOut): void {
    if (m.type === 'image-taken') {
      this.imageTaken++;
      if (this.imageBuffers.length < IMAGE_WINDOW) this.imageBuffers.push(m.buffer);
      this.wake();
      return;
    }
    if (m.type === 'committed' || m.type === 'dropped' || m.type === 'failed') {
      const h = this.inFlight.shift()!;
      if (m.type === 'committed') {
        this.committed++;
        this.lastCommitted = m.seq;
        // A large day's rows are freed once written: give the pages back (lib/memory.ts).
        if (h.rows >= TRIM_ROWS) releaseFreedMemory();
        h.lapsed(new Map(m.lapsed));
      } else if (m.type === 'dropped') {
        if (m.changed) this.changed = true;
        h.failed(new Error('the day was not written'));
      } else {
        const e = dayWriterError(m.error);
        this.error ??= e;
        h.failed(e);
      }
      this.wake();
      return;
    }
    this.answer?.(m);
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private fail(e: Error): void {
    this.error ??= e;
    for (const h of this.inFlight.splice(0)) h.failed(e);
    for (const w of this.waiters.splice(0)) w();
    this.answer?.({ type: 'closed' });
  }

  /** Send `m` (none: just wait) and wait for the answer of type `type` (at once when the thread has ended: none will come). */
  private request(m: DayWriterIn | null, type: DayWriterOut['type']): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      this.answer = (a) => {
        if (a.type !== type && a.type !== 'closed') return;
        this.answer = null;
        resolve();
      };
      if (m) this.worker.postMessage(m);
    });
  }

  /** Until at most `n` days are in flight. */
  private async drain(n: number): Promise<void> {
    while (this.inFlight.length > n && this.error === null) await new Promise<void>((r) => this.waiters.push(r));
  }

  /** Rethrow what stopped the writer, if anything did. */
  check(): void {
    if (this.error !== null) throw this.error;
  }

  /** Every day handed over written or dropped (before the engine reads the store: `askBaseline`). */
  async settleAll(): Promise<void> {
    await this.drain(0);
    this.check();
    // Every day handed over so far is settled (committed and reported, or dropped): the next may be written.
    Atomics.store(this.shared, ACKED, this.seq);
  }

  /**
   * After `settleAll`: a new baseline asked for, taken when the promise resolves (the writer's
   * thread may still be starting). The engine reads the store meanwhile, in a transaction that
   * holds the store's write lock until the baseline is taken (repos/engine.ts handOver): nothing
   * can commit between what it read and the baseline.
   */
  askBaseline(): Promise<void> {
    this.changed = false;
    return this.request({ type: 'baseline' }, 'baseline');
  }

  /**
   * Hand a day's operations over, and the blocks of its image when its image op holds none;
   * `seq`: the day whose first operations went as parts (`part`), these being the rest.
   */
  hand(ops: DayOp[], handed: Omit<Handed, 'seq' | 'rows'>, image?: Iterable<ImageBlock>, seq = 0): void {
    if (seq === 0) seq = this.open(handed);
    const h = this.inFlight.find((d) => d.seq === seq);
    if (h) h.rows += dayRows(ops);
    this.worker.postMessage({ type: 'day', seq, ops: sharedOps(ops) } satisfies DayWriterIn);
    if (image) void this.streamImage(seq, image);
  }

  /** A day in flight from now (its operations to come: `part`, then `hand` or `abandon`); its seq. */
  open(handed: Omit<Handed, 'seq' | 'rows'>): number {
    const seq = ++this.seq;
    // After the writer failed nothing answers a day: it fails now (the advance hears why).
    if (this.error !== null) handed.failed(this.error);
    else this.inFlight.push({ seq, rows: 0, ...handed });
    return seq;
  }

  /** Day `seq`'s first operations (or the next), for the writer to begin on. */
  part(seq: number, ops: DayOp[]): void {
    const h = this.inFlight.find((d) => d.seq === seq);
    if (h) h.rows += dayRows(ops);
    this.worker.postMessage({ type: 'part', seq, ops: sharedOps(ops) } satisfies DayWriterIn);
  }

  /** Day `seq`, of which parts went, will not come whole: the writer drops what it wrote of it. */
  abandon(seq: number): void {
    this.worker.postMessage({ type: 'abandon', seq } satisfies DayWriterIn);
  }

  /**
   * A copy of `bytes` to hand to the writer, in a buffer of a block it has written when one is
   * large enough (else a new one, rounded up so that it serves later blocks too): the image of a
   * million-policy month is ~180 MB of blocks, and a new buffer for each would be freed in the
   * writer only by its next full collection, while the engine goes on making more.
   */
  private imageBuffer(bytes: Uint8Array): Uint8Array<SharedArrayBuffer> {
    const n = bytes.byteLength;
    const k = this.imageBuffers.findIndex((b) => b.byteLength >= n);
    const buffer = k >= 0 ? this.imageBuffers.splice(k, 1)[0]! : new SharedArrayBuffer(Math.max(65_536, 2 ** Math.ceil(Math.log2(Math.max(1, n)))));
    const out = new Uint8Array(buffer, 0, n);
    out.set(bytes);
    return out;
  }

  /**
   * Send day `seq`'s image blocks as the writer takes them, at most IMAGE_WINDOW ahead (each
   * copied out of the encoder's buffer into a shared one), then its end; given up once the day is
   * no longer in flight (dropped or failed: the writer then ignores what it was sent).
   */
  private async streamImage(seq: number, blocks: Iterable<ImageBlock>): Promise<void> {
    const gone = () => this.error !== null || !this.inFlight.some((h) => h.seq === seq);
    let sent = 0;
    const first = this.imageTaken;
    try {
      for (const b of blocks) {
        while (sent - (this.imageTaken - first) >= IMAGE_WINDOW && !gone()) await new Promise<void>((r) => this.waiters.push(r));
        if (gone()) return;
        const data = this.imageBuffer(b.data);
        const block = { wake: b.wake, clientId: b.clientId, customers: b.customers, collections: b.collections, data };
        this.worker.postMessage({ type: 'image-block', seq, block } satisfies DayWriterIn);
        sent++;
      }
      this.worker.postMessage({ type: 'image-end', seq } satisfies DayWriterIn);
    } catch (e) {
      // The day must not commit without its image: the writer fails it, and the engine hears why.
      try {
        if (!gone()) this.worker.postMessage({ type: 'image-end', seq, error: (e as Error).message } satisfies DayWriterIn);
      } catch (f) {
        this.fail(f as Error);
      }
    }
  }

  /**
   * How many days committed since the last call, once: at once ('now'), when few enough are in
   * flight ('room'), or when one more has committed or none is left in flight ('one'). The
   * caller reports them, then calls `reported`.
   */
  async settle(mode: 'now' | 'room' | 'one'): Promise<number> {
    if (mode === 'room' && this.committed === 0) {
      while (this.error === null && this.inFlight.length > IN_FLIGHT && (this.inFlight.length > LIGHT_DAYS || this.inFlight.reduce((n, h) => n + h.rows, 0) > LIGHT_ROWS)) {
        await new Promise<void>((r) => this.waiters.push(r));
      }
    }
    if (mode === 'one' && this.committed === 0) await this.drain(this.inFlight.length === 0 ? 0 : this.inFlight.length - 1);
    this.check();
    const n = this.committed;
    this.committed = 0;
    return n;
  }

  /** The days settled so far are reported: the next may commit (or, with `stop`, none after them). */
  reported(stop: boolean): void {
    if (stop) Atomics.store(this.shared, STOP, 1);
    else Atomics.store(this.shared, ACKED, this.lastCommitted);
    Atomics.notify(this.shared, ACKED);
  }

  async close(): Promise<void> {
    this.closing = true;
    // Days not reported are not waited for: none commits after a stop.
    Atomics.store(this.shared, STOP, 1);
    Atomics.notify(this.shared, ACKED);
    await this.drain(0);
    await this.request({ type: 'close' }, 'closed');
    await this.worker.terminate();
  }
}

/** The SQLite store's own unit, which serves a load's reads: every reader a load may use. */
type LoadingUnit = DayUnit & Required<Pick<DayUnit, 'openStrategies' | 'readImageHead' | 'countImage' | 'readImageBlocks'>>;

/**
 * A day unit whose writes are recorded for the writer. Its reads are served by `reads` (the
 * store's own day unit, inside a transaction) when the engine loads its working set; otherwise
 * only the clock's date is read, and it is the one the last day handed over moved to.
 */
export class HandedDay implements DayUnit {
  ops: DayOp[] = [];
  /** The day in flight once parts of it went to the writer (`handPart`), else 0. */
  seq = 0;
  /** The pipeline parts go to (none: this unit reads, and takes no parts). */
  private readonly parts: DayPipeline | null;
  readonly partAccounts?: number;
  /**
   * The day's lapsed policies once it commits (read when it closes a period), or why it did not:
   * settled by the pipeline whenever that comes, before or after the close is asked for.
   */
  private readonly lapsed: Promise<Map<number, number>>;
  private settleLapsed!: (m: Map<number, number>) => void;
  private failLapsed!: (e: unknown) => void;

  constructor(
    private readonly reads: LoadingUnit | null,
    private readonly world: { today: IsoDate; settings: ReadonlyMap<string, string> },
    pipeline: DayPipeline | null = null,
    partAccounts?: number,
  ) {
    this.parts = reads === null ? pipeline : null;
    this.lapsed = new Promise((resolve, reject) => {
      this.settleLapsed = resolve;
      this.failLapsed = reject;
    });
    // Nobody may wait for it (a day that closes no period, a dropped day): no unhandled rejection.
    this.lapsed.catch(() => {});
    if (partAccounts !== undefined) this.partAccounts = partAccounts;
  }

  /**
   * The day's final rows so far go to the writer now, with the operations before them, as a
   * part (the writer begins the day's transaction on the first). A unit that reads (the load's)
   * takes none: its connection holds the store's write lock until it ends.
   */
  handPart(date: IsoDate, attempts: AttemptColumns, updates: UpdateColumns): void {
    if (this.parts === null) throw new Error('a unit that loads the working set hands no parts');
    if (attempts.n > 0) this.ops.push({ op: 'attempts', date, rows: attempts });
    if (updates.n > 0) this.ops.push({ op: 'updates', rows: updates });
    if (this.seq === 0) this.seq = this.parts.open(this.handed());
    this.parts.part(this.seq, this.ops);
    this.ops = [];
  }

  get changedSinceLastDay(): boolean {
    return this.reads !== null;
  }

  /** The day's callbacks for the pipeline. */
  handed(): Omit<Handed, 'seq' | 'rows'> {
    return {
      lapsed: (m) => this.settleLapsed(m),
      failed: (e) => this.failLapsed(e),
    };
  }

  private readUnit(): LoadingUnit {
    if (this.reads === null) throw new Error('a handed-over day reads nothing but the clock');
    return this.reads;
  }

  async renewClaim(claim: AdvanceClaim): Promise<void> {
    this.ops.push({ op: 'lease', lease: claim as AdvanceLease });
  }

  async readWorld(): Promise<{ today: IsoDate; settings: ReadonlyMap<string, string> }> {
    return this.reads ? this.reads.readWorld() : this.world;
  }

  countOpenCollections(firstOpen: Period): Promise<number> {
    return this.readUnit().countOpenCollections(firstOpen);
  }

  openStrategies(firstOpen: Period): Promise<string[]> {
    return this.readUnit().openStrategies(firstOpen);
  }

  loadOpenCollections(firstOpen: Period, sink: (row: OpenCollection) => void): Promise<void> {
    return this.readUnit().loadOpenCollections(firstOpen, sink);
  }

  loadSubmittedDebits(fromPlanDay: IsoDate, sink: (debit: SubmittedDebit) => void): Promise<void> {
    return this.readUnit().loadSubmittedDebits(fromPlanDay, sink);
  }

  readImageHead(): Promise<{ head: ImageHead | null; inputs: number }> {
    return this.readUnit().readImageHead();
  }

  countImage(maxWake: number | null): Promise<{ customers: number; collections: number }> {
    return this.readUnit().countImage(maxWake);
  }

  readImageBlocks(maxWake: number | null, sink: (block: Uint8Array) => void): Promise<void> {
    return this.readUnit().readImageBlocks(maxWake, sink);
  }

  async insertAttemptColumns(date: IsoDate, rows: AttemptColumns): Promise<void> {
    this.ops.push({ op: 'attempts', date, rows });
  }

  async updateCollectionColumns(rows: UpdateColumns): Promise<void> {
    this.ops.push({ op: 'updates', rows });
  }

  async insertPlanColumns(planDay: IsoDate, clientId: number, rows: PlanColumns): Promise<void> {
    for (const data of await rows.batches()) this.ops.push({ op: 'plans', clientId, planDay, data });
  }

  closePeriod(period: Period, lapseAfter: number, day: IsoDate, stampMs: number): Promise<Map<number, number>> {
    this.ops.push({ op: 'close', period, lapseAfter, day, stampMs });
    return this.lapsed;
  }

  async completeExecutions(): Promise<void> {
    throw new Error('a handed-over day closes a period with closePeriod');
  }

  async lapseCandidates(): Promise<LapseCandidate[]> {
    throw new Error('a handed-over day closes a period with closePeriod');
  }

  async lapsePolicies(): Promise<void> {
    throw new Error('a handed-over day closes a period with closePeriod');
  }

  async moveClock(date: IsoDate): Promise<void> {
    this.ops.push({ op: 'clock', date });
  }

  /** The blocks of this day's image, streamed to the writer once the day is handed over. */
  image: Iterable<ImageBlock> | undefined;

  async writeImage(asOf: IsoDate, tag: string, inputs: number, consumed: number | null, blocks: Iterable<ImageBlock>): Promise<void> {
    // Encoded as the writer takes them (DayPipeline.streamImage): the engine's state stays as the
    // day left it, the advance's last (nothing is lived after the day that keeps the image).
    this.image = blocks;
    this.ops.push({ op: 'image', asOf, tag, inputs, consumed, blocks: null });
  }

  /** Record the bank's snapshots (diverted from the store while this day is lived). */
  snapshots(rows: SnapshotRows): void {
    this.ops.push({ op: 'snapshots', rows });
  }

  /** Divert `store`'s bank snapshots into this day while `fn` runs. */
  async diverting<T>(store: SqliteStore, fn: () => Promise<T>): Promise<T> {
    divertedSnapshots.set(store, (rows) => this.snapshots(rows));
    try {
      return await fn();
    } finally {
      divertedSnapshots.delete(store);
    }
  }
}
