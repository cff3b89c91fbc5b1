/**
 * A kill in the middle of a day of `clock advance` leaves the store at the end of the last whole
 * day; advancing again resumes with no debit repeated or lost, and ends exactly where an
 * uninterrupted run ends.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../helpers/cli.js';

const BIN = join(REPO, 'bin', 'premia.js');
const tmp = tempDir('premia-crash-');

function premia(db: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, '--db', db, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
}

let base: string;
beforeAll(() => {
  base = join(tmp.dir, 'base.db');
  for (const args of [
    ['clock', 'set', '2026-10-31'],
    ['policies', 'import', join(REPO, 'fixtures', 'policies.csv')],
    ['bank', 'import', join(REPO, 'fixtures', 'bank-transactions.csv')],
    ['collections', 'execute', '--period', '2026-11'],
  ]) {
    expect(premia(base, args).status).toBe(0);
  }
});
afterAll(() => tmp.cleanup());

describe('crash during clock advance', () => {
  it('a SIGKILL before a day commits loses that day only, and the resume equals an uninterrupted run', () => {
    const straight = join(tmp.dir, 'straight.db');
    const crashed = join(tmp.dir, 'crashed.db');
    copyFileSync(base, straight);
    copyFileSync(base, crashed);
    expect(premia(straight, ['clock', 'advance', '--to', '2026-11-30']).status).toBe(0);

    const killed = premia(crashed, ['clock', 'advance', '--to', '2026-11-30'], { PREMIA_FAULT: 'kill-before-commit:2026-11-26' });
    expect(killed.signal).toBe('SIGKILL');
    // The store is at the end of the last whole day: the 25th, with no attempt of the 26th.
    expect(JSON.parse(premia(crashed, ['--json', 'clock']).stdout).date).toBe('2026-11-25');
    const partial = premia(crashed, ['collections', 'attempts', '--period', '2026-11']).stdout;
    expect(partial).not.toContain(',2026-11-26,');
    expect(partial.split('\n').length).toBeGreaterThan(50);

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
    const resumed = premia(crashed, ['clock', 'advance', '--to', '2026-11-30']);
    expect(resumed.status).toBe(0);
    expect(resumed.stderr).toContain('Clock moved from 2026-11-25 to 2026-11-30');
    expect(lease()).toBeNull();
    const a = premia(straight, ['collections', 'attempts', '--period', '2026-11']).stdout;
    const b = premia(crashed, ['collections', 'attempts', '--period', '2026-11']).stdout;
    expect(b).toBe(a);
    const list = (db: string) => premia(db, ['--json', 'collections', 'list', '--period', '2026-11', '--limit', '10000']).stdout;
    expect(list(crashed)).toBe(list(straight));
  });
});
