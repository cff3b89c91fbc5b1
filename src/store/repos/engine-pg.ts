/**
 * The engine's store port (engine/ports.ts `EngineStore`, `DayUnit`) on PostgreSQL: the same
 * reads and writes as engine.ts does on SQLite, a day as one write transaction (the writer lock
 * taken), the working set read through a cursor and the day's rows written with one statement
 * per few thousand rows (unnest of arrays, in the order given: ids come out as on SQLite).
 *
 * The claim to advance is a session advisory lock held on a connection of its own for the whole
 * advance: another advance (any process, any machine) waits for it, and a holder that dies
 * (kill -9, a lost machine) loses it with its connection, so no lease has to be judged
 * abandoned. The holder is described in the meta row `advance_lease` for the waiting side.
 *
 * A day knows whether anything else wrote since the previous day of this advance from the
 * transaction ids: the day's transaction records its own id; if the next day finds the next id
 * to be given out right after it, no other transaction (of any database of the server) wrote in
 * between, and the working set kept in memory is still the store's.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ClientBase } from 'pg';
import { PremiaError } from '../../domain/errors.js';
import type { IsoDate, Period } from '../../domain/period.js';
import type { SubmittedDebit } from '../../domain/plan-reason.js';
import type {
  AdvanceClaim,
  AdvanceHolder,
  AttemptRecord,
  CollectionUpdate,
  DayUnit,
  EngineStore,
  ImageBlock,
  ImageHead,
  LapseCandidate,
  OpenCollection,
} from '../../engine/ports.js';
import { decodePlans, encodePlans, PLAN_BATCH } from '../plan-batches.js';
import { PG_LOCK_SPACE, type PgStore, type PgUnit } from '../store.js';
import { unpaidActiveCollections } from './lapse-candidates.js';
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
}

export function pgEngineStore(store: PgStore): EngineStore {
  /** The transaction id of this engine's last day (null: none yet). */
  let lastXid: string | null = null;
  return {
    async readClock() {
      return (await getMeta(store.db, 'clock_date'))!;
    },
    async claimAdvance(resolve, onWait) {
      const session = await store.openSession();
      const token = randomBytes(12).toString('hex');
      try {
        let told = false;
        for (let wait = POLL_FIRST_MS; ; wait = Math.min(POLL_MAX_MS, wait * 2)) {
          const got = await session.client.query<{ ok: boolean }>(`select pg_try_advisory_lock(${PG_LOCK_SPACE}, hashtext('advance')) as ok`);
          if (got.rows[0]!.ok) break;
          if (!told && onWait) {
            told = true;
            onWait(await holder(store));
          }
          await new Promise((r) => setTimeout(r, wait));
        }
        const range = await store.transaction(async (trx) => {
          const today = (await getMeta(trx, 'clock_date'))!;
          const to = resolve(today);
          const now = Date.now();
          await setMeta(trx, LEASE_KEY, JSON.stringify({ token, host: hostname(), pid: process.pid, from: today, to, started_at: now, renewed_at: now }));
          return { from: today, to };
        });
        const claim: PgClaim = { ...range, token, session };
        return claim;
      } catch (e) {
        await session.close();
        throw e;
      }
    },
    async releaseAdvance(claim) {
      const { session, token } = claim as PgClaim;
      try {
        await store.transaction(async (trx) => {
          const lease = await getMeta(trx, LEASE_KEY);
          if (lease !== undefined && (JSON.parse(lease) as { token?: string }).token === token) {
            await trx.deleteFrom('meta').where('key', '=', LEASE_KEY).execute();
          }
        });
      } finally {
        // Closing the session gives the lock back, whatever happened above.
        await session.close();
      }
    },
    async beginDays() {
      return false;
    },
    async endDays() {},
    async runDay(fn) {
      return store.writeUnit(async (unit) => {
        // Simulated days are recomputed exactly on resume, so a day's commit need not wait for
        // the disk (SQLite: synchronous = NORMAL); the database stays consistent whatever happens.
        await unit.client.query('set local synchronous_commit = off');
        const next = (await unit.client.query<{ next: string }>('select pg_snapshot_xmax(pg_current_snapshot())::text as next')).rows[0]!.next;
        const changed = lastXid === null || BigInt(next) !== BigInt(lastXid) + 1n;
        lastXid = null;
        const out = await inDayUnit(store, unit, () => fn(new PgDay(unit, changed)));
        lastXid = (await unit.client.query<{ xid: string }>('select pg_current_xact_id()::text as xid')).rows[0]!.xid;
        return out;
      });
    },
  };
}

