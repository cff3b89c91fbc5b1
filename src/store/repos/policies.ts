/**
 * Policy repository. Ordinary reads and writes go through kysely; the bulk import inserts with
 * one cached multi-row prepared statement (kysely's per-row overhead is several times the cost
 * of the insert itself at a million rows), behind a function of the same repository, inside the
 * import's own transaction (inPolicyImport).
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { IsoDate } from '../../domain/period.js';
import { PremiaError } from '../../domain/errors.js';
import { sql } from '../kysely.js';
import type { Database, PoliciesTable, PolicyAmountChangesTable, PolicyStatusChangesTable } from '../schema.js';
import type { Store } from '../store.js';
import { beginImmediate } from '../sqlite-dialect.js';
import { inLists } from '../bulk.js';
import type { LockWaitStop } from '../../lib/lock-wait.js';
import type { DuplicatePolicyRow, PolicyImportSession, PolicyImportSink, PolicyRows } from './policy-import-sink.js';

export type { DuplicatePolicyRow, PolicyImportRows, PolicyImportSession, PolicyImportSink, PolicyRows } from './policy-import-sink.js';

type Q = Kysely<Database>;
export type PolicyRow = Selectable<PoliciesTable>;
export type NewPolicyRow = Insertable<PoliciesTable>;
/** What an update changes. */
export type PolicyChange = Pick<Updateable<PoliciesTable>, 'collection_amount' | 'status' | 'updated_at'>;

export async function insertPolicy(db: Q, row: NewPolicyRow): Promise<number> {
  const result = await db.insertInto('policies').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(result.id);
}

export async function findPolicyById(db: Q, clientId: number, id: number): Promise<PolicyRow | undefined> {
  return db.selectFrom('policies').selectAll().where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst();
}

/** A policy as a list of them is checked: which it is, and whether it is active. */
export type PolicyStatusRow = Pick<PolicyRow, 'id' | 'policy_number' | 'status'>;

/**
 * The client's policies whose id is one of `ids`, in no particular order: IN_LIST_MAX to a
 * statement (a collections run may name 100,000 policies, where one look-up each cost ~35 µs of
 * statement building and running).
 */
export function findPoliciesByIds(db: Q, clientId: number, ids: readonly number[]): Promise<PolicyStatusRow[]> {
  return policiesIn(db, clientId, 'id', ids);
}

/** The client's policies whose number is one of `numbers`, as findPoliciesByIds reads them. */
export function findPoliciesByNumbers(db: Q, clientId: number, numbers: readonly string[]): Promise<PolicyStatusRow[]> {
  return policiesIn(db, clientId, 'policy_number', numbers);
}

async function policiesIn<T extends number | string>(db: Q, clientId: number, column: 'id' | 'policy_number', values: readonly T[]): Promise<PolicyStatusRow[]> {
  const rows: PolicyStatusRow[] = [];
  const policies = db.selectFrom('policies').select(['id', 'policy_number', 'status']).where('client_id', '=', clientId);
  for (const list of inLists(values)) rows.push(...(await policies.where(column, 'in', list).execute()));
  return rows;
}

/**
 * The client's policy number that is `policyNumber` in upper or in lower case, if any (for a
 * NOT_FOUND's hint). Two lookups on the unique index, never a scan: a service answers many
 * NOT_FOUNDs.
 */
export async function policyNumberLike(db: Q, clientId: number, policyNumber: string): Promise<string | undefined> {
  for (const variant of new Set([policyNumber.toUpperCase(), policyNumber.toLowerCase()])) {
    if (variant === policyNumber) continue;
    const row = await db.selectFrom('policies').select('policy_number').where('client_id', '=', clientId).where('policy_number', '=', variant).executeTakeFirst();
    if (row) return row.policy_number;
  }
  return undefined;
}

export async function findPolicyByNumber(db: Q, clientId: number, policyNumber: string): Promise<PolicyRow | undefined> {
  return db
    .selectFrom('policies')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('policy_number', '=', policyNumber)
    .executeTakeFirst();
}

