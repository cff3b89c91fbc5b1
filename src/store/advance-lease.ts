/**
 * One clock advance at a time per store. Each day of an advance is its own transaction (crash
 * safety), so two advances started together used to take turns day by day: both claimed the
 * whole range from the same stale start date, and together they lived fewer days than asked.
 *
 * An advance now holds a lease (the meta row `advance_lease`) from the transaction that reads
 * its start date and resolves its target until it ends. Another advance waits for the lease and
 * then starts where the first one stopped, as if the two had been run one after the other: their
 * ranges never overlap and each reports the days it lived itself.
 *
 * A lease whose holder is gone is taken over: its process is no longer alive on this host (a
 * kill -9 in the middle of an advance), it was held by this process by an advance that is no
 * longer running, or it has not been renewed (each day renews it) for LEASE_STALE_MS (a holder on
 * another host, which cannot be probed). A holder of this host name in another PID namespace (a
 * container with host networking, premia process 1 in each) is one on another host: its process
 * id names no process here, or another one (even this one). Timestamps are the wall clock's,
 * not the virtual one's: they measure how long a process has been silent.
 *
 * This is how the SQLite store implements the engine's claim to advance (engine/ports.ts
 * `claimAdvance`); PostgreSQL holds a session advisory lock instead (repos/engine-pg.ts).
 */
import { randomBytes } from 'node:crypto';
import { PremiaError } from '../domain/errors.js';
import { HERE, inOtherPidNamespace, probeableHere, PROCESS_TOKEN, processIsAlive, type ProcessPlace } from '../lib/process.js';
import type { IsoDate } from '../domain/period.js';
import { beginImmediate, type StatementCache } from './sqlite-dialect.js';
import { sql } from './kysely.js';
import type { Db, SqliteStore as Store, Store as AnyStore } from './store.js';

export const LEASE_KEY = 'advance_lease';
/** A lease not renewed for this long is abandoned (a day of a million policies takes seconds). */
export const LEASE_STALE_MS = 10 * 60_000;
const POLL_FIRST_MS = 25;
const POLL_MAX_MS = 500;

export interface AdvanceLease {
  token: string;
  /** This process (its random token tells it from a later process given the same pid). */
  process: string;
  host: string;
  pid: number;
  /** The holder's PID namespace (lib/process.ts PID_NAMESPACE); absent in leases of earlier versions. */
  pid_namespace?: string | null;
  from: IsoDate;
  to: IsoDate;
  started_at: number;
  renewed_at: number;
  /** PostgreSQL: the server process of the connection that holds the advance's lock (repos/engine-pg.ts). */
  backend?: number;
}

/** Who holds the lease, as the waiting side is told. */
export interface LeaseHolder {
  from: IsoDate;
  to: IsoDate;
  host: string;
  pid: number;
  since: string;
  /** On this host name, in another PID namespace (a container): `pid` is that namespace's. */
  otherPidNamespace?: boolean;
}

/** The leases this process's advances hold right now. */
const running = new Set<string>();

export function readLease(statements: StatementCache): AdvanceLease | null {
  const row = statements.get('select value from meta where key = ?').get(LEASE_KEY) as { value: string } | undefined;
  if (!row) return null;
  try {
    return JSON.parse(row.value) as AdvanceLease;
  } catch {
    return null; // unreadable: treated as free
  }
}

function writeLease(statements: StatementCache, lease: AdvanceLease): void {
  statements.get('insert into meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value').run(LEASE_KEY, JSON.stringify(lease));
}

/** Whether the holder of `lease` is gone, so that another advance may take it over. */
export function leaseAbandoned(lease: AdvanceLease, now: number, isAlive: (pid: number) => boolean = processIsAlive, here: ProcessPlace = HERE): boolean {
  if (now - lease.renewed_at > LEASE_STALE_MS) return true;
  if (!probeableHere(lease.host, lease.pid_namespace, here)) return false;
  if (lease.process === PROCESS_TOKEN) return !running.has(lease.token);
  if (lease.pid === process.pid) return true; // our pid, another process token: the pid was reused
  return !isAlive(lease.pid);
}

/**
 * The clock advance running on the store now, for a change that must not happen under one
 * (backend/local/world.ts `refuseWhileAdvancing`), or null when none runs; `meta` is the store's
 * meta rows as read in `trx`. On SQLite the lease row, judged as above. On PostgreSQL the
 * advance's own lock (repos/engine-pg.ts): held by an advance in any process on any machine, and
 * lost by one that died, where the row is written once at the claim, never renewed, and left
 * behind by a kill -9 (judged as SQLite's, an advance in the same process was taken for one gone
 * and the change went through under it; one on another machine for one still running, for ten
 * minutes after it died). There the row only describes the holder.
 */
