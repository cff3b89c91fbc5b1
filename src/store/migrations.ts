/**
 * Migrations, listed in code and frozen in time: a migration never changes once released, and
 * never imports the current schema types (they describe the latest shape, not the shape at
 * that point). Names sort in application order.
 */
import type { Kysely, Migration } from 'kysely';
import { PostgresAdapter, sql } from './kysely.js';

// Migrations are written against `Kysely<any>` on purpose: see the note above.
/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyDb = Kysely<any>;

/**
 * `column` is one of `values`, written as an OR chain: SQLite evaluates `x in (...)` in a CHECK
 * through a temporary lookup table, which cost a 1M-row import half a second; equality tests
 * give the same guarantee at no measurable cost.
 */
function oneOf(column: string, values: string[]) {
  return sql.raw(values.map((v) => `${column} = '${v}'`).join(' or '));
}

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
      .addColumn('status', 'text', (c) => c.notNull().check(oneOf('status', ['active', 'lapsed', 'cancelled'])))
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

const m0002_collections: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('executions')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('period_month', 'text', (c) => c.notNull())
      .addColumn('strategy', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().check(oneOf('status', ['processing', 'completed'])))
      .addColumn('policies_queued', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'integer', (c) => c.notNull())
      .addColumn('completed_at', 'integer')
      .execute();
    await db.schema.createIndex('executions_client_period_idx').on('executions').columns(['client_id', 'period_month']).execute();

    // One collection per policy and period. The policy's identifying fields are copied in, so
    // a closed period's report reads one table in policy_number order (the unique index) and
    // never changes. A period is closed once the clock has lived its last day (no flag: closing
    // a month must not rewrite a million rows).
    await db.schema
      .createTable('collections')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('execution_id', 'integer', (c) => c.notNull().references('executions.id'))
      .addColumn('policy_id', 'integer', (c) => c.notNull().references('policies.id'))
      .addColumn('period_month', 'text', (c) => c.notNull())
      .addColumn('customer_id', 'text', (c) => c.notNull())
      .addColumn('external_customer_ref', 'text', (c) => c.notNull())
      .addColumn('policy_number', 'text', (c) => c.notNull())
      .addColumn('product_code', 'text', (c) => c.notNull())
      .addColumn('amount_due', 'integer', (c) => c.notNull().check(sql`amount_due > 0`))
      .addColumn('amount_collected', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) =>
        c.notNull().check(oneOf('status', ['UNPAID', 'PAID_PARTIAL', 'PAID_FULL', 'CANCELLED'])),
      )
      .addColumn('first_attempt_date', 'text')
      .addColumn('last_attempt_date', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_failure_reason', 'text')
      .addUniqueConstraint('collections_client_period_number_uq', ['client_id', 'period_month', 'policy_number'])
      .addCheckConstraint('collections_collected_le_due', sql`amount_collected >= 0 and amount_collected <= amount_due`)
      .execute();
    await db.schema.createIndex('collections_execution_idx').on('collections').columns(['execution_id']).execute();
    await db.schema.createIndex('collections_policy_idx').on('collections').columns(['policy_id', 'period_month']).execute();

    // Every debit attempt. Rows of a day are inserted in policy_number order, so rowid order is
    // (date, policy_number) order within a client and period.
    await db.schema
      .createTable('attempts')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('collection_id', 'integer', (c) => c.notNull().references('collections.id'))
      .addColumn('period_month', 'text', (c) => c.notNull())
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('amount', 'integer', (c) => c.notNull().check(sql`amount > 0`))
      .addColumn('outcome', 'text', (c) => c.notNull().check(oneOf('outcome', ['SUCCESS', 'FAILED'])))
      .addColumn('failure_reason', 'text')
      .addUniqueConstraint('attempts_collection_date_uq', ['collection_id', 'date'])
      .execute();
    await db.schema.createIndex('attempts_client_period_idx').on('attempts').columns(['client_id', 'period_month']).execute();

    // Debit instructions submitted to the bank ahead of their action date: one compressed
    // batch per client and planning day (domain/plan-reason.ts storedBatch), kept after the action
    // date as the record of why each attempt was made.
    await db.schema
      .createTable('plan_batches')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('plan_day', 'text', (c) => c.notNull())
      .addColumn('data', 'blob', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('plan_batches_client_day_idx').on('plan_batches').columns(['client_id', 'plan_day']).execute();

    // Imported bank transactions (customers without rows here get a generated account).
    await db.schema
      .createTable('bank_transactions')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('customer_id', 'text', (c) => c.notNull())
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('amount', 'integer', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('bank_transactions_customer_idx')
      .on('bank_transactions')
      .columns(['client_id', 'customer_id', 'date', 'id'])
      .execute();

    // Account balances at the end of a closed period, so a later month does not replay an
    // account from its first transaction.
    await db.schema
      .createTable('bank_snapshots')
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('customer_id', 'text', (c) => c.notNull())
      .addColumn('as_of', 'text', (c) => c.notNull())
      .addColumn('balance', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('bank_snapshots_pk', ['client_id', 'customer_id', 'as_of'])
      // One B-tree, not a rowid table plus its key's index: a month end writes a row per customer.
      .modifyEnd(sql`without rowid`)
      .execute();
  },
};

// The HTTP service: API keys (only a SHA-256 hash of each key is kept, with its prefix and last
// 4 characters for display) and stored responses of idempotent requests.
const m0004_service: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('last4', 'text', (c) => c.notNull())
      .addColumn('created_at', 'integer', (c) => c.notNull())
      .addColumn('revoked_at', 'integer')
      .execute();
    await db.schema.createIndex('api_keys_client_idx').on('api_keys').columns(['client_id']).execute();

    // One row per (client, Idempotency-Key). status is null while the first request runs.
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('request_hash', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('content_type', 'text')
      .addColumn('body', 'text')
      .addColumn('created_at', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['client_id', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_expiry_idx').on('idempotency_keys').columns(['expires_at']).execute();
  },
};

// Monthly settlement statements. Nothing is ever deleted: a disputed statement stays on record
// beside the one regenerated after it. `seq` is the NNN of settlement_number.
const m0003_settlements: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('settlements')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('period_month', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull().check(sql`seq >= 1`))
      .addColumn('settlement_number', 'text', (c) => c.notNull())
      .addColumn('total_collections', 'integer', (c) => c.notNull().check(sql`total_collections >= 0`))
      .addColumn('distribution_fee', 'integer', (c) => c.notNull())
      .addColumn('collections_fee', 'integer', (c) => c.notNull())
      .addColumn('total_fees', 'integer', (c) => c.notNull())
      .addColumn('vat', 'integer', (c) => c.notNull())
      .addColumn('net_amount', 'integer', (c) => c.notNull())
      .addColumn('collections_count', 'integer', (c) => c.notNull())
      .addColumn('payment_date', 'text', (c) => c.notNull())
      .addColumn('payment_reference', 'text', (c) => c.notNull().unique())
      .addColumn('status', 'text', (c) => c.notNull().check(oneOf('status', ['pending', 'paid', 'disputed'])))
      .addColumn('created_at', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'integer', (c) => c.notNull())
      .addColumn('paid_on', 'text')
      .addColumn('paid_reference', 'text')
      .addColumn('disputed_on', 'text')
      .addColumn('dispute_reason', 'text')
      .addUniqueConstraint('settlements_client_number_uq', ['client_id', 'settlement_number'])
      .addUniqueConstraint('settlements_client_period_seq_uq', ['client_id', 'period_month', 'seq'])
      .addCheckConstraint('settlements_fees_add_up', sql`total_fees = distribution_fee + collections_fee`)
      .addCheckConstraint('settlements_reconciles', sql`net_amount + total_fees + vat = total_collections`)
      .execute();
    // At most one live (pending or paid) statement per client and period: the second guard
    // behind the check that `create` makes inside its write transaction.
    await db.schema
      .createIndex('settlements_live_uq')
      .on('settlements')
      .columns(['client_id', 'period_month'])
      .unique()
      .where(sql<boolean>`status in ('pending', 'paid')`)
      .execute();

    // The history of every statement: created, paid, disputed (append-only).
    await db.schema
      .createTable('settlement_events')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('settlement_id', 'integer', (c) => c.notNull().references('settlements.id'))
      .addColumn('event', 'text', (c) => c.notNull().check(oneOf('event', ['created', 'paid', 'disputed'])))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('on_date', 'text', (c) => c.notNull())
      .addColumn('at', 'integer', (c) => c.notNull())
      .addColumn('detail', 'text')
      .execute();
    await db.schema.createIndex('settlement_events_settlement_idx').on('settlement_events').columns(['settlement_id']).execute();
  },
};

// Who is running the first request of an Idempotency-Key (host, process id, a random token of
// that process, and when it started), so that a retry can take over a key whose process died
// instead of answering 409 for 24 hours. Rows written before this migration have no owner.
const m0005_idempotency_owner: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('idempotency_keys').addColumn('owner_host', 'text').execute();
    await db.schema.alterTable('idempotency_keys').addColumn('owner_pid', 'integer').execute();
    await db.schema.alterTable('idempotency_keys').addColumn('owner_token', 'text').execute();
    await db.schema.alterTable('idempotency_keys').addColumn('started_at', 'integer').execute();
  },
};

