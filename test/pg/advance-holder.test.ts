/**
 * A clock advance whose process stops answering on PostgreSQL (issue 12). A holder killed on this
 * machine closes its connections and loses its lock at once; one frozen, or on a machine lost or
 * cut off, kept its connections open, so the next advance waited for it without end (the server
 * finds a silent peer by TCP keepalives after two hours, or never for a frozen process), named a
 * holder that was gone, and every write waited behind its open day. Now the server drops a
 * holder's connections after `?advance_timeout=` seconds of silence (a live holder speaks every
 * quarter of it): the next advance takes over from the last whole day, and the frozen one, woken,
 * commits nothing more and says why.
 *
 * A process stopped with SIGSTOP stands for the silent holder. Waits are for events: the process
 * stopped, the advances' ends.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import type { AdvanceHolder } from '../../src/engine/ports.js';
import { openPgStore } from '../../src/store/pg-store.js';
import { pgEngineStore } from '../../src/store/repos/engine-pg.js';
import { REPO, tempDir } from '../helpers/cli.js';
import { FIXED_NOW, fixtureMonth, readDownload } from '../helpers/local.js';
import { freshDatabase, noPg, onDatabase, pg } from './db.js';

/**
 * The advance_timeout of the processes frozen here: a live holder speaks every quarter of it, so
 * it is long enough that one merely starved of the CPU on a loaded machine (not frozen) still
 * speaks in time; the takeover waits this long.
 */
const SILENCE_S = 3;

const closing: Array<{ close(): Promise<void> }> = [];
const children: number[] = [];
afterAll(async () => {
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const c of closing.reverse()) await c.close().catch(() => undefined);
});

async function backend(url: string): Promise<LocalBackend> {
  const b = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
  closing.push(b);
  return b;
}

