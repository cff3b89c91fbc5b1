/**
 * Opening a store: the embedded one (better-sqlite3 under kysely, WAL, a busy timeout, foreign
 * keys) for a file path or `:memory:`, or a PostgreSQL database (pg-store.ts) for a
 * `postgres://` URL; migrations applied on open, and a refusal to touch a store written by a
 * newer premia or a database of another application.
 */
import { accessSync, constants, existsSync, statfsSync, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { foreignUrlProblem, isPostgresUrl } from '../lib/db-url.js';
import { isDirectoryThere } from '../lib/make-directories.js';
import { Kysely } from './kysely.js';
import { PremiaError } from '../domain/errors.js';
import type { Database } from './schema.js';
import { sqliteDiskFull, sqliteDiskFullError } from '../domain/disk-full.js';
import { PremiaSqliteDialect, setLockWait, StatementCache } from './sqlite-dialect.js';

export * from './store-types.js';
export { migrate } from './migrate.js';
import type { OpenStoreOptions, SqliteStore, Store } from './store-types.js';
import { migrate, MIGRATION_TABLE } from './migrate.js';
import { MIGRATIONS } from './migrations.js';

const require = createRequire(import.meta.url);
export const DEFAULT_BUSY_TIMEOUT_MS = 30_000;

/**
 * Rows this process's connection to `store` has changed since it opened (SQLite's
 * total_changes()), or null where that cannot be told (PostgreSQL: a pool of connections).
 */
export function rowsChanged(store: Store): number | null {
  if (store.kind !== 'sqlite' || !store.raw.open) return null;
  return (store.raw.prepare('select total_changes() as n').get() as { n: number }).n;
}

/** SQLite's data_version: it changes when another connection (another process) commits to the store; null where it cannot be told. */
export function commitsByOthers(store: Store): number | null {
  if (store.kind !== 'sqlite' || !store.raw.open) return null;
  return Number(store.raw.pragma('data_version', { simple: true }));
}

/**
 * A watch on whether anything is committed to a SQLite file store from now on, by any connection,
 * the store's own included: a second, read-only connection, whose data_version changes with every
 * commit of another connection. A transaction rolled back (an import stopped by Ctrl-C) is no
 * commit, where total_changes() counts its rows all the same. Null where it cannot be told (not a
 * file, PostgreSQL). Closed before the store, so the store's connection is the last to close.
 */
export function watchCommits(store: Store): { committed: () => boolean | null; close: () => void } | null {
  if (store.kind !== 'sqlite' || !store.raw.open || store.path === ':memory:' || store.path === '') return null;
  const BetterSqlite = require('better-sqlite3') as typeof BetterSqlite3;
  let watcher: BetterSqlite3.Database;
  try {
    watcher = new BetterSqlite(store.path, { readonly: true, fileMustExist: true });
  } catch {
    return null;
  }
  const version = () => Number(watcher.pragma('data_version', { simple: true }));
  let atStart: number;
  try {
    atStart = version();
  } catch {
    watcher.close();
    return null;
  }
  return {
    committed() {
      try {
        return watcher.open ? version() !== atStart : null;
      } catch {
        return null;
      }
    },
    close() {
      if (watcher.open) watcher.close();
    },
  };
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const foreign = foreignUrlProblem(options.path, options.option ?? '--db');
  if (foreign !== null) throw new PremiaError('VALIDATION_ERROR', foreign.message, { details: [foreign.detail] });
  if (isPostgresUrl(options.path)) {
    const { openPgStore } = await import('./pg-store.js');
    return openPgStore({ url: options.path.trim(), create: options.create ?? true, busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, option: options.option });
  }
  return openSqliteStore(options);
}

export async function openSqliteStore(options: OpenStoreOptions): Promise<SqliteStore> {
  const BetterSqlite = require('better-sqlite3') as typeof BetterSqlite3;
  const busyTimeout = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  let raw: BetterSqlite3.Database;
  try {
    const file = options.path !== ':memory:' && options.path !== '';
    const create = options.create ?? true;
    const denied = file ? storeAccessError(options.path, options.option) : null;
    if (denied) throw denied;
    if (file && create && !options.readonly) await createPrivately(options.path, options.option);
    if (file && !create && !existsSync(options.path)) throw storeNotFound(options.path);
    // fileMustExist: a store that vanished since that check is still not created here.
    raw = new BetterSqlite(options.path, { timeout: busyTimeout, readonly: options.readonly ?? false, fileMustExist: file && !create });
  } catch (e) {
    if (e instanceof PremiaError) throw e;
    if (options.create === false && !existsSync(options.path)) throw storeNotFound(options.path);
    if (statSync(options.path, { throwIfNoEntry: false })?.isDirectory()) {
      const option = options.option ?? '--db';
      throw new PremiaError('VALIDATION_ERROR', `The store ${options.path} (${option}) is a directory, not a store file. Give the path of the store file.`, {
        cause: e,
        details: [{ field: option, code: 'NOT_A_FILE', message: `${options.path} is a directory` }],
      });
    }
    throw new PremiaError('INTERNAL', `Cannot open the store at ${options.path}: ${(e as Error).message}.`, { cause: e });
  }
  let versionAtOpen: number | null = null;
  try {
    const claim = refuseForeignDatabase(raw, options.path, options.option);
    // An empty file (or an SQLite database with nothing in it) holds no store: one that must not
    // be created here (a command that only reads, `db copy --from`) is not made of it.
    if (claim && options.create === false && options.path !== ':memory:' && raw.prepare('select count(*) from sqlite_schema').pluck().get() === 0) {
      throw new PremiaError('VALIDATION_ERROR', `There is no store at ${options.path}: the file holds no database yet; nothing was written to it.`, {
        details: [{ field: options.option ?? 'db', code: 'STORE_NOT_FOUND', message: `${options.path} is empty` }],
      });
    }
    // 16 KiB pages: bulk inserts (the policy import's) are faster than with 4 KiB. Only takes
    // effect on a new file.
    if (!options.readonly) raw.pragma('page_size = 16384');
    if (options.path !== ':memory:' && !options.readonly) await enableWal(raw, busyTimeout);
    // After WAL is on: enableWal has waited for any other writer of a new file, so this write
    // does not block the thread.
    if (claim && !options.readonly) raw.pragma(`application_id = ${PREMIA_APPLICATION_ID}`);
    // Before the schema is made or read: another process's data, written into a store this one
    // made, can only come after this (its rows need the schema), and its commit changes
    // data_version from here (versionAtOpen). Read once WAL is on: the switch changes it.
    versionAtOpen = Number(raw.pragma('data_version', { simple: true }));
    // FULL: a committed collections day or import survives a power cut, not only a crash.
    raw.pragma('synchronous = FULL');
    raw.pragma('foreign_keys = ON');
    // temp_store stays the default (files): sorting a million rows must not live in memory.
    raw.pragma('cache_size = -65536'); // 64 MiB
  } catch (e) {
    raw.close();
    throw storeOpenError(options.path, e, options.option);
  }

  setLockWait(raw, { timeoutMs: busyTimeout, ...options.lockWait });
  const statements = new StatementCache(raw);
  const dialect = new PremiaSqliteDialect(raw, statements);
  const db = new Kysely<Database>({ dialect });
  const mutex = dialect.driver.mutex;

  let generation = 0;
  const store: SqliteStore = {
    kind: 'sqlite',
    versionAtOpen,
    path: options.path,
    target: options.path,
    db,
    raw,
    statements,
    get generation() {
      return generation;
    },
    async transaction(fn) {
      try {
        return await db.transaction().execute(fn);
      } catch (e) {
        throw readOnlyStoreError(options.path, e) ?? busyStoreError(options.path, e) ?? sqliteDiskFullError(e) ?? shmFullError(options.path, e) ?? e;
      } finally {
        generation++;
      }
    },
    async withConnection(fn) {
      await mutex.lock();
      try {
        return await fn(raw, statements);
      } catch (e) {
        throw readOnlyStoreError(options.path, e) ?? busyStoreError(options.path, e) ?? sqliteDiskFullError(e) ?? shmFullError(options.path, e) ?? e;
      } finally {
        generation++;
        mutex.unlock();
      }
    },
    async *streamRows<T>(query: string, params: unknown[], opts: { raw?: boolean; batch?: number } = {}) {
      const batch = opts.batch ?? 2000;
      const file = options.path !== ':memory:' && options.path !== '';
      if (file) {
        const reader = new BetterSqlite(options.path, { readonly: true, fileMustExist: true, timeout: busyTimeout });
        try {
          yield* iterateInBatches<T>(reader.prepare(query), params, opts.raw === true, batch);
        } catch (e) {
          throw sqliteDiskFullError(e) ?? e; // a sort spilled to a full TMPDIR
        } finally {
          reader.close();
        }
      } else {
        await mutex.lock();
        try {
          yield* iterateInBatches<T>(raw.prepare(query), params, opts.raw === true, batch);
        } catch (e) {
          throw sqliteDiskFullError(e) ?? e;
        } finally {
          mutex.unlock();
        }
      }
    },
    async close() {
      await db.destroy();
      if (raw.open) raw.close();
    },
  };

  try {
    if (!options.readonly) await migrate(db);
  } catch (e) {
    await store.close();
    // A migration that ran out of room comes wrapped (INTERNAL, "Upgrading the store failed …").
    throw sqliteDiskFullError(e) ?? (e instanceof PremiaError ? e : storeOpenError(options.path, e, options.option));
  }
  return store;
}

/** A store that must exist and does not (the CLI says more: how the path was chosen). */
function storeNotFound(path: string): PremiaError {
  return new PremiaError('VALIDATION_ERROR', `There is no store at ${path}; nothing was created.`, {
    details: [{ field: 'db', code: 'STORE_NOT_FOUND', message: `${path} does not exist` }],
  });
}

/**
 * Create a new store file with mode 0600 whatever the umask, before SQLite opens it: it holds
 * every client's data, API key hashes and stored responses. SQLite gives the `-wal` and `-shm`
 * files it makes the mode of the database file, so they are 0600 too. An existing file is left
 * as it is (the CLI warns when others can read it).
 */
async function createPrivately(path: string, option = '--db'): Promise<void> {
  let file: FileHandle;
  try {
    file = await open(path, 'wx', 0o600);
  } catch (e) {
    // A directory this user cannot write is the operator's to fix, as a store it cannot write is
    // (SQLite would only say "unable to open database file"). An existing file is left to
    // SQLite's open, as is any other reason (a missing directory): it says why.
    const code = (e as NodeJS.ErrnoException).code;
    const dir = dirname(resolve(path));
    if ((code === 'EACCES' || code === 'EPERM' || code === 'EROFS') && !existsSync(path)) {
      throw storeReadOnly(
        `Cannot create the store ${path}: this user cannot write in its directory ${dir} (${code}). ` +
          `Nothing was created; choose another path with ${option}, run as a user who may write there, or fix its permissions.`,
        `${dir} is read-only for this user`,
        e,
      );
    }
    // A directory that is there answers ENOENT when its file system makes no files (/proc):
    // SQLite then said "unable to open database file", INTERNAL, exit 1.
    if (code === 'ENOENT' && isDirectoryThere(dir)) {
      throw storeReadOnly(
        `Cannot create the store ${path}: its directory ${dir} takes no new files (its file system refused to make one there). ` +
          `Nothing was created; choose another path with ${option}.`,
        `no file can be made in ${dir}`,
        e,
      );
    }
    return;
  }
  try {
    await file.chmod(0o600);
  } finally {
    await file.close();
  }
}

/**
 * Switch a file store to WAL. When another process is switching the same fresh file at that
 * moment (two cron jobs starting together), SQLite answers SQLITE_BUSY at once instead of calling
 * the busy handler, so wait and retry here, up to the busy timeout.
 */
async function enableWal(raw: BetterSqlite3.Database, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      raw.pragma('journal_mode = WAL');
      return;
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw e;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

function* iterateInBatches<T>(stmt: BetterSqlite3.Statement, params: unknown[], rawRows: boolean, size: number): Generator<T[]> {
  if (rawRows) stmt.raw(true);
  let rows: T[] = [];
  for (const row of stmt.iterate(...params) as IterableIterator<T>) {
    rows.push(row);
    if (rows.length >= size) {
      yield rows;
      rows = [];
    }
  }
  if (rows.length > 0) yield rows;
}

/** SQLite's application_id of a premia store ("PRMA"), so `file` and premia itself can tell. */
export const PREMIA_APPLICATION_ID = 0x50524d41;

/** The kinds of schema object, in the order a refusal names them. */
const SCHEMA_OBJECTS = ['table', 'view', 'index', 'trigger'] as const;

/**
 * Refuse a database that belongs to another application, before anything is written to it:
 * `--db` pointed at the wrong file must not add premia's tables to it, switch it to WAL or
 * overwrite its application_id. A database is premia's when it carries premia's application_id,
 * or, made by a premia older than that mark, holds premia's migration log (its first migration
 * recorded: another tool's `schema_migrations` is not premia's). Anything else that another
 * application has set is refused, even with no table yet: an application_id or a user_version
 * (premia never sets it), or any schema object. Returns true when the file is to be claimed for
 * premia (a new or empty database, or a store made by an earlier premia).
 */
function refuseForeignDatabase(raw: BetterSqlite3.Database, path: string, option = '--db'): boolean {
  const applicationId = raw.pragma('application_id', { simple: true }) as number;
  if (applicationId === PREMIA_APPLICATION_ID) return false;
  const userVersion = raw.pragma('user_version', { simple: true }) as number;
  const objects = raw
    .prepare("select type, name from sqlite_schema where name not like 'sqlite_%' order by type, name")
    .all() as Array<{ type: (typeof SCHEMA_OBJECTS)[number]; name: string }>;
  const signs: string[] = [];
  if (applicationId !== 0) signs.push(`application_id ${applicationId}`);
  if (userVersion !== 0) signs.push(`user_version ${userVersion}`);
  if (signs.length === 0 && (objects.length === 0 || hasPremiaMigrationLog(raw, objects))) return true;
  for (const type of SCHEMA_OBJECTS) {
    const names = objects.filter((o) => o.type === type).map((o) => o.name);
    if (names.length > 0) signs.push(`${type === 'index' ? 'indexes' : `${type}s`} ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`);
  }
  const what = signs.join('; ');
  throw new PremiaError(
    'VALIDATION_ERROR',
    `${path} is an SQLite database of another application (${what}), not a premia store; premia leaves it untouched. Choose another file with ${option}.`,
    { details: [{ field: 'db', code: 'NOT_A_PREMIA_STORE', message: `the database is another application's (${what})` }] },
  );
}

/** Whether `objects` include premia's migration log with premia's first migration in it (a store made before the application_id). */
function hasPremiaMigrationLog(raw: BetterSqlite3.Database, objects: ReadonlyArray<{ type: string; name: string }>): boolean {
  if (!objects.some((o) => o.type === 'table' && o.name === MIGRATION_TABLE)) return false;
  try {
    return raw.prepare(`select 1 from ${MIGRATION_TABLE} where name = ?`).get(MIGRATIONS[0]![0]) !== undefined;
  } catch {
    return false; // a table of that name without premia's columns
  }
}

/**
 * A write refused because the store cannot be written by this user (the file, its -wal or -shm,
 * or its directory): the operator's to fix (exit 2), not an unexpected failure; null otherwise.
 */
function readOnlyStoreError(path: string, e: unknown): PremiaError | null {
  const code = (e as { code?: unknown })?.code;
  const msg = (e as Error)?.message ?? '';
  if (!(typeof code === 'string' && code.startsWith('SQLITE_READONLY')) && !/readonly database/i.test(msg)) return null;
  return storeReadOnly(
    `The store ${path} cannot be written by this user: it, its -wal or -shm file, or its directory is read-only (${msg}). ` +
      'Nothing was changed; run as the store\'s owner, or fix its permissions.',
    `${path} is read-only for this user`,
    e,
  );
}

/**
 * A store on a read-only file system (a disk remounted read-only after an error, a mounted
 * backup): SQLite cannot make the -shm a WAL store needs and answers "unable to open database
 * file", for reading commands too. Also a store this user cannot write (exit 2); null otherwise.
 */
function readOnlyFileSystemError(path: string, e: unknown): PremiaError | null {
  const code = (e as { code?: unknown })?.code;
  const msg = (e as Error)?.message ?? '';
  if (!(typeof code === 'string' && code.startsWith('SQLITE_CANTOPEN')) && !/unable to open database file/i.test(msg)) return null;
  const dir = dirname(path);
  try {
    accessSync(dir, constants.W_OK);
    return null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EROFS') return null;
  }
  return storeReadOnly(
    `The store ${path} cannot be opened: its directory ${dir} is on a read-only file system, where SQLite cannot make the -shm file it needs. ` +
      'Nothing was changed; remount it read-write, or copy the store to a writable place.',
    `${dir} is on a read-only file system`,
    e,
  );
}

/**
 * A store this user may not reach or read, said before SQLite opens it (exit 2, detail
 * PERMISSION_DENIED), naming what to fix; null when it can be read, or is not there to be.
 *   - A directory on its path this user may not enter (search): "There is no store" was said of a
 *     store that is there (a working directory of mode 000, another user's 0700 home), and a
 *     new store in it "cannot write in its directory" when entering it is what fails.
 *   - The file itself unreadable (another user's store, 0600): SQLite's "unable to open database
 *     file", INTERNAL, exit 1, as if the store were broken.
 * Root passes both (it ignores permissions).
 */
function storeAccessError(path: string, option = '--db'): PremiaError | null {
  try {
    accessSync(path, constants.R_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') return null;
    const closed = closedDirectoryOn(resolve(path));
    if (closed !== null) {
      return new PremiaError(
        'VALIDATION_ERROR',
        `Cannot reach the store ${path}: this user may not enter the directory ${closed} (${code}), so whether a store is there cannot even be seen. ` +
          `Nothing was changed; run as a user who may, fix that directory's permissions, or choose another path with ${option}.`,
        { cause: e, details: [{ field: 'db', code: 'PERMISSION_DENIED', message: `${closed} cannot be entered by this user` }] },
      );
    }
    return new PremiaError(
      'VALIDATION_ERROR',
      `The store ${path} cannot be read by this user (${code}): it belongs to another user, or its mode keeps this one out. ` +
        "Nothing was changed; run as the store's owner, or fix its permissions.",
      { cause: e, details: [{ field: 'db', code: 'PERMISSION_DENIED', message: `${path} cannot be read by this user` }] },
    );
  }
}

/** The first directory on the way to `path` (absolute) this user may not enter, or null. */
function closedDirectoryOn(path: string): string | null {
  const dirs: string[] = [];
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of dirs) {
    try {
      accessSync(dir, constants.X_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'EACCES' || code === 'EPERM' ? dir : null;
    }
  }
  return null;
}

/** The error for a store, or the directory of a new one, that this user cannot write (exit 2). */
function storeReadOnly(message: string, detail: string, cause: unknown): PremiaError {
  return new PremiaError('VALIDATION_ERROR', message, { cause, details: [{ field: 'db', code: 'STORE_READ_ONLY', message: detail }] });
}

function storeOpenError(path: string, e: unknown, option = '--db'): PremiaError {
  if (e instanceof PremiaError) return e;
  const readOnly = readOnlyStoreError(path, e) ?? readOnlyFileSystemError(path, e);
  if (readOnly) return readOnly;
  const full = sqliteDiskFullError(e) ?? shmFullError(path, e);
  if (full) return full;
  const msg = (e as Error).message ?? String(e);
  if (/file is not a database/i.test(msg)) {
    // --db pointed at a spreadsheet or a text file: the user's mistake, and the file is not touched.
    return new PremiaError(
      'VALIDATION_ERROR',
      `${path} is not a premia store: the file is not an SQLite database. premia leaves it untouched; choose another file with ${option}.`,
      { cause: e, details: [{ field: 'db', code: 'NOT_A_PREMIA_STORE', message: 'the file is not an SQLite database' }] },
    );
  }
  if (/malformed/i.test(msg)) {
    return new PremiaError('INTERNAL', `The store ${path} is damaged (${msg}); restore it from a backup or choose another file with ${option}.`, { cause: e });
  }
  return busyStoreError(path, e) ?? new PremiaError('INTERNAL', `Cannot open the store at ${path}: ${msg}`, { cause: e });
}

/**
 * SQLite's SQLITE_IOERR_SHMSIZE ("disk I/O error": the -shm file beside a WAL store could not be
 * grown) where the store's file system has no room left: a full disk, said as premia says one
 * (a store opened on a full disk, the first of its connections to open it, gets this rather than
 * SQLITE_FULL). Null for anything else, that error on a disk with room too (a failing disk).
 * `room` tells the bytes this process may still write in a directory (null: unknown).
 */
export function shmFullError(path: string, e: unknown, room: (dir: string) => number | null = roomIn): PremiaError | null {
  if ((e as { code?: unknown } | null)?.code !== 'SQLITE_IOERR_SHMSIZE' || path === ':memory:') return null;
  const left = room(dirname(resolve(path)));
  return left !== null && left < SHM_ROOM_BYTES ? sqliteDiskFull(e) : null;
}

/** Less room than this where the -shm could not grow (by 32 KiB at a time) is a full disk. */
const SHM_ROOM_BYTES = 1024 * 1024;

function roomIn(dir: string): number | null {
  try {
    const fs = statfsSync(dir);
    // root may write into the blocks reserved for it; others only into the available ones.
    return (process.getuid?.() === 0 ? fs.bfree : fs.bavail) * fs.bsize;
  } catch {
    return null;
  }
}

/**
 * SQLite's "database is locked" (another process held the store's write lock for the whole busy
 * timeout) as STORE_BUSY: the caller may retry (the service answers 503), nothing was written.
 */
function busyStoreError(path: string, e: unknown): PremiaError | null {
  if (e instanceof PremiaError) return null;
  const err = e as { code?: unknown; message?: unknown } | null;
  const message = typeof err?.message === 'string' ? err.message : '';
  if (err?.code !== 'SQLITE_BUSY' && !/database is locked/i.test(message)) return null;
  return new PremiaError('STORE_BUSY', `The store ${path} is busy (another process holds it); nothing was done. Try again shortly.`, { cause: e });
}
