/**
 * The engine's store port (engine/ports.ts `EngineStore`, `DayUnit`) on PostgreSQL: the same
 * reads and writes as engine.ts does on SQLite, a day as one write transaction (the writer lock
 * taken), the working set read through a cursor and the day's rows written with one statement
 * per few thousand rows (unnest of arrays, in the order given: ids come out as on SQLite).
 *
 * The claim to advance is a session advisory lock held on a connection of its own for the whole
 * advance: another advance (any process, any machine) waits for it, and a holder that dies
 * (kill -9) loses it with its connection, so no lease has to be judged abandoned. A holder that
 * goes silent with its connections open (frozen, its machine lost or cut off) loses them to the
 * server after the store's advance timeout (holdingSession; its day's transaction too), the day
 * in progress rolled back. The holder is described in the meta row `advance_lease` for the
 * waiting side, with its connection's backend pid: a row whose connection does not hold the lock
 * (left by a killed holder) describes no one.
 *
 * A day knows whether anything else wrote since the previous day of this advance from the
 * transaction ids: the day's transaction records its own id; if the next day finds the next id
 * to be given out right after it, no other transaction (of any database of the server) wrote in
 * between, and the working set kept in memory is still the store's.
 */
import { randomBytes } from 'node:crypto';
import type { ClientBase } from 'pg';
import { PremiaError } from '../../domain/errors.js';
import { STATUS_BY_CODE } from '../../domain/collection.js';
import { FAILURE_BY_CODE } from '../../domain/debit-outcome.js';
import { fromDayNumber, NO_DAY, type IsoDate, type Period } from '../../domain/period.js';
import { readStoredBatch, type SubmittedDebit } from '../../domain/plan-reason.js';
import type {
  AdvanceClaim,
  AdvanceHolder,
  AttemptColumns,
  DayUnit,
  EngineStore,
  ImageBlock,
  ImageHead,
  LapseCandidate,
  OpenCollection,
  PlanColumns,
  ShardedDays,
  ShardUnit,
  UpdateColumns,
} from '../../engine/ports.js';
import { HERE, inOtherPidNamespace } from '../../lib/process.js';
import { sql } from '../kysely.js';
import { pgPlaceholders } from '../pg-store.js';
import type { PgLocks } from '../pg-locks.js';
import type { PgStore, PgUnit } from '../store.js';
import { lapsedCollections, unpaidActiveCollections } from './lapse-candidates.js';
import { OPEN_STRATEGIES } from './engine-sql.js';
import { getAllMeta, getMeta, setMeta } from './meta.js';
import { inDayUnit } from './pg-day.js';

const LEASE_KEY = 'advance_lease';
/** Rows per statement of a day's writes. */
const WRITE_ROWS = 5000;
const READ_ROWS = 4096;
const POLL_FIRST_MS = 25;
const POLL_MAX_MS = 500;

interface PgClaim extends AdvanceClaim {
  token: string;
  session: { client: ClientBase; close(): Promise<void> };
  heartbeat: Heartbeat;
  /** The store's advance timeout (ms): how long its connections may be silent. */
  timeoutMs: number;
}

/**
 * The session that holds (or waits for) the right to advance: the server drops it, and the lock
 * with it, once it has been silent for `timeoutMs`, idle (PostgreSQL 14 and later: a holder frozen,
 * or on a machine lost or cut off, whose connection would otherwise stay open for hours) or idle
 * inside a transaction (a day in shards opened or closed on it); and probes the client's side
 * of the connection as often (a machine gone, on PostgreSQL 13 too). A live holder speaks on it
 * every quarter of that (startHeartbeat).
 */
