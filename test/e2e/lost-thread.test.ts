/**
 * A thread premia waits on that ends unheard (a native fault, a terminate, a worker whose events
 * never come): the command fails with exit 1 and says so. It waited for good before, and with
 * nothing left to wait for the process ended with exit code 0 and nothing printed: a cron job
 * took an advance that had not happened for done. Run on the real launcher (dist/), with a
 * preloaded module (support/lose-day-writer.cjs) that ends the day writer's thread once it is
 * ready, as PREMIA_LOSE_DAY_WRITER says.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { premiaBin } from './spawn.js';

const tmp = tempDir('premia-lost-thread-');
afterAll(() => tmp.cleanup());
const LOSE = join(import.meta.dirname, 'support', 'lose-day-writer.cjs');
const db = join(tmp.dir, 'book.db');

async function premia(args: string[], env: Record<string, string> = {}) {
  return premiaBin(['--db', db, ...args], { cwd: tmp.dir, env: { PREMIA_DAY_WRITER: '1', ...env }, nodeArgs: env.PREMIA_LOSE_DAY_WRITER ? ['--require', LOSE] : [] });
}

const clockDate = async () => (JSON.parse((await premia(['--json', 'clock', 'show'])).stdout) as { date: string }).date;

beforeAll(async () => {
  for (const args of [['clock', 'set', '2026-10-31'], ['policies', 'import', join(FIXTURES, 'policies.csv')], ['collections', 'execute', '--period', '2026-11']]) {
    const r = await premia(['--quiet', ...args]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  }
});

describe('a thread that ends unheard', () => {
  it("the day writer's thread ending: the advance fails, saying why, and lived nothing", async () => {
    const r = await premia(['clock', 'advance', '--to', '2026-11-30'], { PREMIA_LOSE_DAY_WRITER: 'terminate' });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: the day writer's thread ended unexpectedly (exit code 1): the advance stopped after the last day it wrote (premia clock show says which)\n  (code INTERNAL)\n");
    expect(r.stdout).toBe('');
    expect(await clockDate()).toBe('2026-10-31');
  });

  it('a thread whose end is never heard: premia ends the command as a failure once nothing is left to wait for, with --json too', async () => {
    const r = await premia(['clock', 'advance', '--to', '2026-11-30'], { PREMIA_LOSE_DAY_WRITER: 'unheard' });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: premia stopped before the command finished: it was left waiting for work that can no longer come (a fault in premia, not in the command). ' +
        'What it had committed is kept and nothing after that was done: check where things stand (premia clock show, the reports) before running it again.\n  (code INTERNAL)\n',
    );
    expect(r.stdout).toBe('');
    const json = await premia(['--json', 'clock', 'advance', '--to', '2026-11-30'], { PREMIA_LOSE_DAY_WRITER: 'unheard' });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'INTERNAL' } });
    expect(await clockDate()).toBe('2026-10-31');
    // The store is whole: the same month, lived with a writer that lives.
    const month = await premia(['--quiet', 'clock', 'advance', '--to', '2026-11-30']);
    expect(month.code).toBe(0);
    expect(await clockDate()).toBe('2026-11-30');
  });
});
