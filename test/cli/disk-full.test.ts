/**
 * A full disk (SQLite's SQLITE_FULL) is said as such, exit 1, with the store intact: it came out
 * as "premia failed unexpectedly: database or disk is full", which says neither that nothing was
 * half-written nor what to do. The store says it (src/domain/disk-full.ts: STORE_UNAVAILABLE,
 * detail DISK_FULL, the code `premia serve` answers with 503: test/server/disk-full.test.ts); the
 * CLI prints it as any other error. The disk fills for real here: the store's connection is
 * capped at the pages it holds (PRAGMA max_page_count), so the next page SQLite needs is refused
 * as on a full disk.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend/types.js';
import type { CliContext } from '../../src/cli/context.js';
import { dayWriterError } from '../../src/store/repos/engine-pipeline.js';
import type { SqliteStore } from '../../src/store/store.js';
import { FIXTURES, runCli, tempDir, type CliOptions } from '../helpers/cli.js';
import { BIN } from '../e2e/spawn.js';

const tmp = tempDir('premia-disk-full-');
afterAll(() => tmp.cleanup());
const db = join(tmp.dir, 'acme.db');

const cli = (args: string[], options: Partial<CliOptions> = {}) => runCli(['--db', db, ...args], { cwd: tmp.dir, ...options, env: { NO_COLOR: '1' } });

/** The context's backend, its store's file capped at the size it has now: no room for more. */
function diskFullNow(ctx: CliContext): void {
  const open = ctx.backend;
  ctx.backend = async (globals, options) => {
    const b = (await open(globals, options)) as Backend & { store: SqliteStore };
    const pages = b.store.raw.pragma('page_count', { simple: true }) as number;
    b.store.raw.pragma(`max_page_count = ${pages}`);
    return b;
  };
}

const MESSAGE =
  "A disk premia writes to is full (SQLite: database or disk is full): the store's, or that of the temporary directory (TMPDIR) its large sorts use. " +
  'What was being written was rolled back: the store is as its last commit left it. Free some space there, then run the command again.';

beforeAll(async () => {
  for (const args of [
    ['--seed', '1', 'clock', 'set', '2026-10-31'],
    ['policies', 'import', join(FIXTURES, 'policies.csv')],
  ]) {
    expect((await cli(args)).code).toBe(0);
  }
});

describe('a full disk', () => {
  it('collections execute: said plainly, exit 1, nothing queued; with room again the rerun queues the month', async () => {
    const full = await cli(['collections', 'execute', '--period', '2026-11'], { prepare: diskFullNow });
    expect([full.code, full.stdout, full.stderr]).toEqual([1, '', `error: ${MESSAGE}\n  (code STORE_UNAVAILABLE)\n`]);
    const json = await cli(['--json', 'collections', 'execute', '--period', '2026-11'], { prepare: diskFullNow });
    expect([json.code, JSON.parse(json.stderr)]).toEqual([
      1,
      { error: { code: 'STORE_UNAVAILABLE', message: MESSAGE, request_id: null, details: [{ field: 'db', code: 'DISK_FULL', message: 'a disk the store writes to is full' }] } },
    ]);
    expect((await cli(['--json', 'collections', 'list', '--period', '2026-11', '--limit', '1'])).json().data).toEqual([]);

    const again = await cli(['--json', 'collections', 'execute', '--period', '2026-11']);
    expect(again.code).toBe(0);
    expect(again.json().policies_queued).toBe(520);
  });

  // The day writer's thread sends its error's message alone; the store rebuilds it on this side
  // (engine-pipeline.ts dayWriterError), and that is what reaches the command.
  it("a clock advance's day writer reports it by its message alone: the same words", async () => {
    const r = await cli(['clock', 'advance', '--days', '1'], {
      prepare: (ctx) => {
        const open = ctx.backend;
        ctx.backend = async (globals, options) => {
          const b = await open(globals, options);
          return new Proxy(b, {
            get: (target, prop, receiver) =>
              prop === 'advanceClock' ? () => Promise.reject(dayWriterError({ message: 'database or disk is full' })) : (Reflect.get(target, prop, receiver) as unknown),
          });
        };
      },
    });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(`error: ${MESSAGE}\n  (code STORE_UNAVAILABLE)\n`);
    expect(r.stderr).not.toContain('unexpectedly');
  });

  it("one no store path mapped (SQLite's own error, as a report's read-only connection throws it): the same words, exit 1", async () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const r = await cli(['--json', 'reports', 'collections', '--period', '2026-11'], {
      prepare: (ctx) => {
        const open = ctx.backend;
        ctx.backend = async (globals, options) => {
          const b = await open(globals, options);
          return new Proxy(b, {
            get: (target, prop, receiver) => (prop === 'collectionsReport' ? () => Promise.reject(full) : (Reflect.get(target, prop, receiver) as unknown)),
          });
        };
      },
    });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'STORE_UNAVAILABLE', message: MESSAGE, details: [{ field: 'db', code: 'DISK_FULL' }] } });
  });
});

const canMount = process.getuid?.() === 0 && spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs none /mnt && true']).status === 0;

// SQLite rolls a transaction back by itself when the disk fills in its middle; the copy's own
// rollback after it then failed, and its error hid the full disk: "premia failed unexpectedly:
// cannot rollback - no transaction is active".
describe('db copy onto a disk that fills', () => {
  it.skipIf(!canMount)('(as root, on a small tmpfs in a mount namespace; skipped otherwise) says the disk is full, exit 1', async () => {
    // The fixtures' book: a new store's schema fits in 960 KiB, its 520 policies do not.
    const from = join(tmp.dir, 'copy-source.db');
    for (const args of [['--seed', '1', 'clock', 'set', '2026-10-31'], ['policies', 'import', join(FIXTURES, 'policies.csv')]]) {
      expect((await runCli(['--db', from, ...args], { cwd: tmp.dir })).code).toBe(0);
    }
    const small = join(tmp.dir, 'small');
    const to = join(small, 'copy.db');
    const script = 'mkdir -p "$1" && mount -t tmpfs -o size=960k none "$1" && shift && exec "$@"';
    const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', small, process.execPath, BIN, 'db', 'copy', '--from', from, '--to', to], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', LANG: 'C' },
    });
    expect([r.status, r.stdout, r.stderr]).toEqual([1, '', `Copying ${from} to ${to}…\nerror: ${MESSAGE}\n  (code STORE_UNAVAILABLE)\n`]);
  });
});
