/**
 * `premia db copy --from A --to B`: every table of one store copied into another (SQLite to
 * PostgreSQL, PostgreSQL to SQLite, or either to its own kind), in one transaction on the
 * target, then verified (row counts and money totals per table) before that transaction commits.
 *
 * - The source is read from one snapshot (SQLite: one read transaction; PostgreSQL: repeatable
 *   read), rows in primary-key order, never all in memory.
 * - Into PostgreSQL the rows go through `COPY … FROM STDIN` (CSV; pg-copy.ts's CopyIn), then
 *   the id sequences are lined up with the tables (max(id) + 1, as the store does on every write).
 *   Into SQLite through prepared inserts (the AUTOINCREMENT counters follow the ids).
 * - A target that holds rows is refused (CONFLICT, naming what is there) unless the caller
 *   allows replacing it; then `confirm` is told exactly what will be replaced first, and the
 *   rows are replaced inside the same transaction (a target that changed in between is refused).
 * - The verification runs on the target inside the copy's transaction: when any count or total
 *   differs from the source's, the transaction is rolled back (nothing written) and the report
 *   says where.
 *
 * The schema is the target's (both stores are at this premia's migrations once opened): its
 * tables bar the bookkeeping ones, parents before children (foreign keys), its columns.
 */
import { resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import type BetterSqlite3 from 'better-sqlite3';
import { isPostgresUrl, redactDbUrl } from '../lib/db-url.js';
import { ExitCode, PremiaError } from '../domain/errors.js';
import { CopyIn } from './pg-copy.js';
import { sameDatabase } from './pg-locks.js';
import { idSyncSql, MARKER_TABLE, pgSettings, PREMIA_TABLES } from './pg-store.js';
import { MIGRATION_TABLE } from './migrate.js';
import { openStore } from './store.js';
import { beginImmediate } from './sqlite-dialect.js';
import type { PgUnit, Store } from './store-types.js';
import type { LockWaitHooks, LockWaitStop } from '../lib/lock-wait.js';

/** Integer-cents columns, summed by the verification (a table not named here: counts only). */
export const MONEY_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  policies: ['collection_amount'],
  policy_amount_changes: ['old_amount', 'new_amount'],
  collections: ['amount_due', 'amount_collected'],
  attempts: ['amount'],
  bank_transactions: ['amount'],
  bank_snapshots: ['balance'],
  settlements: ['total_collections', 'distribution_fee', 'collections_fee', 'total_fees', 'vat', 'period_net', 'previously_paid'],
};

/**
 * Bookkeeping tables each store keeps for itself (its migrations, PostgreSQL's marker, the version
 * of the engine's inputs its own triggers move: a copy's image is then read as one whose inputs
 * changed, which it is to the copy).
 */
const SKIPPED = new Set([MIGRATION_TABLE, MARKER_TABLE, 'sqlite_sequence', 'sqlite_stat1', 'engine_inputs']);

export interface TableTotals {
  table: string;
  /** Rows, as decimal text. */
  rows: string;
  /** Sum of the table's money columns (integer cents, decimal text), or null when it has none. */
  money: string | null;
}

export interface CopiedTable {
  table: string;
  from: TableTotals;
  to: TableTotals;
  same: boolean;
}

export interface StoreCopyReport {
  /** The stores as shown (a PostgreSQL URL without its password). */
  from: string;
  to: string;
  tables: CopiedTable[];
  /** Every count and total the same: the copy was committed. False: rolled back, nothing written. */
  identical: boolean;
  /** The target's rows that were replaced (tables that held any), empty for an empty target. */
  replaced: Array<{ table: string; rows: number }>;
}

export interface StoreCopyOptions {
  from: string;
  to: string;
  /** A target that holds rows may be replaced (after `confirm`); false: it is refused (CONFLICT). */
  replace: boolean;
  /** Told what a non-empty target holds, before anything is replaced; throws to stop. */
  confirm?: (what: { target: string; tables: Array<{ table: string; rows: number }> }) => Promise<void>;
  /** Told as each table is copied. */
  onTable?: (table: string, rows: number) => void;
  /** Ctrl-C: the copy stops at its next batch and rolls back (CANCELLED, exit 130); while it waits for another process's write lock on the target, at once. */
  signal?: AbortSignal;
  /** Told when the copy has waited half a second for another process's write lock on a target file. */
  onWait?: () => void;
}

