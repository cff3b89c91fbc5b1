/**
 * Each verb parses its command line into a typed options object before anything runs (as the
 * GitHub CLI's per-command options struct): the context's `runF` takes the place of the verb's
 * run, so these check what a command line means without a store or a service.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createContext } from '../../src/cli/context.js';
import { run } from '../../src/cli/main.js';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir('premia-options-')));
afterAll(() => cleanup());

/** Run a command line with runF: the command's words and its options (without the dependencies). */
async function parsed(args: string[]): Promise<{ code: number; command?: string; options?: Record<string, unknown>; stderr: string }> {
  let seen: { command: string; options: Record<string, unknown> } | undefined;
  const r = await runCli(args, {
    cwd: dir,
    prepare: (ctx) => {
      ctx.runF = async (command, options) => {
        const { ctx: _c, globals: _g, ui: _u, backend: _b, admin: _a, createsStore: _s, ...own } = options as Record<string, unknown>;
        seen = { command, options: own };
        return 0;
      };
    },
  });
  return { code: r.code, command: seen?.command, options: seen?.options, stderr: r.stderr };
}

describe('command lines parse into typed options', () => {
  it('policies list: the query, the limit a number', async () => {
    expect(await parsed(['policies', 'list', '--status', 'active', '--limit', '5'])).toMatchObject({
      code: 0,
      command: 'policies list',
      options: { query: { status: 'active', limit: 5, after: undefined } },
    });
  });

  it('clock advance: the target as the service would take it, and --dry-run', async () => {
    expect(await parsed(['clock', 'advance', '--to-month-end', '--dry-run'])).toMatchObject({
      command: 'clock advance',
      options: { target: { to_month_end: true }, dryRun: true },
    });
    expect((await parsed(['clock', 'advance', '--days', '3'])).options).toEqual({ target: { days: 3 }, dryRun: false });
  });

  it('policies update: the reference and the patch in cents', async () => {
    expect((await parsed(['policies', 'update', 'POL-1', '--amount', '199.50'])).options).toEqual({ ref: 'POL-1', patch: { collection_amount: 19950 } });
  });

  it('settlements export and keys create: positional and flag options by name', async () => {
    expect((await parsed(['settlements', 'export', 'SETTLE-2026-11-001', '--lines', '-o', 'out.csv'])).options).toEqual({
      ref: 'SETTLE-2026-11-001',
      lines: true,
      output: 'out.csv',
      force: false,
      requirePending: false,
    });
    expect((await parsed(['settlements', 'export', 'SETTLE-2026-11-001', '-o', 'out.csv', '--force'])).options).toMatchObject({ force: true });
    expect((await parsed(['settlements', 'export', 'SETTLE-2026-11-001', '--require-pending'])).options).toMatchObject({ requirePending: true });
    expect((await parsed(['keys', 'create', '--operator'])).options).toEqual({ client: null, role: 'operator' });
  });

  it('a bad flag is refused while parsing: the verb never runs, and no store is made', async () => {
    const r = await parsed(['policies', 'list', '--limit', '0']);
    expect(r).toMatchObject({ code: 2, command: undefined });
    expect(r.stderr).toContain('--limit must be a whole number from 1 to 10000; got ');
    const update = await parsed(['policies', 'update', 'POL-1']);
    expect(update).toMatchObject({ code: 2, command: undefined });
    expect(update.stderr).toContain('Nothing to update: give --amount, --status, or both.');
    expect(existsSync(join(dir, 'premia.db'))).toBe(false);
  });
});

describe('the exit code is known before the store or the service connection is closed', () => {
  it('run() tells it while dispose() has not ended (a close that leaves the event loop empty ends the process there)', async () => {
    const ctx = createContext({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: Readable.from([]), env: {} });
    let closed!: () => void;
    ctx.dispose = () => new Promise<void>((resolve) => (closed = resolve));
    let told: number | undefined;
    const done = run(['policies', 'list', '--bogus'], ctx, (code) => (told = code));
    await vi.waitFor(() => expect(told).toBe(2));
    closed();
    expect(await done).toBe(2);
  });
});

describe('a store named by a URL of another kind (a mistyped postgres://)', () => {
  it('is refused, exit 2, naming only its scheme, whether given by --db, PREMIA_DB, serve --db or db copy; no file is made', async () => {
    const url = 'postgress://premia:S3cret!pw@127.0.0.1:55432/pdb';
    const runs = [
      await runCli(['--db', url, 'clock'], { cwd: dir }),
      await runCli(['clock'], { cwd: dir, env: { PREMIA_DB: url } }),
      await runCli(['serve', '--db', url, '--port', '0'], { cwd: dir }),
      await runCli(['db', 'copy', '--from', join(dir, 'x.db'), '--to', url], { cwd: dir }),
      await runCli(['--json', '--db', url, 'clock'], { cwd: dir }),
    ];
    for (const r of runs) {
      expect(r.code).toBe(2);
      expect(r.stdout + r.stderr).not.toMatch(/S3cret|premia:|@127/);
    }
    expect(runs.slice(0, 4).map((r) => r.stderr.split(' is written as')[0])).toEqual(['error: --db', 'error: PREMIA_DB', 'error: --db', 'error: --to']);
    expect(JSON.parse(runs[4]!.stderr).error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'db', code: 'INVALID_FORMAT', message: "postgress:// is not a store's scheme" }] });
    expect(existsSync(join(dir, 'postgress:'))).toBe(false);
  });
});

// `collections execute --period 2026-12 --period 2027-01` queued 2027-01 alone, without a word,
// and `clock advance --days 1 … --days 2` (a cron line built of two variables) lived 2 days.
describe('an option of one value given twice', () => {
  it('with two values is a usage error naming both, nothing done; the same value twice, flags and lists repeat freely', async () => {
    const { dir, cleanup } = tempDir('premia-repeated-');
    try {
      const db = join(dir, 'acme.db');
      expect((await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
      const twice = await runCli(['--db', db, 'collections', 'execute', '--period', '2026-11', '--period=2026-12'], { cwd: dir });
      expect([twice.code, twice.stdout, twice.stderr]).toEqual([
        2,
        '',
        "error: --period is given twice ('2026-11', then '2026-12'); it takes one value, so premia would use only the last. Give it once.\n  (code USAGE_ERROR; run with --help for usage)\n",
      ]);
      const json = await runCli(['--json', '--db', db, 'clock', 'advance', '--days', '1', '--days', '2'], { cwd: dir });
      expect([json.code, JSON.parse(json.stderr)]).toEqual([
        2,
        { error: { code: 'USAGE_ERROR', message: "--days is given twice ('1', then '2'); it takes one value, so premia would use only the last. Give it once.", request_id: null } },
      ]);
      const stores = await runCli(['--db', db, 'clock', '--db', join(dir, 'other.db')], { cwd: dir });
      expect(stores.code).toBe(2);
      expect((await runCli(['--json', '--db', db, 'clock'], { cwd: dir })).json()).toEqual({ date: '2026-10-31', locked: false, seed: 1 });
      expect((await runCli(['--db', db, '--db', db, '--yes', '--yes', 'clock', 'advance', '--days', '1', '--days', '1'], { cwd: dir })).code).toBe(0);
    } finally {
      cleanup();
    }
  });
});