/** Resolves once process `pid` is stopped (state T in /proc); checks again on every turn of a short timer. */
async function stoppedProcess(pid: number, exited: () => boolean): Promise<void> {
  for (;;) {
    if (exited()) throw new Error(`process ${pid} ended before it stopped`);
    let state = '';
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? '';
    } catch {
      // not there yet, or gone: exited() says
    }
    if (state === 'T') return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(noPg)(`a clock advance whose process stopped answering${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  let want: string;
  beforeAll(async () => {
    const b = await backend(await freshDatabase('holder_ref'));
    await fixtureMonth(b);
    want = await readDownload(await b.exportAttempts('2026-11', 'csv'));
  });

  it('is given up after its advance_timeout: the next advance lives the rest once, the woken one commits nothing and says why', async () => {
    const url = await freshDatabase('holder_frozen');
    const b = await backend(url);
    await fixtureMonth(b, { advance: false });
    // The holder freezes inside its fifth day, the day's transaction open, the writer lock held.
    const child = spawn(process.execPath, [join(REPO, 'bin', 'premia.js'), '--db', `${url}?advance_timeout=${SILENCE_S}`, 'clock', 'advance', '--to', '2026-11-30', '--yes'], {
      env: { ...process.env, NO_COLOR: '1', PREMIA_FAULT: 'stop-before-commit:2026-11-05' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child.pid!);
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    let exited = false;
    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => {
        exited = true;
        resolve({ code, signal });
      }),
    );
    await stoppedProcess(child.pid!, () => exited);

    // Another advance takes over once the server has dropped the silent holder's connections.
    const waits: AdvanceHolder[] = [];
    const r = await b.advanceClock({ to: '2026-11-30' }, { onWait: (h) => waits.push(h) });
    expect(r.from).toBe('2026-11-04');
    expect(r.to).toBe('2026-11-30');
    expect(r.days.map((d) => d.date)[0]).toBe('2026-11-05');
    expect(r.days).toHaveLength(26);
    // Told, if it came to wait at all, of the frozen process (or of no one, its row not yet its own).
    for (const h of waits) expect([0, child.pid]).toContain(h.pid);

    // The frozen holder wakes: its day cannot commit, and it says what happened and what to do.
    process.kill(child.pid!, 'SIGCONT');
    const end = await done;
    expect(end).toEqual({ code: 6, signal: null });
    expect(stderr).toContain(
      "premia: 4 days of this advance committed before it stopped, the last 2026-11-04. Another advance may have gone on since: " +
        "if 'premia clock' still shows 2026-11-04, run 'premia clock advance --to 2026-11-30' to finish this one.\n" +
        `error: This clock advance (from 2026-10-31 to 2026-11-30) stopped: the database closed the connection of its day, which had been silent for more than ${SILENCE_S} s ` +
        '(this process was stopped, or cut off from the database), so another advance may have taken the store over and gone on. ' +
        "The day in progress was rolled back; every day before it stands. 'premia clock' shows the date the store has reached.\n  (code CONFLICT)",
    );

    // Each day lived once: the month is the one advance's.
    expect((await b.getClock()).date).toBe('2026-11-30');
    expect(await readDownload(await b.exportAttempts('2026-11', 'csv'))).toBe(want);
    expect(await onDatabase(url, "select key from meta where key = 'advance_lease'")).toEqual([]);
  });

  it('a waiting advance names the live holder and its bound, and no one for a row a killed holder left', async () => {
    const url = await freshDatabase('holder_named');
    const b = await backend(url);
    await b.setClock('2026-10-31');
    const store = await openPgStore({ url: `${url}?advance_timeout=90`, create: false, busyTimeoutMs: 30_000 });
    closing.push(store);
    const engine = pgEngineStore(store);

    const claim = await engine.claimAdvance(() => '2026-11-30');
    let waited: AdvanceHolder | null = null;
    let waiting = b.advanceClock({ to: '2026-11-02' }, { onWait: (h) => (waited ??= h) });
    await until(() => waited !== null);
    expect(waited).toEqual({ from: '2026-10-31', to: '2026-11-30', host: hostname(), pid: process.pid, since: expect.any(String), givenUpAfterS: 90 });
    await engine.releaseAdvance(claim);
    expect((await waiting).to).toBe('2026-11-02');

    // The row of a holder killed before it could remove it, while another holds the lock and has
    // not written its own yet: the dead process is not named.
    const next = await engine.claimAdvance(() => '2026-11-30');
    const dead = { token: 'f'.repeat(24), host: hostname(), pid: 999_999, backend: 999_999, from: '2026-10-31', to: '2026-11-30', started_at: 0, renewed_at: 0 };
    await onDatabase(url, "update meta set value = $1 where key = 'advance_lease'", [JSON.stringify(dead)]);
    waited = null;
    waiting = b.advanceClock({ to: '2026-11-03' }, { onWait: (h) => (waited ??= h) });
    await until(() => waited !== null);
    expect(waited).toMatchObject({ pid: 0, from: '?', to: '?' });
    await engine.releaseAdvance(next);
    expect((await waiting).to).toBe('2026-11-03');
  });
});

describe.skipIf(noPg)(`the row of an advance killed on another machine, copied${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  it('db copy leaves it behind: the copy advances at once', async () => {
    const url = await freshDatabase('holder_copy');
    const b = await backend(url);
    await b.setClock('2026-10-31');
    // What an advance killed on app-2 a moment ago leaves (its lock went with its connection).
    const now = Date.now();
    const lease = { token: 'e'.repeat(24), host: 'app-2', pid: 4242, backend: 4243, timeout_s: 60, from: '2026-10-31', to: '2026-11-30', started_at: now, renewed_at: now };
    await onDatabase(url, "insert into meta (key, value) values ('advance_lease', $1)", [JSON.stringify(lease)]);
    const { dir, cleanup } = tempDir('premia-pg-holder-');
    try {
      const file = join(dir, 'copy.db');
      expect(await premiaExit(['db', 'copy', '--from', url, '--to', file], {})).toEqual({ code: 0, signal: null });
      // On the file (SQLite), a lease of another host was taken for a running advance for ten minutes.
      expect(await premiaExit(['--db', file, 'clock', 'advance', '--days', '1', '--yes'], {})).toEqual({ code: 0, signal: null });
      expect(await premiaExit(['--db', url, 'clock', 'advance', '--days', '1', '--yes'], {})).toEqual({ code: 0, signal: null });
    } finally {
      cleanup();
    }
  });
});

describe.skipIf(noPg)(`a shard worker whose process stopped answering${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  it('is no longer joined after its advance_timeout: the advance lives the shards it lived the day before', async () => {
    const url = await freshDatabase('holder_worker');
    const b = await backend(url);
    await b.admin.settings.set('engine.shards', '4');
    await fixtureMonth(b, { advance: false });
    // An advance killed inside the first shard of 2026-11-01 leaves that day open, its 4 shards pending.
    const killed = await premiaExit(['--db', url, 'clock', 'advance', '--to', '2026-11-03', '--yes'], { PREMIA_FAULT: 'kill-in-shard:2026-11-01' });
    expect(killed).toEqual({ code: null, signal: 'SIGKILL' });

    // A worker lives all four, so they are its own the next day; then it freezes, still joined.
    const worker = spawn(process.execPath, [join(REPO, 'bin', 'premia.js'), '--db', `${url}?advance_timeout=${SILENCE_S}`, 'engine', 'work'], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    children.push(worker.pid!);
    let exited = false;
    const done = new Promise<void>((resolve) =>
      worker.on('close', () => {
        exited = true;
        resolve();
      }),
    );
    const shards = (day: string) => onDatabase<{ state: string; worker: string | null }>(url, 'select state, worker from engine_shards where day = $1 order by shard', [day]);
    for (;;) {
      if (exited) throw new Error('the worker ended');
      if ((await shards('2026-11-01')).every((r) => r.state === 'done')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    process.kill(worker.pid!, 'SIGSTOP');
    await stoppedProcess(worker.pid!, () => exited);

    // The advance closes that day and lives the next two: the frozen worker's shards are taken
    // once the server has ended its session (before, the advance took one and waited for good).
    const r = await b.advanceClock({ to: '2026-11-03' });
    expect(r.to).toBe('2026-11-03');
    expect((await b.getClock()).date).toBe('2026-11-03');
    for (const day of ['2026-11-01', '2026-11-02', '2026-11-03']) expect((await shards(day)).map((x) => x.state)).toEqual(['closed', 'closed', 'closed', 'closed']);

    worker.kill('SIGKILL');
    await done;
  });
});

/** `premia …` as a process of its own; its exit code (null when killed) and signal. */
function premiaExit(args: string[], env: Record<string, string>): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin', 'premia.js'), ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
}

async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 10));
}
