/**
 * The schema migrations (migrations.ts), applied the same way to either store.
 */
import { PremiaError } from '../domain/errors.js';
import { type Kysely, sql } from './kysely.js';
import { MIGRATIONS } from './migrations.js';
import type { Database } from './schema.js';
import { SCHEMA_BASELINE } from './schema-baseline.js';
import { isPostgres, type Db } from './store-types.js';

export const MIGRATION_TABLE = 'schema_migrations';

/**
 * Apply every missing migration inside one write transaction (BEGIN IMMEDIATE, or PostgreSQL's
 * writer lock; DDL is transactional in both), so two processes opening a fresh store at once cannot both migrate it and a
 * failed upgrade leaves the store as it was.
 *
 * A new SQLite store (no migration applied) gets the schema the migrations make from
 * SCHEMA_BASELINE in one go, when it holds exactly the migrations this version has (a new
 * in-memory store opens in 9–10 ms instead of 19–22 ms); `baseline: false` runs them one by one
 * (test/store/schema-baseline.test.ts compares the two).
 */
export async function migrate(db: Db, options: { baseline?: boolean } = {}): Promise<void> {
  const known = new Set(MIGRATIONS.map(([name]) => name));
  const check = (applied: string[]): boolean => {
    const unknown = applied.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new PremiaError(
        'STORE_TOO_NEW',
        `This store was written by a newer premia (it has schema migration ${unknown[unknown.length - 1]}, ` +
          `which this version does not know). Upgrade premia to use it; the store was not changed.`,
      );
    }
    return applied.length === MIGRATIONS.length;
  };
  if (check(await appliedMigrations(db))) return;
  await db.transaction().execute(async (trx) => {
    await trx.schema
      .createTable(MIGRATION_TABLE)
      .ifNotExists()
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('applied_at', 'integer', (c) => c.notNull())
      .execute();
    const applied = await appliedMigrations(trx);
    if (check(applied)) return;
    const record = (name: string) => sql`insert into ${sql.table(MIGRATION_TABLE)} (name, applied_at) values (${name}, ${Date.now()})`.execute(trx);
    if (applied.length === 0 && options.baseline !== false && !isPostgres(trx) && baselineIsCurrent()) {
      for (const statement of SCHEMA_BASELINE.statements) await sql.raw(statement).execute(trx);
      for (const name of SCHEMA_BASELINE.migrations) await record(name);
      return;
    }
    const done = new Set(applied);
    for (const [name, migration] of MIGRATIONS) {
      if (done.has(name)) continue;
      try {
        await migration.up(trx);
      } catch (e) {
        throw new PremiaError('INTERNAL', `Upgrading the store failed at migration ${name}: ${(e as Error).message}`, { cause: e });
      }
      await record(name);
    }
  });
}

/** Whether SCHEMA_BASELINE was made from exactly this version's migrations (else they run one by one). */
function baselineIsCurrent(): boolean {
  return SCHEMA_BASELINE.migrations.length === MIGRATIONS.length && MIGRATIONS.every(([name], i) => SCHEMA_BASELINE.migrations[i] === name);
}

async function appliedMigrations(db: Kysely<Database>): Promise<string[]> {
  const exists = isPostgres(db)
    ? await sql<{ n: number }>`select count(*) as n from pg_tables where schemaname = current_schema() and tablename = ${MIGRATION_TABLE}`.execute(db)
    : await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`.execute(db);
  if (Number(exists.rows[0]!.n) === 0) return [];
  const rows = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}