// A statement regenerated after a dispute nets out what was already paid for its period
// (issue 10): `net_amount` becomes `period_net` (the fee rule's total − fees − VAT, still
// checked by settlements_reconciles), `previously_paid` is what earlier statements of the period
// were paid, and the amount due is period_net − previously_paid (negative: owed back).
// `supersedes_id` is the statement it replaces.
const m0006_settlement_supersedes: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('settlements').renameColumn('net_amount', 'period_net').execute();
    await db.schema
      .alterTable('settlements')
      .addColumn('previously_paid', 'integer', (c) => c.notNull().defaultTo(0).check(sql`previously_paid >= 0`))
      .execute();
    await db.schema
      .alterTable('settlements')
      .addColumn('supersedes_id', 'integer', (c) => c.references('settlements.id'))
      .execute();
    await db.schema.createIndex('settlements_supersedes_idx').on('settlements').columns(['supersedes_id']).execute();
  },
};

// Key roles (issue 10): an operator key may also drive the store-wide virtual clock and the
// simulated bank; a client key may not. Keys made before roles existed become client keys.
const m0007_key_roles: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .alterTable('api_keys')
      .addColumn('role', 'text', (c) => c.notNull().defaultTo('client').check(oneOf('role', ['client', 'operator'])))
      .execute();
  },
};

