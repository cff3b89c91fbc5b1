/**
 * The schema the migrations (migrations.ts) make on a new SQLite store, as the statements that
 * make it at once: migrate() runs these on a store with no migration applied, and the migrations
 * one by one on every other store and on PostgreSQL. Generated, not written by hand:
 * `UPDATE_SCHEMA_BASELINE=1 npx vitest run test/store/schema-baseline.test.ts` after a migration
 * is added or changed; that test fails until then (a store made from this is compared with the
 * store the migrations make), and meanwhile new stores run the migrations (`migrations` below no
 * longer names them all).
 */
export const SCHEMA_BASELINE: { readonly migrations: readonly string[]; readonly statements: readonly string[] } = {
  migrations: [
    "0001_foundation",
    "0002_collections",
    "0003_settlements",
    "0004_service",
    "0005_idempotency_owner",
    "0006_settlement_supersedes",
    "0007_key_roles",
    "0008_engine_resume",
    "0009_engine_image",
    "0010_engine_shards",
    "0011_attempts_by_date",
  ],
  statements: [
    "CREATE TABLE \"meta\" (\"key\" text primary key, \"value\" text not null)",
    "CREATE TABLE \"clients\" (\"id\" integer primary key autoincrement, \"name\" text not null unique, \"created_at\" integer not null)",
    "CREATE TABLE \"policies\" (\"id\" integer primary key, \"client_id\" integer not null references \"clients\" (\"id\"), \"policy_number\" text not null, \"customer_id\" text not null, \"external_customer_ref\" text not null, \"product_code\" text not null, \"collection_amount\" integer not null check (collection_amount > 0), \"status\" text not null check (status = 'active' or status = 'lapsed' or status = 'cancelled'), \"created_at\" integer not null, \"updated_at\" integer not null, constraint \"policies_client_number_uq\" unique (\"client_id\", \"policy_number\"))",
    "CREATE TABLE \"policy_amount_changes\" (\"seq\" integer primary key autoincrement, \"client_id\" integer not null references \"clients\" (\"id\"), \"policy_id\" integer not null references \"policies\" (\"id\"), \"effective_period\" text not null, \"old_amount\" integer not null, \"new_amount\" integer not null check (new_amount > 0), \"changed_on\" text not null, \"changed_at\" integer not null)",
    "CREATE INDEX \"policy_amount_changes_policy_idx\" on \"policy_amount_changes\" (\"policy_id\", \"effective_period\")",
    "CREATE TABLE \"policy_status_changes\" (\"seq\" integer primary key autoincrement, \"client_id\" integer not null references \"clients\" (\"id\"), \"policy_id\" integer not null references \"policies\" (\"id\"), \"old_status\" text not null, \"new_status\" text not null, \"changed_on\" text not null, \"changed_at\" integer not null, \"reason\" text not null)",
    "CREATE INDEX \"policy_status_changes_policy_idx\" on \"policy_status_changes\" (\"policy_id\")",
    "CREATE TABLE \"executions\" (\"id\" integer primary key, \"client_id\" integer not null references \"clients\" (\"id\"), \"period_month\" text not null, \"strategy\" text not null, \"status\" text not null check (status = 'processing' or status = 'completed'), \"policies_queued\" integer not null, \"created_at\" integer not null, \"completed_at\" integer)",
    "CREATE INDEX \"executions_client_period_idx\" on \"executions\" (\"client_id\", \"period_month\")",
    "CREATE TABLE \"collections\" (\"id\" integer primary key, \"client_id\" integer not null references \"clients\" (\"id\"), \"execution_id\" integer not null references \"executions\" (\"id\"), \"policy_id\" integer not null references \"policies\" (\"id\"), \"period_month\" text not null, \"customer_id\" text not null, \"external_customer_ref\" text not null, \"policy_number\" text not null, \"product_code\" text not null, \"amount_due\" integer not null check (amount_due > 0), \"amount_collected\" integer default 0 not null, \"status\" text not null check (status = 'UNPAID' or status = 'PAID_PARTIAL' or status = 'PAID_FULL' or status = 'CANCELLED'), \"first_attempt_date\" text, \"last_attempt_date\" text, \"attempts\" integer default 0 not null, \"failed_attempts\" integer default 0 not null, \"last_failure_reason\" text, constraint \"collections_client_period_number_uq\" unique (\"client_id\", \"period_month\", \"policy_number\"), constraint \"collections_collected_le_due\" check (amount_collected >= 0 and amount_collected <= amount_due))",
    "CREATE INDEX \"collections_execution_idx\" on \"collections\" (\"execution_id\")",
    "CREATE INDEX \"collections_policy_idx\" on \"collections\" (\"policy_id\", \"period_month\")",
    "CREATE TABLE \"plan_batches\" (\"id\" integer primary key, \"client_id\" integer not null references \"clients\" (\"id\"), \"plan_day\" text not null, \"data\" blob not null)",
    "CREATE INDEX \"plan_batches_client_day_idx\" on \"plan_batches\" (\"client_id\", \"plan_day\")",
    "CREATE TABLE \"bank_transactions\" (\"id\" integer primary key, \"client_id\" integer not null references \"clients\" (\"id\"), \"customer_id\" text not null, \"date\" text not null, \"amount\" integer not null, \"description\" text not null)",
    "CREATE INDEX \"bank_transactions_customer_idx\" on \"bank_transactions\" (\"client_id\", \"customer_id\", \"date\", \"id\")",
    "CREATE TABLE \"bank_snapshots\" (\"client_id\" integer not null references \"clients\" (\"id\"), \"customer_id\" text not null, \"as_of\" text not null, \"balance\" integer not null, constraint \"bank_snapshots_pk\" primary key (\"client_id\", \"customer_id\", \"as_of\")) without rowid",
    "CREATE TABLE \"settlements\" (\"id\" integer primary key, \"client_id\" integer not null references \"clients\" (\"id\"), \"period_month\" text not null, \"seq\" integer not null check (seq >= 1), \"settlement_number\" text not null, \"total_collections\" integer not null check (total_collections >= 0), \"distribution_fee\" integer not null, \"collections_fee\" integer not null, \"total_fees\" integer not null, \"vat\" integer not null, \"period_net\" integer not null, \"collections_count\" integer not null, \"payment_date\" text not null, \"payment_reference\" text not null unique, \"status\" text not null check (status = 'pending' or status = 'paid' or status = 'disputed'), \"created_at\" integer not null, \"updated_at\" integer not null, \"paid_on\" text, \"paid_reference\" text, \"disputed_on\" text, \"dispute_reason\" text, \"previously_paid\" integer default 0 not null check (previously_paid >= 0), \"supersedes_id\" integer references \"settlements\" (\"id\"), constraint \"settlements_client_number_uq\" unique (\"client_id\", \"settlement_number\"), constraint \"settlements_client_period_seq_uq\" unique (\"client_id\", \"period_month\", \"seq\"), constraint \"settlements_fees_add_up\" check (total_fees = distribution_fee + collections_fee), constraint \"settlements_reconciles\" check (\"period_net\" + total_fees + vat = total_collections))",
    "CREATE UNIQUE INDEX \"settlements_live_uq\" on \"settlements\" (\"client_id\", \"period_month\") where status in ('pending', 'paid')",
    "CREATE TABLE \"settlement_events\" (\"id\" integer primary key, \"client_id\" integer not null references \"clients\" (\"id\"), \"settlement_id\" integer not null references \"settlements\" (\"id\"), \"event\" text not null check (event = 'created' or event = 'paid' or event = 'disputed'), \"status\" text not null, \"on_date\" text not null, \"at\" integer not null, \"detail\" text)",
    "CREATE INDEX \"settlement_events_settlement_idx\" on \"settlement_events\" (\"settlement_id\")",
    "CREATE TABLE \"api_keys\" (\"id\" integer primary key, \"client_id\" integer not null references \"clients\" (\"id\"), \"key_hash\" text not null unique, \"prefix\" text not null, \"last4\" text not null, \"created_at\" integer not null, \"revoked_at\" integer, \"role\" text default 'client' not null check (role = 'client' or role = 'operator'))",
    "CREATE INDEX \"api_keys_client_idx\" on \"api_keys\" (\"client_id\")",
    "CREATE TABLE \"idempotency_keys\" (\"client_id\" integer not null references \"clients\" (\"id\"), \"key\" text not null, \"request_hash\" text not null, \"method\" text not null, \"path\" text not null, \"status\" integer, \"content_type\" text, \"body\" text, \"created_at\" integer not null, \"expires_at\" integer not null, \"owner_host\" text, \"owner_pid\" integer, \"owner_token\" text, \"started_at\" integer, constraint \"idempotency_keys_pk\" primary key (\"client_id\", \"key\"))",
    "CREATE INDEX \"idempotency_keys_expiry_idx\" on \"idempotency_keys\" (\"expires_at\")",
    "CREATE INDEX \"settlements_supersedes_idx\" on \"settlements\" (\"supersedes_id\")",
    "CREATE TABLE \"engine_image\" (\"block\" integer primary key, \"wake\" integer not null, \"client_id\" integer not null references \"clients\" (\"id\"), \"customers\" integer not null, \"collections\" integer not null, \"data\" blob not null)",
    "CREATE INDEX \"engine_image_wake_idx\" on \"engine_image\" (\"wake\")",
    "CREATE TABLE \"engine_image_head\" (\"id\" integer primary key check (id = 1), \"as_of\" text not null, \"tag\" text not null, \"inputs\" integer not null)",
    "CREATE TABLE \"engine_inputs\" (\"id\" integer primary key check (id = 1), \"version\" integer not null)",
    "CREATE TRIGGER engine_inputs_policies after update on policies begin update engine_inputs set version = random() >> 11; end",
    "CREATE TRIGGER engine_inputs_executions_insert after insert on executions begin update engine_inputs set version = random() >> 11; end",
    "CREATE TRIGGER engine_inputs_executions_delete after delete on executions begin update engine_inputs set version = random() >> 11; end",
    "CREATE TRIGGER engine_inputs_executions_strategy after update of strategy on executions begin update engine_inputs set version = random() >> 11; end",
    "CREATE TRIGGER engine_inputs_collections_delete after delete on collections begin update engine_inputs set version = random() >> 11; end",
    "CREATE TRIGGER engine_inputs_collections_fixed after update of client_id, execution_id, policy_id, period_month, customer_id, policy_number, amount_due on collections begin update engine_inputs set version = random() >> 11; end",
    "CREATE TABLE \"engine_shards\" (\"day\" text not null, \"shard\" integer not null, \"shards\" integer not null, \"state\" text not null check (state = 'pending' or state = 'done' or state = 'closed'), \"worker\" text, \"summary\" text, constraint \"engine_shards_pk\" primary key (\"day\", \"shard\"))",
    "CREATE TABLE \"attempts\" (\"id\" integer primary key, \"client_id\" integer not null references \"clients\" (\"id\"), \"collection_id\" integer not null references \"collections\" (\"id\"), \"period_month\" text not null, \"date\" text not null, \"amount\" integer not null check (amount > 0), \"outcome\" text not null check (outcome = 'SUCCESS' or outcome = 'FAILED'), \"failure_reason\" text, constraint \"attempts_collection_date_uq\" unique (\"date\", \"collection_id\"))",
    "CREATE INDEX \"attempts_client_period_idx\" on \"attempts\" (\"client_id\", \"period_month\")",
    "insert into \"engine_inputs\" (\"id\", \"version\") values (1, 0)",
  ],
};