export async function listPolicies(
  db: Q,
  clientId: number,
  q: { status?: string; limit: number; after?: string },
): Promise<PolicyRow[]> {
  let query = db.selectFrom('policies').selectAll().where('client_id', '=', clientId);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.after !== undefined) query = query.where('policy_number', '>', q.after);
  return query.orderBy('policy_number').limit(q.limit).execute();
}

export async function updatePolicyRow(db: Q, clientId: number, id: number, set: PolicyChange): Promise<void> {
  await db.updateTable('policies').set(set).where('id', '=', id).where('client_id', '=', clientId).execute();
}

export async function insertAmountChange(db: Q, row: Insertable<PolicyAmountChangesTable>): Promise<void> {
  await db.insertInto('policy_amount_changes').values(row).execute();
}

export async function insertStatusChange(db: Q, row: Insertable<PolicyStatusChangesTable>): Promise<void> {
  await db.insertInto('policy_status_changes').values(row).execute();
}

export async function amountChanges(db: Q, clientId: number, policyIds: number[]) {
  if (policyIds.length === 0) return [];
  return db
    .selectFrom('policy_amount_changes')
    .select(['policy_id', 'effective_period', 'old_amount', 'new_amount', 'changed_on'])
    .where('client_id', '=', clientId)
    .where('policy_id', 'in', policyIds)
    .orderBy('seq')
    .execute();
}

