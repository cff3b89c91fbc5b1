/**
 * The engine's store port (engine/ports.ts `EngineStore`, `DayUnit`) on SQLite: the clock, the
 * claim to advance, a day as one BEGIN IMMEDIATE transaction, the working set's reads and the
 * day's writes.
 *
 * Two ways of reaching the database, by how hot the path is:
 *  - kysely, on the day's transaction, for what runs a few times a day: meta, counts, the plan
 *    batches of the day (one row per client), completing executions, the lapse candidates, the
 *    clock move;
 *  - prepared statements through the store's StatementCache, for what runs per row over up to a
 *    million rows: the working set (its rows as text SQLite writes, a chunk at a time), the
 *    day's attempts and collection updates (64-row multi-row
 *    statements: a day at a million policies writes ~35,000 of each, and one statement per row
 *    cost several seconds a month), and the lapse rule's per-policy statements at a period close.
 * Row types come from the schema (`Selectable<>`/`Insertable<>`, or kysely's inference of a
 * query); the engine's names are mapped to the columns here.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { InferResult, Selectable } from 'kysely';
import type { IsoDate, Period } from '../../domain/period.js';
import { CustomerNumbers } from '../../domain/customer.js';
import { readStoredBatch, type SubmittedDebit } from '../../domain/plan-reason.js';
import type {
  AdvanceClaim,
  AttemptColumns,
  DayUnit,
  EngineStore,
  ImageBlock,
  ImageHead,
  LapseCandidate,
  OpenCollection,
  PlanColumns,
  UpdateColumns,
} from '../../engine/ports.js';
import { acquireLease, releaseLease, renewLease, type AdvanceLease } from '../advance-lease.js';
import { completeExecutions, lapseCandidates, lapsePolicies, moveClock, writeAttempts, writeImage, writeUpdates } from '../engine-days.js';
import type { EngineImageHeadTable, EngineInputsTable, ExecutionsTable } from '../schema.js';
import type { StatementCache } from '../sqlite-dialect.js';
import { DEFAULT_BUSY_TIMEOUT_MS, type Db, type SqliteStore, type Store, type Trx } from '../store.js';
import { dayWriterForEveryLongAdvance, partAccounts } from '../day-writer-url.js';
import { DayPipeline, HandedDay } from './engine-pipeline.js';
import { pgEngineStore } from './engine-pg.js';
import { getAllMeta, getMeta } from './meta.js';
import { lapsedCollections } from './lapse-candidates.js';
import { OPEN_STRATEGIES } from './engine-sql.js';
import { keepLargeBuffersMapped, releaseFreedMemory } from '../../lib/memory.js';

/** SQLite's page cache while days are lived, as PRAGMA cache_size counts it (negative: KiB). */
const ADVANCE_CACHE_SIZE = -160 * 1024;
/**
 * The day writer's page cache. It writes each day's rows in rowid order and its checkpoints are
 * far apart (day-writer.ts), so a page is seldom touched again once it left the cache: a cache
 * larger than this is no faster and only adds to the advance's peak memory (issue 13).
 */
const WRITER_CACHE_SIZE = -32 * 1024;
/**
 * The bytes of debits submitted for the clock's next day (plan batches as stored, compressed:
 * ~12 bytes a debit, so ~90,000 debits) from which a one-day advance hands its day to the day
 * writer: a heavy day gains more from writing beside the engine than the writer's start costs,
 * a light day does not (issue 13).
 */
const HEAVY_DAY_PLAN_BYTES = 1 << 20;
/**
 * The collections queued in runs still processing from which a one-day advance that cannot load
 * from the engine's image alone (none kept as of today with today's inputs: a store's first
 * advance, a run queued since) hands its day to the day writer: such a load writes the image of
 * every customer back, ~160 bytes each, which the writer does faster and in less memory than
 * this connection with the large cache of a lone day (issue 13).
 */
const HEAVY_LOAD_COLLECTIONS = 65_536;

/**
 * Whether an advance of more than one day is worth the day writer's start: from as many
 * collections queued as HEAVY_LOAD_COLLECTIONS. The thread and its modules start in ~0.15-0.2 s,
 * more than a small book's days write: the shipped fixtures' month (520 policies) 0.65 s with it,
 * 0.49 s without; 20,000 policies 1.53-1.54 s against 1.28-1.33 s; 50,000 about even (2.29-2.31
 * against 2.10-2.60 s); the 100k and 1M months gain from it (issue 13).
 */