interface TableShape {
  name: string;
  columns: string[];
  /** Primary-key columns (the order rows are read in); empty: rowid order (SQLite). */
  key: string[];
  money: string[];
  /** The rows (table `a` of `from`) read in `order`, their ids numbered from 1 in it (selectSql). */
  renumbered?: { from: string; order: string };
}

/**
 * The attempts of a PostgreSQL store, copied to a file, are numbered in the order one process
 * inserts them (by day, then client and policy_number: engine/day-rows.ts): SQLite reads a
 * period's attempts in id order as the export's order (report-ranges.ts
 * ATTEMPT_ROWS), while on PostgreSQL the shards of a day insert side by side and their
 * ids follow the order the shards committed in. Nothing refers to an attempt's id.
 */
const ATTEMPTS_IN_EXPORT_ORDER = {
  from: '"attempts" a join "collections" c on c."id" = a."collection_id"',
  order: 'a."date", a."client_id", c."policy_number", a."period_month", a."id"',
};

/** Reads a store from one snapshot. */
interface Reader {
  totals(t: TableShape): Promise<TableTotals>;
  rows(t: TableShape): AsyncGenerator<unknown[][]>;
  /** The day open in customer shards (PostgreSQL: engine/shards.ts), or null. */
  openShardDay(): Promise<string | null>;
}

/** Writes a store inside its one transaction. */
interface Writer {
  counts(tables: TableShape[]): Promise<Array<{ table: string; rows: number }>>;
  clear(tables: TableShape[]): Promise<void>;
  write(t: TableShape, rows: AsyncGenerator<unknown[][]>): Promise<number>;
  lineUpIds(): Promise<void>;
  totals(t: TableShape): Promise<TableTotals>;
}

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

/** Thrown inside the target's transaction to roll it back with the report. */
class Mismatch extends Error {
  constructor(readonly tables: CopiedTable[]) {
    super('the copy differs from its source');
  }
}

