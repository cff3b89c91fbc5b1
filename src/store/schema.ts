/**
 * Table types of the store: one interface per table, combined in `Database`.
 * Money columns are integer cents. Dates are `YYYY-MM-DD` text; timestamps (`*_at`) are integer
 * milliseconds since the epoch, UTC (written as ISO 8601 on output; half the bytes of the text
 * form on million-row tables). Rows are keyed by the integer rowid `id`; the public UUID-shaped
 * id is derived from it (domain/ids.ts). Every table of client data carries `client_id`;
 * `meta` holds store-wide settings (schema, virtual clock, seed) of the simulated world.
 */
import type { Generated } from 'kysely';

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
  collection_amount: number;
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
  old_amount: number;
  new_amount: number;
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

export interface Database {
  meta: MetaTable;
  clients: ClientsTable;
  policies: PoliciesTable;
  policy_amount_changes: PolicyAmountChangesTable;
  policy_status_changes: PolicyStatusChangesTable;
}
