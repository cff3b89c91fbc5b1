/**
 * The shapes of a store, whichever its engine: SQLite (store.ts) or PostgreSQL (pg-store.ts).
 * Apart from store.ts so that pg-store.ts can use them without importing store.ts (which
 * loads it).
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { ClientBase, PoolClient } from 'pg';
import type { Transaction } from 'kysely';
import { PostgresAdapter, type Kysely } from './kysely.js';
import type { PgLocks } from './pg-locks.js';
import type { Database } from './schema.js';
import type { StatementCache } from './sqlite-dialect.js';
import type { LockWaitHooks } from '../lib/lock-wait.js';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
export type { Database };

export interface OpenStoreOptions {
  /** File path, `:memory:`, or a postgres:// URL. */
  path: string;
  /** How long to wait for another process's write lock, in ms. */
  busyTimeoutMs?: number;
  /** Told when a write has waited half a second for another process's write lock, and when that wait ends (SQLite; sqlite-dialect.ts). */
  lockWait?: LockWaitHooks;
  readonly?: boolean;
  /** Create the file when it does not exist (default true); false: a missing file is an error and nothing is created. */
  create?: boolean;
  /** The option that named the store, for messages (default `--db`; `db copy` names `--from` and `--to`). */
  option?: string;
}

interface StoreBase {
  /**
   * What to show for the store: the file's path, or the database's URL with its password
   * redacted. Never the password.
   */
  readonly path: string;
  /** What opens the same store again (another thread's connection): a PostgreSQL URL keeps its password here, so never print it. */
  readonly target: string;
  readonly db: Db;
  /** Run a write transaction: one writer at a time per store (SQLite: BEGIN IMMEDIATE; PostgreSQL: the writer lock, pg-store.ts). */
  transaction<T>(fn: (trx: Trx) => Promise<T>): Promise<T>;
  /**
   * Stream the rows of a read query (`?` placeholders) in batches, from one consistent
   * snapshot, without holding up writers. Rows are arrays of column values in select order when
   * `raw` is true, else objects.
   */
  streamRows<T = unknown[]>(query: string, params: unknown[], options?: { raw?: boolean; batch?: number }): AsyncGenerator<T[]>;
  close(): Promise<void>;
}

/** One connection of a PostgreSQL store, inside a transaction: its pg client and kysely on it. */
export interface PgUnit {
  readonly client: PoolClient;
  readonly db: Db;
  /** The rows of a query (`?` placeholders) in batches, through a cursor on this connection. */
  rows<T = unknown[]>(query: string, params: unknown[], options?: { raw?: boolean; batch?: number }): AsyncGenerator<T[]>;
}

export interface PgStore extends StoreBase {
  readonly kind: 'postgres';
  /** The store's advisory locks (pg-locks.ts): its own, not shared with a store in another schema of the database. */
  readonly locks: PgLocks;
  /** How long the connections of a clock advance may stay silent before the server drops them (?advance_timeout=, in ms). */
  readonly advanceTimeoutMs: number;
  /** A write transaction on one connection (the writer lock taken, like `transaction`), for the bulk paths (COPY, cursors). */
  /** `silentUpTo`: ms of silence inside it after which the server ends it (set before the writer lock is taken). */
  writeUnit<T>(fn: (unit: PgUnit) => Promise<T>, silentUpTo?: number): Promise<T>;
  /** A read on one connection from one snapshot (repeatable read, read only). */
  readUnit<T>(fn: (unit: PgUnit) => Promise<T>): Promise<T>;
  /**
   * A write transaction on one connection taking the writer lock shared (engine/shards.ts: the
   * shards of a day are written side by side while the advance keeps other writers out).
   */
  sharedWriteUnit<T>(fn: (unit: PgUnit) => Promise<T>): Promise<T>;
  /** A write transaction (the writer lock taken) on a session's connection (`openSession`). */
  sessionWriteUnit<T>(session: ClientBase, fn: (unit: PgUnit) => Promise<T>): Promise<T>;
  /** A connection of its own, outside the pool (a session lock held across transactions); close it when done. */
  openSession(): Promise<{ client: ClientBase; close(): Promise<void> }>;
  /**
   * The bytes of a `COPY (select …) TO STDOUT` statement as the server sends them, chunk by
   * chunk with backpressure (a slow reader pauses the connection), so a million rows never sit
   * in memory. One statement: one snapshot. Values go into the statement as literals (COPY
   * takes no parameters): quote text with `pgLiteral`.
   */
  copyOut(statement: string): AsyncGenerator<Buffer>;
}

export type Store = SqliteStore | PgStore;

export interface SqliteStore extends StoreBase {
  readonly kind: 'sqlite';
  /** The better-sqlite3 handle, for bulk paths only; use inside `withConnection` or a transaction. */
  readonly raw: BetterSqlite3.Database;
  readonly statements: StatementCache;
  /**
   * Counts writes made through this Store (transactions and held connections). Together with
   * SQLite's `PRAGMA data_version` (writes by other processes) it tells a long-running job that
   * the data under it changed.
   */
  readonly generation: number;
  /**
   * SQLite's `PRAGMA data_version` as the connection opened, before it read or wrote anything
   * (null when it could not be read): another connection's commit since then changes it.
   */
  readonly versionAtOpen: number | null;
  /** Hold the one connection exclusively (for bulk paths that use raw prepared statements). */
  withConnection<T>(fn: (raw: BetterSqlite3.Database, statements: StatementCache) => Promise<T>): Promise<T>;
  // streamRows: on a file store a separate read-only connection (in WAL mode readers never
  // block the writer); on `:memory:` it holds the one connection.
}

/** Whether `db` (a store's kysely, or a transaction of it) runs on PostgreSQL. */
export function isPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

