/**
 * Smoke test of `npm run bench` (bench/run.js) at a tiny scale: every part runs, the JSON has the
 * shape the README describes, and the checks the bench makes on the way hold (the import takes
 * every row, the report is byte for byte sqlite3's CSV of the same query, the settlement's total
 * is the period's). No timing is asserted: speed is what the bench reports, not what tests check.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../helpers/cli.js';
import { nodeScript, type Spawned } from './spawn.js';

const tools = existsSync('/usr/bin/time') && spawnSync('sqlite3', ['--version'], { stdio: 'ignore' }).status === 0;

function bench(args: string[], dataDir: string): Promise<Spawned> {
  return nodeScript(join(REPO, 'bench', 'run.js'), args, { cwd: REPO, env: { PREMIA_BENCH_DATA: dataDir } });
}

let dir: string;
let cleanup: () => void;
beforeAll(() => {
  ({ dir, cleanup } = tempDir('premia-bench-'));
});
afterAll(() => cleanup());

describe('bench/run.js', () => {
  it('rejects a bad option with exit 2 and the usage', async () => {
    const r = await bench(['--scale', '12x'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("bench: --scale must be a whole number ≥ 100; got '12x'.");
    expect(r.stderr).toContain('Usage: npm run bench -- [options]');
    const only = await bench(['--only', 'import,network'], dir);
    expect(only.code).toBe(2);
    expect(only.stderr).toContain("bench: --only takes import, engine, report, settle, serve, days, simulate, small, next (comma-separated); got 'network'.");
  });

  // The days and simulate parts (thirty and twelve months of processes) are left to the bench.
  it.skipIf(!tools)('measures the import, engine, small, report, settle, serve and next parts at --scale 200 and reports JSON', { timeout: 300_000 }, async () => {
    const r = await bench(['--scale', '200', '--runs', '1', '--json', '--only', 'import,engine,small,report,settle,serve,next'], dir);
    expect(r.stderr).not.toContain('a command failed');
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.options).toEqual({ scale: 200, parts: ['import', 'engine', 'report', 'settle', 'serve', 'small', 'next'], runs: 1, engine_runs: 1 });
    expect(body.machine.cores).toBeGreaterThan(0);
    expect(body.machine.load_average).toHaveLength(3);
    expect(body.results.map((x: { part: string; what: string }) => `${x.part}: ${x.what}`)).toEqual([
      'import: policies import, 200 rows',
      "import: floor: sqlite3 .import into a table of the store's shape (WAL, unique policy_number)",
      'engine: engine: clock set 2026-10-31',
      'engine: engine: collections execute (200 queued)',
      'engine: engine: clock advance --to 2026-11-30 (30 days)',
      "engine: floor: the month's writes alone (200 attempts, 200 updates)",
      'report: premia start-up + store open (clock)',
      'report: reports collections csv, 200 rows',
      'report: sqlite3 -csv, cents without printf',
      'report: reports collections --output FILE',
      'report: reports collections --format json',
      'report: collections attempts csv (the attempts export)',
      'settle: settlements create, 200 collections',
      'settle: settlements export --lines, 200 rows',
      'serve: GET /whoami during POST /clock/advance (200 policies, 30 days)',
      'small: engine 100: clock set 2026-10-31',
      'small: engine 100: collections execute (100 queued)',
      'small: engine 100: clock advance --to 2026-11-30 (30 days)',
      expect.stringMatching(/^small: floor: the month's writes alone \(\d+ attempts, \d+ updates\)$/),
      'next: the next month: clock advance --to 2026-12-31 (31 days)',
    ]);
    const byWhat = (prefix: string) => body.results.find((x: { what: string }) => x.what.startsWith(prefix));
    // Targets are judged (PASS or FAIL) where there is one, and nowhere else.
    expect(body.results.filter((x: { pass: unknown }) => x.pass !== null).map((x: { what: string }) => x.what)).toEqual([
      'policies import, 200 rows',
      'engine: clock advance --to 2026-11-30 (30 days)',
      'reports collections csv, 200 rows',
      'settlements create, 200 collections',
      'GET /whoami during POST /clock/advance (200 policies, 30 days)',
      'engine 100: clock advance --to 2026-11-30 (30 days)',
      'the next month: clock advance --to 2026-12-31 (31 days)',
    ]);
    // Reads were answered while the advance ran (how fast is the bench's to say, not the test's).
    expect(byWhat('GET /whoami during').extra.reads).toBeGreaterThan(0);
    const report = byWhat('reports collections csv');
    expect(report.baseline.label).toBe('sqlite3 -csv -header (the same report)');
    expect(report.extra.same_bytes_as_sqlite3).toBe(true);
    // The attempts export beside sqlite3 writing the same rows: a ratio, no target.
    const attempts = byWhat('collections attempts csv');
    expect(attempts.baseline.label).toBe('sqlite3 -csv -header (the same rows)');
    expect([attempts.target, attempts.pass, attempts.ratio > 0]).toEqual([null, null, true]);
    const month = byWhat('engine: collections execute').extra.month;
    expect(month.collections).toBe(200);
    // The floor wrote the month's attempts, each collection's state after each day it changed
    // (on 12 days since 022f4f1: a customer with a low-confidence pay pattern and no pay due
    // before the month ends is debited from what the account holds, not at month end).
    expect(byWhat("floor: the month's writes").extra).toMatchObject({ days: 12, attempts: month.attempts, updates: 200 });
    expect(Object.values(month.by_status).reduce((a: number, b) => a + (b as number), 0)).toBe(200);
    const settle = byWhat('settlements create');
    expect(settle.extra.total_collections_cents).toBe(month.collected_cents);
    expect(settle.extra.settlement_number).toBe('SETTLE-2026-11-001');
    expect(byWhat('policies import').extra.rows).toBe(200);
    // The import's floor: sqlite3's own import into the store's table shape (its rows counted), no target.
    const importFloor = byWhat('floor: sqlite3 .import');
    expect([importFloor.extra.rows, importFloor.target, importFloor.pass, importFloor.extra.import_over_floor > 0]).toEqual([200, null, null, true]);
    // The data is kept for the next run; temporary files are not.
    // The small part's month: a book of its own, its floor the same month's writes, its target in proportion (0.0015 s at 100).
    const small = body.results.filter((x: { part: string }) => x.part === 'small');
    const smallMonth = small[1].extra.month;
    expect(smallMonth.collections).toBe(100);
    expect(small[3].extra).toMatchObject({ attempts: smallMonth.attempts });
    expect(small[2].target).toBe('≤ 0.0015 s, ≤ 600 MiB RSS');
    // The next month: December lived on a copy of the month store, judged by the month's target.
    const next = byWhat('the next month:');
    expect(next.target).toBe('≤ 0.003 s, ≤ 600 MiB RSS');
    expect(next.extra.attempts).toBeGreaterThan(0);
    expect(readdirSync(dir).sort()).toEqual(['month-100.db', 'month-200.db', 'policies-100.csv', 'policies-100.db', 'policies-200.csv', 'policies-200.db']);
  });

  // Thirty processes at --scale 100, and the day from 2026-11-15 twice more on copies.
  it.skipIf(!tools)('days: the mid-month day keeps the best of --runs runs, the thirty sum the month\'s own', { timeout: 300_000 }, async () => {
    const r = await bench(['--scale', '100', '--runs', '3', '--json', '--only', 'days'], dir);
    expect(r.stderr).not.toContain('a command failed');
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.results.map((x: { what: string }) => x.what)).toEqual([
      'clock advance --days 1 from 2026-11-15',
      'the month day by day (30 × clock advance --days 1)',
    ]);
    const [day, thirty] = body.results;
    // The month's own run, then two on copies: each answered as the month's did (else the bench fails).
    expect(day.premia.runs_wall_s).toHaveLength(3);
    expect(day.premia.wall_s).toBe(Math.min(...day.premia.runs_wall_s));
    expect(day.target).toBe('≤ 1.5 s (at 1M)');
    expect(thirty.premia.runs_wall_s).toHaveLength(1);
    expect(thirty.extra.same_attempts_as_one_advance).toBe(true);
    // The thirty include the month's own run of that day, not the best of the three.
    expect(thirty.extra.day_max_s).toBeGreaterThanOrEqual(day.premia.runs_wall_s[0]);
    expect(r.stderr).toMatch(/one day from 2026-11-15: \d+\.\d\d s \(best of \d+\.\d\d, \d+\.\d\d, \d+\.\d\d s: the month's own, then again on copies\)/);
    // The copies are gone; the month store is kept for the next run.
    expect(readdirSync(dir).filter((f) => f.startsWith('days-'))).toEqual([]);
  });
});
