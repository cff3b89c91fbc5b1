/**
 * Settlement repository: statements and their append-only history. Statements are never
 * deleted; a status change updates the row and appends an event.
 */
import type { Kysely } from 'kysely';
import type { Database, SettlementEventsTable, SettlementsTable } from '../schema.js';

type Q = Kysely<Database>;

export interface SettlementRow {
  id: number;
  client_id: number;
  period_month: string;
  seq: number;
  settlement_number: string;
  total_collections: number;
  distribution_fee: number;
  collections_fee: number;
  total_fees: number;
  vat: number;
  net_amount: number;
  collections_count: number;
  payment_date: string;
  payment_reference: string;
  status: 'pending' | 'paid' | 'disputed';
  created_at: number;
  updated_at: number;
  paid_on: string | null;
  paid_reference: string | null;
  disputed_on: string | null;
  dispute_reason: string | null;
}
export type NewSettlementRow = Omit<SettlementsTable, 'id'>;
export type NewSettlementEvent = Omit<SettlementEventsTable, 'id'>;

/** Number of collections of a period and the sum of their collected amounts (integer cents). */
export async function periodCollectionTotals(db: Q, clientId: number, period: string): Promise<{ count: number; collected: number }> {
  const row = await db
    .selectFrom('collections')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.coalesce(eb.fn.sum<number>('amount_collected'), eb.lit(0)).as('collected')])
    .where('client_id', '=', clientId)
    .where('period_month', '=', period)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), collected: Number(row.collected) };
}

/** The pending or paid statement of a period, if any (at most one: a unique index holds it). */
export async function findLiveSettlement(db: Q, clientId: number, period: string): Promise<SettlementRow | undefined> {
  return db
    .selectFrom('settlements')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('period_month', '=', period)
    .where('status', 'in', ['pending', 'paid'])
    .executeTakeFirst();
}

/** The NNN the next statement of a period gets: one more than the client's count so far. */
export async function nextSettlementSeq(db: Q, clientId: number, period: string): Promise<number> {
  const row = await db
    .selectFrom('settlements')
    .select((eb) => eb.fn.max<number | null>('seq').as('seq'))
    .where('client_id', '=', clientId)
    .where('period_month', '=', period)
    .executeTakeFirst();
  return (row?.seq ?? 0) + 1;
}

export async function paymentReferenceExists(db: Q, reference: string): Promise<boolean> {
  const row = await db.selectFrom('settlements').select('id').where('payment_reference', '=', reference).executeTakeFirst();
  return row !== undefined;
}

export async function insertSettlement(db: Q, row: NewSettlementRow): Promise<number> {
  const result = await db.insertInto('settlements').values(row).executeTakeFirstOrThrow();
  return Number(result.insertId);
}

export async function findSettlementById(db: Q, clientId: number, id: number): Promise<SettlementRow | undefined> {
  return db.selectFrom('settlements').selectAll().where('client_id', '=', clientId).where('id', '=', id).executeTakeFirst();
}

export async function findSettlementByNumber(db: Q, clientId: number, settlementNumber: string): Promise<SettlementRow | undefined> {
  return db
    .selectFrom('settlements')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('settlement_number', '=', settlementNumber)
    .executeTakeFirst();
}

/** Newest first (creation order). */
export async function listSettlements(
  db: Q,
  clientId: number,
  q: { status?: string; period?: string },
): Promise<SettlementRow[]> {
  let query = db.selectFrom('settlements').selectAll().where('client_id', '=', clientId);
  if (q.status !== undefined) query = query.where('status', '=', q.status as SettlementRow['status']);
  if (q.period !== undefined) query = query.where('period_month', '=', q.period);
  return query.orderBy('id', 'desc').execute();
}

export async function updateSettlement(
  db: Q,
  clientId: number,
  id: number,
  set: Partial<Pick<SettlementRow, 'status' | 'updated_at' | 'paid_on' | 'paid_reference' | 'disputed_on' | 'dispute_reason'>>,
): Promise<void> {
  await db.updateTable('settlements').set(set).where('client_id', '=', clientId).where('id', '=', id).execute();
}

export async function insertSettlementEvent(db: Q, event: NewSettlementEvent): Promise<void> {
  await db.insertInto('settlement_events').values(event).execute();
}