function longAdvanceWorthWriter(raw: BetterSqlite3.Database): boolean {
  if (dayWriterForEveryLongAdvance()) return true;
  return queuedCollections(raw) >= HEAVY_LOAD_COLLECTIONS;
}

/** The collections queued in runs still processing. */
function queuedCollections(raw: BetterSqlite3.Database): number {
  return raw.prepare(`select coalesce(sum(policies_queued), 0) from executions where status = 'processing'`).pluck().get() as number;
}

/** Whether the clock's next day is worth the day writer's start: many debits due, or a large working set to load and keep. */
function heavyDayAhead(raw: BetterSqlite3.Database, statements: StatementCache): boolean {
  const row = raw
    .prepare(
      `select coalesce(sum(length(data)), 0) as bytes from plan_batches
       where client_id in (select id from clients) and plan_day = (select value from meta where key = 'clock_date')`,
    )
    .get() as { bytes: number };
  if (row.bytes >= HEAVY_DAY_PLAN_BYTES) return true;
  const head = raw.prepare(`select as_of as asOf, inputs from engine_image_head where id = 1`).get() as { asOf: string; inputs: number } | undefined;
  const clock = raw.prepare(`select value from meta where key = 'clock_date'`).pluck().get() as string | undefined;
  if (head !== undefined && head.asOf === clock && head.inputs === inputsVersion(statements)) return false;
  return queuedCollections(raw) >= HEAVY_LOAD_COLLECTIONS;
}

/** The store's connection's page cache while a day writer writes the days: it only reads the working set. */
const READ_CACHE_SIZE = -16 * 1024;
/** Its page cache once the working set is read, until the writer's days end. */
const IDLE_CACHE_SIZE = -1024;

/**
 * The engine's store on `store`. One per advance: it remembers the last day it ran.
 * `aloneOnThread`: nothing else on the engine's thread uses the store while it advances
 * (backend/local/context.ts): the day writer then writes each day at once and waits, in its
 * transaction, only for the day before to be reported before it commits.
 */
