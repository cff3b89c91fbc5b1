/**
 * Migrations, listed in code and frozen in time: a migration never changes once released, and
 * never imports the current schema types (they describe the latest shape, not the shape at
 * that point). Names sort in application order.
 */
import { sql, type Kysely, type Migration } from 'kysely';

// Migrations are written against `Kysely<any>` on purpose: see the note above.
/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyDb = Kysely<any>;

const m0001_foundation: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('meta')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('clients')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'integer', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('policies')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('policy_number', 'text', (c) => c.notNull())
      .addColumn('customer_id', 'text', (c) => c.notNull())
      .addColumn('external_customer_ref', 'text', (c) => c.notNull())
      .addColumn('product_code', 'text', (c) => c.notNull())
      .addColumn('collection_amount', 'integer', (c) => c.notNull().check(sql`collection_amount > 0`))
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'lapsed', 'cancelled')`))
      .addColumn('created_at', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'integer', (c) => c.notNull())
      .addUniqueConstraint('policies_client_number_uq', ['client_id', 'policy_number'])
      .execute();
    // Only the unique (client_id, policy_number) index: every further index on policies costs
    // about half a second per million imported rows, and lists by status or customer are rare.

    await db.schema
      .createTable('policy_amount_changes')
      .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('policy_id', 'integer', (c) => c.notNull().references('policies.id'))
      .addColumn('effective_period', 'text', (c) => c.notNull())
      .addColumn('old_amount', 'integer', (c) => c.notNull())
      .addColumn('new_amount', 'integer', (c) => c.notNull().check(sql`new_amount > 0`))
      .addColumn('changed_on', 'text', (c) => c.notNull())
      .addColumn('changed_at', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('policy_amount_changes_policy_idx')
      .on('policy_amount_changes')
      .columns(['policy_id', 'effective_period'])
      .execute();

    await db.schema
      .createTable('policy_status_changes')
      .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('policy_id', 'integer', (c) => c.notNull().references('policies.id'))
      .addColumn('old_status', 'text', (c) => c.notNull())
      .addColumn('new_status', 'text', (c) => c.notNull())
      .addColumn('changed_on', 'text', (c) => c.notNull())
      .addColumn('changed_at', 'integer', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('policy_status_changes_policy_idx')
      .on('policy_status_changes')
      .columns(['policy_id'])
      .execute();
  },
};

export const MIGRATIONS: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['0001_foundation', m0001_foundation],
];
