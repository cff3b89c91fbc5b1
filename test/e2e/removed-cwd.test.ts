/**
 * premia started in a working directory that was removed (a cron job's `cd` into a directory a
 * clean-up deleted): Node's process.cwd() throws there, and premia ended on it with a stack
 * trace, exit 1, before reading its arguments, even for a command given only absolute paths.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../helpers/cli.js';
import { BIN } from './spawn.js';

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir('premia-removed-cwd-')));
afterAll(() => cleanup());

/** `premia args` run by a shell whose working directory `gone` was removed just before. */
function inRemoved(gone: string, args: string[]) {
  mkdirSync(gone);
  const r = spawnSync('sh', ['-c', 'cd "$1" && rmdir "$1" && shift && exec "$@"', 'sh', gone, process.execPath, BIN, ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.runIf(process.platform === 'linux')('in a removed working directory', () => {
  it('absolute paths work as anywhere else', () => {
    const db = join(dir, 'acme.db');
    expect(inRemoved(join(dir, 'a'), ['--db', db, 'clock', 'set', '2026-10-31'])).toEqual({ code: 0, stdout: 'date    2026-10-31\nseed    1\nlocked  no\n', stderr: 'Clock set to 2026-10-31.\n' });
    expect(inRemoved(join(dir, 'b'), ['--db', db, 'clock', 'advance', '--days', '1']).code).toBe(0);
  });

  it('a relative path is said missing under the removed directory, and nothing is created', () => {
    const gone = join(dir, 'c');
    expect(inRemoved(gone, ['clock', 'set', '2026-10-31'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: The directory ${gone} of the store ${join(gone, 'premia.db')} (the default ./premia.db) does not exist. Create it first, or give another path with --db.\n  (code VALIDATION_ERROR)\n`,
    });
    expect(existsSync(gone)).toBe(false);
    // Named by the option that chose it when one did.
    expect(inRemoved(join(dir, 'd'), ['--db', 'acme.db', 'clock', 'set', '2026-10-31']).stderr).toBe(
      `error: The directory ${join(dir, 'd')} of the store ${join(dir, 'd', 'acme.db')} (--db) does not exist. Create it first, or give another path with --db.\n  (code VALIDATION_ERROR)\n`,
    );
  });
});