export function engineStore(store: Store, options: { aloneOnThread?: boolean } = {}): EngineStore {
  // The allocator's mmap threshold (lib/memory.ts) is fixed where the engine's buffers are large:
  // on PostgreSQL from the start (its days and shards load here), on SQLite when beginDays hands
  // the days to the day writer (a light day does not load the allocator's library: ~6 ms).
  if (store.kind === 'postgres') {
    keepLargeBuffersMapped();
    return pgEngineStore(store);
  }
  /** data_version and the store's write count after this engine's last day (null: none yet). */
  let seen: { version: number; generation: number } | null = null;
  let cacheSize: number | null = null;
  /** Whether beginDays turned the connection's foreign key checks off (endDays turns them on again). */
  let keysOff = false;
  /** The day writer while days are handed over (engine-pipeline.ts), with the clock as the last day handed over leaves it. */
  let pipeline: DayPipeline | null = null;
  let handedWorld: { today: IsoDate; settings: ReadonlyMap<string, string> } | null = null;
  return {
    async readClock() {
      return (await getMeta(store.db, 'clock_date'))!;
    },
    claimAdvance: (resolve, onWait) => acquireLease(store, resolve, onWait),
    releaseAdvance: (claim) => releaseLease(store, claim as AdvanceLease),
    async beginDays(days, mayHandOver) {
      // Simulated days are recomputed exactly on resume (the bank lives in the store too), so a
      // day commits without waiting for the disk; the store stays consistent whatever happens.
      // Ordinary writes keep synchronous = FULL. A larger page cache: a day's updates land all
      // over the collections table and its attempts indexes, and with the store's usual 64 MiB a
      // million-policy month spent a tenth of its time re-reading and re-spilling pages.
      cacheSize = store.raw.pragma('cache_size', { simple: true }) as number;
      store.raw.pragma('synchronous = NORMAL');
      const handOver = mayHandOver && (days > 1 ? longAdvanceWorthWriter(store.raw) : heavyDayAhead(store.raw, store.statements));
      if (handOver) keepLargeBuffersMapped(); // (see the top of engineStore)
      pipeline = handOver ? await DayPipeline.start(store, WRITER_CACHE_SIZE, DEFAULT_BUSY_TIMEOUT_MS, options.aloneOnThread === true) : null;
      // With a day writer, this connection only reads the working set (a scan): the writer has the large cache.
      store.raw.pragma(`cache_size = ${pipeline ? READ_CACHE_SIZE : ADVANCE_CACHE_SIZE}`);
      // Days this connection writes itself, with nothing else on its thread to write meanwhile
      // (the CLI's one command, a server job's thread): no foreign key checks, as on the day
      // writer's connection (day-writer.ts), for the same reason: every row a day writes refers
      // to rows read in that day's transaction or checked unchanged since (runDay's `changed`).
      // Checked, each attempt looked its collection up, and each multi-row statement kept a
      // statement journal, a temporary file of the pages it changed (4 to 19 MB on a one-day
      // advance of the 1M book, issue 13). A server's connection, which its requests share with
      // the advance, keeps them.
      keysOff = !pipeline && options.aloneOnThread === true && store.raw.pragma('foreign_keys', { simple: true }) === 1;
      if (keysOff) store.raw.pragma('foreign_keys = OFF');
      handedWorld = null;
      return pipeline !== null;
    },
    async endDays() {
      try {
        await pipeline?.close();
      } finally {
        pipeline = null;
        store.raw.pragma('synchronous = FULL');
        if (cacheSize !== null) store.raw.pragma(`cache_size = ${cacheSize}`);
        if (keysOff) store.raw.pragma('foreign_keys = ON');
        keysOff = false;
      }
    },
    async settle(mode) {
      return pipeline ? pipeline.settle(mode) : 0;
    },
    reported(stop) {
      pipeline?.reported(stop);
    },
    lapsedCollections: (period) => lapsedCollections(store.db, period),
    async runDay(fn) {
      if (pipeline !== null) return handOver(pipeline, fn);
      return store.transaction(async (trx) => {
        const version = dataVersion(store.raw);
        const changed = seen === null || version !== seen.version || store.generation !== seen.generation;
        seen = null;
        const out = await fn(new SqliteDay(trx, store.statements, changed));
        // Our own commit leaves data_version as it is; the write count goes up by this transaction.
        seen = { version, generation: store.generation + 1 };
        return out;
      });
    },
  };

  /**
   * A day handed over to the writer: its reads served here inside a transaction when the engine
   * loads (the first day, or after something else wrote: the writer has then written or dropped
   * every day before, and checks the store from now on), its writes recorded for the writer.
   */
  async function handOver<T>(p: DayPipeline, fn: (unit: DayUnit) => Promise<T>): Promise<T> {
    const sqlite = store as SqliteStore;
    p.check();
    let day: HandedDay;
    let out: T;
    if (handedWorld === null || p.changed) {
      // The writer's baseline is not waited for before the store is read (its thread may still
      // be starting: ~0.1 s of an advance's start, issue 13), but before the load's transaction
      // ends: that transaction holds the store's write lock, so whatever committed before it
      // began is in what the load read and before the baseline, and whatever commits after it
      // the writer sees.
      await p.settleAll();
      const taken = p.askBaseline();
      sqlite.raw.pragma(`cache_size = ${READ_CACHE_SIZE}`);
      out = await sqlite.transaction(async (trx) => {
        const reads = new SqliteDay(trx, sqlite.statements, true);
        handedWorld = await reads.readWorld();
        day = new HandedDay(reads, handedWorld);
        const lived = await day.diverting(sqlite, () => fn(day));
        await taken;
        p.check();
        return lived;
      });
      // The working set is read: until something else writes, the writer alone touches the file,
      // so this connection's page cache is given back (it would count in the month's peak).
      sqlite.raw.pragma(`cache_size = ${IDLE_CACHE_SIZE}`);
      sqlite.raw.pragma('shrink_memory');
      // And what the load freed (its text, the helper's answer) goes back too (lib/memory.ts).
      releaseFreedMemory();
    } else {
      day = new HandedDay(null, handedWorld, p, partAccounts());
      try {
        out = await day.diverting(sqlite, () => fn(day));
      } catch (e) {
        // Parts of the day went: the writer drops them (nothing of the day commits).
        if (day.seq !== 0) p.abandon(day.seq);
        throw e;
      }
    }
    const clock = day!.ops.findLast((o) => o.op === 'clock');
    if (clock === undefined) {
      if (day!.seq !== 0) p.abandon(day!.seq);
      return out; // nothing lived (the clock is at the target), or the working set loaded alone
    }
    handedWorld = { today: clock.date, settings: handedWorld!.settings };
    p.hand(day!.ops, day!.handed(), day!.image, day!.seq);
    return out;
  }
}

