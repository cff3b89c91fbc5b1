/**
 * A kill in the middle of a day of `clock advance` leaves the store at the end of the last whole
 * day; advancing again resumes with no debit repeated or lost, and ends exactly where an
 * uninterrupted run ends.
 *
 * Only the killed advance is a process of its own (the kill is the point); the store is made,
 * the uninterrupted month lived and the stores read in this process (test/engine/determinism.test.ts
 * holds a failed day and a day-by-day month to the same month).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalBackend } from '../../src/backend/local/index.js';
import { REPO, tempDir } from '../helpers/cli.js';
import { allCollections, fixtureMonth, localBackend, readDownload } from '../helpers/local.js';

const BIN = join(REPO, 'bin', 'premia.js');
const tmp = tempDir('premia-crash-');

function premia(db: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, '--db', db, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
}

async function withStore<T>(path: string, fn: (b: LocalBackend) => Promise<T>): Promise<T> {
  const b = await localBackend({ path });
  try {
    return await fn(b);
  } finally {
    await b.close();
  }
}

let base: string;
beforeAll(async () => {
  base = join(tmp.dir, 'base.db');
  // clock set 2026-10-31, the fixture book and bank, November executed
  await withStore(base, (b) => fixtureMonth(b, { advance: false }));
});
afterAll(() => tmp.cleanup());

const attempts = (b: LocalBackend) => b.exportAttempts('2026-11', 'csv').then(readDownload);

/** The month lived to its end on a copy of the base store with no fault, and another copy (`crashed`) to crash. */
async function straightRun(name: string): Promise<{ crashed: string; expected: { attempts: string; collections: string } }> {
  const straight = join(tmp.dir, `straight-${name}.db`);
  const crashed = join(tmp.dir, `crashed-${name}.db`);
  copyFileSync(base, straight);
  copyFileSync(base, crashed);
  const expected = await withStore(straight, async (b) => {
    await b.advanceClock({ to: '2026-11-30' });
    return { attempts: await attempts(b), collections: JSON.stringify(await allCollections(b, '2026-11')) };
  });
  return { crashed, expected };
}

describe('crash during clock advance', () => {
  it('a SIGKILL before a day commits loses that day only, and the resume equals an uninterrupted run', async () => {
    const { crashed, expected } = await straightRun('1');

    const killed = premia(crashed, ['clock', 'advance', '--to', '2026-11-30'], { PREMIA_FAULT: 'kill-before-commit:2026-11-26' });
    expect(killed.signal).toBe('SIGKILL');
    // The killed advance still holds its lease; its process is gone, so the next advance takes it over.
    const lease = () => {
      const db = new Database(crashed, { readonly: true });
      try {
        const row = db.prepare("select value from meta where key = 'advance_lease'").get() as { value: string } | undefined;
        return row ? (JSON.parse(row.value) as { pid: number; from: string; to: string }) : null;
      } finally {
        db.close();
      }
    };
    expect(lease()).toMatchObject({ pid: killed.pid, from: '2026-10-31', to: '2026-11-30' });
    await withStore(crashed, async (b) => {
      // The store is at the end of the last whole day: the 25th, with no attempt of the 26th.
      expect((await b.getClock()).date).toBe('2026-11-25');
      const partial = await attempts(b);
      expect(partial).not.toContain(',2026-11-26,');
      expect(partial.split('\n').length).toBeGreaterThan(50);
      expect(expected.attempts.startsWith(partial)).toBe(true);
      const resumed = await b.advanceClock({ to: '2026-11-30' });
      expect([resumed.from, resumed.to, resumed.days.length]).toEqual(['2026-11-25', '2026-11-30', 5]);
      expect(lease()).toBeNull();
      expect(await attempts(b)).toBe(expected.attempts);
      expect(JSON.stringify(await allCollections(b, '2026-11'))).toBe(expected.collections);
    });
  });

  it('a SIGKILL after a day commits, with later days handed to the day writer, resumes to the uninterrupted run', async () => {
    // The path of every large advance that asks for no fault: days are handed over to the store's day
    // writer while the engine lives the next, so the kill may find the next day written and
    // waiting in the writer's transaction. It must be lost whole, and the resume equal the straight run.
    // (PREMIA_DAY_WRITER=1: the fixture book is below the size from which a long advance hands its days over;
    // PREMIA_DAY_PART_ACCOUNTS=5: its days in parts, as a large book's first business day comes.)
    const { crashed, expected } = await straightRun('2');
    for (const day of ['2026-11-02', '2026-11-13', '2026-11-29']) {
      const killed = premia(crashed, ['clock', 'advance', '--to', '2026-11-30'], { PREMIA_FAULT: `kill-after-day:${day}`, PREMIA_DAY_WRITER: '1', PREMIA_DAY_PART_ACCOUNTS: '5' });
      expect(killed.signal).toBe('SIGKILL');
      const db = new Database(crashed, { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(db.pragma('foreign_key_check')).toEqual([]);
        // At the end of a whole day: that day or the next, never an attempt after the clock.
        const clock = (db.prepare("select value from meta where key = 'clock_date'").get() as { value: string }).value;
        expect(clock >= day).toBe(true);
        const last = (db.prepare('select max(date) as d from attempts').get() as { d: string }).d;
        expect(last <= clock).toBe(true);
      } finally {
        db.close();
      }
    }
    await withStore(crashed, async (b) => {
      const resumed = await b.advanceClock({ to: '2026-11-30' });
      expect(resumed.to).toBe('2026-11-30');
      expect(await attempts(b)).toBe(expected.attempts);
      expect(JSON.stringify(await allCollections(b, '2026-11'))).toBe(expected.collections);
    });
  });
});
