/**
 * A disk the store writes to that has no room left, recognised here, the one place that knows
 * the database's words for it (in domain, with no IO, so that the store maps its errors with it,
 * the server answers it, and the CLI's last resort catches one no store path mapped): SQLite's
 * SQLITE_FULL ("database or disk is full", for the store's file or the temporary files of its
 * large sorts) and PostgreSQL's SQLSTATE 53100 (disk_full, pg-store.ts). Either way the database rolled back what was being written: the store is as its
 * last commit left it, and the same request or command, once there is room, goes on from there.
 *
 * It is STORE_UNAVAILABLE (a store premia cannot use now: HTTP 503, exit 1), marked by the detail
 * DISK_FULL so that `premia serve` answers it in words of its own (server/http.ts: the caller
 * cannot free the space, the operator can) and the detail survives the job thread's crossing.
 */
import { PremiaError, type FieldError } from './errors.js';

/** The detail that marks a full disk (field `db`). */
const DISK_FULL_DETAIL: FieldError = { field: 'db', code: 'DISK_FULL', message: 'a disk the store writes to is full' };

/** The message of a full disk under an SQLite store (no path: it is the same on every host). */
const SQLITE_DISK_FULL_MESSAGE =
  "A disk premia writes to is full (SQLite: database or disk is full): the store's, or that of the temporary directory (TMPDIR) its large sorts use. " +
  'What was being written was rolled back: the store is as its last commit left it. Free some space there, then run the command again.';

/** Whether `e` is a full disk as premia says it (an error made here). */
export function isDiskFull(e: unknown): e is PremiaError {
  return e instanceof PremiaError && e.code === 'STORE_UNAVAILABLE' && (e.details ?? []).some((d) => d.code === DISK_FULL_DETAIL.code);
}

/** SQLite's own full-disk error: by its code, or by its message alone (an error rebuilt from its text). */
function isSqliteFull(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  return err?.code === 'SQLITE_FULL' || (typeof err?.message === 'string' && /\bdatabase or disk is full\b/.test(err.message));
}

/**
 * SQLite's SQLITE_FULL as premia's full-disk error; null for anything else. Also an INTERNAL
 * error that wraps one (a failed migration, a store that could not be opened), and one rebuilt
 * from its message alone (the day writer's thread sends only the text: engine-pipeline.ts).
 */
export function sqliteDiskFullError(e: unknown): PremiaError | null {
  if (e instanceof PremiaError) {
    if (e.code !== 'INTERNAL') return null;
    return wrappedDiskFull(e) ?? (isSqliteFull(e.cause) ? sqliteDiskFull(e.cause) : null);
  }
  return isSqliteFull(e) ? sqliteDiskFull(e) : null;
}

/** The full disk an INTERNAL error wraps (migrate.ts: "Upgrading the store failed at …"), or null. */
export function wrappedDiskFull(e: unknown): PremiaError | null {
  return e instanceof PremiaError && e.code === 'INTERNAL' && isDiskFull(e.cause) ? e.cause : null;
}

/** premia's full-disk error for an SQLite store, `cause` being what SQLite said. */
export function sqliteDiskFull(cause: unknown): PremiaError {
  return new PremiaError('STORE_UNAVAILABLE', SQLITE_DISK_FULL_MESSAGE, { cause, details: [DISK_FULL_DETAIL] });
}

/**
 * PostgreSQL's disk_full (SQLSTATE 53100: the server's data or temporary files' disk) as
 * premia's full-disk error. `place` is host:port/database, `said` the server's words, scrubbed
 * of any password. 53200 (out_of_memory) and 53300 (too_many_connections) are not a disk.
 */
export function pgDiskFullError(place: string, said: string, cause: unknown): PremiaError {
  return new PremiaError(
    'STORE_UNAVAILABLE',
    `A disk of the PostgreSQL server at ${place} is full (${said.replace(/\.$/, '')}). ` +
      'What was being written was rolled back: the store is as its last commit left it. Free some space on the database server, then run the command again.',
    { cause, details: [DISK_FULL_DETAIL] },
  );
}
