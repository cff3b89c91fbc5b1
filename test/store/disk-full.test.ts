/**
 * A full disk, recognised in the store (src/domain/disk-full.ts) for every caller, the CLI and
 * `premia serve` alike: SQLite's SQLITE_FULL, from the store's connection or rebuilt from the
 * day writer's message, and PostgreSQL's SQLSTATE 53100, all STORE_UNAVAILABLE (503, exit 1)
 * with the detail DISK_FULL and words that say the store is as its last commit left it and to
 * free space. PostgreSQL's is checked on its mapping alone (pgError): no server is needed.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PremiaError } from '../../src/domain/errors.js';
import { toPremiaError } from '../../src/server/http.js';
import { isDiskFull, sqliteDiskFullError, wrappedDiskFull } from '../../src/domain/disk-full.js';
import { pgError, pgSettings } from '../../src/store/pg-store.js';
import { dayWriterError } from '../../src/store/repos/engine-pipeline.js';
import { openSqliteStore, shmFullError, type SqliteStore } from '../../src/store/store.js';
import { tempDir } from '../helpers/cli.js';
import { rejection } from '../helpers/errors.js';

const SQLITE_MESSAGE =
  "A disk premia writes to is full (SQLite: database or disk is full): the store's, or that of the temporary directory (TMPDIR) its large sorts use. " +
  'What was being written was rolled back: the store is as its last commit left it. Free some space there, then run the command again.';
const DETAILS = [{ field: 'db', code: 'DISK_FULL', message: 'a disk the store writes to is full' }];
const SERVICE_MESSAGE =
  "The service's store has no room left on its disk (a problem of the service's set-up, not of this request): what this request was writing was rolled back, " +
  'and the store is as its last commit left it (an advance keeps the days it lived: GET /clock shows the date reached). ' +
  "Try again once the operator has freed some space (the operator's log has the details under this request id).";

/** What every full disk is: the code, its HTTP status and exit code, the detail. */
function shape(e: unknown): unknown[] {
  const p = e as PremiaError;
  return [p instanceof PremiaError, p.code, p.status, p.exitCode, p.details];
}
const FULL = [true, 'STORE_UNAVAILABLE', 503, 1, DETAILS];

describe("SQLite's SQLITE_FULL", () => {
  let tmp: ReturnType<typeof tempDir>;
  let store: SqliteStore;
  let limit: number;
  beforeEach(async () => {
    tmp = tempDir('premia-store-disk-full-');
    store = await openSqliteStore({ path: join(tmp.dir, 'premia.db') });
    limit = store.raw.pragma('max_page_count', { simple: true }) as number;
    // No room for one more page: a value of 200 KB needs several.
    store.raw.pragma(`max_page_count = ${store.raw.pragma('page_count', { simple: true }) as number}`);
  });
  afterEach(async () => {
    await store.close();
    tmp.cleanup();
  });
  const big = { key: 'filler', value: 'x'.repeat(200_000) };

  it('a write in a transaction of the store: said so, and nothing of it kept', async () => {
    const e = await rejection(store.transaction((trx) => trx.insertInto('meta').values(big).execute()));
    expect(shape(e)).toEqual(FULL);
    expect((e as Error).message).toBe(SQLITE_MESSAGE);
    expect(((e as Error).cause as { code?: string }).code).toBe('SQLITE_FULL');
    store.raw.pragma(`max_page_count = ${limit}`);
    expect(await store.db.selectFrom('meta').select('key').where('key', '=', 'filler').execute()).toEqual([]);
  });

  it('a statement outside any transaction, and raw statements on the connection: the same', async () => {
    const direct = await rejection(store.db.insertInto('meta').values(big).execute());
    expect([...shape(direct), (direct as Error).message]).toEqual([...FULL, SQLITE_MESSAGE]);
    const raw = await rejection(store.withConnection(async (db) => db.prepare('insert into meta (key, value) values (?, ?)').run(big.key, big.value)));
    expect([...shape(raw), (raw as Error).message]).toEqual([...FULL, SQLITE_MESSAGE]);
  });

  it("the day writer's, rebuilt from its message alone on the engine's side", () => {
    const e = dayWriterError({ message: 'database or disk is full' });
    expect([...shape(e), e.message]).toEqual([...FULL, SQLITE_MESSAGE]);
    // Its other failures stay as they were: premia's by their code, the rest as plain errors.
    const busy = dayWriterError({ message: 'The store is busy.', code: 'STORE_BUSY' });
    expect([busy instanceof PremiaError, (busy as PremiaError).code, busy.message]).toEqual([true, 'STORE_BUSY', 'The store is busy.']);
    const other = dayWriterError({ message: 'disk I/O error' });
    expect([other instanceof PremiaError, other.message]).toEqual([false, 'disk I/O error']);
  });

  it('an INTERNAL error wrapping one (a migration that ran out of room) becomes it; other errors are not it', () => {
    const sqliteFull = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const wrapped = new PremiaError('INTERNAL', 'Upgrading the store failed at migration 0001_init: database or disk is full', { cause: sqliteFull });
    expect([...shape(sqliteDiskFullError(wrapped)), sqliteDiskFullError(wrapped)?.message]).toEqual([...FULL, SQLITE_MESSAGE]);
    const already = sqliteDiskFullError(sqliteFull)!;
    expect(sqliteDiskFullError(new PremiaError('INTERNAL', 'Upgrading the store failed', { cause: already }))).toBe(already);
    expect(sqliteDiskFullError(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toBeNull();
    expect(sqliteDiskFullError(new PremiaError('STORE_BUSY', 'database or disk is full'))).toBeNull();
    expect(isDiskFull(new PremiaError('STORE_UNAVAILABLE', 'Cannot connect to the PostgreSQL server at h:5432/db: the connection was refused.'))).toBe(false);
  });
});

describe("SQLite's SQLITE_IOERR_SHMSIZE (a store opened on a full disk: its -shm cannot grow)", () => {
  const shmsize = () => Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_SHMSIZE' });

  it('is the full disk it is when the file system has no room left: said so, not "disk I/O error"', () => {
    const full = shmFullError('/srv/premia/acme.db', shmsize(), () => 0);
    expect([...shape(full), full?.message]).toEqual([...FULL, SQLITE_MESSAGE]);
    expect(shape(shmFullError('acme.db', shmsize(), () => 16 * 1024))).toEqual(FULL);
  });

  it('on a disk with room (a failing disk), where the room cannot be told, or another error: not a full disk', () => {
    expect(shmFullError('/srv/premia/acme.db', shmsize(), () => 10 * 1024 * 1024 * 1024)).toBeNull();
    expect(shmFullError('/srv/premia/acme.db', shmsize(), () => null)).toBeNull();
    expect(shmFullError('/srv/premia/acme.db', Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }), () => 0)).toBeNull();
  });
});

