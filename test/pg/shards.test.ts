/**
 * The engine's day in customer shards on PostgreSQL (issue 14, src/engine/shards.ts): the README's
 * month lived in 4 shards by one process, by the advance and two `premia engine work` processes,
 * and by an advance killed inside a shard and then resumed, each byte for byte the month one
 * process lives on SQLite (the day summaries the advance reports included), with every shard of
 * every day lived once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { workerName } from '../../src/engine/shards.js';
import { REPO, tempDir } from '../helpers/cli.js';
import { FIXED_NOW, fixtureMonth, readDownload, textUpload } from '../helpers/local.js';
import { freshDatabase, noPg, onDatabase, pg } from './db.js';

const SHARDS = 4;
/** 2026-11-01 to 2026-12-02: the month and the two days that close it. */
const DAYS = 32;

const opened: LocalBackend[] = [];
afterAll(async () => {
  for (const b of opened.splice(0)) await b.close();
});

interface Month {
  report: string;
  attempts: string;
  settlement: string;
}

async function monthOf(b: LocalBackend): Promise<Month> {
  const s = await b.createSettlement('2026-11');
  return {
    report: await readDownload(await b.collectionsReport('2026-11', 'csv')),
    attempts: await readDownload(await b.exportAttempts('2026-11', 'csv')),
    settlement: await readDownload(await b.exportSettlement(s.settlement_number)),
  };
}

/** A PostgreSQL store with the README's month queued (clock 2026-10-31) and its days set to SHARDS shards. */
async function shardedStore(prefix: string): Promise<{ url: string; b: LocalBackend }> {
  const url = await freshDatabase(prefix);
  const b = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
  opened.push(b);
  await b.admin.settings.set('engine.shards', String(SHARDS));
  await fixtureMonth(b, { advance: false });
  return { url, b };
}