function dataVersion(raw: BetterSqlite3.Database): number {
  return raw.pragma('data_version', { simple: true }) as number;
}

/**
 * The working set's collections OPEN_CHUNK_ROWS at a time in id order, as one text per chunk:
 * a line per collection, `id,client,customer,policy number,period,due,execution,policy status`
 * (the status empty when active), then, for a collection attempted or changed since it was
 * queued, `,collected,status,first attempt,last attempt,attempts,failed,last failure` (dates and
 * reason empty when null). SQLite writes the text: a million rows cost a third of what reading
 * them row by row does (identifiers hold no commas: domain/identifiers.ts). The `+` keeps SQLite
 * on the rowid (through the (client, period) index it sorted the whole period for every chunk).
 */
const OPEN_CHUNK_ROWS = 65_536;
const OPEN_CHUNK = `select group_concat(line, char(10)), max(id) from (
  select c.id, c.id || ',' || c.client_id || ',' || c.customer_id || ',' || c.policy_number || ',' || c.period_month || ',' ||
    c.amount_due || ',' || c.execution_id || ',' || (case when p.status = 'active' then '' else p.status end) ||
    (case when c.attempts = 0 and c.failed_attempts = 0 and c.amount_collected = 0 and c.status = 'UNPAID'
            and c.first_attempt_date is null and c.last_attempt_date is null and c.last_failure_reason is null then ''
          else ',' || c.amount_collected || ',' || c.status || ',' || ifnull(c.first_attempt_date, '') || ',' ||
            ifnull(c.last_attempt_date, '') || ',' || c.attempts || ',' || c.failed_attempts || ',' || ifnull(c.last_failure_reason, '') end) as line
  from collections c join policies p on p.id = c.policy_id
  where +c.period_month >= ? and c.id > ? and +c.client_id in (select id from clients)
  order by c.id limit ${OPEN_CHUNK_ROWS})`;

/** The first id of OPEN_CHUNK's rows (null: none), where its chunks start. */
const OPEN_FIRST_ID = 'select min(id) as id from collections where client_id in (select id from clients) and period_month >= ?';

/**
 * The customers of the working set's collections (OPEN_CHUNK's rows), each once, in the order
 * its first collection comes (by id): the order the engine loads its customers in, read on
 * another connection by the engine's helper (backend/local/account-helper-worker.ts). The rows
 * are read in id order as OPEN_CHUNK's are, `client,customer` lines a chunk at a time, and
 * numbered as they come, rather than by SQLite's `group by … order by min(id)`, which sorts them
 * in a temporary b-tree and takes several times as long.
 */
export function openCustomers(raw: BetterSqlite3.Database, firstOpen: Period): CustomerNumbers {
  const customers = new CustomerNumbers(OPEN_CHUNK_ROWS);
  // OPEN_CHUNK's join with the policies finds every collection's (a foreign key).
  const from = (raw.prepare(OPEN_FIRST_ID).get(firstOpen) as { id: number | null }).id;
  if (from === null) return customers;
  const chunk = raw
    .prepare(
      `select group_concat(client_id || ',' || customer_id, char(10)), max(id) from (
         select id, client_id, customer_id from collections where +period_month >= ? and id > ? and +client_id in (select id from clients)
         order by id limit ${OPEN_CHUNK_ROWS})`,
    )
    .raw(true);
  for (let after = from - 1; ; ) {
    const [text, last] = chunk.get(firstOpen, after) as [string | null, number | null];
    if (text === null || last === null) return customers;
    after = last;
    for (let at = 0; at < text.length; ) {
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      const comma = text.indexOf(',', at);
      customers.number(Number(text.slice(at, comma)), text.slice(comma + 1, end));
      at = end + 1;
    }
  }
}

