/**
 * Collections, their executions and attempts, as the API reads them and as policy changes and
 * collection runs write them (the engine's day reads and writes are its own port). Counts and
 * sums are read through Number(): PostgreSQL returns them as bigint text.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Cents } from '../../domain/money.js';
import { dayNumber, firstDay, fromDayNumber, lastDay } from '../../domain/period.js';
import { sql } from '../kysely.js';
import { IN_LIST_MAX, inLists } from '../bulk.js';
import { LAPSE_REASON_PREFIX } from '../../domain/lapse.js';
import type { CollectionsTable, Database, ExecutionsTable } from '../schema.js';

type Q = Kysely<Database>;

export type CollectionRow = Omit<Selectable<CollectionsTable>, 'client_id'>;
export type CollectionStatusValue = CollectionRow['status'];
export type ExecutionRow = Selectable<ExecutionsTable>;
export type NewExecutionRow = Insertable<ExecutionsTable>;

const COLLECTION_COLUMNS = [
  'id',
  'execution_id',
  'policy_id',
  'period_month',
  'customer_id',
  'external_customer_ref',
  'policy_number',
  'product_code',
  'amount_due',
  'amount_collected',
  'status',
  'first_attempt_date',
  'last_attempt_date',
  'attempts',
  'failed_attempts',
  'last_failure_reason',
] as const;

// ---------------------------------------------------------------------------------------------
// Executions and queueing

export async function insertExecution(db: Q, row: NewExecutionRow): Promise<number> {
  const result = await db.insertInto('executions').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(result.id);
}

export async function deleteExecution(db: Q, clientId: number, id: number): Promise<void> {
  await db.deleteFrom('executions').where('id', '=', id).where('client_id', '=', clientId).execute();
}

export async function setPoliciesQueued(db: Q, clientId: number, id: number, queued: number): Promise<void> {
  await db.updateTable('executions').set({ policies_queued: queued }).where('id', '=', id).where('client_id', '=', clientId).execute();
}

/**
 * One collection per policy and period, with the amount in effect for the period (the newest
 * change effective by then; before any change took effect, the original amount). Only active
 * policies (of `policyIds` when given); policies already queued for the period are skipped.
 * Inserted in policy_number order. Returns how many were queued.
 */
export async function queueCollections(db: Q, clientId: number, executionId: number, period: string, policyIds: number[] | null): Promise<number> {
  if (policyIds === null || policyIds.length <= IN_LIST_MAX) return queueSome(db, clientId, executionId, period, policyIds);
  // More ids than one statement may bind (SQLite takes 32,766 parameters; a request may name
  // 100,000 policies): queued in lists of IN_LIST_MAX, taken in policy_number order from the
  // client's active policies, so the collections are inserted in that order as in one statement.
  const wanted = new Set(policyIds);
  const active = await db.selectFrom('policies').select('id').where('client_id', '=', clientId).where('status', '=', 'active').orderBy('policy_number').execute();
  const ordered = active.map((row) => Number(row.id)).filter((id) => wanted.has(id));
  let queued = 0;
  for (const list of inLists(ordered)) queued += await queueSome(db, clientId, executionId, period, list);
  return queued;
}