async function holdingSession(client: ClientBase, timeoutMs: number): Promise<void> {
  const version = Number((await client.query<{ v: string }>("select current_setting('server_version_num') as v")).rows[0]!.v);
  const probe = Math.max(1, Math.floor(timeoutMs / 4000));
  await client.query(`set idle_in_transaction_session_timeout = ${timeoutMs}`);
  if (version >= 140000) await client.query(`set idle_session_timeout = ${timeoutMs}`);
  await client.query(`set tcp_keepalives_idle = ${probe}`);
  await client.query(`set tcp_keepalives_interval = ${probe}`);
  await client.query('set tcp_keepalives_count = 3');
}

/** SQLSTATE idle_in_transaction_session_timeout: the server ended a connection silent inside its transaction. */
const IDLE_IN_TRANSACTION_TIMEOUT = '25P03';

/**
 * The advance's right to advance is lost (its connections were silent longer than the advance
 * timeout, or the server restarted): what it says, with the detail the CLI knows it by.
 */
function claimLost(range: { from: IsoDate; to: IsoDate } | null, what: string): PremiaError {
  const which = range === null ? 'This clock advance' : `This clock advance (from ${range.from} to ${range.to})`;
  return new PremiaError(
    'CONFLICT',
    `${which} stopped: ${what}, so another advance may have taken the store over and gone on. The day in progress was rolled back; ` +
      `every day before it stands. 'premia clock' shows the date the store has reached.`,
    { details: [{ field: 'advance', code: 'ADVANCE_CLAIM_LOST', message: 'the right to advance was lost' }] },
  );
}

interface Heartbeat {
  stop(): void;
}

/** Speak on the holding session every quarter of the timeout, so that the server knows its holder lives. */
function startHeartbeat(client: ClientBase, timeoutMs: number): Heartbeat {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    // A failure is the session lost: the next day's renewClaim says so.
    client.query('select 1').then(
      () => (busy = false),
      () => (busy = false),
    );
  }, Math.max(100, Math.floor(timeoutMs / 4)));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

