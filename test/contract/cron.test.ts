/**
 * The monthly cycle as a cron job runs it: the built bin/premia.js spawned with only
 * PREMIA_BASE_URL and PREMIA_API_KEY set, against a running server. Exit codes, stdout with
 * nothing but data (JSON parseable, CSV whole), stderr with nothing but messages — and the same
 * report and settlement as the same commands give in local mode (run in-process, PREMIA_DB).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, REPO, tempDir } from '../helpers/cli.js';
import { runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';
import { premiaBin, type Spawned } from '../e2e/spawn.js';

let server: LiveServer;
let dir: string;
let cleanup: () => void;

beforeAll(async () => {
  expect(existsSync(join(REPO, 'dist', 'app', 'premia.js'))).toBe(true); // npm test builds dist first (bin/premia.js loads it)
  server = await startLiveServer();
  ({ dir, cleanup } = tempDir('premia-cron-'));
  for (const d of ['remote', 'local', 'config']) mkdirSync(join(dir, d));
});
afterAll(async () => {
  await server.close();
  cleanup();
});

/** The environment a cron job has: no terminal, no saved profile (an empty config home). */
// Acme Life's operator key: the cycle moves the clock (a client key may not).
function env(mode: 'remote' | 'local', key = server.keys.operator): Record<string, string> {
  const base = { XDG_CONFIG_HOME: join(dir, 'config'), HOME: join(dir, 'config'), NO_COLOR: '1' };
  return mode === 'remote' ? { ...base, PREMIA_BASE_URL: server.url, PREMIA_API_KEY: key } : { ...base, PREMIA_DB: join(dir, 'local', 'premia.db') };
}

/**
 * Remote: the spawned binary, as cron runs it. Local (the reference the remote outputs must
 * equal): the same commands in-process, which is quicker and sees the same code.
 */
const run = async (mode: 'remote' | 'local', args: string[], key?: string): Promise<Spawned> => {
  if (mode === 'remote') return premiaBin(args, { cwd: join(dir, mode), env: env(mode, key) });
  const r = await runPremia(args, { cwd: join(dir, mode), env: env(mode, key) });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
};

/** stdout is exactly one JSON document and stderr holds no JSON and no stack trace. */
function dataOnly(r: Spawned): unknown {
  expect(r.stderr).not.toMatch(/^\s*[{[]/m);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return JSON.parse(r.stdout);
}

describe('a cron job against a running server (spawned bin/premia.js)', () => {
  // The cycle of each mode; remote first, local second (the same clients, in the same order).
  const outputs: Record<string, Record<string, string>> = { remote: {}, local: {} };

  it.each(['remote', 'local'] as const)('%s: the monthly cycle', async (mode) => {
    const out = outputs[mode]!;
    if (mode === 'local') {
      // The local store has the same clients in the same order as the server, so ids match.
      // --seed 1 as the server's store has (ids are keyed by it).
      for (const client of ['Acme Life', 'Other Insure']) expect((await run(mode, ['--seed', '1', 'keys', 'create', '--client', client, '--json'])).code).toBe(0);
    }
    const as = mode === 'local' ? ['--as-client', 'Acme Life'] : [];

    const clock = await run(mode, [...as, 'clock', 'set', '2026-10-31', '--json']);
    expect(clock.code).toBe(0);
    expect(dataOnly(clock)).toEqual({ date: '2026-10-31', locked: false, seed: 1 });
    expect(clock.stderr).toBe('');

    const imported = await run(mode, [...as, 'policies', 'import', join(FIXTURES, 'policies.csv'), '--json']);
    expect(imported.code).toBe(0);
    expect(dataOnly(imported)).toEqual({ imported: 520, failed: 0, errors: [] });

    const executed = await run(mode, [...as, 'collections', 'execute', '--period', '2026-11', '--json']);
    expect(executed.code).toBe(0);
    expect(dataOnly(executed)).toMatchObject({ status: 'processing', policies_queued: 520 });

    // Without --json: the table is data (stdout), the summary a message (stderr).
    const advanced = await run(mode, [...as, 'clock', 'advance', '--to-month-end']);
    expect(advanced.code).toBe(0);
    expect(advanced.stdout.split('\n')[0]).toMatch(/^date +attempts +succeeded +failed +collected +closed$/);
    expect(advanced.stderr).toMatch(/^Clock moved from 2026-10-31 to 2026-11-30: 30 days lived, \d{1,3}(?:,\d{3})*\.\d\d collected\.\n$/);

    const report = await run(mode, [...as, 'reports', 'collections', '--period', '2026-11']);
    expect(report.code).toBe(0);
    expect(report.stderr).toBe('');
    expect(report.stdout.split('\n')).toHaveLength(522);
    out.report = report.stdout;

    const settled = await run(mode, [...as, 'settlements', 'create', '--period', '2026-11', '--json']);
    expect(settled.code).toBe(0);
    const settlement = dataOnly(settled) as { id: string; settlement_number: string };
    expect(settlement.settlement_number).toBe('SETTLE-2026-11-001');
    out.settlement = settled.stdout;

    const exported = await run(mode, [...as, 'settlements', 'export', settlement.id, '--output', 'statement.csv']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe('');
    expect(exported.stderr).toBe(`Wrote SETTLE-2026-11-001.csv as ${join(dir, mode, 'statement.csv')} (${readFileSync(join(dir, mode, 'statement.csv')).length} bytes).\n`);
    out.export = readFileSync(join(dir, mode, 'statement.csv'), 'utf8');

    // A rerun of the settlement step: a conflict, exit 6, the error body on stderr, nothing on stdout.
    const again = await run(mode, [...as, 'settlements', 'create', '--period', '2026-11', '--json']);
    expect(again.code).toBe(6);
    expect(again.stdout).toBe('');
    expect(JSON.parse(again.stderr).error.code).toBe('SETTLEMENT_EXISTS');
  });

  it('both modes printed the same report and the same settlement, byte for byte', () => {
    expect(outputs.remote!.report).toBe(outputs.local!.report);
    expect(outputs.remote!.settlement).toBe(outputs.local!.settlement);
    expect(outputs.remote!.settlement).toContain('"created_at":"2026-11-30T09:30:00.000Z"');
    expect(outputs.remote!.export).toBe(outputs.local!.export);
    expect(outputs.remote!.export).toMatch(/^settlement_number,.*\nSETTLE-2026-11-001,2026-11,/);
  });

  it('a refused key: exit 4, the fix on stderr, nothing on stdout', async () => {
    const r = await run('remote', ['reports', 'collections', '--period', '2026-11'], 'pmk_notakeynotakeynotakeynotakeynotakey0000');
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("refused the API key (the service said: Invalid or missing API key: send a valid key in the X-API-Key header.). The key comes from PREMIA_API_KEY");
    expect(r.stderr).not.toContain('notakeynotakey');
  });
});