export async function copyStore(options: StoreCopyOptions): Promise<StoreCopyReport> {
  // Named alike (the same file path, or the same server and database however the URL is written,
  // with or without its password): refused before connecting to either. Reached another way (a
  // host alias, a link): found by sameStore once both are open.
  const place = (store: string) => {
    if (!isPostgresUrl(store)) return store === ':memory:' ? null : `file:${resolve(store)}`;
    const c = pgSettings(store).client;
    // Two schemas of one database (options=-csearch_path%3D…) are two stores: told apart by sameStore.
    return `pg:${c.host ?? 'localhost'}:${c.port ?? 5432}/${c.database}${c.options ? `?options=${c.options}` : ''}`;
  };
  if (place(options.from) !== null && place(options.from) === place(options.to)) throw sameStoreError();
  const source = await openStore({ path: options.from, create: false, option: '--from' });
  try {
    const onWait = options.onWait;
    const lockWait: LockWaitHooks | undefined = onWait && { onWait: () => void onWait() };
    const target = await openStore({ path: options.to, create: true, option: '--to', lockWait });
    try {
      if (await sameStore(source, target)) throw sameStoreError();
      return await copyBetween(source, target, options);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

function sameStoreError(): PremiaError {
  return new PremiaError('USAGE_ERROR', '--from and --to name the same store: copy it to another one.');
}

/**
 * Whether two open stores are one, however they were reached: a file through a link (the same
 * device and inode), or a PostgreSQL database through another host name or address (a
 * session-level advisory lock taken on the source is seen from the target's database). Copying
 * a store onto itself would wait on its own locks for good.
 */
async function sameStore(source: Store, target: Store): Promise<boolean> {
  if (source.kind === 'sqlite' && target.kind === 'sqlite') {
    if (source.path === ':memory:' || target.path === ':memory:') return false;
    try {
      const [a, b] = await Promise.all([stat(source.path), stat(target.path)]);
      return a.dev === b.dev && a.ino === b.ino;
    } catch {
      return false;
    }
  }
  if (source.kind !== 'postgres' || target.kind !== 'postgres') return false;
  const a = await source.openSession();
  try {
    const b = await target.openSession();
    try {
      if (!(await sameDatabase(a.client, b.client))) return false;
      // One database: one store only when both search paths lead to the same schema.
      const schema = async (s: typeof a) => (await s.client.query<{ schema: string }>('select current_schema() as schema')).rows[0]!.schema;
      return (await schema(a)) === (await schema(b));
    } finally {
      await b.close();
    }
  } finally {
    await a.close();
  }
}

async function copyBetween(source: Store, target: Store, options: StoreCopyOptions): Promise<StoreCopyReport> {
  const tables = await shapes(target);
  const sourceTables = new Map((await tableColumns(source)).map((t) => [t.name, t]));
  for (const t of tables) {
    const from = sourceTables.get(t.name);
    if (from === undefined) {
      throw new PremiaError(
        'VALIDATION_ERROR',
        `${redactDbUrl(target.path)} has a table ${t.name} that ${redactDbUrl(source.path)} has not: a table premia did not make in the target, or two stores of different premia versions. Nothing was copied.`,
      );
    }
    const missing = t.columns.filter((c) => !from.columns.includes(c));
    if (missing.length > 0) {
      throw new PremiaError(
        'VALIDATION_ERROR',
        `${redactDbUrl(source.path)} has no column ${missing.join(', ')} of table ${t.name}, which ${redactDbUrl(target.path)} has: are the two stores of different premia versions? Nothing was copied.`,
      );
    }
    t.key = from.key;
    if (t.name === 'attempts' && source.kind === 'postgres' && target.kind === 'sqlite') t.renumbered = ATTEMPTS_IN_EXPORT_ORDER;
  }

  // What the target holds, told before anything is changed.
  const held = (await inTarget(target, (w) => w.counts(tables), false)).filter((c) => c.rows > 0);
  if (held.length > 0) {
    if (!options.replace) throw notEmpty(target.path, held);
    await options.confirm?.({ target: target.path, tables: held });
  }

  try {
    return await inSource(source, async (reader) => {
      const open = target.kind === 'sqlite' ? await reader.openShardDay() : null;
      if (open !== null) throw openShardDay(source.path, open);
      const from = new Map<string, TableTotals>();
      for (const t of tables) from.set(t.name, await reader.totals(t));
      // Waiting for another process's write lock on the target, Ctrl-C stops the copy at once.
      const stop: LockWaitStop = { signal: options.signal, error: () => cancelled(target.path, held.length > 0) };
      return inTarget(
        target,
        async (writer) => {
          const now = (await writer.counts(tables)).filter((c) => c.rows > 0);
          if (JSON.stringify(now) !== JSON.stringify(held)) {
            throw new PremiaError('CONFLICT', `${target.path} changed while the copy was starting (it now holds ${heldText(now)}); nothing was copied. Run the copy again.`);
          }
          const stopped = () => {
            if (options.signal?.aborted) throw cancelled(target.path, held.length > 0);
          };
          stopped();
          if (held.length > 0) await writer.clear(tables);
          for (const t of tables) {
            const n = await writer.write(t, checked(reader.rows(t), stopped));
            options.onTable?.(t.name, n);
            stopped();
          }
          await writer.lineUpIds();
          const report: CopiedTable[] = [];
          for (const t of tables) {
            const a = from.get(t.name)!;
            const b = await writer.totals(t);
            report.push({ table: t.name, from: a, to: b, same: a.rows === b.rows && a.money === b.money });
          }
          if (!report.every((r) => r.same)) throw new Mismatch(report);
          return { from: source.path, to: target.path, tables: report, identical: true, replaced: held };
        },
        true,
        stop,
      );
    });
  } catch (e) {
    if (e instanceof Mismatch) return { from: source.path, to: target.path, tables: e.tables, identical: false, replaced: [] };
    throw e;
  }
}

/**
 * The rows, `stop` asked before each batch (it throws to stop). A SQLite store is read and written
 * by synchronous calls, so a file-to-file copy never waited on anything: the process's SIGINT
 * (Ctrl-C), an event of the loop, was heard only once the copy had committed. Each batch first
 * gives the loop a turn, so a Ctrl-C pressed meanwhile has aborted the copy when `stop` asks.
 */
async function* checked(rows: AsyncGenerator<unknown[][]>, stop: () => void): AsyncGenerator<unknown[][]> {
  for await (const batch of rows) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    stop();
    yield batch;
  }
}

/**
 * A day of a PostgreSQL store open in customer shards (a clock advance stopped in it) cannot be
 * finished by a file, which lives its days whole: it would live again the customers whose shards
 * are done (their attempts stored twice refused, the file's advance stuck on that day), and leave
 * the day's rows open for a copy back.
 */
function openShardDay(display: string, day: string): PremiaError {
  return new PremiaError(
    'CONFLICT',
    `${redactDbUrl(display)} has the day ${day} open in customer shards (a clock advance stopped in it), which a store file cannot finish: it lives its days whole. ` +
      `Nothing was copied; finish the day first ('premia --db <the source> clock advance --to ${day}'), then copy again.`,
  );
}

function cancelled(display: string, replacing: boolean): PremiaError {
  return new PremiaError(
    'CANCELLED',
    `Stopped by Ctrl-C: nothing was copied (the copy was rolled back whole); ${display} ${replacing ? 'holds what it held before' : "has premia's tables and nothing in them, and a rerun of the copy takes it as empty"}.`,
    { exitCode: ExitCode.CANCELLED },
  );
}

function heldText(held: Array<{ table: string; rows: number }>): string {
  return held.length === 0 ? 'no rows' : held.map((h) => `${h.table} (${String(h.rows).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} ${h.rows === 1 ? 'row' : 'rows'})`).join(', ');
}

function notEmpty(display: string, held: Array<{ table: string; rows: number }>): PremiaError {
  return new PremiaError(
    'CONFLICT',
    `The target ${display} is not empty: it holds ${heldText(held)}. Nothing was copied. Give --yes to replace all of it with the copy, or copy into an empty database.`,
  );
}

// -- the schema ---------------------------------------------------------------------------------

async function tableColumns(store: Store): Promise<TableShape[]> {
  if (store.kind === 'sqlite') {
    return store.withConnection(async (raw) => {
      const names = (raw.prepare(`select name from sqlite_master where type = 'table' order by name`).all() as Array<{ name: string }>).map((r) => r.name);
      return names
        // A store file is premia's alone: a table premia did not make in it is named and refused
        // (copyBetween), not passed over as another application's in a PostgreSQL schema is.
        .filter((n) => !SKIPPED.has(n))
        .map((name) => {
          const info = raw.prepare(`select name, pk from pragma_table_info(?) order by cid`).all(name) as Array<{ name: string; pk: number }>;
          const key = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
          return { name, columns: info.map((c) => c.name), key, money: [] };
        });
    });
  }
  const rows = await store.readUnit(async (unit) =>
    (
      await unit.client.query<{ table: string; column: string; key: number | null }>(
        `select c.relname as "table", a.attname as "column",
                array_position(i.indkey::int2[], a.attnum) as "key"
           from pg_class c
           join pg_namespace n on n.oid = c.relnamespace
           join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
           left join pg_index i on i.indrelid = c.oid and i.indisprimary
          where n.nspname = current_schema() and c.relkind = 'r'
          order by c.relname, a.attnum`,
      )
    ).rows,
  );
  const out = new Map<string, TableShape & { keyAt: Map<string, number> }>();
  for (const r of rows) {
    // premia's tables only: another application's in the same schema are neither read nor replaced.
    if (!PREMIA_TABLES.has(r.table) || SKIPPED.has(r.table)) continue;
    let t = out.get(r.table);
    if (!t) out.set(r.table, (t = { name: r.table, columns: [], key: [], money: [], keyAt: new Map() }));
    t.columns.push(r.column);
    if (r.key !== null) t.keyAt.set(r.column, Number(r.key));
  }
  return [...out.values()].map((t) => ({ name: t.name, columns: t.columns, key: [...t.keyAt].sort((a, b) => a[1] - b[1]).map(([c]) => c), money: [] }));
}

/** The target's tables, parents before children, with their money columns. */
async function shapes(store: Store): Promise<TableShape[]> {
  const tables = await tableColumns(store);
  const edges = await foreignKeys(store);
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: TableShape[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string) => {
    if (state.get(name) !== undefined || !byName.has(name)) return;
    state.set(name, 'visiting');
    for (const e of edges) if (e.child === name && e.parent !== name) visit(e.parent);
    state.set(name, 'done');
    ordered.push(byName.get(name)!);
  };
  for (const t of tables) visit(t.name);
  for (const t of ordered) t.money = (MONEY_COLUMNS[t.name] ?? []).filter((c) => t.columns.includes(c));
  return ordered;
}

async function foreignKeys(store: Store): Promise<Array<{ child: string; parent: string }>> {
  if (store.kind === 'sqlite') {
    return store.withConnection(async (raw) =>
      raw
        .prepare(`select m.name as child, f."table" as parent from sqlite_master m, pragma_foreign_key_list(m.name) f where m.type = 'table'`)
        .all() as Array<{ child: string; parent: string }>,
    );
  }
  return store.readUnit(
    async (unit) =>
      (
        await unit.client.query<{ child: string; parent: string }>(
          `select cc.relname as child, pc.relname as parent
             from pg_constraint c join pg_namespace n on n.oid = c.connamespace
             join pg_class cc on cc.oid = c.conrelid join pg_class pc on pc.oid = c.confrelid
            where c.contype = 'f' and n.nspname = current_schema()`,
        )
      ).rows,
  );
}

// -- reading ------------------------------------------------------------------------------------

const BATCH = 5000;

/**
 * The rows of a table that are the store's, not a process's: the meta row `advance_lease`
 * describes a clock advance of a process on the source (one killed leaves it behind), never one
 * on the copy; copied, it kept the copy's first advance waiting for that process, on SQLite up to
 * ten minutes when it had run on another host.
 */
function storeRows(t: TableShape): string {
  return t.name === 'meta' ? ` where ${q('key')} <> 'advance_lease'` : '';
}

function totalsSql(t: TableShape, pg: boolean): string {
  const text = (e: string) => (pg ? `(${e})::text` : `cast(${e} as text)`);
  const money = t.money.length === 0 ? 'null' : text(t.money.map((c) => `coalesce(sum(${q(c)}), 0)`).join(' + '));
  return `select ${text('count(*)')} as rows, ${money} as money from ${q(t.name)}${storeRows(t)}`;
}

function selectSql(t: TableShape): string {
  if (t.renumbered !== undefined) {
    const { from, order } = t.renumbered;
    const columns = t.columns.map((c) => (c === 'id' ? `row_number() over (order by ${order}) as ${q('id')}` : `a.${q(c)}`));
    return `select ${columns.join(', ')} from ${from} order by ${order}`;
  }
  const order = t.key.length > 0 ? ` order by ${t.key.map(q).join(', ')}` : '';
  return `select ${t.columns.map(q).join(', ')} from ${q(t.name)}${storeRows(t)}${order}`;
}

async function inSource<T>(store: Store, fn: (reader: Reader) => Promise<T>): Promise<T> {
  if (store.kind === 'postgres') return store.readUnit((unit) => fn(pgReader(unit)));
  return store.withConnection(async (raw) => {
    raw.exec('begin');
    try {
      return await fn(sqliteReader(raw));
    } finally {
      if (raw.inTransaction) raw.exec('rollback');
    }
  });
}

function sqliteReader(raw: BetterSqlite3.Database): Reader {
  return {
    openShardDay: async () => null,
    async totals(t) {
      const r = raw.prepare(totalsSql(t, false)).get() as { rows: string; money: string | null };
      return { table: t.name, rows: r.rows, money: r.money };
    },
    async *rows(t) {
      const stmt = raw.prepare(selectSql(t)).raw(true).safeIntegers(true);
      let batch: unknown[][] = [];
      for (const row of stmt.iterate() as IterableIterator<unknown[]>) {
        batch.push(row);
        if (batch.length >= BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    },
  };
}

function pgReader(unit: PgUnit): Reader {
  return {
    async openShardDay() {
      const r = await unit.client.query<{ day: string }>(`select day from engine_shards where state <> 'closed' order by day limit 1`);
      return r.rows[0]?.day ?? null;
    },
    async totals(t) {
      const r = (await unit.client.query<{ rows: string; money: string | null }>(totalsSql(t, true))).rows[0]!;
      return { table: t.name, rows: r.rows, money: r.money };
    },
    rows: (t) => unit.rows<unknown[]>(selectSql(t), [], { raw: true, batch: BATCH }),
  };
}

// -- writing ------------------------------------------------------------------------------------

/** Run `fn` in one write transaction of the target (committed when `commit`, else rolled back); `stop` ends a wait for another process's write lock. */
async function inTarget<T>(store: Store, fn: (writer: Writer) => Promise<T>, commit: boolean, stop?: LockWaitStop): Promise<T> {
  if (store.kind === 'postgres') {
    if (!commit) return store.readUnit((unit) => fn(pgWriter(unit, store.path)));
    return store.writeUnit((unit) => fn(pgWriter(unit, store.path)));
  }
  return store.withConnection(async (raw) => {
    if (commit) await beginImmediate(raw, stop);
    else raw.exec('begin');
    let done = false;
    try {
      const out = await fn(sqliteWriter(raw));
      if (commit) {
        raw.exec('commit');
        done = true;
      }
      return out;
    } finally {
      // SQLite rolls a transaction back by itself on some errors (a full disk, SQLITE_FULL): a
      // rollback then would fail, and its error hide the one that ended the copy.
      if (!done && raw.inTransaction) raw.exec('rollback');
    }
  });
}

async function counts(tables: TableShape[], count: (sql: string) => Promise<number>): Promise<Array<{ table: string; rows: number }>> {
  const out: Array<{ table: string; rows: number }> = [];
  for (const t of tables) out.push({ table: t.name, rows: await count(`select count(*) as n from ${q(t.name)}`) });
  return out;
}

/** One CSV field of COPY … (format csv): null unquoted and empty, text always quoted, bytes as bytea hex. */
function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return `"${v.replace(/"/g, '""')}"`;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v instanceof Uint8Array) return `\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  throw new Error(`cannot copy a value of type ${typeof v}`);
}

function pgWriter(unit: PgUnit, target: string): Writer {
  const client = unit.client;
  return {
    counts: (tables) => counts(tables, async (s) => Number((await client.query<{ n: string }>(s)).rows[0]!.n)),
    async clear(tables) {
      // Another application's table that refers to one of premia's would stop the truncate (the
      // server's words were an unexpected failure); its rows are not premia's to remove.
      const names = tables.map((t) => t.name);
      const refs = (
        await client.query<{ child: string; parent: string }>(
          `select distinct cc.relname as child, pc.relname as parent
             from pg_constraint c join pg_class cc on cc.oid = c.conrelid join pg_class pc on pc.oid = c.confrelid
             join pg_namespace n on n.oid = pc.relnamespace
            where c.contype = 'f' and n.nspname = current_schema() and pc.relname = any($1::text[])
              and not (cc.relname = any($1::text[]) and cc.relnamespace = pc.relnamespace)
            order by 1, 2`,
          [names],
        )
      ).rows;
      if (refs.length > 0) {
        throw new PremiaError(
          'CONFLICT',
          `The target ${target} holds tables premia did not make that refer to premia's (${refs.map((r) => `${r.child} → ${r.parent}`).join(', ')}), ` +
            "so premia's rows cannot be replaced under them; nothing was copied and those tables are untouched. Copy into another database, or drop those references first.",
        );
      }
      await client.query(`truncate table ${tables.map((t) => q(t.name)).join(', ')}`);
    },
    async write(t, rows) {
      const copy = new CopyIn(client, `copy ${q(t.name)} (${t.columns.map(q).join(', ')}) from stdin with (format csv)`);
      let n = 0;
      for await (const batch of rows) {
        let text = '';
        for (const row of batch) text += `${row.map(csvField).join(',')}\n`;
        copy.write(text);
        n += batch.length;
        await copy.ready();
      }
      await copy.end();
      return n;
    },
    async lineUpIds() {
      const statement = await idSyncSql(unit.db);
      if (statement !== null) await client.query(statement);
    },
    async totals(t) {
      const r = (await client.query<{ rows: string; money: string | null }>(totalsSql(t, true))).rows[0]!;
      return { table: t.name, rows: r.rows, money: r.money };
    },
  };
}

function sqliteWriter(raw: BetterSqlite3.Database): Writer {
  return {
    counts: (tables) => counts(tables, async (s) => Number((raw.prepare(s).get() as { n: number }).n)),
    async clear(tables) {
      for (const t of [...tables].reverse()) raw.prepare(`delete from ${q(t.name)}`).run();
    },
    async write(t, rows) {
      const insert = raw.prepare(`insert into ${q(t.name)} (${t.columns.map(q).join(', ')}) values (${t.columns.map(() => '?').join(', ')})`);
      let n = 0;
      for await (const batch of rows) {
        for (const row of batch) insert.run(row);
        n += batch.length;
      }
      return n;
    },
    async lineUpIds() {
      // AUTOINCREMENT counters follow the ids inserted; other tables take max(rowid) + 1.
    },
    async totals(t) {
      const r = raw.prepare(totalsSql(t, false)).get() as { rows: string; money: string | null };
      return { table: t.name, rows: r.rows, money: r.money };
    },
  };
}