async function holder(store: PgStore): Promise<AdvanceHolder> {
  const raw = await getMeta(store.db, LEASE_KEY);
  try {
    const lease = JSON.parse(raw ?? '{}') as { from?: string; to?: string; host?: string; pid?: number; started_at?: number };
    return {
      from: lease.from ?? '?',
      to: lease.to ?? '?',
      host: lease.host ?? '?',
      pid: lease.pid ?? 0,
      since: new Date(lease.started_at ?? Date.now()).toISOString(),
    };
  } catch {
    return { from: '?', to: '?', host: '?', pid: 0, since: new Date().toISOString() };
  }
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
    private readonly unit: PgUnit,
    readonly changedSinceLastDay: boolean,
  ) {}

  private get client(): ClientBase {
    return this.unit.client;
  }

  async renewClaim(claim: AdvanceClaim): Promise<void> {
    const { session, from, to } = claim as PgClaim;
    try {
      await session.client.query('select 1');
    } catch {
      throw new PremiaError(
        'CONFLICT',
        `This clock advance (from ${from} to ${to}) stopped: its connection to the database, which held the right to advance, was lost. ` +
          `The store is at the end of the last whole day; check 'premia clock'.`,
      );
    }
  }

  async readWorld(): Promise<{ today: IsoDate; settings: ReadonlyMap<string, string> }> {
    const meta = await getAllMeta(this.unit.db);
    return { today: meta.get('clock_date')!, settings: meta };
  }

  async countOpenCollections(firstOpen: Period): Promise<number> {
    const r = await this.client.query<{ n: number }>('select count(*) as n from collections where client_id in (select id from clients) and period_month >= $1', [firstOpen]);
    return Number(r.rows[0]!.n);
  }

  async loadOpenCollections(firstOpen: Period, sink: (row: OpenCollection) => void): Promise<void> {
    const row = {} as OpenCollection;
    for await (const rows of this.unit.rows<OpenRow>(OPEN_COLLECTIONS, [firstOpen], { raw: true, batch: READ_ROWS })) {
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
      for (const [data] of rows) for (const p of decodePlans(data)) sink(p);
    }
  }

  async insertAttempts(date: IsoDate, attempts: readonly AttemptRecord[]): Promise<void> {
    for (let at = 0; at < attempts.length; at += WRITE_ROWS) {
      const part = attempts.slice(at, at + WRITE_ROWS);
      await this.client.query(
        `insert into attempts (client_id, collection_id, period_month, date, amount, outcome, failure_reason)
         select c, k, p, $4, a, o, f from unnest($1::bigint[], $2::bigint[], $3::text[], $5::bigint[], $6::text[], $7::text[]) as v(c, k, p, a, o, f)`,
        [
          part.map((a) => a.clientId),
          part.map((a) => a.collectionId),
          part.map((a) => a.period),
          date,
          part.map((a) => a.amount),
          part.map((a) => (a.reason === null ? 'SUCCESS' : 'FAILED')),
          part.map((a) => a.reason),
        ],
      );
    }
  }

  async updateCollections(updates: readonly CollectionUpdate[]): Promise<void> {
    for (let at = 0; at < updates.length; at += WRITE_ROWS) {
      const part = updates.slice(at, at + WRITE_ROWS);
      await this.client.query(
        `update collections set amount_collected = v.collected, status = v.status, first_attempt_date = v.first, last_attempt_date = v.last,
           attempts = v.attempts, failed_attempts = v.failed, last_failure_reason = v.reason
         from unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[])
           as v(id, collected, status, first, last, attempts, failed, reason)
         where collections.id = v.id`,
        [
          part.map((u) => u.id),
          part.map((u) => u.collected),
          part.map((u) => u.status),
          part.map((u) => u.firstAttempt),
          part.map((u) => u.lastAttempt),
          part.map((u) => u.attempts),
          part.map((u) => u.failed),
          part.map((u) => u.lastFailure),
        ],
      );
    }
  }

  async insertSubmittedDebits(planDay: IsoDate, byClient: ReadonlyMap<number, readonly SubmittedDebit[]>): Promise<void> {
    for (const [clientId, entries] of byClient) {
      // A batch of at most PLAN_BATCH debits: the first day of a million-policy month plans
      // ~900,000, whose batch took ~130 MB to encode at once.
      for (let at = 0; at < entries.length; at += PLAN_BATCH) {
        const data = encodePlans(entries.slice(at, at + PLAN_BATCH));
        await this.unit.db.insertInto('plan_batches').values({ client_id: clientId, plan_day: planDay, data }).execute();
      }
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
    for (const c of candidates) found.set(c.policyId, periods.map(() => null));
    for (let at = 0; at < candidates.length; at += WRITE_ROWS) {
      const ids = candidates.slice(at, at + WRITE_ROWS).map((c) => c.policyId);
      const rows = await this.client.query<{ policy_id: number; period_month: string; status: string }>(
        'select policy_id, period_month, status from collections where policy_id = any($1::bigint[]) and period_month = any($2::text[])',
        [ids, [...periods]],
      );
      for (const r of rows.rows) found.get(Number(r.policy_id))![periods.indexOf(r.period_month)] = r.status;
    }
    return candidates.map((c) => ({ policyId: c.policyId, clientId: c.clientId, statuses: found.get(c.policyId)! }));
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

  private async inputsVersion(): Promise<number> {
    const r = await this.client.query<{ version: string }>('select version from engine_inputs where id = 1');
    return Number(r.rows[0]!.version);
  }
}
