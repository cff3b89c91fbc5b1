/**
 * Two premia stores in two schemas of one PostgreSQL database (an operator keeping each client
 * in a schema of its own) each have their own advisory locks: an advance or a write holding
 * schema a's locks neither holds up nor refuses the same in schema b, while processes on one
 * schema still take turns exactly as before (the writer lock: wait, then STORE_BUSY; the
 * advance: wait, told who holds it). Before, every store of the database shared one set of locks.
 *
 * Nothing here orders events by sleeping: a lock is held by the test itself through the store's
 * own code paths (a write unit left open, an advance claimed) until the test lets it go, and a
 * process waiting for a lock is seen waiting in the server's views (pg_locks, pg_stat_activity).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { openPgStore } from '../../src/store/pg-store.js';
import { pgEngineStore } from '../../src/store/repos/engine-pg.js';
import type { PgStore } from '../../src/store/store.js';
import { REPO, tempDir } from '../helpers/cli.js';
import { FIXED_NOW, fixtureMonth, readDownload } from '../helpers/local.js';
import { freshDatabase, noPg, onDatabase, pg } from './db.js';

const closing: Array<{ close(): Promise<void> }> = [];
/** Locks the test holds, let go first (a failed test leaves them held: the stores would not close). */
const releasing: Array<() => unknown> = [];
afterAll(async () => {
  for (const r of releasing) await r();
  for (const c of closing.reverse()) await c.close().catch(() => undefined);
});

async function store(url: string, busyTimeoutMs = 30_000): Promise<PgStore> {
  const s = await openPgStore({ url, create: false, busyTimeoutMs });
  closing.push(s);
  return s;
}

async function backend(url: string): Promise<LocalBackend> {
  const b = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
  closing.push(b);
  return b;
}

/** The store's writer lock, held (through the store's own write unit) until `release` is called. */
async function holdWriter(s: PgStore): Promise<{ release: () => void; done: Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held!: () => void;
  const taken = new Promise<void>((r) => (held = r));
  const done = s.writeUnit(async () => {
    held();
    await released;
  });
  releasing.push(release);
  await Promise.race([taken, done]);
  return { release, done };
}