// The engine's working set kept at the end of an advance (issue 13): one row per block of up to
// 4096 accounts of one client, in the engine's own compact form (engine/resume.ts), all as of one
// day and under one tag; an advance replaces them all. Nothing else refers to it: deleting its rows only makes
// the next advance replay the accounts.
const m0008_engine_resume: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('engine_resume')
      .addColumn('block', 'integer', (c) => c.primaryKey())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('as_of', 'text', (c) => c.notNull())
      .addColumn('tag', 'text', (c) => c.notNull())
      .addColumn('data', 'blob', (c) => c.notNull())
      .execute();
  },
};

// The engine's image (issue 13: engine/image.ts) replaces the kept working set: one row per block
// of customers of one client and one wake day, the head (as of which clock date, under which tag,
// having seen which version of the engine's inputs), and that version: a value the triggers
// below change whenever something other than the engine's days changes what it reads of policies,
// executions and collections (the engine's own writes to collections touch none of the columns
// watched, so its days pay nothing for them). Nothing else refers to the image: deleting it only
// makes the next advance read the collections and replay the accounts.
const IMAGE_TRIGGERS: ReadonlyArray<readonly [name: string, event: string]> = [
  ['engine_inputs_policies', 'update on policies'],
  ['engine_inputs_executions_insert', 'insert on executions'],
  ['engine_inputs_executions_delete', 'delete on executions'],
  ['engine_inputs_executions_strategy', 'update of strategy on executions'],
  ['engine_inputs_collections_delete', 'delete on collections'],
  ['engine_inputs_collections_fixed', 'update of client_id, execution_id, policy_id, period_month, customer_id, policy_number, amount_due on collections'],
];

/**
 * A new engine inputs version, by hand where no trigger sees the change (a bank import: the
 * history of the accounts it names). A new random version, not version + 1: a copy of the store
 * (premia db copy) moves its own, and must not land on the version its copied image saw. 53 bits:
 * exact in JavaScript.
 */
export const ENGINE_INPUTS_BUMP = {
  postgres: 'update engine_inputs set version = floor(random() * 9007199254740992)::bigint',
  sqlite: 'update engine_inputs set version = random() >> 11',
} as const;

