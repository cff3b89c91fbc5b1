/**
 * An advance asked for with `days` (or `to_month_end`) under an Idempotency-Key, its process
 * killed part way, and the request retried with the same key (issue 12). The retry takes the key
 * over from the dead process and used to resolve `days` again from the clock the first one left:
 * `{"days": 30}` from 2026-10-31, killed at 2026-11-04, ran on to 2026-12-04, four days past the
 * request and into December. The first advance now records the date it resolved to reach on its
 * claim, and the retry runs to that date: the month of one advance.
 *
 * Through `premia serve` (two processes on one database, as behind one address) and in local
 * mode (`--idempotency-key`). The kill is PREMIA_FAULT's, before a day commits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { REPO, tempDir } from '../helpers/cli.js';
import { FIXED_NOW, fixtureMonth, readDownload } from '../helpers/local.js';
import { freshDatabase, noPg, onDatabase, pg } from './db.js';

const opened: LocalBackend[] = [];
const children: ChildProcess[] = [];
const { dir, cleanup } = tempDir('premia-pg-retry-');
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const b of opened.splice(0)) await b.close();
  cleanup();
});

async function month(prefix: string): Promise<{ url: string; b: LocalBackend }> {
  const url = await freshDatabase(prefix);
  const b = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
  opened.push(b);
  await fixtureMonth(b, { advance: false });
  return { url, b };
}

/** `premia serve` on a free port; resolves with its base URL once it listens, and its end. */
function serveProcess(db: string, env: Record<string, string> = {}): Promise<{ base: string; ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }> {
  const child = spawn(process.execPath, [join(REPO, 'bin', 'premia.js'), 'serve', '--port', '0', '--rate-limit', '0', '--db', db], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /premia: serving (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(stderr);
      if (m) resolve({ base: m[1]!, ended });
    });
    child.on('exit', (code) => reject(new Error(`premia serve exited (${code}) before listening:\n${stderr}`)));
  });
}

function premiaExit(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin', 'premia.js'), ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe.skipIf(noPg)(`an advance by days retried under its Idempotency-Key after its process was killed${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  let want: string;
  beforeAll(async () => {
    const { b } = await month('retry_ref');
    await b.advanceClock({ to: '2026-11-30' });
    want = await readDownload(await b.exportAttempts('2026-11', 'csv'));
  });

  it('through premia serve: the retry on the other process ends where the first was to end', async () => {
    const { url, b } = await month('retry_serve');
    const key = (await b.admin.keys.create(null, 'operator')).key;
    const [a, other] = await Promise.all([serveProcess(url, { PREMIA_FAULT: 'kill-before-commit:2026-11-05' }), serveProcess(url)]);
    const post = (base: string) =>
      request(`${base}/clock/advance`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'month-end' },
        body: JSON.stringify({ days: 30 }),
      });
    await expect(post(a.base)).rejects.toThrow(); // the process died with the request open
    expect(await a.ended).toEqual({ code: null, signal: 'SIGKILL' });
    expect((await b.getClock()).date).toBe('2026-11-04');

    const retried = await post(other.base);
    const body = (await retried.body.json()) as { from: string; to: string; days: unknown[] };
    expect(retried.statusCode).toBe(200);
    expect([body.from, body.to, body.days.length]).toEqual(['2026-11-04', '2026-11-30', 26]);
    expect((await b.getClock()).date).toBe('2026-11-30');
    expect(await readDownload(await b.exportAttempts('2026-11', 'csv'))).toBe(want);
    // And again: the stored answer, nothing lived.
    const again = await post(other.base);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(((await again.body.json()) as { to: string }).to).toBe('2026-11-30');
    expect((await b.getClock()).date).toBe('2026-11-30');
  });

  it('in local mode: the rerun with the same --idempotency-key ends where the first was to end', async () => {
    const { url, b } = await month('retry_local');
    const args = ['--db', url, 'clock', 'advance', '--days', '30', '--idempotency-key', 'month-end', '--yes', '--json'];
    const killed = await premiaExit(args, { PREMIA_FAULT: 'kill-before-commit:2026-11-05' });
    expect([killed.code, killed.signal]).toEqual([null, 'SIGKILL']);
    const rerun = await premiaExit(args);
    expect(rerun.code).toBe(0);
    const result = JSON.parse(rerun.stdout) as { from: string; to: string };
    expect([result.from, result.to]).toEqual(['2026-11-04', '2026-11-30']);
    expect((await b.getClock()).date).toBe('2026-11-30');
    expect(await readDownload(await b.exportAttempts('2026-11', 'csv'))).toBe(want);
  });

  it("a claim of another machine's process: the refusal says it may have stopped, and from when the key is taken over", async () => {
    const { url, b } = await month('retry_elsewhere');
    const args = ['--db', url, 'clock', 'advance', '--days', '30', '--idempotency-key', 'month-end', '--yes'];
    const killed = await premiaExit(args, { PREMIA_FAULT: 'kill-before-commit:2026-11-05' });
    expect([killed.code, killed.signal]).toEqual([null, 'SIGKILL']);
    // As if that process had run on another machine, started a moment ago.
    const started = Date.now();
    await onDatabase(url, "update idempotency_keys set owner_host = 'app-2', owner_pid = 4242, started_at = $1 where status is null", [started]);
    const refused = await premiaExit(args);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain(
      `error: The first request with this Idempotency-Key started in process 4242 on app-2 at ${new Date(started).toISOString()} and has not finished: ` +
        'it is still running, or that process stopped (a machine lost), which cannot be told from here. ' +
        `Retry after it has finished; if it stopped, a retry from ${new Date(started + 600_001).toISOString()} (ten minutes after it started) takes the key over.`,
    );
    expect((await b.getClock()).date).toBe('2026-11-04');
  });
});
