import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rejection } from '../helpers/errors.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { DEFAULT_BUSY_TIMEOUT_MS, openSqliteStore as openStore, PREMIA_APPLICATION_ID, type SqliteStore as Store } from '../../src/store/store.js';
import { REPO, tempDir } from '../helpers/cli.js';
import { asCents } from '../../src/domain/money.js';

/** The tables of the foundation and collections migrations (later migrations add more). */
const FOUNDATION_TABLES = [
  'attempts',
  'bank_snapshots',
  'bank_transactions',
  'clients',
  'collections',
  'executions',
  'meta',
  'plan_batches',
  'policies',
  'policy_amount_changes',
  'policy_status_changes',
  'schema_migrations',
];
const MIGRATION_NAMES = MIGRATIONS.map(([name]) => name);
/** Tables that are not client data: store settings, the migration log, the clients themselves, the engine image's head and inputs version. */
const NOT_CLIENT_DATA = ['meta', 'schema_migrations', 'clients', 'engine_image_head', 'engine_inputs', 'engine_shards'];

function tables(raw: Database.Database): string[] {
  return raw
    .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
    .pluck()
    .all() as string[];
}

/** The whole schema as SQLite stores it, plus the migration log. */
function schemaOf(path: string): { schema: unknown[]; migrations: unknown[] } {
  const raw = new Database(path, { readonly: true });
  try {
    return {
      schema: raw.prepare('select type, name, sql from sqlite_master order by type, name').all(),
      migrations: raw.prepare('select name, applied_at from schema_migrations order by name').all(),
    };
  } finally {
    raw.close();
  }
}

let dir: string;
let cleanup: () => void;
const open: Store[] = [];

beforeEach(() => {
  ({ dir, cleanup } = tempDir('premia-store-'));
});

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanup();
});

async function openAt(path: string): Promise<Store> {
  const store = await openStore({ path });
  open.push(store);
  return store;
}

async function closeAll(): Promise<void> {
  for (const s of open.splice(0)) await s.close();
}

