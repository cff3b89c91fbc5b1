/**
 * What a bulk policy import hands the store, and what the store gives it: the shapes shared by
 * the SQLite import (policies.ts) and the PostgreSQL one (policy-import-pg.ts).
 */
import type { IsoDate } from '../../domain/period.js';

/**
 * Rows to insert, as bytes: row r's text starts at offsets[5r] and has its four commas at
 * offsets[5r+1..5r+4] (customer_id, external_customer_ref, policy_number, product_code between
 * them; ASCII only). See PolicyBatch in backend/local/policy-rows.ts.
 */
export interface PolicyRows {
  count: number;
  bytes: Uint8Array;
  offsets: Int32Array;
  /** collection_amount in cents, per row. */
  amounts: Int32Array;
}

/** A row of an import refused because its policy number was taken. */
export interface DuplicatePolicyRow {
  /** The row's file line. */
  line: number;
  policyNumber: string;
  /** The file line of the row of this import that took the number; null when the client had it before the import. */
  firstLine: number | null;
}

/** Valid rows of an import, as the reading side hands them over (PolicyRows plus each row's file line). */
export interface PolicyImportRows extends PolicyRows {
  lines: Int32Array;
}

/**
 * Where an import's valid rows go. SQLite inserts each batch at once (and reports its
 * duplicates then); PostgreSQL streams the rows into a staging table with COPY and merges them
 * at `finish` (reporting the duplicates then). Either way: the same rows imported, the same
 * duplicates reported, in one transaction.
 */
export interface PolicyImportSink {
  /** Take a batch of valid rows. */
  insert(rows: PolicyImportRows): void;
  /** Resolves once the sink can take more (the COPY stream has drained); undefined when it can at once. */
  ready(): Promise<void> | undefined;
  /** After the last batch: how many policies were imported (every duplicate has been reported by then). */
  finish(): Promise<number>;
}

/** What a bulk import works with inside its transaction. */
export interface PolicyImportSession {
  /** The virtual clock's date, read inside the transaction. */
  readonly today: IsoDate;
  /**
   * The sink of new active policies created at `createdAt` (epoch ms); make one per import.
   * A row whose policy number is taken is not imported and goes to `onDuplicate`.
   */
  sink(createdAt: number, onDuplicate: (row: DuplicatePolicyRow) => void): PolicyImportSink;
}
