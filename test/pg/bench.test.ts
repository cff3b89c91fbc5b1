/**
 * Smoke test of `npm run bench -- --db postgres://…` (bench/pg.js) at a tiny scale, on the run's
 * throwaway cluster: every PostgreSQL line is made, the import takes every row and the report is
 * byte for byte psql's `\copy` of the same query. No timing is asserted.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../helpers/cli.js';
import { nodeScript } from '../e2e/spawn.js';
import { noPg, onDatabase, pg } from './db.js';

const tools = existsSync('/usr/bin/time') && spawnSync('psql', ['--version'], { stdio: 'ignore' }).status === 0;

describe.skipIf(noPg || !tools)(`bench --db postgres${noPg ? ` (skipped: ${pg.reason})` : tools ? '' : ' (skipped: no /usr/bin/time or psql)'}`, () => {
  const { dir, cleanup } = tempDir('premia-pg-bench-');
  afterAll(() => cleanup());

  it('measures the import, the month and the report against psql, and removes its databases', async () => {
    const url = `${pg.cluster!.base}/postgres`;
    const r = await nodeScript(join(REPO, 'bench', 'run.js'), ['--db', url, '--scale', '200', '--runs', '1', '--json'], {
      cwd: REPO,
      env: { PREMIA_BENCH_DATA: dir },
    });
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { results: Array<{ part: string; what: string; ratio: number | null; extra?: Record<string, unknown> }> };
    expect(body.results.map((x) => x.what)).toEqual([
      'PostgreSQL: policies import, 200 rows',
      "PostgreSQL: the same against psql into a bare table of the CSV's columns",
      'PostgreSQL: clock set 2026-10-31',
      'PostgreSQL: collections execute (200 queued)',
      'PostgreSQL: clock advance --to 2026-11-30 (30 days)',
      'PostgreSQL: clock advance --to 2026-11-30 in 16 shards, one process',
      'PostgreSQL: clock advance --to 2026-11-30 in 16 shards, beside 1 premia engine work',
      'PostgreSQL: reports collections csv, 200 rows',
    ]);
    // The months in shards gave the attempts of the month in one piece; the worker lived some of them.
    const sharded = body.results.filter((x) => x.what.includes('in 16 shards'));
    expect(sharded.map((x) => x.extra?.same_attempts_as_one_piece)).toEqual([true, true]);
    expect(sharded[1]!.extra?.workers_shards).toEqual(expect.any(Number));
    const report = body.results.find((x) => x.part === 'pg-report')!;
    expect(report.extra?.same_bytes_as_psql).toBe(true);
    expect(report.ratio).toBeGreaterThan(0);
    expect(body.results[0]!.extra?.rows).toBe(200);
    const left = await onDatabase<{ datname: string }>(url, "select datname from pg_database where datname like 'premia_bench_%'");
    expect(left).toEqual([]);
  });
});
