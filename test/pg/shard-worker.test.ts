/**
 * A `premia engine work` process that stays up across advances keeps the shards it lived in
 * memory (engine/shards.ts ShardCache) while nothing but the engine's days changed the store. A
 * bank import between two advances changes the history of the accounts it names: the worker must
 * load them again, as a whole day (which reads the store afresh) does, and collect exactly what
 * SQLite's one process collects.
 *
 * And every process joins the day's work under a name of its own, processes of one host with one
 * process id too (containers sharing the host's name, each premia process 1 of its namespace).
 *
 * Nothing depends on timing: the worker is made to have lived every shard of the first advance's
 * last day (the advance is killed inside its first shard of that day, or finds them all done),
 * so it lives at least one shard of the next day from what it kept; every wait is for an event.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { workerName } from '../../src/engine/shards.js';
import { REPO } from '../helpers/cli.js';
import { FIXED_NOW, fixtureMonth, readDownload, textUpload } from '../helpers/local.js';
import { freshDatabase, noPg, onDatabase, pg } from './db.js';

const opened: LocalBackend[] = [];
afterAll(async () => {
  for (const b of opened.splice(0)) await b.close();
});

/** Every customer with an imported history in fixtures/bank-transactions.csv closes its account on 2026-11-30. */
const CLOSURES = `customer_id,date,amount,description\n${Array.from({ length: 11 }, (_, k) => `C1000${String(k + 1).padStart(2, '0')},2026-11-30,0,ACCOUNT_CLOSED`).join('\n')}\n`;

/** Whether this machine lets a test run a process as process 1 of a namespace of its own (root on Linux). */
const ownPidNamespace = spawnSync('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', process.execPath, '-e', 'process.exit(process.pid === 1 ? 0 : 1)']).status === 0;

function premia(
  args: string[],
  env: Record<string, string> = {},
  options: { ownPidNamespace?: boolean; started?: (child: ChildProcess) => void } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const argv = [join(REPO, 'bin', 'premia.js'), ...args];
    const opts = { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] as ['ignore', 'ignore', 'pipe'] };
    // As process 1 of a namespace of its own, as in a container (unshare: killed, it kills premia).
    const child = options.ownPidNamespace
      ? spawn('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', process.execPath, ...argv], opts)
      : spawn(process.execPath, argv, opts);
    options.started?.(child);
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

async function december(b: LocalBackend): Promise<{ attempts: string; report: string }> {
  return {
    attempts: await readDownload(await b.exportAttempts('2026-12', 'csv')),
    report: await readDownload(await b.collectionsReport('2026-12', 'csv')),
  };
}

describe.skipIf(noPg)(`a shard worker across a bank import${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  it('lives the accounts the import changed as SQLite does, not as it kept them', async () => {
    // The reference: one process on SQLite.
    const solo = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    opened.push(solo);
    await fixtureMonth(solo, { advance: false });
    await solo.executeCollections({ period_month: '2026-12' });
    await solo.advanceClock({ to: '2026-11-29' });
    await solo.importBankTransactions(textUpload('closures.csv', CLOSURES));
    const wantDays = (await solo.advanceClock({ to: '2026-12-31' })).days;
    const want = await december(solo);
    expect(want.attempts).toContain(',C100005,2026-12-01,1162.26,FAILED,ACCOUNT_CLOSED\n');

    const url = await freshDatabase('shard_worker');
    const b = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
    opened.push(b);
    await b.admin.settings.set('engine.shards', '2');
    await fixtureMonth(b, { advance: false });
    await b.executeCollections({ period_month: '2026-12' });
    const worker = premia(['--db', url, 'engine', 'work', '--until', '2026-12-31']);
    // An advance to 2026-11-29 that lives none of that day's shards: killed inside the first it
    // takes (the worker lives it instead), or finding them all lived by the worker.
    const first = await premia(['--db', url, 'clock', 'advance', '--to', '2026-11-29'], { PREMIA_FAULT: 'kill-in-shard:2026-11-29' });
    expect([[0, null], [null, 'SIGKILL']]).toContainEqual([first.code, first.signal]);
    for (;;) {
      const rows = await onDatabase<{ n: string }>(url, "select count(*) as n from engine_shards where day = '2026-11-29' and state <> 'pending'");
      if (Number(rows[0]!.n) === 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    if ((await b.getClock()).date !== '2026-11-29') await b.advanceClock({ to: '2026-11-29' });
    const lived = await onDatabase<{ worker: string }>(url, "select distinct worker from engine_shards where day = '2026-11-29'");
    expect(lived).toHaveLength(1);
    expect(lived[0]!.worker).not.toBe(workerName());

    await b.importBankTransactions(textUpload('closures.csv', CLOSURES));
    const r = await b.advanceClock({ to: '2026-12-31' });
    const w = await worker;
    expect([w.code, w.signal]).toEqual([0, null]);
    // The worker lived at least one shard of 2026-11-30 from what it had kept.
    const byWorker = await onDatabase<{ worker: string }>(url, "select worker from engine_shards where day = '2026-11-30'");
    expect(byWorker.some((x) => x.worker === lived[0]!.worker)).toBe(true);
    expect(r.days).toEqual(wantDays);
    expect(await december(b)).toEqual(want);
  });

  it.skipIf(!ownPidNamespace)('processes of one host with one process id (containers): a worker and the advance each go on', async () => {
    const url = await freshDatabase('shard_same_pid');
    const b = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
    opened.push(b);
    await b.admin.settings.set('engine.shards', '2');
    await fixtureMonth(b, { advance: false });
    const children: ChildProcess[] = [];
    const started = (c: ChildProcess) => children.push(c);
    try {
      // Each premia is process 1 of its own namespace, on this host: a worker, joined, then an advance.
      const worker = premia(['--db', url, 'engine', 'work', '--until', '2026-11-05'], {}, { ownPidNamespace: true, started });
      const count = async (where: string) =>
        Number((await onDatabase<{ n: string }>(url, `select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and ${where}`))[0]!.n);
      while ((await count("query like 'select pg_advisory_lock(%shard-worker:%' and state = 'idle'")) === 0) await new Promise((r) => setTimeout(r, 50));
      let ended = false;
      const advance = premia(['--db', url, 'clock', 'advance', '--to', '2026-11-05'], {}, { ownPidNamespace: true, started }).finally(() => (ended = true));
      // It ends, or it waits for the worker's lock (before: for good, saying nothing).
      const waiting = (async () => {
        while (!ended) {
          if ((await count("query like 'select pg_advisory_lock(%shard-worker:%' and wait_event_type = 'Lock'")) > 0) return 'waiting for the worker lock';
          await new Promise((r) => setTimeout(r, 50));
        }
        return 'ended';
      })();
      const first = await Promise.race([advance.then((r) => [r.code, r.signal]), waiting]);
      expect(first).toEqual([0, null]);
      const w = await worker;
      expect([w.code, w.signal]).toEqual([0, null]);
      expect((await b.getClock()).date).toBe('2026-11-05');
      const names = await onDatabase<{ worker: string }>(url, 'select distinct worker from engine_shards');
      expect(names.every((n) => /:1:[0-9a-f]{8}$/.test(n.worker))).toBe(true);
    } finally {
      for (const c of children) c.kill('SIGKILL');
    }
  });
});