const m0009_engine_image: Migration = {
  async up(db: AnyDb) {
    await db.schema.dropTable('engine_resume').ifExists().execute();
    await db.schema
      .createTable('engine_image')
      .addColumn('block', 'integer', (c) => c.primaryKey())
      .addColumn('wake', 'integer', (c) => c.notNull())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('customers', 'integer', (c) => c.notNull())
      .addColumn('collections', 'integer', (c) => c.notNull())
      .addColumn('data', 'blob', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('engine_image_wake_idx').on('engine_image').columns(['wake']).execute();
    await db.schema
      .createTable('engine_image_head')
      .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn('as_of', 'text', (c) => c.notNull())
      .addColumn('tag', 'text', (c) => c.notNull())
      .addColumn('inputs', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('engine_inputs')
      .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn('version', 'integer', (c) => c.notNull())
      .execute();
    await db.insertInto('engine_inputs').values({ id: 1, version: 0 }).execute();
    const pg = db.getExecutor().adapter instanceof PostgresAdapter;
    const bump = ENGINE_INPUTS_BUMP[pg ? 'postgres' : 'sqlite'];
    if (pg) {
      await sql.raw(`create function engine_inputs_bump() returns trigger language plpgsql as $$ begin ${bump}; return null; end $$`).execute(db);
      for (const [name, event] of IMAGE_TRIGGERS) {
        await sql.raw(`create trigger ${name} after ${event} for each statement execute function engine_inputs_bump()`).execute(db);
      }
    } else {
      for (const [name, event] of IMAGE_TRIGGERS) await sql.raw(`create trigger ${name} after ${event} begin ${bump}; end`).execute(db);
    }
  },
};

/**
 * The engine's day in customer shards (PostgreSQL, issue 14): one row per shard of a day being
 * lived; `state` pending until a worker has lived that shard's customers through the day and
 * written what it did (in the same transaction), then done; closed once the day itself is.
 * `summary` holds the shard's per-client counts (JSON) for the day's report.
 */
const m0010_engine_shards: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('engine_shards')
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('shard', 'integer', (c) => c.notNull())
      .addColumn('shards', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull().check(sql`state = 'pending' or state = 'done' or state = 'closed'`))
      .addColumn('worker', 'text')
      .addColumn('summary', 'text')
      .addPrimaryKeyConstraint('engine_shards_pk', ['day', 'shard'])
      .execute();
  },
};

/**
 * Attempts unique by (date, collection_id) instead of (collection_id, date) (issue 13): the same
 * rule, but a day's attempts now land side by side at the end of the index instead of on about
 * 1,500 of its 16 KiB pages spread over the whole month (a quarter of the pages a quiet one-day
 * advance at 1M policies wrote). A collection's attempts are found by seeking each day of its
 * period (repos/collections.ts). SQLite cannot change a table's constraint: the table is rebuilt
 * as 0002 made it, the constraint's columns swapped, and its rows copied (ids and all).
 */
const m0011_attempts_by_date: Migration = {
  async up(db: AnyDb) {
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      await sql`alter table attempts drop constraint attempts_collection_date_uq`.execute(db);
      await sql`alter table attempts add constraint attempts_collection_date_uq unique (date, collection_id)`.execute(db);
      return;
    }
    await db.schema
      .createTable('attempts_by_date')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id'))
      .addColumn('collection_id', 'integer', (c) => c.notNull().references('collections.id'))
      .addColumn('period_month', 'text', (c) => c.notNull())
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('amount', 'integer', (c) => c.notNull().check(sql`amount > 0`))
      .addColumn('outcome', 'text', (c) => c.notNull().check(oneOf('outcome', ['SUCCESS', 'FAILED'])))
      .addColumn('failure_reason', 'text')
      .addUniqueConstraint('attempts_collection_date_uq', ['date', 'collection_id'])
      .execute();
    await sql`insert into attempts_by_date (id, client_id, collection_id, period_month, date, amount, outcome, failure_reason)
      select id, client_id, collection_id, period_month, date, amount, outcome, failure_reason from attempts order by id`.execute(db);
    await db.schema.dropTable('attempts').execute();
    await db.schema.alterTable('attempts_by_date').renameTo('attempts').execute();
    await db.schema.createIndex('attempts_client_period_idx').on('attempts').columns(['client_id', 'period_month']).execute();
  },
};

export const MIGRATIONS: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['0001_foundation', m0001_foundation],
  ['0002_collections', m0002_collections],
  ['0003_settlements', m0003_settlements],
  ['0004_service', m0004_service],
  ['0005_idempotency_owner', m0005_idempotency_owner],
  ['0006_settlement_supersedes', m0006_settlement_supersedes],
  ['0007_key_roles', m0007_key_roles],
  ['0008_engine_resume', m0008_engine_resume],
  ['0009_engine_image', m0009_engine_image],
  ['0010_engine_shards', m0010_engine_shards],
  ['0011_attempts_by_date', m0011_attempts_by_date],
];
