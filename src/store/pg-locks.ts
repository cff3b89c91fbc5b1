/**
 * Every advisory lock premia takes on a PostgreSQL store, and the one place its keys are made.
 *
 * A key is two ints, (space, purpose). The space is the store's own: the server's hashtext of
 * 'premia:' and the name of its schema, the one the server resolves the connection's
 * search_path to (`current_schema()`, where premia makes and finds its tables), never the URL's
 * text (a search_path may name several schemas, "$user", or come from the role's or the
 * database's settings; the same schema reached any of these ways is one store and one space).
 * The purpose says which lock of the store it is.
 *
 * So two stores in two schemas of one database (an operator keeping each client in a schema of
 * its own) do not wait for each other's locks, while every process and machine on one store
 * shares them. Advisory locks belong to their database: a store in another database, even in a
 * schema of the same name, has locks of its own too.
 *
 * The name rather than the schema's oid: a schema dropped and made again (a restore) while
 * processes run keeps its name but not its oid, and the processes that opened the store before
 * (which find its tables by name) would have taken other locks than those that open it after.
 * Two names that hash alike (about 1 in 4 billion for a pair) only share their locks, as every
 * store of a database did before.
 *
 * One lock is no store's: the probe of `sameDatabase`, a random key in a space of its own, held
 * for a moment, which contends with nothing.
 *
 * A process of an older premia took (0x50524d41 "PRMA", purpose) for every store of the database:
 * it and a process of this one do not see each other's locks, so every process on a store is to
 * run the same premia (docs/postgresql.md).
 */
import { randomInt } from 'node:crypto';
import type { ClientBase } from 'pg';

/** The writer lock's purpose: every write transaction takes it (shared: the shards of a day). */
const WRITER = '0';
/** The advance lock's purpose: held on a session of its own for a whole clock advance. */
const ADVANCE = "hashtext('advance')";
/** The prefix of a joined shard worker's purpose (hashtext of the prefix and the worker's name). */
const WORKER = "'shard-worker:'";

export interface PgLocks {
  /** The first key of every lock of the store (storeLockSpace), an int4 as the two-int functions take it. */
  readonly space: number;
  /** The arguments of the writer lock (`pg_advisory_xact_lock(${writer})`). */
  readonly writer: string;
  /** The arguments of the clock advance's lock. */
  readonly advance: string;
  /** The arguments of a joined shard worker's lock, `name` an SQL expression of its name (`$1`). */
  worker(name: string): string;
  /** An SQL condition on `pg_locks` row `l`: a worker lock of this store, granted, `name` an SQL expression of its name. */
  workerHeld(l: string, name: string): string;
  /** An SQL condition on `pg_locks` row `l`: this store's advance lock, granted (a clock advance runs, in any process). */
  advanceHeld(l: string): string;
}

/** The locks of the store whose lock space is `space` (storeLockSpace). */
export function pgLocks(space: number): PgLocks {
  if (!Number.isInteger(space) || space < -0x80000000 || space > 0x7fffffff) throw new Error(`not an int4 lock space: ${space}`);
  // pg_locks shows the two keys as oids (unsigned: the same 32 bits), the first as classid, the second as objid.
  const held = (l: string, purpose: string) =>
    `(${l}.locktype = 'advisory' and ${l}.granted and ${l}.objsubid = 2 and ${l}.database = (select oid from pg_database where datname = current_database())` +
    ` and ${l}.classid::bigint = ${space >>> 0} and ${l}.objid::bigint = ((${purpose})::bigint + 4294967296) % 4294967296)`;
  return {
    space,
    writer: `${space}, ${WRITER}`,
    advance: `${space}, ${ADVANCE}`,
    worker: (name) => `${space}, hashtext(${WORKER} || ${name})`,
    workerHeld: (l, name) => held(l, `hashtext(${WORKER} || ${name})`),
    advanceHeld: (l) => held(l, ADVANCE),
  };
}

/**
 * The lock space of the store the connection's search_path leads to (the schema it resolves to,
 * as the server names it), or null when no schema of it exists.
 */
export async function storeLockSpace(client: ClientBase): Promise<number | null> {
  const r = await client.query<{ space: string | number | null }>("select hashtext('premia:' || current_schema()) as space");
  const space = r.rows[0]?.space;
  return space === null || space === undefined ? null : Number(space);
}

/** The first key of the same-database probe's lock ('prmc'); its second is random. */
const SAME_DATABASE_PROBE = 0x70726d63;

/**
 * Whether two sessions are on one database, however each reached it (another host name or
 * address of the server): a session lock taken on `a` is seen from `b`'s database.
 */
export async function sameDatabase(a: ClientBase, b: ClientBase): Promise<boolean> {
  const key = randomInt(1, 2 ** 31 - 1);
  await a.query('select pg_advisory_lock($1::int, $2::int)', [SAME_DATABASE_PROBE, key]);
  try {
    const seen = await b.query<{ n: number }>(
      `select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = $1::int::oid and objid = $2::int::oid
         and database = (select oid from pg_database where datname = current_database())`,
      [SAME_DATABASE_PROBE, key],
    );
    return seen.rows[0]!.n > 0;
  } finally {
    await a.query('select pg_advisory_unlock($1::int, $2::int)', [SAME_DATABASE_PROBE, key]);
  }
}
