/**
 * A kysely dialect for better-sqlite3, written for premia instead of kysely's stock
 * SqliteDialect for three reasons:
 *  - write transactions start with BEGIN IMMEDIATE, so a second process (two cron jobs, or the
 *    CLI beside `premia serve`) waits on the busy timeout instead of failing with SQLITE_BUSY
 *    when it upgrades a read lock (kysely issue #1152: the stock driver always sends BEGIN);
 *  - prepared statements are cached by SQL text (the stock driver prepares every query again);
 *  - the one connection is guarded by a mutex that bulk paths share, so a raw prepared statement
 *    used inside `withConnection` can never interleave with another request's queries.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type {
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
} from 'kysely';
import { sqliteDiskFullError } from '../domain/disk-full.js';
import type { LockWaitHooks, LockWaitStop } from '../lib/lock-wait.js';
import { CompiledQuery, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from './kysely.js';

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

const STATEMENT_CACHE_LIMIT = 256;

export class StatementCache {
  private readonly cache = new Map<string, Statement>();
  constructor(private readonly db: BetterSqlite3.Database) {}
  get(sql: string): Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      if (this.cache.size >= STATEMENT_CACHE_LIMIT) this.cache.clear();
      stmt = this.db.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }
}

/** A FIFO async mutex. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private releaseCurrent: (() => void) | undefined;

  async lock(): Promise<void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    this.releaseCurrent = release;
  }

  unlock(): void {
    const release = this.releaseCurrent;
    this.releaseCurrent = undefined;
    release?.();
  }
}

/** How a connection waits for another connection's write lock (store.ts sets it as it opens the store). */
export interface LockWait extends LockWaitHooks {
  /** How long to wait in all, in ms (the store's busy timeout). */
  timeoutMs: number;
}

const lockWaits = new WeakMap<BetterSqlite3.Database, LockWait>();

export function setLockWait(raw: BetterSqlite3.Database, wait: LockWait): void {
  lockWaits.set(raw, wait);
}

const LOCK_POLL_FIRST_MS = 5;
const LOCK_POLL_MAX_MS = 100;
const LOCK_NOTICE_MS = 500;

/**
 * BEGIN IMMEDIATE on `raw`, waiting for another connection's write lock (another process's
 * import, advance or day) without holding the thread: SQLite's own busy wait blocks it for up to
 * the whole timeout, during which `premia serve` answers no one and the CLI can neither say why
 * it waits nor stop at its first Ctrl-C. Tried at once; while the store is locked, tried again
 * after a pause growing from 5 to 100 ms, until the timeout; then SQLite's "database is locked"
 * as SQLite gives it (store.ts says it as STORE_BUSY). A connection without a LockWait (one the
 * store did not open) waits SQLite's way. `stop` ends the wait with its error (an import's
 * Ctrl-C: nothing begun, nothing to roll back).
 */
export async function beginImmediate(raw: BetterSqlite3.Database, stop?: LockWaitStop): Promise<void> {
  const wait = lockWaits.get(raw);
  if (wait === undefined) {
    raw.exec('begin immediate');
    return;
  }
  const started = Date.now();
  let told = false;
  let late: LockWaitStop | undefined;
  raw.pragma('busy_timeout = 0');
  try {
    for (let pause = LOCK_POLL_FIRST_MS; ; pause = Math.min(LOCK_POLL_MAX_MS, pause * 2)) {
      try {
        raw.exec('begin immediate');
        return;
      } catch (e) {
        if ((e as { code?: unknown }).code !== 'SQLITE_BUSY') throw e;
        if (stop?.signal?.aborted) throw stop.error();
        if (late?.signal?.aborted) throw late.error();
        const left = started + wait.timeoutMs - Date.now();
        if (left <= 0) throw e;
        if (!told && Date.now() - started >= LOCK_NOTICE_MS) {
          told = true;
          late = wait.onWait?.();
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
      }
    }
  } finally {
    if (told) wait.onWaitEnd?.();
    // (Not on a connection closed meanwhile: a service stopping; its error is the one to see.)
    if (raw.open) raw.pragma(`busy_timeout = ${wait.timeoutMs}`);
  }
}

class PremiaSqliteConnection implements DatabaseConnection {
  constructor(
    readonly raw: BetterSqlite3.Database,
    private readonly statements: StatementCache,
  ) {}

  // A full disk (a write, or a read whose sort spills to TMPDIR) is said as such wherever the
  // query runs, in a transaction of the store's or not (disk-full.ts).
  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    try {
      const stmt = this.statements.get(compiledQuery.sql);
      const params = compiledQuery.parameters as unknown[];
      if (stmt.reader) return Promise.resolve({ rows: stmt.all(...params) as R[] });
      const { changes, lastInsertRowid } = stmt.run(...params);
      return Promise.resolve({
        numAffectedRows: BigInt(changes),
        insertId: BigInt(lastInsertRowid),
        rows: [],
      });
    } catch (e) {
      throw sqliteDiskFullError(e) ?? e;
    }
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery, chunkSize = 1000): AsyncIterableIterator<QueryResult<R>> {
    try {
      const stmt = this.statements.get(compiledQuery.sql);
      const iter = stmt.iterate(...(compiledQuery.parameters as unknown[])) as IterableIterator<R>;
      let rows: R[] = [];
      for (const row of iter) {
        rows.push(row);
        if (rows.length >= chunkSize) {
          yield { rows };
          rows = [];
        }
      }
      if (rows.length > 0) yield { rows };
    } catch (e) {
      throw sqliteDiskFullError(e) ?? e;
    }
  }
}

class PremiaSqliteDriver implements Driver {
  readonly mutex = new Mutex();
  private readonly connection: PremiaSqliteConnection;

  constructor(raw: BetterSqlite3.Database, statements: StatementCache) {
    this.connection = new PremiaSqliteConnection(raw, statements);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    return this.connection;
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await beginImmediate((connection as PremiaSqliteConnection).raw);
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // After some errors (SQLITE_FULL, an interrupted statement) SQLite has already rolled back.
    if ((connection as PremiaSqliteConnection).raw.inTransaction) {
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    }
  }
  async releaseConnection(): Promise<void> {
    this.mutex.unlock();
  }
  async destroy(): Promise<void> {
    // The store owns and closes the better-sqlite3 handle.
  }
}

export class PremiaSqliteDialect implements Dialect {
  readonly driver: PremiaSqliteDriver;
  constructor(raw: BetterSqlite3.Database, statements: StatementCache) {
    this.driver = new PremiaSqliteDriver(raw, statements);
  }
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return this.driver;
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's Dialect interface
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
