/**
 * One clock advance at a time per store (issue 10, item 17): a second advance started while one
 * runs waits for it and starts where it stopped, so the two report ranges that meet and never
 * overlap, and together live every day they were asked for. Two backends on one store file are
 * two connections, as two processes are.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalBackend } from '../../src/backend/local/index.js';
import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';
import { leaseAbandoned, LEASE_KEY, LEASE_STALE_MS, type AdvanceLease } from '../../src/store/advance-lease.js';
import { applyDayOps } from '../../src/store/engine-days.js';
import { StatementCache } from '../../src/store/sqlite-dialect.js';
import type { AdvanceResult } from '../../src/backend/types.js';
import { tempDir } from '../helpers/cli.js';
import { localBackend, textUpload } from '../helpers/local.js';
import { zombie } from '../helpers/process.js';

const POLICIES = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nK1,E1,P-1,LIFE,50.00\nK2,E2,P-2,LIFE,30.00\n';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function twoBackends(): Promise<[LocalBackend, LocalBackend]> {
  const { dir, cleanup } = tempDir('premia-lease-');
  cleanups.push(cleanup);
  const path = join(dir, 'premia.db');
  const a = await localBackend({ path, seed: 1 });
  await a.setClock('2026-10-31');
  await a.importPolicies(textUpload('p.csv', POLICIES));
  await a.executeCollections({ period_month: '2026-11' });
  const b = await localBackend({ path });
  cleanups.push(() => a.close(), () => b.close());
  return [a, b];
}

const range = (r: AdvanceResult) => ({ from: r.from, to: r.to, days: r.days.map((d) => d.date) });

describe('two clock advances on one store', () => {
  it('the second, started while the first runs, waits and starts where the first stopped', async () => {
    const [a, b] = await twoBackends();
    let second: Promise<AdvanceResult> | undefined;
    const waits: unknown[] = [];
    const first = await a.advanceClock(
      { days: 6 },
      {
        onDay: (_day, index) => {
          // Two days in, another connection asks for three more days.
          if (index === 2) second = b.advanceClock({ days: 3 }, { onWait: (holder) => waits.push(holder) });
        },
      },
    );
    const later = await second!;
    expect(range(first)).toEqual({
      from: '2026-10-31',
      to: '2026-11-06',
      days: ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06'],
    });
    expect(range(later)).toEqual({ from: '2026-11-06', to: '2026-11-09', days: ['2026-11-07', '2026-11-08', '2026-11-09'] });
    expect(waits).toEqual([{ from: '2026-10-31', to: '2026-11-06', host: expect.any(String), pid: process.pid, since: expect.any(String) }]);
    expect((await a.getClock()).date).toBe('2026-11-09');
    expect(await a.store.db.selectFrom('meta').select('key').where('key', '=', 'advance_lease').execute()).toEqual([]);
  });

  it('a target refused for the clock it finds after waiting is refused then (and the lease stays free)', async () => {
    const [a, b] = await twoBackends();
    let second: Promise<unknown> | undefined;
    await a.advanceClock({ to: '2026-11-10' }, { onDay: (_d, i) => void (i === 1 && (second = b.advanceClock({ to: '2026-11-05' }).catch((e) => e))) });
    expect(await second).toMatchObject({ code: 'CLOCK_BACKWARDS', message: 'The clock is at 2026-11-10; it only moves forward, so it cannot go back to 2026-11-05.' });
    expect(range(await b.advanceClock({ days: 1 }))).toEqual({ from: '2026-11-10', to: '2026-11-11', days: ['2026-11-11'] });
  });
});

describe('safe_close: judged once the advance holds the store', () => {
  it('a month-end advance that waited for another, which reached the month end, is refused before closing a month nobody queued', async () => {
    const [a, b] = await twoBackends();
    await a.advanceClock({ to: '2026-11-28' });
    // Both asked on the 28th, when --to-month-end meant 30 November (queued): the second's turn
    // comes with the clock at the 30th, where it means 31 December, which nobody queued.
    let second: Promise<unknown> | undefined;
    const first = await a.advanceClock(
      { to_month_end: true, safe_close: true },
      { onDay: (_d, i) => void (i === 1 && (second = b.advanceClock({ to_month_end: true, safe_close: true }).catch((e: unknown) => e))) },
    );
    expect(range(first)).toEqual({ from: '2026-11-28', to: '2026-11-30', days: ['2026-11-29', '2026-11-30'] });
    expect(await second).toMatchObject({
      code: 'CONFLICT',
      message:
        'This advance (from 2026-11-30 to 2026-12-31) would close 2026-12, and Local has active policies and no collections queued for it: once closed, those premiums can never be collected. Nothing was done.',
      details: [{ field: 'safe_close', code: 'UNRUN_PERIOD', message: 'no collections queued for 2026-12', periods: ['2026-12'], clients: ['Local'], own: true }],
    });
    expect((await b.getClock()).date).toBe('2026-11-30');
    expect(await a.store.db.selectFrom('meta').select('key').where('key', '=', 'advance_lease').execute()).toEqual([]);
    // More than one period: refused too; one period that was queued: goes ahead.
    await expect(b.advanceClock({ to: '2027-01-31', safe_close: true })).rejects.toMatchObject({ details: [{ field: 'safe_close', code: 'SEVERAL_PERIODS', periods: ['2026-12', '2027-01'] }] });
    await b.executeCollections({ period_month: '2026-12' });
    expect(range(await b.advanceClock({ to_month_end: true, safe_close: true })).to).toBe('2026-12-31');
  });
});

describe('an abandoned lease is taken over', () => {
  const lease = (over: Partial<AdvanceLease>): AdvanceLease => ({
    token: 't',
    process: 'another-process',
    host: 'elsewhere',
    pid: 4242,
    from: '2026-11-01',
    to: '2026-11-30',
    started_at: 0,
    renewed_at: 1_000_000,
    ...over,
  });
  const now = 1_000_000 + 1000;

  it('when its holder on this host is dead, or it was not renewed for ten minutes', async () => {
    const { hostname } = await import('node:os');
    const here = hostname();
    expect(leaseAbandoned(lease({ host: here }), now, () => false)).toBe(true);
    expect(leaseAbandoned(lease({ host: here }), now, () => true)).toBe(false);
    // Our own pid under another process token: the pid was reused by this process.
    expect(leaseAbandoned(lease({ host: here, pid: process.pid }), now, () => true)).toBe(true);
    // Another host cannot be probed: only silence tells.
    expect(leaseAbandoned(lease({}), now, () => false)).toBe(false);
    expect(leaseAbandoned(lease({}), 1_000_000 + LEASE_STALE_MS + 1, () => true)).toBe(true);
  });

  it('by its process only when it ran in this PID namespace of this host (or did not record one)', async () => {
    const { hostname } = await import('node:os');
    const here = { host: hostname(), pidNamespace: 'pid:[4026531836]' };
    const dead = () => false;
    // Of this namespace: judged by its process, as before.
    expect(leaseAbandoned(lease({ host: here.host, pid_namespace: here.pidNamespace }), now, dead, here)).toBe(true);
    expect(leaseAbandoned(lease({ host: here.host, pid_namespace: here.pidNamespace, pid: process.pid }), now, () => true, here)).toBe(true);
    // Written by a version that recorded no namespace: judged by its process, as then.
    expect(leaseAbandoned(lease({ host: here.host }), now, dead, here)).toBe(true);
    // Another namespace of this host name (a container with host networking): its pid names no
    // process here, or another one, even this one; as on another host, only silence tells.
    for (const other of ['pid:[4026532178]', null]) {
      expect(leaseAbandoned(lease({ host: here.host, pid_namespace: other }), now, dead, here)).toBe(false);
      expect(leaseAbandoned(lease({ host: here.host, pid_namespace: other, pid: process.pid }), now, () => true, here)).toBe(false);
      expect(leaseAbandoned(lease({ host: here.host, pid_namespace: other }), 1_000_000 + LEASE_STALE_MS + 1, () => true, here)).toBe(true);
    }
  });

  it.runIf(existsSync('/proc/self/stat'))('when its holder was killed and is a zombie its parent has not reaped yet', async () => {
    // A zombie answers a signal probe, but will never renew the lease or finish its advance:
    // judged alive, it kept the next advance waiting for ten minutes.
    const { hostname } = await import('node:os');
    const z = await zombie();
    try {
      expect(leaseAbandoned(lease({ host: hostname(), pid: z.pid }), now)).toBe(true);
    } finally {
      z.stop();
    }
  });
});

describe("a day the day writer commits (engine-days.ts applyDayOps)", () => {
  async function store(): Promise<{ raw: BetterSqlite3.Database; statements: StatementCache }> {
    const { dir, cleanup } = tempDir('premia-lease-day-');
    cleanups.push(cleanup);
    const path = join(dir, 'premia.db');
    const a = await localBackend({ path, seed: 1 });
    await a.setClock('2026-10-31');
    await a.close();
    const raw = new Database(path);
    cleanups.push(() => void raw.close());
    return { raw, statements: new StatementCache(raw) };
  }
  const held: AdvanceLease = { token: 'mine', process: 'p', host: 'h', pid: 1, from: '2026-10-31', to: '2026-11-30', started_at: 5, renewed_at: 5 };
  const stored = (raw: BetterSqlite3.Database) => raw.prepare("select key, value from meta where key in ('clock_date', ?) order by key").all(LEASE_KEY) as Array<{ key: string; value: string }>;

  it('moves the clock and renews the lease when it is still this advance\'s', async () => {
    const { raw, statements } = await store();
    raw.prepare('insert into meta (key, value) values (?, ?)').run(LEASE_KEY, JSON.stringify(held));
    raw.exec('begin immediate');
    await applyDayOps(statements, [{ op: 'lease', lease: { ...held } }, { op: 'clock', date: '2026-11-01' }]);
    raw.exec('commit');
    const [lease, clock] = stored(raw);
    expect(clock).toEqual({ key: 'clock_date', value: '2026-11-01' });
    const renewed = JSON.parse(lease!.value) as AdvanceLease;
    expect({ ...renewed, renewed_at: 5 }).toEqual(held);
    expect(renewed.renewed_at).toBeGreaterThan(5);
  });

  it('writes nothing of the day when another advance took the lease over', async () => {
    const { raw, statements } = await store();
    const other = JSON.stringify({ ...held, token: 'theirs' });
    raw.prepare('insert into meta (key, value) values (?, ?)').run(LEASE_KEY, other);
    raw.exec('begin immediate');
    await expect(applyDayOps(statements, [{ op: 'lease', lease: { ...held } }, { op: 'clock', date: '2026-11-01' }])).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/^This clock advance \(from 2026-10-31 to 2026-11-30\) stopped: another advance took the store over/),
    });
    raw.exec('rollback');
    expect(stored(raw)).toEqual([
      { key: LEASE_KEY, value: other },
      { key: 'clock_date', value: '2026-10-31' },
    ]);
  });
});
