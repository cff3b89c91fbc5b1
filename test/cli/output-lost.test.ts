/**
 * stdout fails (a full disk under `> out.json`) under a command that changed something: exit 1,
 * and the message says the change was made all the same. It said only that the output was
 * incomplete, so a cron job's rerun of `clock advance --days 1` advanced a second day.
 */
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { FIXTURES, runCli, tempDir } from '../helpers/cli.js';

const tmp = tempDir('premia-output-lost-');
afterAll(() => tmp.cleanup());
const db = join(tmp.dir, 'acme.db');
const cli = (args: string[], prepare?: (ctx: CliContext) => void) => runCli(['--db', db, ...args], { cwd: tmp.dir, prepare });

/** stdout on a full disk: every write fails with ENOSPC. */
const fullDisk = (ctx: CliContext) => {
  ctx.stdout = new Writable({
    write(_chunk, _encoding, done) {
      done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    },
  });
};

const LOST = 'Writing to standard output failed: no space left on the device; what was written there is incomplete.';

describe('stdout lost under a command', () => {
  it('that changed state: exit 1, saying the change is kept; the clock did move', async () => {
    expect((await cli(['clock', 'set', '2026-10-31'])).code).toBe(0);
    const r = await cli(['--json', 'clock', 'advance', '--days', '1'], fullDisk);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'INTERNAL',
        message:
          `${LOST} The command itself finished: what it changed is kept (a clock advanced, a settlement marked paid; a key it created is valid: revoke it if the key was not seen). ` +
          'Check the result before running it again.',
        request_id: null,
      },
    });
    expect((await cli(['--json', 'clock'])).json().date).toBe('2026-11-01');
  });

  it('that only reads, or a dry run: the output alone is said lost', async () => {
    for (const args of [['clock'], ['clock', 'advance', '--days', '1', '--dry-run']]) {
      const r = await cli(args, fullDisk);
      expect([args, r.code, r.stderr.slice(r.stderr.indexOf('error: '))]).toEqual([args, 1, `error: ${LOST}\n  (code INTERNAL)\n`]);
    }
    expect((await cli(['--json', 'clock'])).json().date).toBe('2026-11-01');
  });

  // Exit 3 said only that some rows failed; which ones (the table, or the JSON's errors) was lost
  // without a word, and a cron job's log held a cut list.
  it('of an import some of whose rows failed: exit 1, not 3, saying the rows imported are kept', async () => {
    const r = await cli(['--json', 'policies', 'import', join(FIXTURES, 'policies-invalid.csv')], fullDisk);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error.message).toBe(
      `${LOST} The command itself finished: what it changed is kept (a clock advanced, a settlement marked paid; a key it created is valid: revoke it if the key was not seen). ` +
        'Check the result before running it again.',
    );
    expect((await cli(['--json', 'policies', 'list'])).json().data.length).toBe(4);
  });
});
