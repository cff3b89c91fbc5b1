/**
 * The PostgreSQL store itself: the schema the shared migrations make there, money as bigint
 * cents read back as exact numbers, a database of another application left alone, and the
 * connection failures (refused, wrong password, no such database) as a clear message, exit 1,
 * never the password.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend } from '../../src/backend/local/index.js';
import { asCents } from '../../src/domain/money.js';
import type { PremiaError } from '../../src/domain/errors.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { CopyIn } from '../../src/store/pg-copy.js';
import { openStore, type Store } from '../../src/store/store.js';
import { sql } from '../../src/store/kysely.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { FIXED_NOW } from '../helpers/local.js';
import { freshDatabase, noPg, onDatabase, pg } from './db.js';

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function open(url: string, create = true): Promise<Store> {
  const store = await openStore({ path: url, create });
  cleanups.push(() => store.close());
  return store;
}

/** A port on 127.0.0.1 that nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe.skipIf(noPg)(`the PostgreSQL store${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  it('the migrations make the schema: money and ids bigint, text compared byte by byte, applied once', async () => {
    const url = await freshDatabase('schema');
    const store = await open(url);
    expect(store.kind).toBe('postgres');
    const columns = await onDatabase<{ table_name: string; column_name: string; data_type: string; collation_name: string | null }>(
      url,
      `select table_name, column_name, data_type, collation_name from information_schema.columns
       where table_schema = 'public' and (table_name, column_name) in
         (('policies', 'collection_amount'), ('policies', 'id'), ('policies', 'policy_number'), ('settlements', 'period_net'), ('collections', 'amount_collected'))
       order by table_name, column_name`,
    );
    expect(columns).toEqual([
      { table_name: 'collections', column_name: 'amount_collected', data_type: 'bigint', collation_name: null },
      { table_name: 'policies', column_name: 'collection_amount', data_type: 'bigint', collation_name: null },
      { table_name: 'policies', column_name: 'id', data_type: 'bigint', collation_name: null },
      { table_name: 'policies', column_name: 'policy_number', data_type: 'text', collation_name: 'C' },
      { table_name: 'settlements', column_name: 'period_net', data_type: 'bigint', collation_name: null },
    ]);
    const applied = await onDatabase<{ name: string }>(url, 'select name from schema_migrations order by name');
    expect(applied.map((r) => r.name)).toEqual(MIGRATIONS.map(([name]) => name).sort());
    await store.close();
    cleanups.pop();
    // Opened again: nothing to apply, the same rows.
    const again = await open(url);
    expect(await onDatabase(url, 'select name from schema_migrations order by name')).toEqual(applied);
    await again.close();
    cleanups.pop();
  });

  it('bigint cents come back as exact numbers; one a double cannot hold is an error, never rounded', async () => {
    const store = await open(await freshDatabase('money'));
    const big = await sql<{ n: number; s: number }>`select (3000000000::bigint * 1000) + 7 as n, sum(x) as s from (values (2147483647::bigint), (2147483647::bigint)) v(x)`.execute(store.db);
    expect(big.rows[0]).toEqual({ n: 3_000_000_000_007, s: 4_294_967_294 });
    expect(typeof big.rows[0]!.s).toBe('number');
    await expect(sql`select 9007199254740993::bigint as n`.execute(store.db)).rejects.toThrow(/9007199254740993, beyond the integers premia reads exactly/);
  });

  it('a database of another application is refused and left untouched', async () => {
    const url = await freshDatabase('other');
    await onDatabase(url, 'create table invoices (id int primary key)');
    await expect(openStore({ path: url })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'db', code: 'NOT_A_PREMIA_STORE' }],
    });
    const tables = await onDatabase<{ tablename: string }>(url, "select tablename from pg_tables where schemaname = 'public'");
    expect(tables).toEqual([{ tablename: 'invoices' }]);
  });

  it('a database holding only views and sequences of another application is refused too, untouched', async () => {
    const url = await freshDatabase('views');
    await onDatabase(url, 'create view totals as select 1 as n');
    await onDatabase(url, 'create sequence invoice_numbers');
    const e = await openStore({ path: url }).catch((err: PremiaError) => err);
    expect((e as PremiaError).details).toEqual([{ field: 'db', code: 'NOT_A_PREMIA_STORE', message: 'the database holds tables, views or sequences premia did not make' }]);
    expect((e as PremiaError).message).toMatch(/ is a PostgreSQL database of another application \(views totals; sequences invoice_numbers\), not a premia store; premia leaves it untouched\./);
    expect(await onDatabase(url, "select tablename from pg_tables where schemaname = 'public'")).toEqual([]);
    expect(await onDatabase(url, "select relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' order by relname")).toEqual([
      { relname: 'invoice_numbers' },
      { relname: 'totals' },
    ]);
  });

  it('an empty database is not made a store when creation is off', async () => {
    const url = await freshDatabase('empty');
    await expect(openStore({ path: url, create: false })).rejects.toMatchObject({ details: [{ code: 'STORE_NOT_FOUND' }] });
    expect(await onDatabase(url, "select tablename from pg_tables where schemaname = 'public'")).toEqual([]);
  });

  it("premia's tables with no clock (a creation or a db copy stopped part way) are left so by a command that only reads", async () => {
    const url = await freshDatabase('halfmade');
    await (await openLocalBackend({ path: url, now: FIXED_NOW })).close(); // made: tables, then the world (clock, seed, the local client)
    await onDatabase(url, 'delete from clients');
    await onDatabase(url, 'delete from meta');
    await expect(openLocalBackend({ path: url, create: false, now: FIXED_NOW })).rejects.toMatchObject({ details: [{ code: 'STORE_NOT_FOUND' }] });
    expect(await onDatabase(url, 'select (select count(*)::int from meta) as meta, (select count(*)::int from clients) as clients')).toEqual([{ meta: 0, clients: 0 }]);
  });

  it('two processes opening one empty database at once make one store', async () => {
    const url = await freshDatabase('race');
    const [a, b] = await Promise.all([open(url), open(url)]);
    expect(a.kind).toBe('postgres');
    expect(b.kind).toBe('postgres');
    expect(await onDatabase(url, 'select count(*)::int as n from premia_store')).toEqual([{ n: 1 }]);
  });

  it('a COPY the server refuses while its writer waits to drain: end() throws the refusal, nothing is left unhandled', async () => {
    const url = await freshDatabase('copyin');
    const { Client } = createRequire(import.meta.url)('pg') as typeof import('pg');
    const client = new Client({ connectionString: url });
    await client.connect();
    cleanups.push(() => client.end());
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      await client.query('begin read only');
      const copy = new CopyIn(client, 'copy no_such_table from stdin with (format csv)');
      // More than the stream takes at once (its highWaterMark): the writer now waits to drain.
      copy.write(Buffer.alloc(256 * 1024, 'x,1\n'));
      expect(copy.ready()).toBeInstanceOf(Promise);
      await expect(copy.end()).rejects.toThrow('relation "no_such_table" does not exist');
      await client.query('rollback');
      // Unhandled rejections are reported once the microtasks have run: a macrotask later.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  it('ids follow SQLite: new rows take max(id) + 1, also after a rolled-back insert', async () => {
    const b = await openLocalBackend({ path: await freshDatabase('ids'), seed: 1, now: FIXED_NOW });
    cleanups.push(() => b.close());
    const input = { customer_id: 'C1', external_customer_ref: 'R1', product_code: 'LIFE_STANDARD', collection_amount: asCents(100) };
    await b.createPolicy({ ...input, policy_number: 'P-1' });
    await expect(b.store.transaction(async (trx) => {
      await trx.insertInto('policies').values({ client_id: 1, policy_number: 'P-X', customer_id: 'C', external_customer_ref: 'R', product_code: 'LIFE_STANDARD', collection_amount: asCents(1), status: 'active', created_at: 0, updated_at: 0 }).execute();
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    await b.createPolicy({ ...input, policy_number: 'P-2' });
    const ids = await b.store.db.selectFrom('policies').select(['id', 'policy_number']).orderBy('id').execute();
    expect(ids).toEqual([
      { id: 1, policy_number: 'P-1' },
      { id: 2, policy_number: 'P-2' },
    ]);
  });
});

describe.skipIf(noPg)('connection failures: exit 1, a clear message, never the password', () => {
  let dir = '';
  beforeAll(() => {
    const made = tempDir('premia-pg-cli-');
    dir = made.dir;
    cleanups.push(made.cleanup);
  });
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env });

  it('a refused connection', async () => {
    const port = await closedPort();
    const url = `postgres://premia:hunter2-secret@127.0.0.1:${port}/premia`;
    const r = await cli(['--db', url, 'policies', 'list']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Cannot connect to the PostgreSQL server at 127.0.0.1:${port}/premia: the connection was refused.`);
    expect(r.stderr).not.toContain('hunter2');
  });

  it('a wrong password (from PREMIA_DB)', async () => {
    const c = pg.cluster!;
    const url = `postgres://${c.user}:wrong-pass-${c.password.slice(0, 4)}x@127.0.0.1:${c.port}/postgres`;
    const r = await cli(['policies', 'list'], { PREMIA_DB: url });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`The PostgreSQL server at 127.0.0.1:${c.port}/postgres refused user ${c.user}: password authentication failed`);
    expect(r.stderr).not.toContain('wrong-pass');
    const j = await cli(['--json', 'policies', 'list'], { PREMIA_DB: url });
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stderr).error.code).toBe('STORE_UNAVAILABLE');
    expect(j.stderr).not.toContain('wrong-pass');
  });

  it('no password anywhere for a server that asks for one: STORE_UNAVAILABLE naming where to give it; ~/.pgpass and PGPASSWORD give it, silently', async () => {
    const c = pg.cluster!;
    const home = join(dir, 'home');
    mkdirSync(home, { recursive: true });
    const url = `postgres://${c.user}@127.0.0.1:${c.port}/postgres`;
    // The driver and the password file are read from the process's environment, as libpq reads them.
    const saved = { HOME: process.env.HOME, PGPASSWORD: process.env.PGPASSWORD, PGPASSFILE: process.env.PGPASSFILE };
    Object.assign(process.env, { HOME: home });
    delete process.env.PGPASSWORD;
    delete process.env.PGPASSFILE;
    try {
      for (const db of [url, url.replace('@', ':@')]) {
        const r = await cli(['--db', db, 'clock']);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(
          `error: The PostgreSQL server at 127.0.0.1:${c.port}/postgres asks for the password of user ${c.user} and none was given: put it in the URL (percent-encoded: postgres://user:password@host/db), in PGPASSWORD, or in ~/.pgpass.\n  (code STORE_UNAVAILABLE)\n`,
        );
      }
      writeFileSync(join(home, '.pgpass'), `127.0.0.1:${c.port}:*:${c.user}:${c.password}\n`, { mode: 0o600 });
      const fromFile = await cli(['--db', url, '--json', 'whoami']);
      expect([fromFile.code, fromFile.stderr]).toEqual([0, '']);
      process.env.HOME = join(dir, 'nowhere');
      process.env.PGPASSWORD = c.password;
      const fromEnv = await cli(['--db', url, '--json', 'whoami']);
      expect([fromEnv.code, fromEnv.stderr]).toEqual([0, '']);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('host, port and user from PGHOST, PGPORT and PGUSER: the messages name those, not the defaults', async () => {
    const c = pg.cluster!;
    const port = await closedPort();
    const saved = { PGHOST: process.env.PGHOST, PGPORT: process.env.PGPORT, PGUSER: process.env.PGUSER, PGPASSWORD: process.env.PGPASSWORD };
    try {
      Object.assign(process.env, { PGHOST: '127.0.0.1', PGPORT: String(port), PGUSER: c.user, PGPASSWORD: 'wrong-from-env' });
      const refused = await cli(['--db', 'postgres:///premia', 'clock']);
      expect([refused.code, refused.stderr]).toEqual([
        1,
        `error: Cannot connect to the PostgreSQL server at 127.0.0.1:${port}/premia: the connection was refused. Is the server running, and are the host and port in --db right?\n  (code STORE_UNAVAILABLE)\n`,
      ]);
      process.env.PGPORT = String(c.port);
      const wrong = await cli(['--db', 'postgres:///postgres', 'clock']);
      expect([wrong.code, wrong.stderr]).toEqual([
        1,
        `error: The PostgreSQL server at 127.0.0.1:${c.port}/postgres refused user ${c.user}: password authentication failed for user "${c.user}". Check the user and password in --db or PREMIA_DB (or PGPASSWORD / ~/.pgpass).\n  (code STORE_UNAVAILABLE)\n`,
      ]);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('a server that closes the connection at once: lost, not a timeout', async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const { port } = server.address() as { port: number };
    const r = await cli(['--db', `postgres://premia:hunter2-secret@127.0.0.1:${port}/premia`, 'clock']);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      `error: The PostgreSQL server at 127.0.0.1:${port}/premia closed or lost the connection (Connection terminated unexpectedly). Try again once it is back.\n  (code STORE_UNAVAILABLE)\n`,
    );
  });

  it('a connection the server ends between two statements of a transaction: STORE_UNAVAILABLE, never an unexpected failure', async () => {
    const c = pg.cluster!;
    const url = await freshDatabase('ended');
    const store = await open(url);
    const failure = await store
      .transaction(async (trx) => {
        const { pid } = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!;
        await onDatabase(`${c.base}/postgres`, 'select pg_terminate_backend($1)', [pid]);
        // Gone on the server's side (and its last word read by this process) before the next statement.
        while ((await onDatabase(`${c.base}/postgres`, 'select 1 from pg_stat_activity where pid = $1', [pid])).length > 0);
        await new Promise((resolve) => setImmediate(resolve));
        await sql`select 1`.execute(trx);
      })
      .then(
        () => null,
        (e: PremiaError) => e,
      );
    expect([failure?.code, failure?.message]).toEqual([
      'STORE_UNAVAILABLE',
      `The PostgreSQL server at 127.0.0.1:${c.port}/${url.split('/').pop()} closed or lost the connection (Client has encountered a connection error and is not queryable). Try again once it is back.`,
    ]);
    // The pool dropped that connection: the next transaction runs.
    expect((await sql<{ one: number }>`select 1 as one`.execute(store.db)).rows).toEqual([{ one: 1 }]);
  });

  it('a missing database', async () => {
    const c = pg.cluster!;
    const r = await cli(['--db', `${c.base}/no_such_db`, 'clock']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`has no database no_such_db: create it first (createdb no_such_db)`);
    expect(r.stderr).not.toContain(c.password);
  });

  it('a user that may only read, or may not create tables: exit 2 saying what to grant, never an unexpected failure', async () => {
    const c = pg.cluster!;
    const url = await freshDatabase('privs');
    const db = url.split('/').pop()!;
    const made = await cli(['--db', url, 'clock', 'set', '2026-10-31', '--seed', '1']);
    expect(made.code).toBe(0);
    const role = `reader_${db.split('_').pop()}`;
    await onDatabase(url, `create role ${role} login password 'reader-secret'`);
    await onDatabase(url, `grant select on all tables in schema public to ${role}`);
    await onDatabase(url, `grant select on all sequences in schema public to ${role}`);
    const asReader = url.replace(`${c.user}:${c.password}@`, `${role}:reader-secret@`);
    const read = await cli(['--db', asReader, '--json', 'clock']);
    expect([read.code, read.json().date]).toEqual([0, '2026-10-31']);
    const write = await cli(['--db', asReader, 'clock', 'set', '2026-10-30']);
    expect([write.code, write.stdout, write.stderr]).toEqual([
      2,
      '',
      `error: The PostgreSQL user ${role} lacks a privilege premia needs on the store at 127.0.0.1:${c.port}/${db} (permission denied for table meta); what it was doing was rolled back. premia reads and writes every table and sequence of its store: connect as the user that owns them, or grant this one those rights.\n  (code VALIDATION_ERROR)\n`,
    ]);
    const json = await cli(['--db', asReader, '--json', 'clock', 'set', '2026-10-30']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr).error.details).toEqual([{ field: 'db', code: 'STORE_READ_ONLY', message: `user ${role} lacks a privilege on 127.0.0.1:${c.port}/${db}` }]);
    expect(write.stderr + json.stderr).not.toContain('reader-secret');
    expect((await cli(['--db', url, '--json', 'clock'])).json().date).toBe('2026-10-31');

    // PostgreSQL 15: only the database's owner creates tables in schema public.
    const other = await freshDatabase('privs_empty');
    const otherDb = other.split('/').pop()!;
    const create = await cli(['--db', other.replace(`${c.user}:${c.password}@`, `${role}:reader-secret@`), 'clock', 'set', '2026-10-31']);
    expect([create.code, create.stdout, create.stderr]).toEqual([
      2,
      '',
      `error: The PostgreSQL user ${role} may not create premia's tables in 127.0.0.1:${c.port}/${otherDb} (permission denied for schema public); nothing was created. Make ${role} the database's owner (createdb -O ${role} ${otherDb}, or ALTER DATABASE ${otherDb} OWNER TO ${role}), or grant it CREATE on the schema.\n  (code VALIDATION_ERROR)\n`,
    ]);
    expect(await onDatabase(other, "select tablename from pg_tables where schemaname = 'public'")).toEqual([]);
  });

  it('a read-only database (a standby, default_transaction_read_only): exit 2 saying so, reads work, nothing written', async () => {
    const c = pg.cluster!;
    const url = await freshDatabase('readonly');
    const db = url.split('/').pop()!;
    expect((await cli(['--db', url, 'clock', 'set', '2026-10-31', '--seed', '1'])).code).toBe(0);
    await onDatabase(url, `alter database ${db} set default_transaction_read_only = on`);
    const policies = join(dir, 'readonly-policies.csv');
    writeFileSync(policies, 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,R1,P-1,LIFE_STANDARD,100.00\n');
    const read = await cli(['--db', url, '--json', 'clock']);
    expect([read.code, read.json().date]).toEqual([0, '2026-10-31']);
    for (const [args, statement] of [
      [['clock', 'set', '2026-10-30'], 'INSERT'],
      [['policies', 'import', policies], 'COPY FROM'],
    ] as const) {
      const r = await cli(['--db', url, ...args]);
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        '',
        `error: The PostgreSQL database at 127.0.0.1:${c.port}/${db} takes no writes (cannot execute ${statement} in a read-only transaction): it is a standby server, or default_transaction_read_only is on for it or for user ${c.user}. What premia was doing was rolled back. Point --db at the primary server, or make the database writable.\n  (code VALIDATION_ERROR)\n`,
      ]);
    }
    const json = await cli(['--db', url, '--json', 'clock', 'set', '2026-10-30']);
    expect(JSON.parse(json.stderr).error.details).toEqual([{ field: 'db', code: 'STORE_READ_ONLY', message: `127.0.0.1:${c.port}/${db} is read-only` }]);
    expect(await onDatabase(url, "select (select count(*)::int from policies) as policies, (select value from meta where key = 'clock_date') as clock")).toEqual([{ policies: 0, clock: '2026-10-31' }]);
  });

  it('a database not encoded in UTF8: no new store made in it; a character it lacks is a clear refusal, not a crash', async () => {
    const c = pg.cluster!;
    const names = [`latin_${Date.now().toString(36)}a`, `latin_${Date.now().toString(36)}b`];
    for (const name of names) await onDatabase(`${c.base}/postgres`, `create database ${name} encoding 'LATIN1' template template0 lc_collate 'C' lc_ctype 'C'`);
    const [fresh, marked] = names.map((name) => `${c.base}/${name}`) as [string, string];
    const refused = await cli(['--db', fresh, 'clock', 'set', '2026-10-31']);
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([
      2,
      '',
      `error: The database postgres://${c.user}:***@127.0.0.1:${c.port}/${names[0]} is encoded in LATIN1, which cannot hold every character premia stores (its text is Unicode, as on SQLite); nothing was created. Create the database with the UTF8 encoding (createdb -E UTF8 -T template0 …) and name it in the URL.\n  (code VALIDATION_ERROR)\n`,
    ]);
    expect(await onDatabase(fresh, "select tablename from pg_tables where schemaname = 'public'")).toEqual([]);
    // A store already in such a database (premia's mark made before this check): it opens, and a
    // character the encoding lacks is refused with what to do.
    await onDatabase(marked, 'create table premia_store (application_id integer not null)');
    await onDatabase(marked, `insert into premia_store values (${0x50524d41})`);
    expect((await cli(['--db', marked, 'clock', 'set', '2026-10-31'])).code).toBe(0);
    const latin = await cli(['--db', marked, '--json', 'keys', 'create', '--client', 'Zoë']);
    expect([latin.code, latin.json().client]).toEqual([0, 'Zoë']);
    const polish = await cli(['--db', marked, 'keys', 'create', '--client', 'Łódź Ins']);
    expect([polish.code, polish.stdout, polish.stderr]).toEqual([
      2,
      '',
      `error: The database at 127.0.0.1:${c.port}/${names[1]} cannot hold a character of this request in its encoding (character with byte sequence 0xc5 0x81 in encoding "UTF8" has no equivalent in encoding "LATIN1"); what premia was writing was rolled back. premia keeps text as Unicode: copy the store into a UTF8 database (createdb -E UTF8 -T template0 …, then premia db copy) and use that one.\n  (code VALIDATION_ERROR)\n`,
    ]);
    expect(await onDatabase(marked, 'select name from clients order by id')).toEqual([{ name: 'Local' }, { name: 'Zoë' }]);
  });

  it('a connection limit reached: STORE_UNAVAILABLE saying what opens connections and what to change', async () => {
    const c = pg.cluster!;
    const url = await freshDatabase('limit');
    const db = url.split('/').pop()!;
    const role = `limited_${db.split('_').pop()}`;
    await onDatabase(url, `create role ${role} login password 'limited-secret' connection limit 0`);
    const r = await cli(['--db', url.replace(`${c.user}:${c.password}@`, `${role}:limited-secret@`) + '?pool=4', 'clock']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      `error: The PostgreSQL server at 127.0.0.1:${c.port}/${db} refused another connection of user ${role}: too many connections for role "${role}". Each premia process opens up to 4 (?pool= or PREMIA_DB_POOL), premia serve twice that (its job thread keeps a pool of its own) and a clock advance one more: lower the pool, run fewer processes at once, or raise the limit (max_connections, or the CONNECTION LIMIT of the user or the database).\n  (code STORE_UNAVAILABLE)\n`,
    ]);
  });

  it('a search_path naming no schema that exists: exit 2 saying so, nothing created; a schema that exists holds the store', async () => {
    const c = pg.cluster!;
    const url = await freshDatabase('schemas');
    const db = url.split('/').pop()!;
    await onDatabase(url, 'create schema premia');
    const typo = `${url}?options=-csearch_path%3Dpremai`;
    for (const [args, verb] of [
      [['clock', 'set', '2026-10-31'], 'make'],
      [['clock'], 'find'],
    ] as const) {
      const r = await cli(['--db', typo, ...args]);
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        '',
        `error: The database postgres://${c.user}:***@127.0.0.1:${c.port}/${db}?options=-csearch_path%3Dpremai has no schema of its search_path (premai) that this user may use (none of them exists, or USAGE on it is not granted), so premia has nowhere to ${verb} its tables; nothing was created. Create the schema (CREATE SCHEMA …) or grant USAGE on it, or correct search_path (options=-csearch_path%3D… in the URL, or the user's setting).\n  (code VALIDATION_ERROR)\n`,
      ]);
    }
    expect(await onDatabase(url, "select schemaname, tablename from pg_tables where schemaname in ('public', 'premia')")).toEqual([]);
    const made = await cli(['--db', `${url}?options=-csearch_path%3Dpremia`, 'clock', 'set', '2026-10-31']);
    expect([made.code, made.stderr]).toEqual([0, 'Clock set to 2026-10-31.\n']);
    expect(await onDatabase(url, "select count(*)::int as n from pg_tables where schemaname = 'premia' and tablename = 'premia_store'")).toEqual([{ n: 1 }]);
  });

  it('whoami names the database with its password redacted', async () => {
    const c = pg.cluster!;
    const url = await freshDatabase('whoami');
    const r = await cli(['--db', url, '--json', 'whoami']);
    expect(r.code).toBe(0);
    expect(r.json().db).toBe(url.replace(`:${c.password}@`, ':***@'));
    expect(r.stdout + r.stderr).not.toContain(c.password);
    // Asking does not make the store.
    expect(await onDatabase(url, "select tablename from pg_tables where schemaname = 'public'")).toEqual([]);
    const text = await cli(['--db', url, 'whoami']);
    expect(text.stdout).toContain(`${url.replace(`:${c.password}@`, ':***@')} (not created yet)`);
  });
});
