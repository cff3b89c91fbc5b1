/**
 * premia as process 1 of a PID namespace (a container started without an init), where the kernel
 * gives a signal no default action: SIGTERM, SIGHUP and a second Ctrl-C end it as they end any
 * other process (exit 128 + the signal's number); a handler of premia's still decides where there
 * is one. Each run is the built launcher under `unshare` (root on Linux; skipped elsewhere), a
 * local write waiting for the store's write lock, which the test holds all along: the signal
 * comes once premia has said it waits, so nothing depends on timing. Before, premia ignored
 * SIGTERM and SIGHUP there, and the second Ctrl-C, and waited on.
 */
import Database from 'better-sqlite3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { BIN } from './spawn.js';

/** Whether this machine lets a test run a process as process 1 of a namespace of its own. */
const ownPidNamespace =
  process.platform === 'linux' &&
  process.getuid?.() === 0 &&
  spawnSync('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', process.execPath, '-e', 'process.exit(process.pid === 1 ? 0 : 1)']).status === 0;

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir('premia-pid1-')));
afterAll(() => cleanup());

const children: ChildProcess[] = [];
const holders: Database.Database[] = [];
afterEach(() => {
  while (children.length > 0) children.pop()!.kill('SIGKILL'); // unshare --kill-child: its node too
  while (holders.length > 0) holders.pop()!.close();
});

const WAITING = 'Waiting for another premia process to finish writing to the store; nothing has changed yet.\n';

/** A store at 2026-10-31 whose write lock another connection (the test's) holds until the test ends. */
async function lockedStore(name: string): Promise<{ db: string; other: Database.Database }> {
  const db = join(dir, `${name}.db`);
  expect((await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
  const other = new Database(db);
  holders.push(other);
  other.exec('begin immediate');
  return { db, other };
}

/** `premia args` as process 1 of a PID namespace of its own. */
function premiaAsPid1(args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  const child = spawn('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', process.execPath, BIN, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  let heard: { text: string; then: () => void } | null = null;
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
    if (heard && stderr.includes(heard.text)) heard.then();
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    /** Resolves once stderr holds `text`. */
    said: (text: string) =>
      new Promise<void>((resolve) => {
        heard = { text, then: resolve };
        if (stderr.includes(text)) resolve();
      }),
    /** Send `signal` to premia (process 1 in its namespace; unshare's child in ours). */
    kill(signal: NodeJS.Signals) {
      const ids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/);
      expect(ids).toHaveLength(1);
      process.kill(Number(ids[0]), signal);
    },
    /** How it ended (unshare exits with its child's code), and all it wrote on stderr. */
    ended: async () => ({ ...(await ended), stderr }),
  };
}

/** The store's clock, read once the test has let its write lock go. */
async function clockOf(db: string, other: Database.Database): Promise<unknown> {
  other.exec('rollback');
  return (await runCli(['--db', db, '--json', 'clock'], { cwd: dir })).json().date;
}

describe.skipIf(!ownPidNamespace)(`premia as process 1 of a PID namespace${ownPidNamespace ? '' : ' (skipped: unshare unavailable or not root)'}`, () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s while clock advance waits for another writer ends it at once: exit %i, the clock unchanged', async (signal, exit) => {
    const { db, other } = await lockedStore(`advance-${signal}`);
    const premia = premiaAsPid1(['--db', db, 'clock', 'advance', '--days', '1']);
    await premia.said(WAITING);
    premia.kill(signal);
    const ended = await premia.ended();
    expect({ ...ended, held: other.inTransaction }).toEqual({ code: exit, signal: null, stderr: WAITING, held: true });
    expect(await clockOf(db, other)).toBe('2026-10-31');
  });

  it('Ctrl-C twice while clock advance waits for another writer: the first is its own (it says so), the second ends it, exit 130', async () => {
    const { db, other } = await lockedStore('advance-ctrl-c');
    const premia = premiaAsPid1(['--db', db, 'clock', 'advance', '--days', '1']);
    await premia.said(WAITING);
    premia.kill('SIGINT');
    const first = 'Ctrl-C: stopping after the day in progress (press Ctrl-C again to quit at once).\n';
    await premia.said(first);
    premia.kill('SIGINT');
    const ended = await premia.ended();
    expect({ ...ended, held: other.inTransaction }).toEqual({ code: 130, signal: null, stderr: WAITING + first, held: true });
    expect(await clockOf(db, other)).toBe('2026-10-31');
  });

  it("Ctrl-C while policies create waits for another writer: its own handler's stop, said, exit 130", async () => {
    const { db, other } = await lockedStore('create-ctrl-c');
    const premia = premiaAsPid1(['--db', db, 'policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '10']);
    await premia.said(WAITING);
    premia.kill('SIGINT');
    const ended = await premia.ended();
    expect({ ...ended, held: other.inTransaction }).toEqual({
      code: 130,
      signal: null,
      stderr: `${WAITING}Stopped by Ctrl-C while waiting for the other process: nothing changed.\n`,
      held: true,
    });
  });

  it('premia serve keeps its own: SIGHUP said and served on, SIGTERM a graceful stop, exit 0', async () => {
    const premia = premiaAsPid1(['--db', join(dir, 'serve.db'), 'serve', '--port', '0']);
    await premia.said('premia: serving ');
    premia.kill('SIGHUP');
    await premia.said('premia: SIGHUP received');
    premia.kill('SIGTERM');
    const { code, stderr } = await premia.ended();
    expect({ code, stderr: stderr.split('\n').slice(1) }).toEqual({
      code: 0,
      stderr: [
        'premia: SIGHUP received (a closed terminal, or a reload asked for): premia has nothing to reload and goes on serving; SIGTERM or Ctrl-C stops it.',
        'premia: SIGTERM received; finishing requests in flight…',
        'premia: stopped.',
        '',
      ],
    });
  });
});
