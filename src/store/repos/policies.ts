/**
 * Policy repository. Ordinary reads and writes go through kysely; the bulk import inserts with
 * one cached multi-row prepared statement (kysely's per-row overhead is several times the cost
 * of the insert itself at a million rows), behind a function of the same repository.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database, PoliciesTable, PolicyAmountChangesTable, PolicyStatusChangesTable } from '../schema.js';
import type { StatementCache } from '../sqlite-dialect.js';

type Q = Kysely<Database>;
export interface PolicyRow {
  id: number;
  client_id: number;
  policy_number: string;
  customer_id: string;
  external_customer_ref: string;
  product_code: string;
  collection_amount: number;
  status: string;
  created_at: number;
  updated_at: number;
}
export type NewPolicyRow = Omit<PoliciesTable, 'id'>;

export async function insertPolicy(db: Q, row: NewPolicyRow): Promise<number> {
  const result = await db.insertInto('policies').values(row).executeTakeFirstOrThrow();
  return Number(result.insertId);
}

export async function findPolicyById(db: Q, clientId: number, id: number): Promise<PolicyRow | undefined> {
  return db.selectFrom('policies').selectAll().where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst();
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

export async function updatePolicyRow(
  db: Q,
  clientId: number,
  id: number,
  set: Partial<Pick<PolicyRow, 'collection_amount' | 'status' | 'updated_at'>>,
): Promise<void> {
  await db.updateTable('policies').set(set).where('id', '=', id).where('client_id', '=', clientId).execute();
}

export async function insertAmountChange(db: Q, row: Omit<PolicyAmountChangesTable, 'seq'>): Promise<void> {
  await db.insertInto('policy_amount_changes').values(row).execute();
}

export async function insertStatusChange(db: Q, row: Omit<PolicyStatusChangesTable, 'seq'>): Promise<void> {
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

const BULK_ROWS = 128;

/** Rows of an insert batch that were not inserted: the client already has that policy number. */
export interface SkippedPolicyRow {
  /** The row's index in the batch. */
  row: number;
  /** The id of the policy that holds the number (from before, or inserted earlier by the same inserter). */
  holder: number;
}

export interface PolicyInserter {
  /** The largest policy id before the first insert: ids above it are this inserter's rows, in order. */
  readonly baseId: number;
  /**
   * Insert `count` rows given as the policy CSV's five fields each (`fields`, in the file's
   * column order; the amount text is not used) and their amounts in cents. Returns how many
   * went in and the rows skipped because their policy number was taken.
   */
  insert(fields: string[], amounts: ArrayLike<number>, count: number): { inserted: number; skipped: SkippedPolicyRow[] };
}

/**
 * An inserter of new active policies for one import. The client, status and timestamps are the
 * same for every row, so they are written into the statement rather than bound 128 times per
 * execution (binding is a large share of a bulk insert's cost). Uniqueness is left to the
 * (client_id, policy_number) index: a taken number is skipped (`on conflict do nothing`), and
 * only then looked up, so the common case costs no extra query. New rows take consecutive ids
 * after `baseId` (SQLite gives max(id) + 1, and the caller's transaction keeps other writers
 * out). Call inside a transaction.
 */
export function policyInserter(raw: BetterSqlite3.Database, clientId: number, createdAt: number): PolicyInserter {
  if (!Number.isSafeInteger(clientId) || !Number.isSafeInteger(createdAt)) throw new TypeError('clientId and createdAt must be integers');
  const one = `(${clientId},?,?,?,?,?,'active',${createdAt},${createdAt})`;
  const head = 'insert into policies (client_id,policy_number,customer_id,external_customer_ref,product_code,collection_amount,status,created_at,updated_at) values ';
  const tail = ' on conflict (client_id, policy_number) do nothing';
  const full = raw.prepare(head + Array.from({ length: BULK_ROWS }, () => one).join(',') + tail);
  const single = raw.prepare(head + one + tail);
  const insertedNumbers = raw.prepare('select policy_number from policies where id between ? and ? order by id').pluck();
  const holderOf = raw.prepare('select id from policies where client_id = ? and policy_number = ?').pluck();
  const baseId = Number((raw.prepare('select coalesce(max(id), 0) from policies').pluck().get() as number | bigint) ?? 0);
  const params = new Array<unknown>(BULK_ROWS * 5);

  /** Run one statement over rows `rows[0..k)`; find the skipped ones when fewer went in. */
  const run = (stmt: BetterSqlite3.Statement, values: unknown[], rows: number[], k: number, skipped: SkippedPolicyRow[]): number => {
    const info = stmt.run(values);
    if (info.changes === k) return k;
    const last = Number(info.lastInsertRowid);
    const went = info.changes === 0 ? [] : (insertedNumbers.all(last - info.changes + 1, last) as string[]);
    // The rows that went in did so in order, so walk both lists together.
    let j = 0;
    for (let i = 0; i < k; i++) {
      const number = values[i * 5] as string;
      if (j < went.length && went[j] === number) {
        j++;
        continue;
      }
      skipped.push({ row: rows[i]!, holder: Number(holderOf.get(clientId, number)) });
    }
    return info.changes;
  };

  const rows = new Array<number>(BULK_ROWS);
  return {
    baseId,
    insert(fields, amounts, count) {
      const skipped: SkippedPolicyRow[] = [];
      let inserted = 0;
      let k = 0;
      for (let r = 0; r < count; r++) {
        const f = r * 5;
        const p = k * 5;
        params[p] = fields[f + 2];
        params[p + 1] = fields[f];
        params[p + 2] = fields[f + 1];
        params[p + 3] = fields[f + 3];
        params[p + 4] = amounts[r];
        rows[k] = r;
        if (++k === BULK_ROWS) {
          inserted += run(full, params, rows, k, skipped);
          k = 0;
        }
      }
      for (let i = 0; i < k; i++) inserted += run(single, params.slice(i * 5, i * 5 + 5), [rows[i]!], 1, skipped);
      return { inserted, skipped };
    },
  };
}