async function queueSome(db: Q, clientId: number, executionId: number, period: string, policyIds: number[] | null): Promise<number> {
  const only = policyIds === null ? sql`` : sql`and p.id in (${sql.join(policyIds.length > 0 ? policyIds : [-1])})`;
  // With a list, the policies are found by id (`+`: not through the client's index, which
  // SQLite would otherwise walk whole for each list to save sorting it: 33,000 named policies
  // took ~0.8 s of statements, quadratic in the client's book).
  const client = policyIds === null ? sql`p.client_id` : sql`+p.client_id`;
  // The amount in effect: the newest change effective by the period (ties: the latest made), or,
  // when every change takes effect later, the oldest change's old amount, or, with no change,
  // the policy's amount; one look-up per policy. A policy already queued for the period is
  // skipped by the unique index the insert probes anyway (a NOT EXISTS probed it a second time,
  // and the two look-ups of the amount history cost a third: 135M -> 104M SQLite steps for 1M
  // policies, issue 13).
  const due = sql`x.effective_period <= ${period}`;
  const result = await sql`
    insert into collections (client_id, execution_id, policy_id, period_month, customer_id, external_customer_ref,
                             policy_number, product_code, amount_due, status)
    select p.client_id, ${executionId}, p.id, ${period}, p.customer_id, p.external_customer_ref, p.policy_number, p.product_code,
           coalesce(
             (select case when ${due} then x.new_amount else x.old_amount end from policy_amount_changes x where x.policy_id = p.id
               order by ${due} desc, case when ${due} then x.effective_period end desc, case when ${due} then -x.seq else x.seq end
               limit 1),
             p.collection_amount),
           'UNPAID'
    from policies p
    where ${client} = ${clientId} and p.status = 'active' ${only}
    order by p.policy_number
    on conflict (client_id, period_month, policy_number) do nothing`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * The newest execution of the period other than `self` that holds a collection of one of
 * `policyIds` (of any policy when null); without one, the newest other execution of the period
 * at all (one recorded when it had nothing to queue). Null when the period has no other.
 */
export async function executionHolding(db: Q, clientId: number, period: string, policyIds: number[] | null, self: number): Promise<number | null> {
  const newest = (row: { id: unknown } | undefined): number | null => (row?.id === null || row?.id === undefined ? null : Number(row.id));
  const executions = db
    .selectFrom('executions')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('client_id', '=', clientId)
    .where('period_month', '=', period)
    .where('id', '!=', self);
  let held: number | null = null;
  if (policyIds === null) held = newest(await executions.where('policies_queued', '>', 0).executeTakeFirst());
  else {
    // In lists of IN_LIST_MAX ids (see queueCollections): the newest over all of them.
    for (const list of inLists(policyIds.length > 0 ? policyIds : [-1])) {
      // Through the (policy_id, period_month) index (`+`: not the client's, whose whole period
      // SQLite would otherwise walk for each list).
      const found = newest(
        await db
          .selectFrom('collections')
          .select((eb) => eb.fn.max('execution_id').as('id'))
          .where('policy_id', 'in', list)
          .where('period_month', '=', period)
          .where(sql<boolean>`+client_id = ${clientId}`)
          .executeTakeFirst(),
      );
      if (found !== null && (held === null || found > held)) held = found;
    }
  }
  return held ?? newest(await executions.executeTakeFirst());
}

/** The ids of a period's executions, oldest first, at most `limit` (for a NOT_FOUND's hint). */
export async function executionsOfPeriod(db: Q, clientId: number, period: string, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('executions').select('id').where('client_id', '=', clientId).where('period_month', '=', period).orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}

export async function findExecution(db: Q, clientId: number, id: number): Promise<ExecutionRow | undefined> {
  return db.selectFrom('executions').selectAll().where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst();
}

/** How many of an execution's collections are in each status (statuses with none are absent). */
export async function executionStatusCounts(db: Q, executionId: number): Promise<Array<{ status: CollectionStatusValue; count: number }>> {
  const rows = await db
    .selectFrom('collections')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('execution_id', '=', executionId)
    .groupBy('status')
    .execute();
  return rows.map((r) => ({ status: r.status, count: Number(r.n) }));
}

/** A run's strategy and when it was queued (its created_at, a stamp of the clock). */
export async function executionStrategy(db: Q, executionId: number): Promise<{ strategy: string; createdAt: number }> {
  const row = await db.selectFrom('executions').select(['strategy', 'created_at']).where('id', '=', executionId).executeTakeFirstOrThrow();
  return { strategy: row.strategy, createdAt: Number(row.created_at) };
}

// ---------------------------------------------------------------------------------------------
// Collections

export async function findCollection(db: Q, clientId: number, id: number): Promise<CollectionRow | undefined> {
  return db.selectFrom('collections').select(COLLECTION_COLUMNS).where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst();
}

/** A period's collections in policy_number order, keyset-paged by `after`. */
export async function listCollections(
  db: Q,
  clientId: number,
  q: { period: string; status?: CollectionStatusValue; policyNumber?: string; after?: string; limit: number },
): Promise<CollectionRow[]> {
  let query = db.selectFrom('collections').select(COLLECTION_COLUMNS).where('client_id', '=', clientId).where('period_month', '=', q.period);
  if (q.status !== undefined) query = query.where('status', '=', q.status);
  if (q.policyNumber !== undefined) query = query.where('policy_number', '=', q.policyNumber);
  if (q.after !== undefined) query = query.where('policy_number', '>', q.after);
  return query.orderBy('policy_number').limit(q.limit).execute();
}

/** A policy's newest collections (at most `limit`), newest period first. */
export async function newestCollectionsOfPolicy(db: Q, clientId: number, policyId: number, limit: number): Promise<Array<{ id: number; period_month: string }>> {
  return db
    .selectFrom('collections')
    .select(['id', 'period_month'])
    .where('client_id', '=', clientId)
    .where('policy_id', '=', policyId)
    .orderBy('period_month', 'desc')
    .limit(limit)
    .execute();
}

/** A cancelled policy's collections from `firstPeriod` on become CANCELLED (what was collected stays). */
export async function cancelPolicyCollections(db: Q, clientId: number, policyId: number, firstPeriod: string): Promise<void> {
  await db
    .updateTable('collections')
    .set({ status: 'CANCELLED' })
    .where('policy_id', '=', policyId)
    .where('client_id', '=', clientId)
    .where('period_month', '>=', firstPeriod)
    .execute();
}

/** A new premium for the collections already queued from `firstPeriod` on and not attempted yet. */
export async function repriceUnattempted(db: Q, clientId: number, policyId: number, firstPeriod: string, amount: Cents): Promise<void> {
  await db
    .updateTable('collections')
    .set({ amount_due: amount })
    .where('policy_id', '=', policyId)
    .where('client_id', '=', clientId)
    .where('period_month', '>=', firstPeriod)
    .where('attempts', '=', 0)
    .execute();
}

/** A policy's collections from `firstPeriod` on that are not cancelled, oldest period first. */
export async function liveCollectionsOfPolicy(db: Q, clientId: number, policyId: number, firstPeriod: string) {
  return db
    .selectFrom('collections')
    .select(['id', 'period_month', 'amount_due', 'amount_collected', 'status'])
    .where('client_id', '=', clientId)
    .where('policy_id', '=', policyId)
    .where('period_month', '>=', firstPeriod)
    .where('status', '!=', 'CANCELLED')
    .orderBy('period_month')
    .execute();
}

/** What decides whether a planned debit of a collection would still be made. */
export interface DebitState {
  id: number;
  status: CollectionStatusValue;
  amount_due: Cents;
  amount_collected: Cents;
  last_failure_reason: string | null;
  policy_status: string;
}

export async function debitStates(db: Q, ids: readonly number[]): Promise<DebitState[]> {
  const out: DebitState[] = [];
  for (const list of inLists(ids)) {
    const rows = await db
      .selectFrom('collections as c')
      .innerJoin('policies as p', 'p.id', 'c.policy_id')
      .select(['c.id', 'c.status', 'c.amount_due', 'c.amount_collected', 'c.last_failure_reason', 'p.status as policy_status'])
      .where('c.id', 'in', list)
      .execute();
    out.push(...rows);
  }
  return out;
}

/** Per period of `periods` that has collections: how many, how many still open, and what the open ones still owe. */
export async function periodClosings(db: Q, clientId: number, periods: readonly string[]) {
  if (periods.length === 0) return [];
  const open = ['UNPAID', 'PAID_PARTIAL'] as const;
  const rows = await db
    .selectFrom('collections')
    .select((eb) => [
      'period_month',
      eb.fn.countAll<number>().as('collections'),
      eb.fn.sum<number>(eb.case().when('status', 'in', open).then(1).else(0).end()).as('open'),
      eb.fn.sum<number>(eb.case().when('status', '=', 'UNPAID').then(1).else(0).end()).as('nothing_collected'),
      eb.fn
        .sum<number>(eb.case().when('status', 'in', open).then(eb('amount_due', '-', eb.ref('amount_collected'))).else(0).end())
        .as('amount_remaining'),
    ])
    .where('client_id', '=', clientId)
    .where('period_month', 'in', [...periods])
    .groupBy('period_month')
    .execute();
  return rows.map((r) => ({
    period_month: r.period_month,
    collections: Number(r.collections),
    open: Number(r.open),
    nothing_collected: Number(r.nothing_collected),
    amount_remaining: Number(r.amount_remaining) as Cents,
  }));
}

/**
 * The clients with an active policy and no collection of `period`, by name: those a clock
 * advance closing the period would leave with premiums never collected.
 */
export async function clientsNotRun(db: Q, period: string): Promise<Array<{ id: number; name: string }>> {
  return db
    .selectFrom('clients as c')
    .select(['c.id', 'c.name'])
    .where((eb) => eb.exists(eb.selectFrom('policies as p').select('p.id').whereRef('p.client_id', '=', 'c.id').where('p.status', '=', 'active')))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('collections as k').select('k.id').whereRef('k.client_id', '=', 'c.id').where('k.period_month', '=', period))))
    .orderBy('c.name')
    .execute();
}