/** The collections of a chunk of OPEN_CHUNK's text into `row`, each to `sink`. */
function parseOpenLines(text: string, strategies: ReadonlyMap<number, string>, row: OpenCollection, sink: (row: OpenCollection) => void): void {
  let at = 0;
  /** The text up to the next comma (or the line's end), moving past it. */
  const field = (end: number): string => {
    let comma = text.indexOf(',', at);
    if (comma < 0 || comma > end) comma = end;
    const f = text.slice(at, comma);
    at = comma + 1;
    return f;
  };
  /** A whole number up to the next comma (or the line's end), moving past it. */
  const integer = (): number => {
    let v = 0;
    let c = text.charCodeAt(at);
    const negative = c === 45;
    if (negative) c = text.charCodeAt(++at);
    while (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      c = text.charCodeAt(++at);
    }
    at++;
    return negative ? -v : v;
  };
  let period = '';
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    row.id = integer();
    row.clientId = integer();
    row.customerId = field(end);
    row.policyNumber = field(end);
    // Periods repeat: keep one string for a run of them.
    if (!text.startsWith(period, at) || text.charCodeAt(at + period.length) !== 44) period = text.slice(at, text.indexOf(',', at));
    at += period.length + 1;
    row.period = period;
    row.due = integer();
    row.strategy = strategies.get(integer())!;
    const policyStatus = field(end);
    row.policyStatus = policyStatus === '' ? 'active' : policyStatus;
    if (at > end) {
      row.collected = 0;
      row.status = 'UNPAID';
      row.firstAttempt = null;
      row.lastAttempt = null;
      row.attempts = 0;
      row.failed = 0;
      row.lastFailure = null;
    } else {
      row.collected = integer();
      row.status = field(end) as OpenCollection['status'];
      const first = field(end);
      row.firstAttempt = first === '' ? null : first;
      const last = field(end);
      row.lastAttempt = last === '' ? null : last;
      row.attempts = integer();
      row.failed = integer();
      const reason = field(end);
      row.lastFailure = reason === '' ? null : reason;
    }
    if (at !== end + 1) throw new Error(`unexpected collection line: ${text.slice(text.lastIndexOf('\n', end - 1) + 1, end)}`);
    sink(row);
  }
}

function submittedDebitsQuery(db: Db | Trx, fromPlanDay: IsoDate) {
  return db
    .selectFrom('plan_batches')
    .select('data')
    .where('client_id', 'in', (eb) => eb.selectFrom('clients').select('id'))
    .where('plan_day', '>=', fromPlanDay);
}
type SubmittedBatchRow = InferResult<ReturnType<typeof submittedDebitsQuery>>[number];

/** One day's unit of work: the day's transaction. */
class SqliteDay implements DayUnit {
  constructor(
    private readonly trx: Trx,
    private readonly statements: StatementCache,
    readonly changedSinceLastDay: boolean,
  ) {}

  async renewClaim(claim: AdvanceClaim): Promise<void> {
    renewLease(this.statements, claim as AdvanceLease);
  }

  async readWorld(): Promise<{ today: IsoDate; settings: ReadonlyMap<string, string> }> {
    const meta = await getAllMeta(this.trx);
    return { today: meta.get('clock_date')!, settings: meta };
  }