/** The first period the policy's current premium applies to: that of its newest change, or null. */
export async function latestEffectivePeriod(db: Q, clientId: number, policyId: number): Promise<string | null> {
  const row = await db
    .selectFrom('policy_amount_changes')
    .select('effective_period')
    .where('client_id', '=', clientId)
    .where('policy_id', '=', policyId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.effective_period ?? null;
}

/** The latest day any policy change (premium or status, of any client) was recorded on, or null. */
export async function latestPolicyChangeDay(db: Q): Promise<IsoDate | null> {
  const latest = await sql<{ day: string | null }>`select max(day) as day from (
      select max(changed_on) as day from policy_amount_changes
      union all select max(changed_on) as day from policy_status_changes) as changes`.execute(db);
  return latest.rows[0]?.day ?? null;
}

export async function statusChanges(db: Q, clientId: number, policyId: number) {
  return db
    .selectFrom('policy_status_changes')
    .select(['old_status', 'new_status', 'changed_on', 'reason'])
    .where('client_id', '=', clientId)
    .where('policy_id', '=', policyId)
    .orderBy('seq')
    .execute();
}

// ---------------------------------------------------------------------------------------------
// Bulk paths (raw prepared statements on the store's one connection; call inside a transaction).

/**
 * Rows per insert statement, largest first: a batch goes in 512-row statements, its remainder in
 * 32-row ones, the last few one by one. Fewer, larger statements cost a million-row import less
 * per row than 128-row ones; the smaller sizes keep a batch thinned by invalid rows from falling
 * back to hundreds of single-row statements.
 */
const STATEMENT_ROWS = [512, 32, 1] as const;

/** Rows of an insert that were not inserted: the client already has that policy number. */
export interface SkippedPolicyRow {
  /** The row's index in the batch. */
  row: number;
  /** Its policy number. */
  policyNumber: string;
  /** The id of the policy that holds the number (from before, or inserted earlier by the same inserter). */
  holder: number;
}

export interface PolicyInserter {
  /** The largest policy id before the first insert: ids above it are this inserter's rows, in order. */
  readonly baseId: number;
  /** Insert the rows; returns how many went in and the rows skipped because their policy number was taken. */
  insert(rows: PolicyRows): { inserted: number; skipped: SkippedPolicyRow[] };
}

/**
 * An inserter of new active policies for one import. Each statement inserts up to 512 rows
 * from ONE bound blob (the rows' bytes) and six integers per row (where its fields are, its
 * cents); SQLite cuts the fields out itself (`substr` on a blob counts bytes, `cast` makes them
 * text). Binding four strings per row instead cost the importing thread a split into millions
 * of strings plus their conversion back to UTF-8. The client, status and timestamps are the
 * same for every row, so they are written into the statement.
 *
 * Uniqueness is left to the (client_id, policy_number) index: a taken number is skipped (`on
 * conflict do nothing`) and only then looked up, so the common case costs no extra query. New
 * rows take consecutive ids after `baseId` in the order given (SQLite gives max(id) + 1, the
 * VALUES rows are produced in order, and the caller's transaction keeps other writers out).
 * Call inside a transaction.
 */
export function policyInserter(raw: BetterSqlite3.Database, clientId: number, createdAt: number): PolicyInserter {
  if (!Number.isSafeInteger(clientId) || !Number.isSafeInteger(createdAt)) throw new TypeError('clientId and createdAt must be integers');
  // v.column1 is where the row starts and column2–5 its commas (1-based, as substr counts).
  const field = (from: string, to: string) => `cast(substr(t.b, ${from}, ${to} - (${from})) as text)`;
  const sqlFor = (rows: number) =>
    'insert into policies (client_id,policy_number,customer_id,external_customer_ref,product_code,collection_amount,status,created_at,updated_at) ' +
    `select ${clientId}, ${field('v.column3 + 1', 'v.column4')}, ${field('v.column1', 'v.column2')}, ${field('v.column2 + 1', 'v.column3')}, ` +
    `${field('v.column4 + 1', 'v.column5')}, v.column6, 'active', ${createdAt}, ${createdAt} ` +
    `from (select ? as b) t, (values ${Array.from({ length: rows }, () => '(?,?,?,?,?,?)').join(',')}) v ` +
    'where true on conflict (client_id, policy_number) do nothing';
  const statements = STATEMENT_ROWS.map((k) => ({ k, stmt: raw.prepare(sqlFor(k)), params: new Array<unknown>(1 + k * 6) }));
  const insertedNumbers = raw.prepare('select policy_number from policies where id between ? and ? order by id').pluck();
  const holderOf = raw.prepare('select id from policies where client_id = ? and policy_number = ?').pluck();
  const baseId = Number((raw.prepare('select coalesce(max(id), 0) from policies').pluck().get() as number | bigint) ?? 0);

  const numberOf = (rows: PolicyRows, r: number): string => {
    const o = r * 5;
    return Buffer.from(rows.bytes.buffer, rows.bytes.byteOffset, rows.bytes.byteLength).toString('latin1', rows.offsets[o + 2]! + 1, rows.offsets[o + 3]);
  };

  /** Insert rows [first, first + k) with one statement; find the skipped ones when fewer went in. */
  const run = (rows: PolicyRows, first: number, size: (typeof statements)[number], skipped: SkippedPolicyRow[]): number => {
    const { k, stmt, params } = size;
    const { offsets, amounts } = rows;
    const base = offsets[first * 5]!;
    const end = offsets[(first + k - 1) * 5 + 4]!;
    params[0] = rows.bytes.subarray(base, end);
    const shift = 1 - base;
    for (let i = 0; i < k; i++) {
      const o = (first + i) * 5;
      const p = 1 + i * 6;
      params[p] = offsets[o]! + shift;
      params[p + 1] = offsets[o + 1]! + shift;
      params[p + 2] = offsets[o + 2]! + shift;
      params[p + 3] = offsets[o + 3]! + shift;
      params[p + 4] = offsets[o + 4]! + shift;
      params[p + 5] = amounts[first + i];
    }
    const info = stmt.run(params);
    if (info.changes === k) return k;
    const last = Number(info.lastInsertRowid);
    const went = info.changes === 0 ? [] : (insertedNumbers.all(last - info.changes + 1, last) as string[]);
    // The rows that went in did so in order, so walk both lists together.
    let j = 0;
    for (let i = 0; i < k; i++) {
      const number = numberOf(rows, first + i);
      if (j < went.length && went[j] === number) {
        j++;
        continue;
      }
      skipped.push({ row: first + i, policyNumber: number, holder: Number(holderOf.get(clientId, number)) });
    }
    return info.changes;
  };

  return {
    baseId,
    insert(rows) {
      const skipped: SkippedPolicyRow[] = [];
      let inserted = 0;
      let r = 0;
      for (const size of statements) {
        for (; r + size.k <= rows.count; r += size.k) inserted += run(rows, r, size, skipped);
      }
      return { inserted, skipped };
    },
  };
}

/** The SQLite sink: each batch inserted at once (policyInserter), duplicates told as found. */
function sqliteImportSink(inserter: PolicyInserter, onDuplicate: (row: DuplicatePolicyRow) => void): PolicyImportSink {
  let imported = 0;
  /** The file line of each inserted row, in insertion (and so id) order. */
  let insertedLines = new Int32Array(1 << 16);
  return {
    insert(rows) {
      const { inserted, skipped } = inserter.insert(rows);
      if (imported + inserted > insertedLines.length) {
        const grown = new Int32Array(Math.max(insertedLines.length * 2, imported + inserted));
        grown.set(insertedLines);
        insertedLines = grown;
      }
      let skip = 0;
      for (let r = 0; r < rows.count; r++) {
        const s = skipped[skip];
        if (s !== undefined && s.row === r) {
          // A holder above baseId was inserted by this import: its id says which row it was.
          const firstLine = s.holder > inserter.baseId ? insertedLines[s.holder - inserter.baseId - 1] : undefined;
          onDuplicate({ line: rows.lines[r]!, policyNumber: s.policyNumber, firstLine: firstLine ?? null });
          skip++;
        } else {
          insertedLines[imported++] = rows.lines[r]!;
        }
      }
    },
    ready: () => undefined,
    finish: async () => imported,
  };
}

/**
 * The transaction of a bulk policy import, committed when `work` returns and rolled back whole
 * when it throws. On PostgreSQL: policy-import-pg.ts.
 *
 * SQLite: the store's one connection is held for the whole import (the inserts are raw prepared
 * statements, see policyInserter); `work` runs inside BEGIN IMMEDIATE. The only reference a new
 * policy holds is its client, checked once here; SQLite's per-row foreign key check would cost
 * a tenth of a million-row import, so foreign keys are off for the import (the pragma cannot
 * change inside a transaction, and the connection is ours alone until we return) and on again
 * after.
 */
export async function inPolicyImport<T>(store: Store, clientId: number, work: (session: PolicyImportSession) => Promise<T>, stop?: LockWaitStop): Promise<T> {
  if (store.kind === 'postgres') {
    const { inPgPolicyImport } = await import('./policy-import-pg.js');
    return inPgPolicyImport(store, clientId, work);
  }
  return store.withConnection(async (raw, statements) => {
    const foreignKeys = raw.pragma('foreign_keys', { simple: true }) as number;
    if (foreignKeys) raw.pragma('foreign_keys = OFF');
    try {
      // In the try: a wait that ends without the lock (Ctrl-C, the busy timeout) turns foreign keys on again.
      await beginImmediate(raw, stop);
      if (statements.get('select 1 from clients where id = ?').get(clientId) === undefined) {
        throw new PremiaError('INTERNAL', `client ${clientId} does not exist in this store`);
      }
      // The kysely connection is the one held here, so the clock is read on it directly.
      const clock = statements.get("select value from meta where key = 'clock_date'").get() as { value: string } | undefined;
      if (clock === undefined) throw new PremiaError('INTERNAL', 'The store has no clock; it was not initialised.');
      const result = await work({
        today: clock.value,
        sink: (createdAt, onDuplicate) => sqliteImportSink(policyInserter(raw, clientId, createdAt), onDuplicate),
      });
      raw.exec('commit');
      return result;
    } catch (e) {
      if (raw.inTransaction) raw.exec('rollback');
      throw e;
    } finally {
      if (foreignKeys) raw.pragma('foreign_keys = ON');
    }
  });
}