/**
 * The client's active policies with no collection of `period` (added after its run, or left out
 * of it): those a clock advance closing the period would leave uncollected for it.
 */
export async function policiesNotQueued(db: Q, clientId: number, period: string): Promise<number> {
  const row = await db
    .selectFrom('policies as p')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('p.client_id', '=', clientId)
    .where('p.status', '=', 'active')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('collections as k').select('k.id').whereRef('k.policy_id', '=', 'p.id').where('k.period_month', '=', period))))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One day's figures for a client (clientDayFigures); `collected` in cents. */
export interface DayFigures {
  attempts: number;
  succeeded: number;
  failed: number;
  collected: number;
  lapsed: number;
}

/**
 * The client's attempts of the days first..last, per day (attempts, succeeded, failed, collected
 * in cents), and its policies the lapse rule lapsed on each day: a lived day's figures for the
 * client, as the engine summed them when it lived the day (engine/day.ts DaySummary).
 */
export async function clientDayFigures(db: Q, clientId: number, first: string, last: string): Promise<Map<string, DayFigures>> {
  const out = new Map<string, DayFigures>();
  const day = (d: string) => {
    let f = out.get(d);
    if (f === undefined) out.set(d, (f = { attempts: 0, succeeded: 0, failed: 0, collected: 0, lapsed: 0 }));
    return f;
  };
  const attempts = await db
    .selectFrom('attempts')
    .select((eb) => [
      'date',
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>(eb.case().when('outcome', '=', 'SUCCESS').then(1).else(0).end()).as('ok'),
      eb.fn.sum<number>(eb.case().when('outcome', '=', 'SUCCESS').then(eb.ref('amount')).else(0).end()).as('collected'),
    ])
    .where('client_id', '=', clientId)
    .where('date', '>=', first)
    .where('date', '<=', last)
    .groupBy('date')
    .execute();
  for (const r of attempts) {
    const f = day(r.date);
    f.attempts = Number(r.n);
    f.succeeded = Number(r.ok);
    f.failed = f.attempts - f.succeeded;
    f.collected = Number(r.collected);
  }
  const lapses = await db
    .selectFrom('policy_status_changes')
    .select((eb) => ['changed_on', eb.fn.countAll<number>().as('n')])
    .where('client_id', '=', clientId)
    .where('new_status', '=', 'lapsed')
    .where('reason', 'like', `${LAPSE_REASON_PREFIX}%`)
    .where('changed_on', '>=', first)
    .where('changed_on', '<=', last)
    .groupBy('changed_on')
    .execute();
  for (const r of lapses) day(r.changed_on).lapsed = Number(r.n);
  return out;
}

