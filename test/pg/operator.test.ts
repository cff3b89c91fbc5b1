/**
 * An operator's mistakes against a real PostgreSQL: connection settings past what the server or
 * Node can take, and another application's tables made in the store's schema after premia's
 * (premia's writes and `db copy --yes` leave them, their rows and their sequences alone).
 */
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, REPO, runCli, tempDir } from '../helpers/cli.js';
import { freshDatabase, noPg, onDatabase, pg } from './db.js';

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

  it("another application's table made in the store's schema: premia's writes leave its sequence alone, db copy --yes its rows", async () => {
    const url = await freshDatabase('shared');
    const made = await cli(['--db', url, 'policies', 'import', join(FIXTURES, 'policies.csv')]);
    expect(made.code).toBe(0);
    await onDatabase(url, 'create table orders (id bigint generated always as identity primary key, what text not null)');
    await onDatabase(url, "insert into orders (what) select 'order ' || n from generate_series(1, 10) n");
    await onDatabase(url, 'delete from orders where id > 3');
    const sequence = () => onDatabase<{ last_value: string; is_called: boolean }>(url, 'select last_value::text, is_called from orders_id_seq');
    expect(await sequence()).toEqual([{ last_value: '10', is_called: true }]);

    // A premia write lined every identity sequence of the schema up with its table: orders' next
    // id went back to 4, ids its application had given out and deleted given out again.
    const write = await cli(['--db', url, 'policies', 'create', '--policy-number', 'OPS-1', '--customer-id', 'C-OPS', '--external-ref', 'E-OPS', '--product-code', 'FUNERAL', '--amount', '10']);
    expect([write.code, write.stderr]).toEqual([0, 'Created policy OPS-1.\n']);
    expect(await sequence()).toEqual([{ last_value: '10', is_called: true }]);

    // db copy --yes replaces premia's tables only (it refused, exit 2, over orders before; a
    // source of another application's tables would have emptied and refilled them).
    const file = join(dir, 'shared.db');
    expect((await cli(['--db', file, 'policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
    const copied = await cli(['--yes', 'db', 'copy', '--from', file, '--to', url]);
    expect([copied.code, copied.stderr.split('\n').at(-2)]).toEqual([
      0,
      `Copied ${file} to ${url.replace(`:${pg.cluster!.password}@`, ':***@')} (replacing what it held: clients, policies, meta): 18 tables, 524 rows; counts and money totals identical.`,
    ]);
    expect(copied.stdout).not.toContain('orders');
    expect(await onDatabase(url, 'select id::int, what from orders order by id')).toEqual([
      { id: 1, what: 'order 1' },
      { id: 2, what: 'order 2' },
      { id: 3, what: 'order 3' },
    ]);
    expect(await sequence()).toEqual([{ last_value: '10', is_called: true }]);
    expect(await onDatabase(url, "select count(*)::int as n from policies where policy_number = 'OPS-1'")).toEqual([{ n: 0 }]);

    // One of its tables referring to premia's: the copy cannot replace premia's rows under it.
    await onDatabase(url, 'create table order_policies (order_id bigint references orders (id), policy_id bigint references policies (id))');
    await onDatabase(url, 'insert into order_policies values (1, (select min(id) from policies))');
    const refused = await cli(['--yes', 'db', 'copy', '--from', file, '--to', url]);
    expect([refused.code, refused.stdout, refused.stderr.split('\n').slice(-3).join('\n')]).toEqual([
      6,
      '',
      `error: The target ${url.replace(`:${pg.cluster!.password}@`, ':***@')} holds tables premia did not make that refer to premia's (order_policies → policies), so premia's rows cannot be replaced under them; nothing was copied and those tables are untouched. Copy into another database, or drop those references first.\n  (code CONFLICT)\n`,
    ]);
    expect(await onDatabase(url, 'select count(*)::int as n from order_policies')).toEqual([{ n: 1 }]);
    expect(await onDatabase(url, 'select count(*)::int as n from policies')).toEqual([{ n: 520 }]);
  });

  it('two schemas of one database are two stores: db copy from one to the other is made; one schema named two ways is refused', async () => {
    const url = await freshDatabase('schemas');
    await onDatabase(url, 'create schema a; create schema b');
    const inSchema = (name: string, spelt = `-csearch_path%3D${name}`) => `${url}?options=${spelt}`;
    const file = join(dir, 'schemas.db');
    expect((await cli(['--db', file, 'policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
    expect((await cli(['db', 'copy', '--from', file, '--to', inSchema('a')])).code).toBe(0);
    // Refused before as "the same store" (exit 2): the database alone was compared.
    const across = await cli(['db', 'copy', '--from', inSchema('a'), '--to', inSchema('b')]);
    expect([across.code, across.stderr.split('\n').at(-2)]).toEqual([
      0,
      `Copied ${inSchema('a').replace(`:${pg.cluster!.password}@`, ':***@')} to ${inSchema('b').replace(`:${pg.cluster!.password}@`, ':***@')}: 18 tables, 524 rows; counts and money totals identical.`,
    ]);
    expect(await onDatabase(url, 'select (select count(*)::int from a.policies) as a, (select count(*)::int from b.policies) as b')).toEqual([{ a: 520, b: 520 }]);
    // Schema a written another way, and public named or reached by the default search path: the same store.
    expect((await cli(['db', 'copy', '--from', file, '--to', url])).code).toBe(0);
    for (const [from, to] of [
      [inSchema('a'), inSchema('a', '-c%20search_path%3Da')],
      [url, inSchema('public')],
    ] as const) {
      const same = await cli(['--yes', 'db', 'copy', '--from', from, '--to', to]);
      expect([same.code, same.stdout, same.stderr.split('\n').slice(-3).join('\n')]).toEqual([2, '', 'error: --from and --to name the same store: copy it to another one.\n  (code USAGE_ERROR)\n']);
    }
  });

  it('db copy: a store it cannot reach is told by the option that named it (--from, --to), not --db, and without the password', async () => {
    const c = pg.cluster!;
    const file = join(dir, 'reach.db');
    expect((await cli(['--db', file, 'clock', 'set', '2026-10-31'])).code).toBe(0);
    const target = `postgres://${c.user}:wrong-pw-${c.password.slice(0, 4)}@127.0.0.1:${c.port}/postgres`;
    const wrong = await cli(['db', 'copy', '--from', file, '--to', target]);
    expect([wrong.code, wrong.stdout, wrong.stderr.split('\n').slice(1).join('\n')]).toEqual([
      1,
      '',
      `error: The PostgreSQL server at 127.0.0.1:${c.port}/postgres refused user ${c.user}: password authentication failed for user "${c.user}". Check the user and password in --to (or PGPASSWORD / ~/.pgpass).\n  (code STORE_UNAVAILABLE)\n`,
    ]);
    expect(wrong.stderr).not.toContain('wrong-pw');
    const missing = await cli(['db', 'copy', '--from', `${c.base}/no_such_db`, '--to', join(dir, 'reach-back.db')]);
    expect([missing.code, missing.stderr.split('\n').slice(1).join('\n')]).toEqual([
      1,
      `error: The PostgreSQL server at 127.0.0.1:${c.port}/no_such_db has no database no_such_db: create it first (createdb no_such_db), or name another in --from.\n  (code STORE_UNAVAILABLE)\n`,
    ]);
    // --db keeps its words.
    const db = await cli(['--db', target, 'clock']);
    expect(db.stderr).toContain('Check the user and password in --db or PREMIA_DB (or PGPASSWORD / ~/.pgpass).');
  });

  it('the password from ~/.pgpass alone: clock advance (its own connection for the advance lock) prints nothing of the driver', async () => {
    const c = pg.cluster!;
    const url = await freshDatabase('pgpass');
    expect((await cli(['--db', url, 'clock', 'set', '2026-10-31'])).code).toBe(0);
    const home = join(dir, 'pgpass-home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, '.pgpass'), `127.0.0.1:${c.port}:*:${c.user}:${c.password}\n`, { mode: 0o600 });
    const env: Record<string, string | undefined> = { ...process.env, HOME: home, NO_COLOR: '1' };
    delete env.PGPASSWORD;
    delete env.PGPASSFILE;
    // The built premia, as an operator runs it: the driver's warning goes to the process's stderr.
    const r = spawnSync(process.execPath, [join(REPO, 'bin', 'premia.js'), '--yes', '--db', url.replace(`:${c.password}@`, '@'), 'clock', 'advance', '--days', '1'], {
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect([r.status, r.stderr]).toEqual([0, 'Clock moved from 2026-10-31 to 2026-11-01: 1 day lived, 0.00 collected.\n']);
  });

  it('a unix-socket directory with no server in it: STORE_UNAVAILABLE naming the socket, never an unexpected failure', async () => {
    const c = pg.cluster!;
    const socketDir = join(dir, 'no-server');
    mkdirSync(socketDir, { recursive: true });
    for (const url of [
      `postgres://${c.user}:${c.password}@${encodeURIComponent(socketDir)}:${c.port}/premia`,
      `postgres://${c.user}:${c.password}@localhost/premia?host=${socketDir}&port=${c.port}`,
    ]) {
      const r = await cli(['--db', url, 'clock']);
      expect([r.code, r.stdout, r.stderr]).toEqual([
        1,
        '',
        `error: Cannot connect to the PostgreSQL server at ${socketDir}:${c.port}/premia: there is no server socket ${socketDir}/.s.PGSQL.${c.port}. Is the server running, and are the socket directory (the host) and port in --db right?\n  (code STORE_UNAVAILABLE)\n`,
      ]);
      const j = await cli(['--json', '--db', url, 'clock']);
      expect([j.code, JSON.parse(j.stderr).error.code]).toEqual([1, 'STORE_UNAVAILABLE']);
      expect(j.stderr).not.toContain(c.password);
    }
  });

  it('db copy stopped by Ctrl-C after a table: says so, exit 130, the target as it was (new: empty; replaced: what it held)', async () => {
    const file = join(dir, 'ctrlc.db');
    expect((await cli(['--db', file, 'policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
    const url = await freshDatabase('ctrlc');
    const shown = url.replace(`:${pg.cluster!.password}@`, ':***@');
    // Ctrl-C pressed once the policies are in (the copy's own progress, not a clock, says when).
    const pressedAfterPolicies = (args: string[]) => {
      const signals = new EventEmitter();
      return runCli(args, {
        cwd: dir,
        signals,
        prepare: (ctx) => {
          const copy = ctx.copyStore;
          ctx.copyStore = (request) =>
            copy({
              ...request,
              onTable: (table, rows) => {
                request.onTable?.(table, rows);
                if (table === 'policies') signals.emit('SIGINT');
              },
            });
        },
      });
    };
    // Before, a Ctrl-C reached no handler here: the copy went on and committed (exit 0).
    const fresh = await pressedAfterPolicies(['db', 'copy', '--from', file, '--to', url]);
    expect([fresh.code, fresh.stdout, fresh.stderr.split('\n').slice(1).join('\n')]).toEqual([
      130,
      '',
      `Stopped by Ctrl-C: nothing was copied (the copy was rolled back whole); ${shown} has premia's tables and nothing in them, and a rerun of the copy takes it as empty.\n`,
    ]);
    expect(await onDatabase(url, 'select (select count(*)::int from policies) as policies, (select count(*)::int from clients) as clients')).toEqual([{ policies: 0, clients: 0 }]);
    expect((await cli(['db', 'copy', '--from', file, '--to', url])).code).toBe(0);
    // Replacing a store: it keeps what it held.
    await onDatabase(url, "update policies set collection_amount = 1 where policy_number = 'POL-2026001'");
    const replacing = await pressedAfterPolicies(['--yes', 'db', 'copy', '--from', file, '--to', url]);
    expect([replacing.code, replacing.stderr.split('\n').at(-2)]).toEqual([130, `Stopped by Ctrl-C: nothing was copied (the copy was rolled back whole); ${shown} holds what it held before.`]);
    expect(await onDatabase(url, "select collection_amount::int as cents, (select count(*)::int from policies) as n from policies where policy_number = 'POL-2026001'")).toEqual([{ cents: 1, n: 520 }]);
  });
});