/** `premia …` as a process of its own; resolves with its exit code (null when killed) and signal. */
function premia(
  args: string[],
  env: Record<string, string> = {},
  onStderr?: (text: string, child: ChildProcess) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin', 'premia.js'), ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

/** Each day's shards: how many, in which states. */
async function shardRows(url: string): Promise<Array<{ day: string; n: number; states: string }>> {
  const rows = await onDatabase<{ day: string; n: string; states: string }>(
    url,
    'select day, count(*) as n, string_agg(distinct state, \',\') as states from engine_shards group by day order by day',
  );
  return rows.map((r) => ({ day: r.day, n: Number(r.n), states: r.states }));
}

describe.skipIf(noPg)(`the engine's day in customer shards${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  let want: Month;
  let wantDays: unknown[];

  beforeAll(async () => {
    // The reference: one process on SQLite, the day in one piece.
    const solo = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    opened.push(solo);
    await fixtureMonth(solo, { advance: false });
    wantDays = (await solo.advanceClock({ to: '2026-12-02' })).days;
    want = await monthOf(solo);
    expect(want.attempts.trimEnd().split('\n')).toHaveLength(1 + 543);
  });

  it('one process, four shards: the same month byte for byte, the same days reported', async () => {
    const { url, b } = await shardedStore('shards_one');
    const r = await b.advanceClock({ to: '2026-12-02' });
    expect(r.days).toEqual(wantDays);
    expect(await monthOf(b)).toEqual(want);
    const rows = await shardRows(url);
    expect(rows).toHaveLength(DAYS);
    expect(rows.every((d) => d.n === SHARDS && d.states === 'closed')).toBe(true);
  });

  it('the advance and two premia engine work processes share the month: the same bytes, each shard lived once', async () => {
    const { url, b } = await shardedStore('shards_workers');
    // Two workers that stop once the clock has reached the advance's end, then the advance itself.
    const workers = [premia(['--db', url, 'engine', 'work', '--until', '2026-12-02']), premia(['--db', url, 'engine', 'work', '--until', '2026-12-02'])];
    const r = await b.advanceClock({ to: '2026-12-02' });
    const done = await Promise.all(workers);
    for (const w of done) {
      expect([w.code, w.signal]).toEqual([0, null]);
      expect(w.stderr).toMatch(/^Working on the days of postgres:\/\/premia_test:\*\*\*@127\.0\.0\.1:\d+\/shards_workers_[0-9a-f]+ until 2026-12-02; Ctrl-C stops after the shard in progress\.\nLived \d+ shards?\.\n$/);
    }
    expect(r.days).toEqual(wantDays);
    expect(await monthOf(b)).toEqual(want);
    // Every shard of every day once (the key is the day and the shard), each by one of the three.
    const rows = await shardRows(url);
    expect(rows.map((d) => [d.n, d.states])).toEqual(Array.from({ length: DAYS }, () => [SHARDS, 'closed']));
    const byWorker = await onDatabase<{ worker: string; n: string }>(url, 'select worker, count(*) as n from engine_shards group by worker');
    expect(byWorker.length).toBeGreaterThanOrEqual(1);
    expect(byWorker.length).toBeLessThanOrEqual(3);
    expect(byWorker.reduce((s, w) => s + Number(w.n), 0)).toBe(DAYS * SHARDS);
    const lived = done.reduce((s, w) => s + Number(/Lived (\d+) shard/.exec(w.stderr)![1]), 0);
    expect(byWorker.filter((w) => w.worker !== workerName()).reduce((s, w) => s + Number(w.n), 0)).toBe(lived);
  });

  it('engine work stopped by SIGTERM (a service manager) says so, and exits 130 after the shard in progress', async () => {
    const { url } = await shardedStore('shards_term');
    let sent = false;
    const r = await premia(['--db', url, 'engine', 'work'], {}, (text, child) => {
      if (!sent && text.includes('Working on the days of')) {
        sent = true;
        child.kill('SIGTERM');
      }
    });
    expect([r.code, r.signal]).toEqual([130, null]);
    expect(r.stderr).toMatch(/\nSIGTERM: stopping after the shard in progress\.\nLived 0 shards; stopped by SIGTERM\.\n$/);
  });

  it('an advance killed inside a shard: the day stays open, the next advance lives what is left, the same month', async () => {
    const { url, b } = await shardedStore('shards_killed');
    const killed = await premia(['--db', url, 'clock', 'advance', '--to', '2026-12-02'], { PREMIA_FAULT: 'kill-in-shard:2026-11-10' });
    expect([killed.code, killed.signal]).toEqual([null, 'SIGKILL']);
    // Nine days closed; the 10th open, the shard being lived when the process died rolled back.
    expect((await b.getClock()).date).toBe('2026-11-09');
    const open = (await shardRows(url)).filter((d) => d.states !== 'closed');
    expect(open).toEqual([{ day: '2026-11-10', n: SHARDS, states: 'pending' }]);
    const r = await b.advanceClock({ to: '2026-12-02' });
    expect(r.from).toBe('2026-11-09');
    expect(r.days).toEqual(wantDays.slice(9));
    expect(await monthOf(b)).toEqual(want);
    expect((await shardRows(url)).every((d) => d.n === SHARDS && d.states === 'closed')).toBe(true);
  });

  it('a day left part lived: what the engine reads cannot change until it is finished, then the month is SQLite\'s', async () => {
    // Two policies debited on 2026-11-02, cancelled once that day has run (as the refused
    // cancellation is made again below): the reference, on SQLite.
    const day2 = want.attempts.split('\n').filter((l) => l.includes(',2026-11-02,'));
    const cancelled = [day2[0]!.split(',')[1]!, day2[day2.length - 1]!.split(',')[1]!];
    const solo = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    opened.push(solo);
    await fixtureMonth(solo, { advance: false });
    await solo.advanceClock({ to: '2026-11-02' });
    for (const p of cancelled) await solo.updatePolicy(p, { status: 'cancelled' });
    await solo.advanceClock({ to: '2026-12-02' });
    const reference = await monthOf(solo);

    const { url, b } = await shardedStore('shards_part_lived');
    const killed = await premia(['--db', url, 'clock', 'advance', '--to', '2026-12-02'], { PREMIA_FAULT: 'kill-in-shard:2026-11-02' });
    expect([killed.code, killed.signal]).toEqual([null, 'SIGKILL']);
    // A worker lives the shards left of the open day, and stops: every shard done, the day open.
    const worker = await premia(['--db', url, 'engine', 'work', '--until', '2026-11-01']);
    expect([worker.code, worker.signal]).toEqual([0, null]);
    expect((await shardRows(url)).filter((d) => d.states !== 'closed')).toEqual([{ day: '2026-11-02', n: SHARDS, states: 'done' }]);
    expect((await b.getClock()).date).toBe('2026-11-01');

    const refused = (p: Promise<unknown>) => p.then(() => 'changed', (e: { code?: string; message?: string }) => `${e.code}: ${e.message}`);
    const why = (change: string) =>
      `CONFLICT: The day 2026-11-02 is part lived: a clock advance stopped in it after some of its customers had lived it, so ${change} cannot change now ` +
      "(those customers would keep that day as lived without the change). Nothing changed; finish the day first ('premia clock advance --to 2026-11-02'), then run this again.";
    expect(await refused(b.updatePolicy(cancelled[0]!, { status: 'cancelled' }))).toBe(why(`policy ${cancelled[0]}`));
    // A batch (the simulation's) is checked once, as its first update is made: refused whole.
    expect(await refused(b.updatePolicies(cancelled.map((ref) => ({ ref, patch: { status: 'cancelled' } }))))).toBe(why(`policy ${cancelled[0]}`));
    expect(await refused(b.executeCollections({ period_month: '2026-12' }))).toBe(why('the collections runs'));
    expect(await refused(b.importBankTransactions(textUpload('late.csv', 'customer_id,date,amount,description\nC100001,2026-11-20,500.00,SALARY\n')))).toBe(
      why("the bank's history"),
    );
    expect(await refused(b.admin.settings.set('engine.max_failed_attempts', '2'))).toBe(why('the setting engine.max_failed_attempts'));
    // The count of shards is fixed when a day opens: it may change (the days after this one in 8).
    expect((await b.admin.settings.set('engine.shards', '8')).setting.value).toBe(8);
    expect([(await b.getPolicy(cancelled[0]!)).status, (await b.getPolicy(cancelled[1]!)).status]).toEqual(['active', 'active']);

    // Nor is the store copied to a file, which lives its days whole and could not finish this one.
    const { dir, cleanup } = tempDir('premia-pg-part-lived-');
    try {
      const copied = await premia(['--yes', 'db', 'copy', '--from', url, '--to', join(dir, 'copy.db')]);
      expect([copied.code, copied.signal]).toEqual([6, null]);
      expect(copied.stderr).toContain(
        "has the day 2026-11-02 open in customer shards (a clock advance stopped in it), which a store file cannot finish: it lives its days whole. Nothing was copied; finish the day first ('premia --db <the source> clock advance --to 2026-11-02'), then copy again.",
      );
    } finally {
      cleanup();
    }

    // The day finished, the cancellations go through, and the month is SQLite's.
    expect((await b.advanceClock({ to: '2026-11-02' })).days).toEqual([wantDays[1]]);
    for (const p of cancelled) await b.updatePolicy(p, { status: 'cancelled' });
    await b.advanceClock({ to: '2026-12-02' });
    expect(await monthOf(b)).toEqual(reference);
  });
});