export function pgEngineStore(store: PgStore): EngineStore {
  /** The transaction id of this engine's last day (null: none yet). */
  let lastXid: string | null = null;
  /** The range of the advance this engine runs (for its messages). */
  let current: { from: IsoDate; to: IsoDate } | null = null;
  return {
    async readClock() {
      return (await getMeta(store.db, 'clock_date'))!;
    },
    async claimAdvance(resolve, onWait) {
      const session = await store.openSession();
      const token = randomBytes(12).toString('hex');
      let heartbeat: Heartbeat | null = null;
      try {
        await holdingSession(session.client, store.advanceTimeoutMs);
        let told = false;
        for (let wait = POLL_FIRST_MS; ; wait = Math.min(POLL_MAX_MS, wait * 2)) {
          const got = await session.client.query<{ ok: boolean }>(`select pg_try_advisory_lock(${store.locks.advance}) as ok`);
          if (got.rows[0]!.ok) break;
          if (!told && onWait) {
            told = true;
            onWait(await holder(store));
          }
          await new Promise((r) => setTimeout(r, wait));
        }
        heartbeat = startHeartbeat(session.client, store.advanceTimeoutMs);
        const backend = (await session.client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
        const range = await store.transaction(async (trx) => {
          const today = (await getMeta(trx, 'clock_date'))!;
          const to = resolve(today);
          const now = Date.now();
          const lease = { token, host: HERE.host, pid: process.pid, pid_namespace: HERE.pidNamespace, backend, timeout_s: store.advanceTimeoutMs / 1000, from: today, to, started_at: now, renewed_at: now };
          await setMeta(trx, LEASE_KEY, JSON.stringify(lease));
          return { from: today, to };
        });
        const claim: PgClaim = { ...range, token, session, heartbeat, timeoutMs: store.advanceTimeoutMs };
        current = range;
        return claim;
      } catch (e) {
        heartbeat?.stop();
        await session.close();
        throw e;
      }
    },
    async releaseAdvance(claim) {
      const { session, token, heartbeat } = claim as PgClaim;
      try {
        await store.transaction(async (trx) => {
          const lease = await getMeta(trx, LEASE_KEY);
          if (lease !== undefined && (JSON.parse(lease) as { token?: string }).token === token) {
            await trx.deleteFrom('meta').where('key', '=', LEASE_KEY).execute();
          }
        });
      } finally {
        // Closing the session gives the lock back, whatever happened above.
        heartbeat.stop();
        await session.close();
      }
    },
    shards: pgShardedDays(store),
    lapsedCollections: (period) => lapsedCollections(store.db, period),
    async beginDays() {
      return false;
    },
    async endDays() {},
    async runDay(fn) {
      // A holder that stops answering inside its day (frozen, its machine lost) must not keep the
      // writer lock, and with it every write to the store, for longer than its claim: the server
      // ends the day's transaction after the advance timeout of silence (set before the lock).
      const day = store.writeUnit(async (unit) => {
        // Simulated days are recomputed exactly on resume, so a day's commit need not wait for
        // the disk (SQLite: synchronous = NORMAL); the database stays consistent whatever happens.
        await unit.client.query('set local synchronous_commit = off');
        const next = (await unit.client.query<{ next: string }>('select pg_snapshot_xmax(pg_current_snapshot())::text as next')).rows[0]!.next;
        const changed = lastXid === null || BigInt(next) !== BigInt(lastXid) + 1n;
        lastXid = null;
        const out = await inDayUnit(store, unit, () => fn(new PgAdvanceDay(unit, changed)));
        lastXid = (await unit.client.query<{ xid: string }>('select pg_current_xact_id()::text as xid')).rows[0]!.xid;
        return out;
      }, store.advanceTimeoutMs);
      // Silent inside its day for longer than the advance timeout, the server ended the day's
      // connection (and the claim's): the day rolled back, and another advance may have gone on.
      return day.catch((e: unknown) => {
        if ((e as { code?: unknown }).code === IDLE_IN_TRANSACTION_TIMEOUT || (e as { cause?: { code?: unknown } }).cause?.code === IDLE_IN_TRANSACTION_TIMEOUT) {
          throw claimLost(
            current,
            `the database closed the connection of its day, which had been silent for more than ${store.advanceTimeoutMs / 1000} s (this process was stopped, or cut off from the database)`,
          );
        }
        throw e;
      });
    },
  };
}

/**
 * Days in customer shards on PostgreSQL (engine/shards.ts). The advance keeps other writers out
 * for the whole day by holding the writer lock shared on its own connection (the one holding its
 * claim) from the day's opening to its closing; the shards' units take it shared too, so they run
 * side by side, while any other write waits for the exclusive lock. A worker claims a shard with
 * `for update skip locked`: the row stays locked until its unit commits (done) or rolls back, a
 * worker that dies taking its lock with it, so a shard is lived once.
 */
function pgShardedDays(store: PgStore): ShardedDays {
  const writerLock = store.locks.writer;
  const release = async (claim: AdvanceClaim) => {
    const { session } = claim as PgClaim;
    // False (with a server warning) when not held: nothing to give back.
    await session.client.query(`select pg_advisory_unlock_shared(${writerLock})`).catch(() => undefined);
  };
  return {
    async openDay() {
      const r = await store.db.selectFrom('engine_shards').select(['day', 'shards']).where('state', '<>', 'closed').orderBy('day').limit(1).executeTakeFirst();
      return r ? { day: r.day, shards: Number(r.shards) } : null;
    },
    async readSettings() {
      return getAllMeta(store.db);
    },
    async beginDay(claim, day, shards) {
      const { session } = claim as PgClaim;
      await session.client.query(`select pg_advisory_lock_shared(${writerLock})`);
      try {
        return await store.sessionWriteUnit(session.client, async (unit) => {
          const open = await unit.db.selectFrom('engine_shards').select(['day', 'shards']).where('state', '<>', 'closed').execute();
          if (open.length > 0) {
            if (open.some((r) => r.day !== day)) {
              throw new PremiaError('CONFLICT', `A day in shards is open for ${open[0]!.day}, not ${day}: the store's clock and its engine days disagree.`);
            }
            return Number(open[0]!.shards);
          }
          await unit.client.query(
            `insert into engine_shards (day, shard, shards, state) select $1, k, $2, 'pending' from generate_series(0, $2::integer - 1) as k`,
            [day, shards],
          );
          return shards;
        });
      } catch (e) {
        await release(claim);
        throw e;
      }
    },
    async join(worker) {
      const session = await store.openSession();
      try {
        // A worker that stops answering (frozen, its machine lost) is no longer joined once the
        // server has ended its silent session: its shards go to the others, as a dead one's do.
        await holdingSession(session.client, store.advanceTimeoutMs);
        await session.client.query(`select pg_advisory_lock(${store.locks.worker('$1::text')})`, [worker]);
      } catch (e) {
        await session.close();
        throw e;
      }
      const heartbeat = startHeartbeat(session.client, store.advanceTimeoutMs);
      // Closing the session gives the lock back.
      return {
        leave: () => {
          heartbeat.stop();
          return session.close();
        },
      };
    },
    async workShard(worker, fn) {
      // (Its transaction is given up by the server after the advance timeout of silence: sharedWriteUnit.)
      return store.sharedWriteUnit(async (unit) => {
        await unit.client.query('set local synchronous_commit = off');
        const order = await claimOrder(unit.client, store.locks, worker);
        if (order === null) return null;
        const got = await unit.client.query<{ day: string; shard: number; shards: number }>(
          `select day, shard, shards from engine_shards where day = $1 and state = 'pending' and shard = any($2::integer[])
           order by array_position($2::integer[], shard) for update skip locked limit 1`,
          [order.day, order.shards],
        );
        const row = got.rows[0];
        if (row === undefined) return null;
        const out = await inDayUnit(store, unit, () => fn(new PgShardDay(unit, row.day, Number(row.shard), Number(row.shards))));
        await unit.client.query("update engine_shards set state = 'done', worker = $1, summary = $2 where day = $3 and shard = $4", [
          worker,
          out.summary,
          row.day,
          row.shard,
        ]);
        return { result: out.result };
      });
    },
    async unfinished(day) {
      const r = await store.db
        .selectFrom('engine_shards')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('day', '=', day)
        .where('state', '=', 'pending')
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async endDay(claim, day, fn) {
      const { session } = claim as PgClaim;
      try {
        return await store.sessionWriteUnit(session.client, async (unit) => {
          await unit.client.query('set local synchronous_commit = off');
          const rows = await unit.db.selectFrom('engine_shards').select(['state', 'summary']).where('day', '=', day).orderBy('shard').execute();
          if (rows.length === 0 || rows.some((r) => r.state !== 'done')) {
            throw new PremiaError('CONFLICT', `The day ${day} cannot close: ${rows.filter((r) => r.state !== 'done').length} of its ${rows.length} shards are not done.`);
          }
          const out = await inDayUnit(store, unit, () => fn(new PgDay(unit, true), rows.map((r) => r.summary ?? '[]')));
          await unit.db.updateTable('engine_shards').set({ state: 'closed' }).where('day', '=', day).execute();
          return out;
        });
      } finally {
        await release(claim);
      }
    },
    async abandonDay(claim) {
      await release(claim);
    },
  };
}

/**
 * The pending shards of the open day `worker` may claim, in the order to try them (ShardedDays.
 * workShard): those it lived the day before; then those whose worker of the day before is no
 * longer joined (or that nobody lived: the first day in shards); then, while it has lived no
 * more of today's shards than the day before's count, those of a joined worker that lived at
 * least two more of them than it did, the busiest first. Null when no shard is pending.
 */
async function claimOrder(client: ClientBase, locks: PgLocks, worker: string): Promise<{ day: string; shards: number[] } | null> {
  const open = (await client.query<{ day: string; shards: number }>("select day, shards from engine_shards where state <> 'closed' order by day limit 1")).rows[0];
  if (open === undefined) return null;
  const rows = (
    await client.query<{ shard: number; state: string; worker: string | null; before: string | null; joined: boolean }>(
      `select s.shard, s.state, s.worker, p.worker as before,
              p.worker is not null and exists (select 1 from pg_locks l where ${locks.workerHeld('l', 'p.worker')}) as joined
       from engine_shards s
       left join engine_shards p on p.shard = s.shard and p.shards = s.shards
         and p.day = (select max(day) from engine_shards where day < $1)
       where s.day = $1 and s.shards = $2`,
      [open.day, open.shards],
    )
  ).rows;
  const before = new Map<string, number>();
  for (const r of rows) if (r.before !== null) before.set(r.before, (before.get(r.before) ?? 0) + 1);
  const mineBefore = before.get(worker) ?? 0;
  const mineToday = rows.filter((r) => r.worker === worker).length;
  const pending = rows.filter((r) => r.state === 'pending');
  const own = pending.filter((r) => r.before === worker);
  const orphans = pending.filter((r) => r.before !== worker && !r.joined);
  const others =
    mineToday > mineBefore
      ? []
      : pending.filter((r) => r.joined && r.before !== worker && before.get(r.before!)! >= mineBefore + 2).sort((x, y) => before.get(y.before!)! - before.get(x.before!)!);
  const order = [...own, ...orphans, ...others].map((r) => Number(r.shard));
  return order.length === 0 && pending.length === 0 ? null : { day: open.day, shards: order };
}

/**
 * Who holds the right to advance, from the meta row its holder wrote, when that row is the
 * holder's: a row left by a holder killed before it could remove it (kill -9), or one written
 * while the new holder has not yet written its own, names no one (pid 0).
 */
async function holder(store: PgStore): Promise<AdvanceHolder> {
  const givenUpAfterS = store.advanceTimeoutMs / 1000;
  const unknown: AdvanceHolder = { from: '?', to: '?', host: '?', pid: 0, since: new Date().toISOString(), givenUpAfterS };
  const raw = await getMeta(store.db, LEASE_KEY);
  let lease: { from?: string; to?: string; host?: string; pid?: number; pid_namespace?: string | null; backend?: number; timeout_s?: number; started_at?: number };
  try {
    lease = JSON.parse(raw ?? '{}') as typeof lease;
  } catch {
    return unknown;
  }
  if (typeof lease.backend !== 'number') return unknown;
  const held = await sql<{ ok: boolean }>`select exists (select 1 from pg_locks l where ${sql.raw(store.locks.advanceHeld('l'))} and l.pid = ${lease.backend}) as ok`.execute(store.db);
  if (!held.rows[0]!.ok) return unknown;
  return {
    from: lease.from ?? '?',
    to: lease.to ?? '?',
    host: lease.host ?? '?',
    pid: lease.pid ?? 0,
    since: new Date(lease.started_at ?? Date.now()).toISOString(),
    givenUpAfterS: lease.timeout_s ?? givenUpAfterS,
    ...(inOtherPidNamespace(lease.host ?? null, lease.pid_namespace) ? { otherPidNamespace: true } : {}),
  };
}

/** The working set's columns, as engine.ts reads them on SQLite. */
const OPEN_COLLECTIONS = `
  select c.id, c.client_id, c.customer_id, c.policy_number, c.period_month, c.amount_due, c.amount_collected, c.status,
         c.first_attempt_date, c.last_attempt_date, c.attempts, c.failed_attempts, c.last_failure_reason, e.strategy, p.status
  from collections c join executions e on e.id = c.execution_id join policies p on p.id = c.policy_id
  where c.client_id in (select id from clients) and c.period_month >= ?
  order by c.client_id, c.customer_id, c.policy_number`;

type OpenRow = [number, number, string, string, string, number, number, OpenCollection['status'], string | null, string | null, number, number, string | null, string, string];

class PgDay implements DayUnit {
  constructor(
    protected readonly unit: PgUnit,
    readonly changedSinceLastDay: boolean,
  ) {}

  protected get client(): ClientBase {
    return this.unit.client;
  }

  /** The open collections' condition beyond the period (a shard's customers: PgShardDay). */
  protected shardWhere(): { sql: string; params: unknown[] } {
    return { sql: '', params: [] };
  }

  async renewClaim(claim: AdvanceClaim): Promise<void> {
    const { session, timeoutMs } = claim as PgClaim;
    try {
      await session.client.query('select 1');
    } catch {
      throw claimLost(
        claim,
        `the database closed the connection that held its right to advance (as it does after ${timeoutMs / 1000} s without a word from this process, stopped or cut off from it, and when the server restarts)`,
      );
    }
  }

  async readWorld(): Promise<{ today: IsoDate; settings: ReadonlyMap<string, string> }> {
    const meta = await getAllMeta(this.unit.db);
    return { today: meta.get('clock_date')!, settings: meta };
  }

  async countOpenCollections(firstOpen: Period): Promise<number> {
    const shard = this.shardWhere();
    const r = await this.client.query<{ n: number }>(
      pgPlaceholders(`select count(*) as n from collections c where c.client_id in (select id from clients) and c.period_month >= ?${shard.sql}`),
      [firstOpen, ...shard.params],
    );
    return Number(r.rows[0]!.n);
  }

  async openStrategies(firstOpen: Period): Promise<string[]> {
    const r = await this.client.query<{ strategy: string }>(
      pgPlaceholders(OPEN_STRATEGIES),
      [firstOpen],
    );
    return r.rows.map((row) => row.strategy);
  }

  async loadOpenCollections(firstOpen: Period, sink: (row: OpenCollection) => void): Promise<void> {
    const row = {} as OpenCollection;
    const shard = this.shardWhere();
    const query = OPEN_COLLECTIONS.replace('and c.period_month >= ?', `and c.period_month >= ?${shard.sql}`);
    for await (const rows of this.unit.rows<OpenRow>(query, [firstOpen, ...shard.params], { raw: true, batch: READ_ROWS })) {
      for (const r of rows) {
        row.id = r[0];
        row.clientId = r[1];
        row.customerId = r[2];
        row.policyNumber = r[3];
        row.period = r[4];
        row.due = r[5];
        row.collected = r[6];
        row.status = r[7];
        row.firstAttempt = r[8];
        row.lastAttempt = r[9];
        row.attempts = r[10];
        row.failed = r[11];
        row.lastFailure = r[12];
        row.strategy = r[13];
        row.policyStatus = r[14];
        sink(row);
      }
    }
  }

  async loadSubmittedDebits(fromPlanDay: IsoDate, sink: (debit: SubmittedDebit) => void): Promise<void> {
    for await (const rows of this.unit.rows<[Uint8Array]>(
      'select data from plan_batches where client_id in (select id from clients) and plan_day >= ? order by client_id, plan_day, id',
      [fromPlanDay],
      { raw: true, batch: 64 },
    )) {
      for (const [data] of rows) for (const p of readStoredBatch(data)) sink(p);
    }
  }

  async insertAttemptColumns(date: IsoDate, rows: AttemptColumns): Promise<void> {
    for (let at = 0; at < rows.n; at += WRITE_ROWS) {
      const end = Math.min(rows.n, at + WRITE_ROWS);
      const reasons = Array.from(rows.reason.subarray(at, end), (code) => FAILURE_BY_CODE[code]!);
      await this.client.query(
        `insert into attempts (client_id, collection_id, period_month, date, amount, outcome, failure_reason)
         select c, k, p, $4, a, o, f from unnest($1::bigint[], $2::bigint[], $3::text[], $5::bigint[], $6::text[], $7::text[]) as v(c, k, p, a, o, f)`,
        [
          Array.from(rows.clientId.subarray(at, end)),
          Array.from(rows.collectionId.subarray(at, end)),
          Array.from(rows.period.subarray(at, end), (p) => rows.periods[p]!),
          date,
          Array.from(rows.amount.subarray(at, end)),
          reasons.map((r) => (r === null ? 'SUCCESS' : 'FAILED')),
          reasons,
        ],
      );
    }
  }

  async updateCollectionColumns(rows: UpdateColumns): Promise<void> {
    const date = (day: number) => (day === NO_DAY ? null : fromDayNumber(day));
    for (let at = 0; at < rows.n; at += WRITE_ROWS) {
      const end = Math.min(rows.n, at + WRITE_ROWS);
      await this.client.query(
        `update collections set amount_collected = v.collected, status = v.status, first_attempt_date = v.first, last_attempt_date = v.last,
           attempts = v.attempts, failed_attempts = v.failed, last_failure_reason = v.reason
         from unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[])
           as v(id, collected, status, first, last, attempts, failed, reason)
         where collections.id = v.id`,
        [
          Array.from(rows.id.subarray(at, end)),
          Array.from(rows.collected.subarray(at, end)),
          Array.from(rows.status.subarray(at, end), (code) => STATUS_BY_CODE[code]!),
          Array.from(rows.first.subarray(at, end), date),
          Array.from(rows.last.subarray(at, end), date),
          Array.from(rows.attempts.subarray(at, end)),
          Array.from(rows.failed.subarray(at, end)),
          Array.from(rows.failure.subarray(at, end), (code) => FAILURE_BY_CODE[code]!),
        ],
      );
    }
  }

  async insertPlanColumns(planDay: IsoDate, clientId: number, rows: PlanColumns): Promise<void> {
    for (const data of await rows.batches()) {
      await this.unit.db.insertInto('plan_batches').values({ client_id: clientId, plan_day: planDay, data }).execute();
    }
  }

  async completeExecutions(period: Period, stampMs: number): Promise<void> {
    await this.unit.db
      .updateTable('executions')
      .set({ status: 'completed', completed_at: stampMs })
      .where('period_month', '=', period)
      .where('status', '=', 'processing')
      .execute();
  }

  async lapseCandidates(periods: readonly Period[]): Promise<LapseCandidate[]> {
    const candidates = await unpaidActiveCollections(this.unit.db, periods[0]!);
    const found = new Map<number, Array<string | null>>();
    const reinstated = new Map<number, string>();
    for (const c of candidates) found.set(c.policyId, periods.map(() => null));
    for (let at = 0; at < candidates.length; at += WRITE_ROWS) {
      const ids = candidates.slice(at, at + WRITE_ROWS).map((c) => c.policyId);
      const rows = await this.client.query<{ policy_id: number; period_month: string; status: string }>(
        'select policy_id, period_month, status from collections where policy_id = any($1::bigint[]) and period_month = any($2::text[])',
        [ids, [...periods]],
      );
      for (const r of rows.rows) found.get(Number(r.policy_id))![periods.indexOf(r.period_month)] = r.status;
      const back = await this.client.query<{ policy_id: number; on: string }>(
        `select policy_id, max(changed_on) as on from policy_status_changes
         where policy_id = any($1::bigint[]) and old_status = 'lapsed' and new_status = 'active' group by policy_id`,
        [ids],
      );
      for (const r of back.rows) reinstated.set(Number(r.policy_id), r.on);
    }
    return candidates.map((c) => ({ policyId: c.policyId, clientId: c.clientId, statuses: found.get(c.policyId)!, reinstatedOn: reinstated.get(c.policyId) ?? null }));
  }

  async lapsePolicies(policies: readonly LapseCandidate[], day: IsoDate, stampMs: number, reason: string): Promise<void> {
    for (let at = 0; at < policies.length; at += WRITE_ROWS) {
      const part = policies.slice(at, at + WRITE_ROWS);
      await this.client.query("update policies set status = 'lapsed', updated_at = $1 where id = any($2::bigint[]) and status = 'active'", [
        stampMs,
        part.map((p) => p.policyId),
      ]);
      // In the order given, as SQLite records them one by one.
      await this.client.query(
        `insert into policy_status_changes (client_id, policy_id, old_status, new_status, changed_on, changed_at, reason)
         select c, p, 'active', 'lapsed', $3, $4, $5 from unnest($1::bigint[], $2::bigint[]) as v(c, p)`,
        [part.map((p) => p.clientId), part.map((p) => p.policyId), day, stampMs, reason],
      );
    }
  }

  async moveClock(date: IsoDate): Promise<void> {
    await this.unit.db.updateTable('meta').set({ value: date }).where('key', '=', 'clock_date').execute();
  }

  /** The store's engine inputs version (image.ts). */
  async inputsVersion(): Promise<number> {
    const r = await this.client.query<{ version: string }>('select version from engine_inputs where id = 1');
    return Number(r.rows[0]!.version);
  }
}

/** A day of an advance lived whole: a PgDay that also reads and keeps the engine's image. */
class PgAdvanceDay extends PgDay {
  async readImageHead(): Promise<{ head: ImageHead | null; inputs: number }> {
    const head = await this.client.query<{ as_of: string; tag: string; inputs: number }>('select as_of, tag, inputs from engine_image_head where id = 1');
    const row = head.rows[0];
    return { head: row ? { asOf: row.as_of, tag: row.tag, inputs: Number(row.inputs) } : null, inputs: await this.inputsVersion() };
  }

  async countImage(maxWake: number | null): Promise<{ customers: number; collections: number }> {
    const r = await this.client.query<{ customers: string; collections: string }>(
      'select coalesce(sum(customers), 0) as customers, coalesce(sum(collections), 0) as collections from engine_image where wake <= $1',
      [maxWake ?? Number.MAX_SAFE_INTEGER],
    );
    return { customers: Number(r.rows[0]!.customers), collections: Number(r.rows[0]!.collections) };
  }

  async readImageBlocks(maxWake: number | null, sink: (block: Uint8Array) => void): Promise<void> {
    for await (const rows of this.unit.rows<[Uint8Array]>('select data from engine_image where wake <= ? order by block', [maxWake ?? Number.MAX_SAFE_INTEGER], { raw: true, batch: 8 })) {
      for (const [data] of rows) sink(data);
    }
  }

  async writeImage(asOf: IsoDate, tag: string, inputs: number, consumed: number | null, blocks: Iterable<ImageBlock>): Promise<void> {
    if (consumed === null) await this.client.query('delete from engine_image');
    else await this.client.query('delete from engine_image where wake <= $1', [consumed]);
    for (const b of blocks) {
      await this.client.query('insert into engine_image (wake, client_id, customers, collections, data) values ($1, $2, $3, $4, $5)', [
        b.wake,
        b.clientId,
        b.customers,
        b.collections,
        Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength),
      ]);
    }
    await this.client.query(
      'insert into engine_image_head (id, as_of, tag, inputs) values (1, $1, $2, $3) on conflict (id) do update set as_of = excluded.as_of, tag = excluded.tag, inputs = excluded.inputs',
      [asOf, tag, inputs],
    );
  }
}

/**
 * The shard's hash of a customer: the same for every process on the database (computed by the
 * server), customers spread evenly over the shards.
 */
const SHARD_OF = `mod(mod(hashtextextended(c.client_id::text || '/' || c.customer_id, 0), ?::bigint) + ?::bigint, ?::bigint)`;

/** One shard of a day (engine/shards.ts): the open collections are the shard's customers' only; no image. */
class PgShardDay extends PgDay implements ShardUnit {
  constructor(
    unit: PgUnit,
    readonly day: IsoDate,
    readonly shard: number,
    readonly shards: number,
  ) {
    super(unit, true);
  }

  protected override shardWhere(): { sql: string; params: unknown[] } {
    return { sql: ` and ${SHARD_OF} = ?`, params: [this.shards, this.shards, this.shards, this.shard] };
  }
}