  async countOpenCollections(firstOpen: Period): Promise<number> {
    const row = await this.trx
      .selectFrom('collections')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', 'in', (eb) => eb.selectFrom('clients').select('id'))
      .where('period_month', '>=', firstOpen)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  async openStrategies(firstOpen: Period): Promise<string[]> {
    return this.statements.get(OPEN_STRATEGIES).pluck(true).all(firstOpen) as string[];
  }

  async loadOpenCollections(firstOpen: Period, sink: (row: OpenCollection) => void): Promise<void> {
    const strategies = new Map(
      (this.statements.get('select id, strategy from executions').all() as Array<Pick<Selectable<ExecutionsTable>, 'id' | 'strategy'>>).map((e) => [e.id, e.strategy]),
    );
    const from = this.statements.get(OPEN_FIRST_ID).get(firstOpen) as { id: number | null };
    if (from.id === null) return;
    const chunk = this.statements.get(OPEN_CHUNK).raw(true);
    const row = {} as OpenCollection;
    for (let after = from.id - 1; ; ) {
      const [text, last] = chunk.get(firstOpen, after) as [string | null, number | null];
      if (text === null || last === null) return;
      after = last;
      parseOpenLines(text, strategies, row, sink);
    }
  }

  async loadSubmittedDebits(fromPlanDay: IsoDate, sink: (debit: SubmittedDebit) => void): Promise<void> {
    const q = submittedDebitsQuery(this.trx, fromPlanDay).compile();
    for (const row of this.statements.get(q.sql).iterate(...q.parameters) as Iterable<SubmittedBatchRow>) {
      for (const p of readStoredBatch(row.data)) sink(p);
    }
  }

  async insertAttemptColumns(date: IsoDate, rows: AttemptColumns): Promise<void> {
    writeAttempts(this.statements, date, rows);
  }

  async updateCollectionColumns(rows: UpdateColumns): Promise<void> {
    writeUpdates(this.statements, rows);
  }

  async insertPlanColumns(planDay: IsoDate, clientId: number, rows: PlanColumns): Promise<void> {
    for (const data of await rows.batches()) {
      this.statements.get('insert into plan_batches (client_id, plan_day, data) values (?, ?, ?)').run(clientId, planDay, data);
    }
  }

  async completeExecutions(period: Period, stampMs: number): Promise<void> {
    completeExecutions(this.statements, period, stampMs);
  }

  async lapseCandidates(periods: readonly Period[]): Promise<LapseCandidate[]> {
    return lapseCandidates(this.statements, periods);
  }

  async lapsePolicies(policies: readonly LapseCandidate[], day: IsoDate, stampMs: number, reason: string): Promise<void> {
    lapsePolicies(this.statements, policies, day, stampMs, reason);
  }

  async moveClock(date: IsoDate): Promise<void> {
    moveClock(this.statements, date);
  }

  async readImageHead(): Promise<{ head: ImageHead | null; inputs: number }> {
    const head = this.statements.get('select as_of, tag, inputs from engine_image_head where id = 1').get() as
      | Pick<Selectable<EngineImageHeadTable>, 'as_of' | 'tag' | 'inputs'>
      | undefined;
    return { head: head ? { asOf: head.as_of, tag: head.tag, inputs: head.inputs } : null, inputs: inputsVersion(this.statements) };
  }

  async countImage(maxWake: number | null): Promise<{ customers: number; collections: number }> {
    const row = this.statements
      .get('select coalesce(sum(customers), 0) as customers, coalesce(sum(collections), 0) as collections from engine_image where wake <= ?')
      .get(maxWake ?? Number.MAX_SAFE_INTEGER) as { customers: number; collections: number };
    return row;
  }

  async readImageBlocks(maxWake: number | null, sink: (block: Uint8Array) => void): Promise<void> {
    imageBlocks(this.statements.get(IMAGE_BLOCKS), maxWake, sink);
  }

  async writeImage(asOf: IsoDate, tag: string, inputs: number, consumed: number | null, blocks: Iterable<ImageBlock>): Promise<void> {
    await writeImage(this.statements, asOf, tag, inputs, consumed, blocks);
  }

}

/** The image's blocks of customers waking by a day, in the order they were kept. */
const IMAGE_BLOCKS = 'select data from engine_image where wake <= ? order by block';

function imageBlocks(statement: BetterSqlite3.Statement, maxWake: number | null, sink: (block: Uint8Array) => void): void {
  const rows = statement.raw(true).iterate(maxWake ?? Number.MAX_SAFE_INTEGER) as Iterable<[Uint8Array]>;
  for (const [data] of rows) sink(data);
}

/** Every block of the engine's image, on `raw` (the account helper's own connection: readImageBlocks). */
export function readImageBlocksOn(raw: BetterSqlite3.Database, sink: (block: Uint8Array) => void): void {
  imageBlocks(raw.prepare(IMAGE_BLOCKS), null, sink);
}

/** The store's engine inputs version (moved by the triggers of migration 0009). */
function inputsVersion(statements: StatementCache): number {
  return (statements.get('select version from engine_inputs where id = 1').get() as Pick<Selectable<EngineInputsTable>, 'version'>).version;
}

/** The debits a client submitted at the end of `fromPlanDay` or later (clock advance --dry-run, cancellation previews). */
export async function clientSubmittedDebits(db: Db | Trx, clientId: number, fromPlanDay: IsoDate): Promise<SubmittedDebit[]> {
  const batches = await db.selectFrom('plan_batches').select('data').where('client_id', '=', clientId).where('plan_day', '>=', fromPlanDay).execute();
  return batches.flatMap((b) => readStoredBatch(b.data));
}

