/**
 * Table types of the store: one interface per table, combined in `Database`.
 * Money columns are integer cents, typed Cents where the API reads them (the bank's tables,
 * read by the simulated bank, keep plain numbers). Dates are `YYYY-MM-DD` text; timestamps (`*_at`) are integer
 * milliseconds since the epoch, UTC (written as ISO 8601 on output; half the bytes of the text
 * form on million-row tables). Rows are keyed by the integer rowid `id`; the public UUID-shaped
 * id is derived from it (domain/ids.ts). Every table of client data carries `client_id`;
 * `meta` holds store-wide settings (schema, virtual clock, seed) of the simulated world.
 */
import type { ColumnType, Generated } from 'kysely';
import type { Cents } from '../domain/money.js';

export interface MetaTable {
  key: string;
  value: string;
}

export interface ClientsTable {
  id: Generated<number>;
  name: string;
  created_at: number;
}

export interface PoliciesTable {
  id: Generated<number>;
  client_id: number;
  policy_number: string;
  customer_id: string;
  external_customer_ref: string;
  product_code: string;
  /** The most recently set premium; see policy_amount_changes for the amount of a period. */
  collection_amount: Cents;
  status: string;
  created_at: number;
  updated_at: number;
}

export interface PolicyAmountChangesTable {
  seq: Generated<number>;
  client_id: number;
  policy_id: number;
  /** First period the new amount applies to. */
  effective_period: string;
  old_amount: Cents;
  new_amount: Cents;
  changed_on: string;
  changed_at: number;
}

export interface PolicyStatusChangesTable {
  seq: Generated<number>;
  client_id: number;
  policy_id: number;
  old_status: string;
  new_status: string;
  changed_on: string;
  changed_at: number;
  reason: string;
}

export interface ExecutionsTable {
  id: Generated<number>;
  client_id: number;
  period_month: string;
  strategy: string;
  status: 'processing' | 'completed';
  policies_queued: number;
  created_at: number;
  completed_at: number | null;
}

export interface CollectionsTable {
  id: Generated<number>;
  client_id: number;
  execution_id: number;
  policy_id: number;
  period_month: string;
  customer_id: string;
  external_customer_ref: string;
  policy_number: string;
  product_code: string;
  amount_due: Cents;
  amount_collected: Generated<Cents>;
  status: 'UNPAID' | 'PAID_PARTIAL' | 'PAID_FULL' | 'CANCELLED';
  first_attempt_date: string | null;
  last_attempt_date: string | null;
  attempts: Generated<number>;
  failed_attempts: Generated<number>;
  last_failure_reason: string | null;
}

export interface AttemptsTable {
  id: Generated<number>;
  client_id: number;
  collection_id: number;
  period_month: string;
  date: string;
  amount: Cents;
  outcome: 'SUCCESS' | 'FAILED';
  failure_reason: string | null;
}

export interface PlanBatchesTable {
  id: Generated<number>;
  client_id: number;
  /** The day at whose end the debits were planned. */
  plan_day: string;
  data: Uint8Array;
}

/** The engine's image: one block of customers of one client and one wake day a row (engine/image.ts). */
export interface EngineImageTable {
  block: number;
  /** The day (number) its customers must next be lived. */
  wake: number;
  client_id: number;
  customers: number;
  collections: number;
  data: Uint8Array;
}

/** The image's head (one row, id 1): as of which clock date, under which tag, having seen which inputs version. */
export interface EngineImageHeadTable {
  id: number;
  as_of: string;
  tag: string;
  inputs: number;
}

/** The version of the engine's inputs (one row, id 1), moved by triggers (migrations.ts, 0009). */
export interface EngineInputsTable {
  id: number;
  version: number;
}

/** A shard of a day the engine lives in customer shards (migrations.ts, 0010; PostgreSQL). */
export interface EngineShardsTable {
  day: string;
  shard: number;
  shards: number;
  state: 'pending' | 'done' | 'closed';
  worker: string | null;
  summary: string | null;
}

export interface BankTransactionsTable {
  id: Generated<number>;
  client_id: number;
  customer_id: string;
  date: string;
  amount: number;
  description: string;
}

export interface BankSnapshotsTable {
  client_id: number;
  customer_id: string;
  as_of: string;
  balance: number;
}

export interface ApiKeysTable {
  id: Generated<number>;
  client_id: number;
  /** SHA-256 of the whole key, lower-case hex. The key itself is never stored. */
  key_hash: string;
  prefix: string;
  last4: string;
  created_at: number;
  revoked_at: number | null;
  /** client (the default), or operator: may also drive the virtual clock and the simulated bank. */
  role: ColumnType<KeyRole, KeyRole | undefined, never>;
}

export type KeyRole = 'client' | 'operator';

export interface IdempotencyKeysTable {
  client_id: number;
  key: string;
  /** SHA-256 of method, path and body (for uploads: of the file). */
  request_hash: string;
  method: string;
  path: string;
  /** null while the first request is still running. */
  status: number | null;
  content_type: string | null;
  body: string | null;
  created_at: number;
  expires_at: number;
  /**
   * The process running (or that ran) the request: its host name, process id and a random
   * token of that process; null on rows written before migration 0005.
   */
  owner_host: string | null;
  owner_pid: number | null;
  owner_token: string | null;
  /** When the owner started the request (epoch ms); null on rows written before migration 0005. */
  started_at: number | null;
}

export interface SettlementsTable {
  id: Generated<number>;
  client_id: number;
  period_month: string;
  /** NNN of settlement_number: the client's count of statements for the period, from 1. */
  seq: number;
  settlement_number: string;
  total_collections: Cents;
  distribution_fee: Cents;
  collections_fee: Cents;
  total_fees: Cents;
  vat: Cents;
  /** The fee rule's net of the period: total_collections − total_fees − vat. */
  period_net: Cents;
  collections_count: number;
  payment_date: string;
  payment_reference: string;
  status: 'pending' | 'paid' | 'disputed';
  created_at: number;
  updated_at: number;
  paid_on: string | null;
  paid_reference: string | null;
  disputed_on: string | null;
  dispute_reason: string | null;
  /** Paid for the period under earlier statements; the amount due is period_net − previously_paid. */
  previously_paid: Cents;
  /** The statement this one replaces (regenerated after a dispute); null for a first one. */
  supersedes_id: number | null;
}

export interface SettlementEventsTable {
  id: Generated<number>;
  client_id: number;
  settlement_id: number;
  event: 'created' | 'paid' | 'disputed';
  /** The settlement's status after the event. */
  status: string;
  on_date: string;
  at: number;
  detail: string | null;
}

export interface Database {
  meta: MetaTable;
  clients: ClientsTable;
  policies: PoliciesTable;
  policy_amount_changes: PolicyAmountChangesTable;
  policy_status_changes: PolicyStatusChangesTable;
  executions: ExecutionsTable;
  collections: CollectionsTable;
  attempts: AttemptsTable;
  plan_batches: PlanBatchesTable;
  engine_image: EngineImageTable;
  engine_image_head: EngineImageHeadTable;
  engine_inputs: EngineInputsTable;
  engine_shards: EngineShardsTable;
  bank_transactions: BankTransactionsTable;
  bank_snapshots: BankSnapshotsTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  settlements: SettlementsTable;
  settlement_events: SettlementEventsTable;
}
