/**
 * Policy repository. Ordinary reads and writes go through kysely; the bulk import inserts with
 * one cached multi-row prepared statement (kysely's per-row overhead is several times the cost
 * of the insert itself at a million rows), behind a function of the same repository.
 */
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

const POLICY_COLUMNS = [
  'client_id',
  'policy_number',
  'customer_id',
  'external_customer_ref',
  'product_code',
  'collection_amount',
  'status',
  'created_at',
  'updated_at',
] as const;
export const POLICY_BULK_WIDTH = POLICY_COLUMNS.length;
const BULK_ROWS = 100;

function multiRowInsertSql(rows: number): string {
  const one = `(${POLICY_COLUMNS.map(() => '?').join(',')})`;
  return `insert into policies (${POLICY_COLUMNS.join(',')}) values ${Array.from({ length: rows }, () => one).join(',')}`;
}
const FULL_BATCH_SQL = multiRowInsertSql(BULK_ROWS);
const ONE_ROW_SQL = multiRowInsertSql(1);

/**
 * Insert policies given as a flat parameter array in POLICY_COLUMNS order
 * (POLICY_BULK_WIDTH values per row).
 */
export function insertPoliciesBulk(statements: StatementCache, flat: unknown[]): void {
  const rows = flat.length / POLICY_BULK_WIDTH;
  let r = 0;
  if (rows >= BULK_ROWS) {
    const full = statements.get(FULL_BATCH_SQL);
    const params = new Array<unknown>(BULK_ROWS * POLICY_BULK_WIDTH);
    for (; r + BULK_ROWS <= rows; r += BULK_ROWS) {
      const base = r * POLICY_BULK_WIDTH;
      for (let i = 0; i < params.length; i++) params[i] = flat[base + i];
      full.run(params);
    }
  }
  if (r < rows) {
    const one = statements.get(ONE_ROW_SQL);
    for (; r < rows; r++) one.run(flat.slice(r * POLICY_BULK_WIDTH, (r + 1) * POLICY_BULK_WIDTH));
  }
}

/** Which of these policy numbers the client already has. */
export function existingPolicyNumbers(statements: StatementCache, clientId: number, numbers: string[]): Set<string> {
  const found = new Set<string>();
  const CHUNK = 500;
  for (let i = 0; i < numbers.length; i += CHUNK) {
    const part = numbers.slice(i, i + CHUNK);
    const stmt = statements.get(
      `select policy_number from policies where client_id = ? and policy_number in (${part.map(() => '?').join(',')})`,
    );
    for (const row of stmt.all(clientId, ...part) as { policy_number: string }[]) found.add(row.policy_number);
  }
  return found;
}

export function hasAnyPolicy(statements: StatementCache, clientId: number): boolean {
  return statements.get('select 1 from policies where client_id = ? limit 1').get(clientId) !== undefined;
}