describe("PostgreSQL's disk_full (SQLSTATE 53100)", () => {
  const url = 'postgres://premia:s3cret-pw@db.internal:5432/premia';
  const settings = pgSettings(url, {});
  const serverError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'ERROR' });

  it('is STORE_UNAVAILABLE with the detail DISK_FULL, naming the server, never the password', () => {
    const e = pgError(serverError('53100', 'could not extend file "base/16384/16412": No space left on device'), url, settings);
    expect(shape(e)).toEqual(FULL);
    expect((e as Error).message).toBe(
      'A disk of the PostgreSQL server at db.internal:5432/premia is full (could not extend file "base/16384/16412": No space left on device). ' +
        'What was being written was rolled back: the store is as its last commit left it. Free some space on the database server, then run the command again.',
    );
    // A message that quoted the password has it scrubbed, in the error and in its cause.
    const quoting = pgError(serverError('53100', `could not write to file "pgsql_tmp/s3cret-pw": No space left on device.`), url, settings) as PremiaError;
    expect(quoting.message).not.toContain('s3cret-pw');
    expect(String((quoting.cause as Error).message)).not.toContain('s3cret-pw');
  });

  it('one a migration met comes out as itself, not as the INTERNAL error that wraps it', () => {
    const full = pgError(serverError('53100', 'could not extend file "base/16384/16412": No space left on device'), url, settings) as PremiaError;
    expect(wrappedDiskFull(new PremiaError('INTERNAL', `Upgrading the store failed at migration 0001_init: ${full.message}`, { cause: full }))).toBe(full);
    expect(wrappedDiskFull(new PremiaError('INTERNAL', 'Upgrading the store failed at migration 0001_init: boom', { cause: new Error('boom') }))).toBeNull();
  });

  it('out of memory (53200) is not a full disk', () => {
    const e = pgError(serverError('53200', 'out of memory'), url, settings);
    expect(isDiskFull(e)).toBe(false);
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toBeInstanceOf(PremiaError);
  });

  it("is answered by `premia serve` as SQLite's is: 503, nothing of the server's words", () => {
    const { error, internal } = toPremiaError(pgError(serverError('53100', 'could not extend file "base/16384/16412": No space left on device'), url, settings), {
      jsonLimit: 1024,
      uploadLimit: 4096,
    });
    expect([internal, error.code, error.status, error.message, error.details]).toEqual([true, 'STORE_UNAVAILABLE', 503, SERVICE_MESSAGE, undefined]);
  });
});
