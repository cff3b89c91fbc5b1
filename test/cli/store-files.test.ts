/**
 * The store file itself: created private (0600, also its -wal and -shm, whatever the umask), and
 * a warning when an existing store can be read by others.
 */
import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
let umask: number;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('premia-store-files-'));
  umask = process.umask(0); // the most permissive: nothing but premia's own choice limits the modes
});
afterEach(() => {
  process.umask(umask);
  cleanup();
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe('a new store is private', () => {
  it('the store, its -wal and its -shm are 0600 while it is open, whatever the umask', async () => {
    const db = join(dir, 'premia.db');
    const store = await openStore({ path: db });
    try {
      await store.transaction(async (trx) => {
        await trx.insertInto('meta').values({ key: 'probe', value: '1' }).execute();
      });
      expect([existsSync(`${db}-wal`), existsSync(`${db}-shm`)]).toEqual([true, true]);
      expect([mode(db), mode(`${db}-wal`), mode(`${db}-shm`)]).toEqual([0o600, 0o600, 0o600]);
    } finally {
      await store.close();
    }
  });

  it('made by a command: 0600, and no warning', async () => {
    const r = await runCli(['--db', 'book.db', 'clock', 'set', '2026-10-31'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Clock set to 2026-10-31.\n');
    expect(mode(join(dir, 'book.db'))).toBe(0o600);
  });

  it('an existing store keeps its mode (premia does not change it behind your back)', async () => {
    await runCli(['--db', 'book.db', 'clock', 'set', '2026-10-31'], { cwd: dir });
    chmodSync(join(dir, 'book.db'), 0o640);
    await runCli(['--db', 'book.db', 'clock'], { cwd: dir });
    expect(mode(join(dir, 'book.db'))).toBe(0o640);
  });
});

describe('a store others can read: one warning on stderr', () => {
  beforeEach(async () => {
    const r = await runCli(['--db', 'book.db', 'clock', 'set', '2026-10-31'], { cwd: dir });
    expect(r.code).toBe(0);
  });
  const warning = (m: string) =>
    `warning: other users of this machine can read the store ${join(dir, 'book.db')} (mode ${m}); it holds every client's data and API key hashes. ` +
    `Make it private: chmod 600 ${join(dir, 'book.db')}\n`;

  it.each([
    [0o644, '0644'],
    [0o640, '0640'],
    [0o604, '0604'],
  ])('mode %o: named with the chmod that fixes it', async (m, shown) => {
    chmodSync(join(dir, 'book.db'), m);
    const r = await runCli(['--db', 'book.db', 'clock'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(warning(shown));
    expect(r.stdout).toContain('2026-10-31');
  });

  it('also with --quiet; with --json stdout stays the JSON body', async () => {
    chmodSync(join(dir, 'book.db'), 0o644);
    const quiet = await runCli(['--quiet', '--db', 'book.db', 'clock'], { cwd: dir });
    expect(quiet.stderr).toBe(warning('0644'));
    const json = await runCli(['--json', '--db', 'book.db', 'clock'], { cwd: dir });
    expect(json.stderr).toBe(warning('0644'));
    expect(json.json()).toMatchObject({ date: '2026-10-31' });
  });

  it('0600 and 0700 (only the owner): no warning', async () => {
    for (const m of [0o600, 0o700]) {
      chmodSync(join(dir, 'book.db'), m);
      const r = await runCli(['--db', 'book.db', 'clock'], { cwd: dir });
      expect([r.code, r.stderr]).toEqual([0, '']);
    }
  });
});