/** The built premia, as an operator runs it, in its own process. */
function premia(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(REPO, 'bin', 'premia.js'), ...args], { cwd, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/**
 * Resolves once `count` (an SQL query of one row, n) finds a process of the operator waiting:
 * a state seen in the server's views, not a moment guessed. Fails when none ever does.
 */
async function waiting(url: string, what: string, count: string): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    if ((await onDatabase<{ n: number }>(url, count))[0]!.n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no premia process was seen waiting ${what}`);
}

describe.skipIf(noPg)(`stores in two schemas of one PostgreSQL database${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  const { dir, cleanup } = tempDir('premia-pg-schema-locks-');
  afterAll(cleanup);

  it("an advance and a write holding schema a's locks: schema b advances and writes (exit 0); schema a's own processes wait for them", async () => {
    const url = await freshDatabase('schema_locks');
    await onDatabase(url, 'create schema a; create schema b');
    const inSchema = (name: string) => `${url}?options=-csearch_path%3D${name}`;
    for (const s of ['a', 'b']) await fixtureMonth(await backend(inSchema(s)), { advance: false });
    // Each store's lock space: the server's hash of its schema's name (src/store/pg-locks.ts).
    const space = async (s: string) => (await onDatabase<{ space: number }>(url, "select hashtext('premia:' || $1::text) as space", [s]))[0]!.space;
    const [spaceA, spaceB] = [await space('a'), await space('b')];
    expect(spaceA).not.toBe(spaceB);
    // pg_locks shows the first key as an oid (unsigned).
    const classA = spaceA >>> 0;
    const a = await store(inSchema('a'));
    const b = await store(inSchema('b'));
    expect([a.locks.space, b.locks.space]).toEqual([spaceA, spaceB]);
    // Schema a written another way (a search path of two schemas, the first one a): the same store, the same locks.
    expect((await store(`${url}?options=-csearch_path%3Da,public`)).locks.space).toBe(spaceA);

    // Schema a: an advance claimed, and the writer lock held (a write in progress).
    const advanceA = await pgEngineStore(a).claimAdvance(() => '2026-11-30');
    releasing.push(() => pgEngineStore(a).releaseAdvance(advanceA).catch(() => undefined));
    expect([advanceA.from, advanceA.to]).toEqual(['2026-10-31', '2026-11-30']);
    const writerA = await holdWriter(a);

    // Schema b claims an advance at once (before, it waited for schema a's: told so, it fails
    // here) and writes at once (before, it waited out its busy timeout: STORE_BUSY).
    const claimB = pgEngineStore(b);
    const advanceB = await claimB.claimAdvance(
      () => '2026-11-30',
      (holder) => {
        throw new Error(`schema b waited for the advance of ${holder.from}..${holder.to} (process ${holder.pid})`);
      },
    );
    await claimB.releaseAdvance(advanceB);
    const quick = await store(inSchema('b'), 1);
    await quick.transaction((trx) => trx.updateTable('meta').set({ value: '1' }).where('key', '=', 'no-such-key').execute());

    // The operator's commands on schema b, in processes of their own: done, exit 0, their rows written.
    const advanced = await premia(['--yes', '--db', inSchema('b'), 'clock', 'advance', '--to', '2026-11-30'], dir);
    expect([advanced.code, advanced.stderr]).toEqual([0, expect.stringMatching(/^Clock moved from 2026-10-31 to 2026-11-30: 30 days lived, [\d,]+\.\d\d collected\.\n$/)]);
    const created = await premia(['--db', inSchema('b'), 'policies', 'create', '--policy-number', 'POL-B-1', '--customer-id', 'C-B', '--external-ref', 'E-B', '--product-code', 'FUNERAL', '--amount', '10'], dir);
    expect([created.code, created.stderr]).toEqual([0, 'Created policy POL-B-1.\n']);
    expect(await onDatabase(url, "select (select count(*)::int from a.attempts) as a, (select count(*)::int from b.attempts) as b, (select value from b.meta where key = 'clock_date') as clock")).toEqual([
      { a: 0, b: 543, clock: '2026-11-30' },
    ]);

    // Schema a's own: a write with a short busy timeout is refused STORE_BUSY, another advance
    // waits (told who holds it), and the operator's commands in processes of their own wait.
    const refused = await store(inSchema('a'), 1).then((s) => s.transaction((trx) => trx.updateTable('meta').set({ value: '1' }).where('key', '=', 'no-such-key').execute())).catch((e: unknown) => e);
    expect((refused as { code?: string }).code).toBe('STORE_BUSY');
    const waited = await pgEngineStore(await store(inSchema('a')))
      .claimAdvance(
        () => '2026-11-30',
        (holder) => {
          throw new Error(`waited for the advance of ${holder.from}..${holder.to} (process ${holder.pid})`);
        },
      )
      .catch((e: Error) => e.message);
    expect(waited).toBe(`waited for the advance of 2026-10-31..2026-11-30 (process ${process.pid})`);
    const creating = premia(['--db', inSchema('a'), 'policies', 'create', '--policy-number', 'POL-A-1', '--customer-id', 'C-A', '--external-ref', 'E-A', '--product-code', 'FUNERAL', '--amount', '10'], dir);
    await waiting(url, 'for the writer lock', `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and classid = ${classA}::bigint::oid and objid = 0 and objsubid = 2
       and database = (select oid from pg_database where datname = current_database())`);
    writerA.release();
    await writerA.done;
    const createdA = await creating;
    expect([createdA.code, createdA.stderr.split('\n')[0]]).toEqual([0, 'Created policy POL-A-1.']);
    // The advance, in a process of its own, tries for the lock the test holds (its session's
    // last statement) until the test lets it go; then it lives the month.
    const advancing = premia(['--yes', '--db', inSchema('a'), 'clock', 'advance', '--to', '2026-11-30'], dir);
    await waiting(url, 'for the advance lock', `select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
       and query like 'select pg_try_advisory_lock(${spaceA}, %'`);
    await pgEngineStore(a).releaseAdvance(advanceA);
    expect(await advancing).toEqual(advanced);
    // Shard workers (premia engine work --name) are named within their store: w1 joins schema a
    // and schema b at once (before, b's waited for a's for good), while a second w1 on schema a
    // waits for the first to leave.
    const w1a = await pgEngineStore(a).shards!.join('w1');
    // Whether a worker is joined (its shards of the day before are left to it) is asked of its own store.
    const joined = async (s: PgStore, name: string) =>
      (await s.readUnit((u) => u.client.query<{ held: boolean }>(`select exists (select 1 from pg_locks l where ${s.locks.workerHeld('l', '$1::text')}) as held`, [name]))).rows[0]!.held;
    expect([await joined(a, 'w1'), await joined(b, 'w1'), await joined(a, 'w2')]).toEqual([true, false, false]);
    const w1b = await pgEngineStore(b).shards!.join('w1');
    const againA = pgEngineStore(a).shards!.join('w1');
    await waiting(url, 'for a worker lock', `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and classid = ${classA}::bigint::oid
       and objid = ((hashtext('shard-worker:w1')::bigint + 4294967296) % 4294967296)::text::oid and objsubid = 2`);
    await w1a.leave();
    await (await againA).leave();
    await w1b.leave();
    // The same month in each schema: the same attempts, byte for byte.
    const [exportA, exportB] = [await backend(inSchema('a')), await backend(inSchema('b'))];
    const want = await readDownload(await exportB.exportAttempts('2026-11', 'csv'));
    expect(want.trimEnd().split('\n')).toHaveLength(544);
    expect(await readDownload(await exportA.exportAttempts('2026-11', 'csv'))).toBe(want);
  });

  it('one schema from two processes: advancing from both at once lives each day once, as on a database of its own', async () => {
    const url = await freshDatabase('schema_race');
    await onDatabase(url, 'create schema c');
    const inC = `${url}?options=-csearch_path%3Dc`;
    await fixtureMonth(await backend(inC), { advance: false });
    const [p, q] = await Promise.all([
      premia(['--yes', '--json', '--db', inC, 'clock', 'advance', '--to', '2026-11-30'], dir),
      premia(['--yes', '--json', '--db', inC, 'clock', 'advance', '--to', '2026-11-30'], dir),
    ]);
    expect([p.code, q.code, p.stderr, q.stderr]).toEqual([0, 0, '', '']);
    // One lived the 30 days; the other (which waited for it, or came after) found nothing left to do.
    expect([JSON.parse(p.stdout).days.length, JSON.parse(q.stdout).days.length].sort((x: number, y: number) => x - y)).toEqual([0, 30]);
    const solo = await backend(':memory:');
    await fixtureMonth(solo);
    expect(await readDownload(await (await backend(inC)).exportAttempts('2026-11', 'csv'))).toBe(await readDownload(await solo.exportAttempts('2026-11', 'csv')));
  });
});
