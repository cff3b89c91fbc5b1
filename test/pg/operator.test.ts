/**
 * An operator's mistakes against a real PostgreSQL: connection settings past what the server or
 * Node can take.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { freshDatabase, noPg, pg } from './db.js';

describe.skipIf(noPg)(`an operator's PostgreSQL${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  const { dir, cleanup } = tempDir('premia-pg-operator-');
  afterAll(cleanup);
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env });

  it('a statement timeout, connect timeout or pool past its ceiling: exit 2 naming the range, never an unexpected failure', async () => {
    const url = await freshDatabase('ceil');
    const shown = url.replace(`:${pg.cluster!.password}@`, ':***@');
    const refused = (what: string, range: string, value: string, where: string) =>
      `error: ${what} must be a whole number from ${range}; got "${value}" (in ${where}).\n  (code VALIDATION_ERROR)\n`;
    const cases: Array<[string[], Record<string, string>, string]> = [
      // The server refused it on the first statement: "premia failed unexpectedly", exit 1.
      [['--db', `${url}?statement_timeout=2147483648`, 'whoami'], {}, refused('statement_timeout (?statement_timeout= or PREMIA_DB_STATEMENT_TIMEOUT, ms)', '0 to 2147483647', '2147483648', `${shown}?statement_timeout=2147483648`)],
      [['--db', url, 'whoami'], { PREMIA_DB_STATEMENT_TIMEOUT: '99999999999' }, refused('statement_timeout (?statement_timeout= or PREMIA_DB_STATEMENT_TIMEOUT, ms)', '0 to 2147483647', '99999999999', shown)],
      // Node cut the timer to 1 ms: every connection "timed out", exit 1.
      [['--db', `${url}?connect_timeout=99999999999`, 'whoami'], {}, refused('connect_timeout (seconds)', '0 to 2147483', '99999999999', `${shown}?connect_timeout=99999999999`)],
      [['--db', url, 'whoami'], { PREMIA_DB_POOL: '99999999999999999999' }, refused('pool (?pool= or PREMIA_DB_POOL)', '1 to 262143', '99999999999999999999', shown)],
    ];
    for (const [args, env, stderr] of cases) {
      // The store reads PREMIA_DB_POOL and PREMIA_DB_STATEMENT_TIMEOUT from the process's environment.
      Object.assign(process.env, env);
      try {
        const r = await cli(args, env);
        expect([r.code, r.stdout, r.stderr]).toEqual([2, '', stderr]);
      } finally {
        for (const k of Object.keys(env)) delete process.env[k];
      }
    }
    // The ceilings themselves are taken.
    const at = await cli(['--db', `${url}?statement_timeout=2147483647&connect_timeout=2147483&pool=262143`, '--json', 'whoami']);
    expect([at.code, at.stderr]).toEqual([0, '']);
  });
});
