/**
 * Settlement repository: statements and their append-only history. Statements are never
 * deleted; a status change updates the row and appends an event.
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Cents } from '../../domain/money.js';
import type { Database, SettlementEventsTable, SettlementsTable } from '../schema.js';

type Q = Kysely<Database>;

export type SettlementRow = Selectable<SettlementsTable>;
export type NewSettlementRow = Insertable<SettlementsTable>;
/** What a status move changes. */
export type SettlementChange = Pick<Updateable<SettlementsTable>, 'status' | 'updated_at' | 'paid_on' | 'paid_reference' | 'disputed_on' | 'dispute_reason'>;
export type NewSettlementEvent = Insertable<SettlementEventsTable>;

/** A statement with the numbers of the statements it replaces and that replaced it. */
export interface SettlementView extends SettlementRow {
  supersedes_number: string | null;
  superseded_by_number: string | null;
}

/** Number of collections of a period and the sum of their collected amounts (integer cents). */
export async function periodCollectionTotals(db: Q, clientId: number, period: string): Promise<{ count: number; collected: Cents }> {
  const row = await db
    .selectFrom('collections')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.coalesce(eb.fn.sum<number>('amount_collected'), eb.lit(0)).as('collected')])
    .where('client_id', '=', clientId)
    .where('period_month', '=', period)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), collected: Number(row.collected) as Cents };
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
  const result = await db.insertInto('settlements').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(result.id);
}

/** Statements with the numbers of the statements they replace and that replaced them. */
function views(db: Q) {
  return db
    .selectFrom('settlements')
    .selectAll('settlements')
    .select((eb) => [
      eb.selectFrom('settlements as older').select('older.settlement_number').whereRef('older.id', '=', 'settlements.supersedes_id').as('supersedes_number'),
      eb.selectFrom('settlements as newer').select('newer.settlement_number').whereRef('newer.supersedes_id', '=', 'settlements.id').limit(1).as('superseded_by_number'),
    ]);
}

export async function findSettlementById(db: Q, clientId: number, id: number): Promise<SettlementView | undefined> {
  return views(db).where('settlements.client_id', '=', clientId).where('settlements.id', '=', id).executeTakeFirst();
}

export async function findSettlementByNumber(db: Q, clientId: number, settlementNumber: string): Promise<SettlementView | undefined> {
  return views(db).where('settlements.client_id', '=', clientId).where('settlements.settlement_number', '=', settlementNumber).executeTakeFirst();
}

/** Newest first (creation order). */
export async function listSettlements(
  db: Q,
  clientId: number,
  q: { status?: SettlementRow['status']; period?: string },
): Promise<SettlementView[]> {
  let query = views(db).where('settlements.client_id', '=', clientId);
  if (q.status !== undefined) query = query.where('settlements.status', '=', q.status);
  if (q.period !== undefined) query = query.where('settlements.period_month', '=', q.period);
  return query.orderBy('settlements.id', 'desc').execute();
}

/** The period's newest statement (the one a regenerated statement replaces), if any. */
export async function latestSettlement(db: Q, clientId: number, period: string): Promise<SettlementRow | undefined> {
  return db
    .selectFrom('settlements')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('period_month', '=', period)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * What the period's statements were paid so far (integer cents): the amount due of every
 * statement marked paid (disputed afterwards or not), i.e. period_net − previously_paid of each.
 * A negative amount due that was paid is money the client paid back.
 */
export async function paidForPeriod(db: Q, clientId: number, period: string): Promise<Cents> {
  const row = await db
    .selectFrom('settlements')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>(eb('period_net', '-', eb.ref('previously_paid'))), eb.lit(0)).as('paid'))
    .where('client_id', '=', clientId)
    .where('period_month', '=', period)
    .where('paid_on', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.paid) as Cents;
}

export async function updateSettlement(db: Q, clientId: number, id: number, set: SettlementChange): Promise<void> {
  await db.updateTable('settlements').set(set).where('client_id', '=', clientId).where('id', '=', id).execute();
}

export async function insertSettlementEvent(db: Q, event: NewSettlementEvent): Promise<void> {
  await db.insertInto('settlement_events').values(event).execute();
}

/**
 * Whether an insert failed on the partial unique index that allows one live (pending or paid)
 * statement per client and period: SQLite says so in words, PostgreSQL with SQLSTATE 23505 and
 * the index's name.
 */
export function isLiveSettlementConflict(e: unknown): boolean {
  return settlementUniqueConflict(e) === 'live';
}

/**
 * Which unique guard of the settlements table an insert failed on, if any: `live` (one pending or
 * paid statement per client and period), `id` (the primary key), `number` (client and
 * settlement_number), `seq` (client, period and seq) or `reference` (payment_reference). When a
 * write skips the store's writer lock (or two stores' ids drift), two statements made at once
 * compute the same id, number, seq and reference, and the later insert fails on one of these.
 * SQLite names the columns in its message; PostgreSQL gives SQLSTATE 23505 and the constraint.
 */
export function settlementUniqueConflict(e: unknown): 'live' | 'id' | 'number' | 'seq' | 'reference' | null {
  const pg = e as { code?: unknown; constraint?: unknown } | null | undefined;
  if (pg?.code === '23505' && typeof pg.constraint === 'string') {
    return PG_SETTLEMENT_GUARDS[pg.constraint] ?? null;
  }
  const m = /UNIQUE constraint failed: (settlements\.[a-z_]+(?:, settlements\.[a-z_]+)*)$/m.exec(String((e as Error | null)?.message ?? e));
  return m ? (SQLITE_SETTLEMENT_GUARDS[m[1]!] ?? null) : null;
}

const PG_SETTLEMENT_GUARDS: Record<string, 'live' | 'id' | 'number' | 'seq' | 'reference'> = {
  settlements_live_uq: 'live',
  settlements_pkey: 'id',
  settlements_client_number_uq: 'number',
  settlements_client_period_seq_uq: 'seq',
  settlements_payment_reference_key: 'reference',
};

const SQLITE_SETTLEMENT_GUARDS: Record<string, 'live' | 'id' | 'number' | 'seq' | 'reference'> = {
  'settlements.client_id, settlements.period_month': 'live',
  'settlements.id': 'id',
  'settlements.client_id, settlements.settlement_number': 'number',
  'settlements.client_id, settlements.period_month, settlements.seq': 'seq',
  'settlements.payment_reference': 'reference',
};
