/**
 * A store on a read-only file system (a disk the kernel remounted read-only after an error, a
 * mounted backup): SQLite cannot make the -shm it needs, and every command failed "unexpectedly"
 * (INTERNAL, exit 1, "unable to open database file"). It is a store this user cannot write:
 * STORE_READ_ONLY, exit 2, saying the file system is read-only. Made with a read-only bind mount
 * in a private mount namespace (unshare -m), so only as root; skipped elsewhere.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers/cli.js';
import { BIN } from '../e2e/spawn.js';

const canMount = process.getuid?.() === 0 && spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs none /mnt && true']).status === 0;

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-rofs-')));
afterEach(() => cleanup());

/** `premia ARGS` with `ro` mounted read-only over itself, in a mount namespace of its own. */
function onReadOnly(ro: string, args: string[]) {
  const script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"';
  return spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', ro, process.execPath, BIN, ...args], {
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', LANG: 'C' },
  });
}

describe('a store on a read-only file system', () => {
  it.skipIf(!canMount)('(as root, in a mount namespace; skipped otherwise) is exit 2 STORE_READ_ONLY naming it, for reading and writing commands', async () => {
    const made = join(dir, 'made.db');
    expect((await runCli(['--db', made, 'policies', 'import', join(FIXTURES, 'policies.csv'), '--quiet'], { cwd: dir })).code).toBe(0);
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    const db = join(ro, 'premia.db');
    copyFileSync(made, db);
    for (const command of [['clock', 'show'], ['clock', 'advance', '--days', '1']]) {
      const r = onReadOnly(ro, ['--json', '--db', db, ...command]);
      expect(r.stdout).toBe('');
      const body = JSON.parse(r.stderr) as { error: { code: string; message: string; details: { code: string; message: string }[] } };
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(body.error.message).toBe(
        `The store ${db} cannot be opened: its directory ${ro} is on a read-only file system, where SQLite cannot make the -shm file it needs. ` +
          'Nothing was changed; remount it read-write, or copy the store to a writable place.',
      );
      expect(body.error.details).toEqual([{ field: 'db', code: 'STORE_READ_ONLY', message: `${ro} is on a read-only file system` }]);
      expect(r.status).toBe(2);
    }
  });

  it.skipIf(!canMount)('(as root, in a mount namespace; skipped otherwise) --output there says so, not "permission denied"', async () => {
    const db = join(dir, 'premia.db');
    expect((await runCli(['--db', db, 'policies', 'import', join(FIXTURES, 'policies.csv'), '--quiet'], { cwd: dir })).code).toBe(0);
    const ro = join(dir, 'reports');
    mkdirSync(ro);
    const r = onReadOnly(ro, ['--db', db, 'reports', 'collections', '--period', '2026-11', '--output', join(ro, 'r.csv')]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: Cannot write --output ${join(ro, 'r.csv')}: ${ro} is on a read-only file system.\n  (code VALIDATION_ERROR)\n`);
    expect(r.status).toBe(2);
  });

  // Node's recursive mkdir answers ENOENT when the directory cannot be made in a parent that
  // exists (EROFS, ENOSPC): the directory to be made was said not to exist, "Create it first".
  it.skipIf(!canMount)('(as root, in a mount namespace; skipped otherwise) a directory to be made there says so, not that its parent does not exist', () => {
    const ro = join(dir, 'month');
    mkdirSync(ro);
    const copy = onReadOnly(ro, ['fixtures', 'copy', join(ro, 'fixtures')]);
    expect([copy.status, copy.stdout, copy.stderr]).toEqual([2, '', `error: Cannot write DIR ${join(ro, 'fixtures')}: ${ro} is on a read-only file system.\n  (code VALIDATION_ERROR)\n`]);
    const deep = onReadOnly(ro, ['fixtures', 'copy', join(ro, 'a', 'b')]);
    expect([deep.status, deep.stderr]).toEqual([2, `error: Cannot write DIR ${join(ro, 'a', 'b')}: ${ro} is on a read-only file system.\n  (code VALIDATION_ERROR)\n`]);
  });
});
