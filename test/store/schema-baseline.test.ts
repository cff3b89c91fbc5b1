/**
 * src/store/schema-baseline.ts: a new SQLite store gets its schema from these statements at once,
 * and they must make exactly the store the migrations make one by one. This test compares both
 * (every schema object's SQL and every row), and regenerates the file with
 * UPDATE_SCHEMA_BASELINE=1 (after a migration is added or changed).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { SCHEMA_BASELINE } from '../../src/store/schema-baseline.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/store.js';
import { REPO, tempDir } from '../helpers/cli.js';

const names = MIGRATIONS.map(([name]) => name);

/** A store whose schema the migrations made one by one. */
async function migratedOneByOne(): Promise<SqliteStore> {
  const store = await openSqliteStore({ path: ':memory:' });
  const raw = store.raw;
  raw.pragma('foreign_keys = OFF');
  const tables = raw.prepare("select name from sqlite_schema where type = 'table' and name not like 'sqlite_%'").pluck().all() as string[];
  for (const table of tables) raw.exec(`drop table "${table}"`);
  raw.prepare('delete from sqlite_sequence').run();
  raw.pragma('foreign_keys = ON');
  expect(raw.prepare("select count(*) from sqlite_schema where name not like 'sqlite_%'").pluck().get()).toBe(0);
  await migrate(store.db, { baseline: false });
  return store;
}

function literal(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return `'${v.replaceAll("'", "''")}'`;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  throw new Error(`a value the baseline cannot write: ${typeof v}`);
}

/** The statements that make `raw`'s schema and rows (its migration record aside), in the order they were made. */
function statementsOf(raw: BetterSqlite3.Database): string[] {
  const objects = raw.prepare("select type, name, sql from sqlite_schema where sql is not null and name not like 'sqlite_%' and name <> 'schema_migrations' order by rowid").all() as Array<{ type: string; name: string; sql: string }>;
  const out = objects.map((o) => o.sql);
  for (const { name } of objects.filter((o) => o.type === 'table')) {
    const select = raw.prepare(`select * from "${name}"`).raw(true);
    const columns = select.columns().map((c) => `"${c.name}"`).join(', ');
    for (const row of select.all() as unknown[][]) out.push(`insert into "${name}" (${columns}) values (${row.map(literal).join(', ')})`);
  }
  return out;
}

/** Everything a store holds, to compare two: every schema object and every row, and which migrations it records. */
function contentsOf(raw: BetterSqlite3.Database): unknown {
  const schema = raw.prepare('select type, name, tbl_name, sql from sqlite_schema order by type, name').all() as Array<{ type: string; name: string }>;
  const rows = schema
    .filter((o) => o.type === 'table' && o.name !== 'schema_migrations')
    .map((o) => [o.name, raw.prepare(`select * from "${o.name}"`).raw(true).all()]);
  const migrations = raw.prepare('select name from schema_migrations order by name').pluck().all();
  return { schema, rows, migrations, foreignKeyErrors: raw.pragma('foreign_key_check') };
}

describe('the schema baseline of a new SQLite store', () => {
  it('is the migrations of this version, as the statements they make', async () => {
    const store = await migratedOneByOne();
    try {
      const statements = statementsOf(store.raw);
      if (process.env.UPDATE_SCHEMA_BASELINE === '1') {
        const path = join(REPO, 'src', 'store', 'schema-baseline.ts');
        const text = readFileSync(path, 'utf8');
        const head = text.slice(0, text.indexOf('export const SCHEMA_BASELINE'));
        const list = (xs: string[]) => xs.map((x) => `    ${JSON.stringify(x)},`).join('\n');
        writeFileSync(path, `${head}export const SCHEMA_BASELINE: { readonly migrations: readonly string[]; readonly statements: readonly string[] } = {\n  migrations: [\n${list(names)}\n  ],\n  statements: [\n${list(statements)}\n  ],\n};\n`);
        return;
      }
      // A migration added or changed since the file was made: UPDATE_SCHEMA_BASELINE=1 (see the file's head).
      expect(SCHEMA_BASELINE.migrations).toEqual(names);
      expect(SCHEMA_BASELINE.statements).toEqual(statements);
    } finally {
      await store.close();
    }
  });

  it('makes the store the migrations make, in memory and in a file', async () => {
    const oneByOne = await migratedOneByOne();
    const { dir, cleanup } = tempDir('premia-baseline-');
    try {
      const expected = contentsOf(oneByOne.raw);
      expect((expected as { migrations: string[] }).migrations).toEqual(names);
      for (const path of [':memory:', join(dir, 'new.db')]) {
        const fresh = await openSqliteStore({ path });
        try {
          expect(contentsOf(fresh.raw)).toEqual(expected);
        } finally {
          await fresh.close();
        }
      }
    } finally {
      await oneByOne.close();
      cleanup();
    }
  });
});
