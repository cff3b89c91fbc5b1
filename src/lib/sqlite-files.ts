/**
 * SQLite's files as other programs see them: a database by its first bytes, and the -wal, -shm
 * and -journal files SQLite alone keeps beside a database `X` (`X-wal`, `X-shm`, `X-journal`).
 * A name of the second kind must never be used for anything else: a file there is taken for the
 * database's own the next time it opens (a store or a report kept there is lost). The name is
 * what tells, not the contents (an idle WAL is empty, a -shm has no header), so the database
 * beside it is looked at.
 */
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The first bytes of a SQLite database. */
export const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** Whether `head`, a file's first bytes, is the start of a SQLite database. */
export const isSqliteDatabase = (head: Buffer): boolean => head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC);

/**
 * The SQLite database whose -wal, -shm or -journal file `path` names (`kind`: wal, shm or
 * journal), whether or not `path` exists; null when the name is not of that form or no database
 * this user can read is beside it.
 */
export async function sqliteDatabaseOwning(path: string): Promise<{ database: string; kind: string } | null> {
  const companion = /^(.+)-(wal|shm|journal)$/.exec(basename(path));
  if (!companion) return null;
  const database = join(dirname(path), companion[1]!);
  const head = Buffer.alloc(SQLITE_MAGIC.length);
  try {
    const file = await open(database, 'r');
    try {
      await file.read(head, 0, head.length, 0);
    } finally {
      await file.close();
    }
  } catch {
    return null; // nothing there (or nothing this user can read): no database of which it is a part
  }
  return isSqliteDatabase(head) ? { database, kind: companion[2]! } : null;
}