describe('openStore on a file', () => {
  it('migration names are unique and sort in the order they apply', () => {
    expect(MIGRATION_NAMES.slice(0, 2)).toEqual(['0001_foundation', '0002_collections']);
    expect([...MIGRATION_NAMES].sort()).toEqual(MIGRATION_NAMES);
    expect(new Set(MIGRATION_NAMES).size).toBe(MIGRATION_NAMES.length);
  });

  it('creates the tables and records every migration', async () => {
    const store = await openAt(join(dir, 'premia.db'));
    expect(tables(store.raw)).toEqual(expect.arrayContaining(FOUNDATION_TABLES));
    expect(store.raw.prepare('select name from schema_migrations order by name').pluck().all()).toEqual(MIGRATION_NAMES);
  });

  it('every table of client data has a client_id column', async () => {
    const store = await openAt(join(dir, 'premia.db'));
    const missing = tables(store.raw)
      .filter((t) => !NOT_CLIENT_DATA.includes(t))
      .filter((t) => !(store.raw.pragma(`table_info(${t})`) as Array<{ name: string }>).some((c) => c.name === 'client_id'));
    expect(missing).toEqual([]);
  });

  it('uses WAL, foreign keys, a busy timeout and FULL sync', async () => {
    const store = await openAt(join(dir, 'premia.db'));
    expect(store.raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.raw.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.raw.pragma('busy_timeout', { simple: true })).toBe(DEFAULT_BUSY_TIMEOUT_MS);
    expect(DEFAULT_BUSY_TIMEOUT_MS).toBe(30_000);
    expect(store.raw.pragma('synchronous', { simple: true })).toBe(2);
    // WAL persists in the file: a plain connection sees it too.
    await closeAll();
    const raw = new Database(join(dir, 'premia.db'), { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('enforces foreign keys', async () => {
    const store = await openAt(join(dir, 'premia.db'));
    const insert = store.db.insertInto('policies').values({
      client_id: 999,
      policy_number: 'P1',
      customer_id: 'C1',
      external_customer_ref: 'E1',
      product_code: 'X',
      collection_amount: asCents(100),
      status: 'active',
      created_at: 0,
      updated_at: 0,
    });
    await expect(insert.execute()).rejects.toThrow(/FOREIGN KEY constraint failed/);
    expect(await store.db.selectFrom('policies').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).toEqual({ n: 0 });
  });

  it('reopening changes nothing: same schema, same migration log, same file bytes', async () => {
    const path = join(dir, 'premia.db');
    await openAt(path);
    await closeAll();
    const schema = schemaOf(path);
    const bytes = readFileSync(path);
    await openAt(path);
    await closeAll();
    expect(schemaOf(path)).toEqual(schema);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('applies only the missing migrations to a store written by an older premia', async () => {
    const path = join(dir, 'premia.db');
    await openAt(path);
    await closeAll();
    const first = schemaOf(path);
    const raw = new Database(path);
    // 0002's tables, and 0009's (its triggers watch 0002's tables): both are applied again.
    for (const t of ['engine_image', 'engine_image_head', 'engine_inputs', 'bank_snapshots', 'bank_transactions', 'plan_batches', 'attempts', 'collections', 'executions']) {
      raw.exec(`drop table ${t}`);
    }
    raw.exec('drop trigger engine_inputs_policies');
    raw.prepare("delete from schema_migrations where name in ('0002_collections', '0009_engine_image', '0011_attempts_by_date')").run();
    raw.close();
    const store = await openAt(path);
    expect(tables(store.raw)).toEqual(expect.arrayContaining(FOUNDATION_TABLES));
    await closeAll();
    const upgraded = schemaOf(path);
    expect(upgraded.schema).toEqual(first.schema);
    // The others keep their original timestamps: they were not applied again.
    const again = ['0002_collections', '0009_engine_image', '0011_attempts_by_date'];
    const others = (m: unknown[]) => (m as Array<{ name: string }>).filter((r) => !again.includes(r.name));
    expect(others(upgraded.migrations)).toEqual(others(first.migrations));
    expect((upgraded.migrations as Array<{ name: string }>).map((r) => r.name)).toEqual(MIGRATION_NAMES);
  });

  it('0011 keeps every attempt of an older store, ids and all, and the same rule: one attempt per collection a day', async () => {
    const path = join(dir, 'premia.db');
    await openAt(path);
    await closeAll();
    const fresh = schemaOf(path);
    // The attempts table as 0002 made it, with attempts in it (and only the collections they name).
    const raw = new Database(path);
    raw.pragma('foreign_keys = OFF');
    raw.exec('drop table attempts');
    raw.exec(`create table "attempts" ("id" integer primary key, "client_id" integer not null references "clients" ("id"), "collection_id" integer not null references "collections" ("id"), "period_month" text not null, "date" text not null, "amount" integer not null check (amount > 0), "outcome" text not null check (outcome = 'SUCCESS' or outcome = 'FAILED'), "failure_reason" text, constraint "attempts_collection_date_uq" unique ("collection_id", "date"))`);
    raw.exec('create index "attempts_client_period_idx" on "attempts" ("client_id", "period_month")');
    // Their client and collections (the attempts' foreign keys are checked as the rows are copied).
    raw.prepare("insert into clients (id, name, created_at) values (1, 'local', 0)").run();
    const collection = raw.prepare(
      "insert into collections (id, client_id, execution_id, policy_id, period_month, customer_id, external_customer_ref, policy_number, product_code, amount_due, status) values (?, 1, 1, 1, '2026-11', 'C', 'E', ?, 'P', 100000, 'UNPAID')",
    );
    collection.run(10, 'POL-10');
    collection.run(20, 'POL-20');
    const insert = raw.prepare('insert into attempts values (?, 1, ?, ?, ?, ?, ?, ?)');
    const rows = [
      [7, 20, '2026-11', '2026-11-03', 500, 'FAILED', 'INSUFFICIENT_FUNDS'],
      [9, 10, '2026-11', '2026-11-02', 12345, 'SUCCESS', null],
      [12, 20, '2026-11', '2026-11-04', 500, 'SUCCESS', null],
    ] as const;
    for (const r of rows) insert.run(...r);
    raw.prepare("delete from schema_migrations where name = '0011_attempts_by_date'").run();
    raw.close();
    const store = await openAt(path);
    expect(store.raw.prepare('select * from attempts order by id').raw().all()).toEqual(rows.map(([id, c, p, d, a, o, f]) => [id, 1, c, p, d, a, o, f]));
    expect(() => store.raw.prepare("insert into attempts values (13, 1, 20, '2026-11', '2026-11-04', 1, 'FAILED', null)").run()).toThrow(/UNIQUE constraint failed: attempts.date, attempts.collection_id/);
    store.raw.prepare("insert into attempts values (13, 1, 20, '2026-11', '2026-11-05', 1, 'FAILED', null)").run();
    await closeAll();
    expect(schemaOf(path).schema).toEqual(fresh.schema);
  });

  it('refuses a store written by a newer premia (STORE_TOO_NEW) and leaves it unchanged', async () => {
    const path = join(dir, 'premia.db');
    await openAt(path);
    await closeAll();
    const raw = new Database(path);
    raw.prepare("insert into schema_migrations (name, applied_at) values ('0099_from_the_future', 1)").run();
    raw.close();
    const bytes = readFileSync(path);
    const schema = schemaOf(path);

    const e = await rejection(openStore({ path }));
    expect(e.code).toBe('STORE_TOO_NEW');
    expect(e.exitCode).toBe(1);
    expect(e.message).toBe(
      'This store was written by a newer premia (it has schema migration 0099_from_the_future, which this version does not know). ' +
        'Upgrade premia to use it; the store was not changed.',
    );
    expect(existsSync(`${path}-wal`)).toBe(false); // nothing was written beside it either
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(schemaOf(path)).toEqual(schema);
  });

  it('a file that is not a database gives a clear error and is left alone', async () => {
    const path = join(dir, 'notes.txt');
    const text = 'customer_id,external_customer_ref\n'.repeat(200);
    writeFileSync(path, text);
    const e = await rejection(openStore({ path }));
    expect(e.code).toBe('VALIDATION_ERROR'); // --db at the wrong file: the user's mistake (issue 10)
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(`${path} is not a premia store: the file is not an SQLite database. premia leaves it untouched; choose another file with --db.`);
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it("another application's SQLite database is refused and left byte for byte as it was", async () => {
    const path = join(dir, 'crm.db');
    const other = new Database(path);
    other.exec("create table customers (id integer primary key, name text); insert into customers (name) values ('Thandi'), ('Pieter')");
    other.close();
    const bytes = readFileSync(path);
    const e = await rejection(openStore({ path }));
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(
      `${path} is an SQLite database of another application (tables customers), not a premia store; premia leaves it untouched. Choose another file with --db.`,
    );
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  // With no table of its data yet, another application's database still says whose it is: its
  // header (application_id, user_version; premia sets only the first) or any schema object.
  it.each([
    ['its application_id and user_version', ['pragma application_id = 1234', 'pragma user_version = 7'], 'application_id 1234; user_version 7'],
    ['its user_version only', ['pragma user_version = 3'], 'user_version 3'],
    ['only a view', ['create view v as select 1'], 'views v'],
    ["another tool's schema_migrations", ["create table schema_migrations (version text primary key); insert into schema_migrations values ('20240101000000')"], 'tables schema_migrations'],
  ])('a database of another application (%s) is refused before anything is written, byte for byte as it was', async (_, statements, what) => {
    const path = join(dir, 'app.db');
    const other = new Database(path);
    for (const statement of statements) other.exec(statement);
    other.close();
    const bytes = readFileSync(path);
    const e = await rejection(openStore({ path }));
    expect([e.code, e.exitCode]).toEqual(['VALIDATION_ERROR', 2]);
    expect(e.message).toBe(`${path} is an SQLite database of another application (${what}), not a premia store; premia leaves it untouched. Choose another file with --db.`);
    expect(e.details).toEqual([{ field: 'db', code: 'NOT_A_PREMIA_STORE', message: `the database is another application's (${what})` }]);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect([existsSync(`${path}-wal`), existsSync(`${path}-shm`), existsSync(`${path}-journal`)]).toEqual([false, false, false]);
  });

  it('an empty SQLite database (a header, no object) is claimed; a store of a premia before application_id is opened and marked', async () => {
    const empty = join(dir, 'empty.db');
    const raw = new Database(empty);
    raw.exec('create table t (a); drop table t');
    raw.close();
    expect(readFileSync(empty).length).toBeGreaterThan(0);
    const claimed = await openAt(empty);
    expect(claimed.raw.pragma('application_id', { simple: true })).toBe(PREMIA_APPLICATION_ID);
    await closeAll();
    const old = join(dir, 'old.db');
    await openAt(old);
    await closeAll();
    const unmarked = new Database(old);
    unmarked.pragma('application_id = 0');
    unmarked.close();
    const reopened = await openAt(old);
    expect(reopened.raw.pragma('application_id', { simple: true })).toBe(PREMIA_APPLICATION_ID);
    expect(reopened.raw.prepare('select name from schema_migrations order by name').pluck().all()).toEqual(MIGRATION_NAMES);
  });

  it('marks its stores with an application_id; an empty SQLite file is claimed', async () => {
    const made = await openAt(join(dir, 'premia.db'));
    expect(made.raw.pragma('application_id', { simple: true })).toBe(PREMIA_APPLICATION_ID);
    await made.close();
    const empty = join(dir, 'empty.db');
    new Database(empty).close();
    const claimed = await openAt(empty);
    expect(claimed.raw.pragma('application_id', { simple: true })).toBe(0x50524d41);
    expect(tables(claimed.raw)).toEqual(expect.arrayContaining(FOUNDATION_TABLES));
    await claimed.close();
  });

  it('a path in a missing directory gives a clear error', async () => {
    const path = join(dir, 'no', 'such', 'dir', 'premia.db');
    const e = await rejection(openStore({ path }));
    expect(e.code).toBe('INTERNAL');
    expect(e.message).toMatch(new RegExp(`^Cannot open the store at ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
  });

  it('a failed transaction leaves nothing behind', async () => {
    const store = await openAt(join(dir, 'premia.db'));
    await expect(
      store.transaction(async (trx) => {
        await trx.insertInto('meta').values({ key: 'a', value: '1' }).execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.db.selectFrom('meta').selectAll().where('key', '=', 'a').execute()).toEqual([]);
    await store.transaction((trx) => trx.insertInto('meta').values({ key: 'a', value: '2' }).execute());
    expect(await store.db.selectFrom('meta').selectAll().where('key', '=', 'a').execute()).toEqual([{ key: 'a', value: '2' }]);
  });
});

describe('openStore on :memory:', () => {
  it('works: migrated, foreign keys on, readable and writable', async () => {
    const store = await openAt(':memory:');
    expect(store.path).toBe(':memory:');
    expect(tables(store.raw)).toEqual(expect.arrayContaining(FOUNDATION_TABLES));
    expect(store.raw.prepare('select name from schema_migrations order by name').pluck().all()).toEqual(MIGRATION_NAMES);
    expect(store.raw.pragma('journal_mode', { simple: true })).toBe('memory');
    expect(store.raw.pragma('foreign_keys', { simple: true })).toBe(1);
    await store.db.insertInto('meta').values({ key: 'k', value: 'v' }).execute();
    expect(await store.db.selectFrom('meta').selectAll().execute()).toEqual([{ key: 'k', value: 'v' }]);
    const batches: unknown[][] = [];
    for await (const rows of store.streamRows('select key, value from meta', [], { raw: true })) batches.push(rows);
    expect(batches).toEqual([[['k', 'v']]]);
  });

  it('two :memory: stores are separate', async () => {
    const a = await openAt(':memory:');
    const b = await openAt(':memory:');
    await a.db.insertInto('meta').values({ key: 'k', value: 'a' }).execute();
    expect(await b.db.selectFrom('meta').selectAll().execute()).toEqual([]);
  });
});

describe('opening a store another connection is writing', () => {
  // The state a fresh file is in while the first premia writes its header: a write transaction
  // in rollback-journal mode. SQLite then refuses `journal_mode = WAL` with SQLITE_BUSY at once,
  // without calling the busy handler, so openStore has to wait by itself.
  function holdWriteLock(path: string): Database.Database {
    const other = new Database(path);
    other.exec('begin immediate');
    other.exec('create table held (x)');
    return other;
  }

  it('waits for the other writer instead of failing', async () => {
    const path = join(dir, 'fresh.db');
    const other = holdWriteLock(path);
    // The other writer lets go once the switch to WAL has been refused (openStore then waits and
    // tries again): after an event, not after a time, which a busy machine could make come before
    // openStore first tried, or after its busy timeout.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the connection's own this, and put back
    const pragma = Database.prototype.pragma;
    let refused = 0;
    Database.prototype.pragma = function (this: Database.Database, ...args: Parameters<typeof pragma>) {
      try {
        return pragma.apply(this, args);
      } catch (e) {
        if (this !== other && /^journal_mode = WAL$/.test(args[0]) && String((e as { code?: unknown }).code).startsWith('SQLITE_BUSY') && other.open) {
          refused++;
          other.exec('rollback');
          other.close();
        }
        throw e;
      }
    };
    try {
      const store = await openStore({ path, busyTimeoutMs: 10_000 });
      open.push(store);
      expect(refused).toBe(1); // it did find the other writer there, and waited for it
      expect(store.raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(tables(store.raw)).toEqual(expect.arrayContaining(FOUNDATION_TABLES));
      expect(tables(store.raw)).not.toContain('held'); // the other writer rolled back
    } finally {
      Database.prototype.pragma = pragma;
      if (other.open) other.close();
    }
  });

  it('gives up with STORE_BUSY when the other writer holds on past the busy timeout', async () => {
    const path = join(dir, 'fresh.db');
    const other = holdWriteLock(path);
    try {
      const e = await rejection(openStore({ path, busyTimeoutMs: 100 }));
      expect(e.code).toBe('STORE_BUSY');
      expect(e.exitCode).toBe(1);
      expect(e.message).toBe(`The store ${path} is busy (another process holds it); nothing was done. Try again shortly.`);
    } finally {
      other.exec('rollback');
      other.close();
    }
  });

  it('a write of an open store held past the busy timeout is STORE_BUSY too, in a transaction or on the connection', async () => {
    const path = join(dir, 'held.db');
    const store = await openStore({ path, busyTimeoutMs: 100 });
    open.push(store);
    const other = new Database(path);
    other.exec('begin immediate');
    try {
      const inTransaction = await rejection(store.transaction(async (trx) => trx.insertInto('meta').values({ key: 'k', value: 'v' }).execute()));
      expect([inTransaction.code, inTransaction.exitCode]).toEqual(['STORE_BUSY', 1]);
      expect(inTransaction.message).toBe(`The store ${path} is busy (another process holds it); nothing was done. Try again shortly.`);
      const onConnection = await rejection(store.withConnection(async (raw) => raw.exec('begin immediate')));
      expect(onConnection.code).toBe('STORE_BUSY');
    } finally {
      other.exec('rollback');
      other.close();
    }
    expect(await store.db.selectFrom('meta').select('key').where('key', '=', 'k').execute()).toEqual([]);
  });
});

describe('a write waiting for another connection\'s write lock', () => {
  // SQLite's own busy wait held the thread for as long as the other writer did (up to the busy
  // timeout): premia serve answered no one meanwhile, and the CLI could not say why it waited.
  it('waits without holding the thread, says so once, then writes', async () => {
    const path = join(dir, 'held.db');
    let told = 0;
    let noticed!: () => void;
    const notice = new Promise<void>((resolve) => (noticed = resolve));
    const store = await openStore({ path, busyTimeoutMs: 60_000, lockWait: { onWait: () => (told++, noticed(), undefined) } });
    open.push(store);
    const other = new Database(path);
    other.exec('begin immediate');
    const write = store.transaction(async (trx) => trx.insertInto('meta').values({ key: 'k', value: 'v' }).execute());
    try {
      // Reached only if the thread is free while the write waits: the notice comes from the wait.
      await notice;
    } finally {
      other.exec('rollback');
      other.close();
    }
    await write;
    expect(await store.db.selectFrom('meta').select('value').where('key', '=', 'k').execute()).toEqual([{ value: 'v' }]);
    expect(told).toBe(1);
    // The connection's own busy timeout is as it was: only the write transaction's start polls.
    expect(store.raw.pragma('busy_timeout', { simple: true })).toBe(60_000);
  });
});

describe('two processes opening one fresh store at the same moment', () => {
  // Each child loads premia, says it is ready, then waits for a start instant from the test and
  // spins until it: both then open the store as the CLI does (migrations, then the world's clock,
  // seed and local client) and report what they saw.
  const script = `
    const [dist, path] = process.argv.slice(1);
    const { openLocalBackend } = await import(dist + '/backend/local/index.js');
    process.stdout.write('ready\\n');
    let input = '';
    for await (const chunk of process.stdin) {
      input += chunk;
      if (input.includes('\\n')) break;
    }
    const startAt = Number(input.trim());
    while (Date.now() < startAt) {}
    const backend = await openLocalBackend({ path });
    const raw = backend.store.raw;
    const result = {
      migrations: raw.prepare('select name from schema_migrations order by name').pluck().all(),
      clients: raw.prepare('select id, name from clients').all(),
      meta: raw.prepare("select key from meta where key in ('clock_date', 'seed', 'id_salt') order by key").pluck().all(),
      journal: raw.pragma('journal_mode', { simple: true }),
    };
    await backend.close();
    process.stdout.write(JSON.stringify(result));
  `;

  interface Child {
    ready: Promise<void>;
    start: (at: number) => void;
    done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  }

  function child(path: string): Child {
    const dist = pathToFileURL(join(REPO, 'dist')).href;
    const proc = spawn(process.execPath, ['--input-type=module', '-e', script, dist, path], { cwd: dir });
    let stdout = '';
    let stderr = '';
    let signalReady!: () => void;
    const ready = new Promise<void>((resolve) => (signalReady = resolve));
    proc.stdout.on('data', (c) => {
      stdout += c;
      if (stdout.startsWith('ready\n')) signalReady();
    });
    proc.stderr.on('data', (c) => (stderr += c));
    const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      proc.on('error', reject);
      proc.on('close', (code) => {
        signalReady(); // a child that died early must not hang the test
        resolve({ code, stdout: stdout.replace(/^ready\n/, ''), stderr });
      });
    });
    return { ready, start: (at) => proc.stdin.end(`${at}\n`), done };
  }

  it('both succeed and the store is migrated and initialised once (three rounds)', async () => {
    expect(existsSync(join(REPO, 'dist', 'backend', 'local', 'index.js'))).toBe(true); // npm test builds dist first
    // The race is narrow: three rounds, each a pair of processes on a fresh file.
    for (const round of [1, 2, 3]) {
      const path = join(dir, `shared-${round}.db`);
      const pair = [child(path), child(path)];
      await Promise.all(pair.map((c) => c.ready));
      const at = Date.now() + 30;
      for (const c of pair) c.start(at);
      for (const r of await Promise.all(pair.map((c) => c.done))) {
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout)).toEqual({
          migrations: MIGRATION_NAMES,
          clients: [{ id: 1, name: 'Local' }],
          meta: ['clock_date', 'id_salt', 'seed'],
          journal: 'wal',
        });
      }
      expect(schemaOf(path).migrations).toHaveLength(MIGRATION_NAMES.length);
    }
  });
});