export async function runningAdvance(store: AnyStore, trx: Db, meta: ReadonlyMap<string, string>): Promise<Partial<AdvanceLease> | null> {
  const text = meta.get(LEASE_KEY);
  let lease: Partial<AdvanceLease> | null = null;
  try {
    lease = text === undefined ? null : (JSON.parse(text) as Partial<AdvanceLease>);
  } catch {
    lease = null; // unreadable: treated as free on SQLite, as advances treat it
  }
  if (store.kind === 'postgres') {
    // The holder's connection (its backend pid): the row describes the running advance only when
    // that connection holds the lock (a row left by a holder killed, or not yet replaced by the
    // new holder's, names no one).
    const backend = typeof lease?.backend === 'number' ? lease.backend : -1;
    const held = await sql<{ running: boolean; described: boolean }>`select exists (select 1 from pg_locks l where ${sql.raw(store.locks.advanceHeld('l'))}) as running,
      exists (select 1 from pg_locks l where ${sql.raw(store.locks.advanceHeld('l'))} and l.pid = ${backend}) as described`.execute(trx);
    const { running, described } = held.rows[0]!;
    return running ? (described ? lease! : {}) : null;
  }
  return lease === null || leaseAbandoned(lease as AdvanceLease, Date.now()) ? null : lease;
}

/**
 * Wait until no other advance holds the lease, then, in one write transaction, read the clock,
 * resolve the target from it and take the lease. `resolve` may throw (nothing is then taken).
 */
export async function acquireLease(
  store: Store,
  resolve: (today: IsoDate) => IsoDate,
  onWait?: (holder: LeaseHolder) => void,
): Promise<AdvanceLease> {
  const token = randomBytes(12).toString('hex');
  let told = false;
  for (let wait = POLL_FIRST_MS; ; wait = Math.min(POLL_MAX_MS, wait * 2)) {
    const outcome = await store.withConnection(async (raw, statements) => {
      await beginImmediate(raw);
      try {
        const now = Date.now();
        const held = readLease(statements);
        if (held !== null && !leaseAbandoned(held, now)) {
          raw.exec('commit');
          return held;
        }
        const today = (statements.get("select value from meta where key = 'clock_date'").get() as { value: string }).value;
        const lease: AdvanceLease = { token, process: PROCESS_TOKEN, host: HERE.host, pid: process.pid, pid_namespace: HERE.pidNamespace, from: today, to: resolve(today), started_at: now, renewed_at: now };
        writeLease(statements, lease);
        raw.exec('commit');
        running.add(token);
        return lease;
      } catch (e) {
        if (raw.inTransaction) raw.exec('rollback');
        throw e;
      }
    });
    if (outcome.token === token) return outcome;
    if (!told) {
      told = true;
      const since = new Date(outcome.started_at).toISOString();
      onWait?.({ from: outcome.from, to: outcome.to, host: outcome.host, pid: outcome.pid, since, ...(inOtherPidNamespace(outcome.host, outcome.pid_namespace) ? { otherPidNamespace: true } : {}) });
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}

/**
 * Inside a day's transaction: check that the lease is still this advance's (else it was taken
 * over as abandoned, and this advance must stop) and renew it.
 */
export function renewLease(statements: StatementCache, lease: AdvanceLease): void {
  checkLease(statements, lease);
  keepLease(statements, lease);
}

/** Inside a day's transaction that checked it (checkLease): renew the lease. */
export function keepLease(statements: StatementCache, lease: AdvanceLease): void {
  lease.renewed_at = Date.now();
  writeLease(statements, lease);
}

/** Inside a day's transaction: throw when the lease is no longer this advance's (renewLease). */
export function checkLease(statements: StatementCache, lease: AdvanceLease): void {
  const current = readLease(statements);
  if (current?.token !== lease.token) {
    throw new PremiaError(
      'CONFLICT',
      `This clock advance (from ${lease.from} to ${lease.to}) stopped: another advance took the store over, judging this one abandoned ` +
        `(it had not renewed its lease for ${LEASE_STALE_MS / 60_000} minutes). The store is at the end of the last whole day; check 'premia clock'.`,
    );
  }
}

/** Give the lease back (when it is still this advance's). */
export async function releaseLease(store: Store, lease: AdvanceLease): Promise<void> {
  running.delete(lease.token);
  await store.withConnection(async (raw, statements) => {
    await beginImmediate(raw);
    try {
      if (readLease(statements)?.token === lease.token) statements.get('delete from meta where key = ?').run(LEASE_KEY);
      raw.exec('commit');
    } catch (e) {
      if (raw.inTransaction) raw.exec('rollback');
      throw e;
    }
  });
}