/** Whether the period has any collection. */
export async function periodHasCollections(db: Q, clientId: number, period: string): Promise<boolean> {
  const row = await db.selectFrom('collections').select('id').where('client_id', '=', clientId).where('period_month', '=', period).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The period's collections, and how many of them are not paid in full yet (UNPAID or PAID_PARTIAL). */
export async function periodOpenCounts(db: Q, clientId: number, period: string): Promise<{ collections: number; open: number }> {
  const row = await db
    .selectFrom('collections')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>(eb.case().when('status', 'in', ['UNPAID', 'PAID_PARTIAL']).then(1).else(0).end()).as('open'),
    ])
    .where('client_id', '=', clientId)
    .where('period_month', '=', period)
    .executeTakeFirstOrThrow();
  return { collections: Number(row.n), open: Number(row.open ?? 0) };
}

// ---------------------------------------------------------------------------------------------
// Attempts and the plans behind them

/**
 * A collection's attempts, by date. Attempts are unique by (date, collection_id), the order a
 * day's attempts are written in (migration 0011): they are found by seeking each day of the
 * collection's period, where the engine makes them. Should the count differ from the `made` the
 * collection records, every attempt of the collection is read instead (a scan).
 */
export async function attemptsOfCollection(db: Q, collection: { id: number; period_month: string; attempts: number }) {
  if (collection.attempts === 0) return [];
  const select = db.selectFrom('attempts').select(['date', 'amount', 'outcome', 'failure_reason']).where('collection_id', '=', collection.id);
  const days: string[] = [];
  for (let d = dayNumber(firstDay(collection.period_month)), last = dayNumber(lastDay(collection.period_month)); d <= last; d++) days.push(fromDayNumber(d));
  const rows = await select.where('date', 'in', days).orderBy('date').execute();
  return rows.length === collection.attempts ? rows : select.orderBy('date').execute();
}

/** The encoded plan batches made on these days (domain/plan-reason.ts readStoredBatch decodes them). */
export async function planBatchesOn(db: Q, clientId: number, days: readonly string[]): Promise<Uint8Array[]> {
  if (days.length === 0) return [];
  const rows = await db.selectFrom('plan_batches').select('data').where('client_id', '=', clientId).where('plan_day', 'in', [...days]).execute();
  return rows.map((r) => r.data);
}

