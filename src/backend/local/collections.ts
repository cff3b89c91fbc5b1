/** Collections on the local store: execute a run, read collections, attempts, explanations. */
import { sql } from '../../store/kysely.js';
import { conflict, notFound, validationError, type FieldError } from '../../domain/errors.js';
import { decodeId, encodeId, IdKind } from '../../domain/ids.js';
import { stringifyJson } from '../../domain/json.js';
import { formatCents } from '../../domain/money.js';
import { addDays, dayNumber, fromDayNumber, isPeriod, lastDay, periodOf, type Period } from '../../domain/period.js';
import { describeIncome, predictIncome as predictIncomeDays, type IncomeAnalysis } from '../../engine/income.js';
import { isStrategy, renderWhy, STRATEGY_NAMES, WhyCode, type Why } from '../../engine/strategies.js';
import { blankWhy } from '../../engine/strategy.js';
import { decodePlans } from './plan-batches.js';
import { csvRow } from '../../lib/csv-writer.js';
import { setMeta } from '../../store/repos/meta.js';
import type { Trx } from '../../store/store.js';
import {
  ATTEMPT_COLUMNS,
  COLLECTION_STATUSES,
  type Collection,
  type CollectionListQuery,
  type CollectionStatus,
  type Download,
  type Execution,
  type ExecutionAccepted,
  type ExecuteInput,
  type Explanation,
  type IncomePatternView,
  type Page,
  type ReportFormat,
} from '../types.js';
import { customerKey, epochFor, openAccount, readImportedRows, readAttempts } from './accounts.js';
import type { LocalContext } from './context.js';
import { findPolicyByRef } from './policies.js';
import { readWorld, stamp, iso } from './world.js';

export function checkPeriod(period: unknown, field = 'period_month'): Period {
  if (!isPeriod(period)) {
    throw validationError(`${field} must be a month written YYYY-MM (month 01-12); got ${JSON.stringify(period)}.`, [
      { field, code: 'INVALID_FORMAT', message: 'expected YYYY-MM' },
    ]);
  }
  return period;
}

/** Queue the period's collections. Planning starts with the next day the clock lives through. */
export async function executeCollections(ctx: LocalContext, input: ExecuteInput): Promise<ExecutionAccepted> {
  const period = checkPeriod(input.period_month);
  const strategy = input.strategy ?? 'smart';
  if (!isStrategy(strategy)) {
    throw validationError(`strategy must be one of ${STRATEGY_NAMES.join(', ')}; got ${JSON.stringify(strategy)}.`, [
      { field: 'strategy', code: 'INVALID_VALUE', message: `one of ${STRATEGY_NAMES.join(', ')}` },
    ]);
  }
  const refs = input.policy_ids;
  if (refs !== undefined && (!Array.isArray(refs) || refs.some((r) => typeof r !== 'string' || r === ''))) {
    throw validationError('policy_ids must be a list of policy ids or policy numbers.', [
      { field: 'policy_ids', code: 'INVALID_TYPE', message: 'a list of non-empty strings' },
    ]);
  }
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    if (world.today >= lastDay(period)) {
      throw conflict(
        'PERIOD_CLOSED',
        `Period ${period} has closed (its last day, ${lastDay(period)}, has run; the clock is at ${world.today}). Its collections can no longer be queued.`,
      );
    }
    let policyIds: number[] | null = null;
    if (refs !== undefined) {
      const problems: FieldError[] = [];
      const ids = new Set<number>();
      for (const ref of new Set(refs)) {
        const row = await findPolicyByRef(trx, ctx.clientId, world.idSalt, ref);
        if (!row) problems.push({ field: 'policy_ids', code: 'UNKNOWN_POLICY', message: `no policy '${ref}'`, ref });
        else if (row.status !== 'active') {
          problems.push({ field: 'policy_ids', code: 'POLICY_NOT_ACTIVE', message: `policy ${row.policy_number} is ${row.status}`, ref });
        } else ids.add(row.id);
      }
      if (problems.length > 0) {
        const unknown = problems.filter((p) => p.code === 'UNKNOWN_POLICY').map((p) => p.ref);
        const inactive = problems.filter((p) => p.code === 'POLICY_NOT_ACTIVE').map((p) => p.ref);
        const parts: string[] = [];
        if (unknown.length > 0) parts.push(`unknown policies: ${unknown.join(', ')}`);
        if (inactive.length > 0) parts.push(`not active (reinstate them first): ${inactive.join(', ')}`);
        throw validationError(`Nothing was queued: ${parts.join('; ')}.`, problems);
      }
      policyIds = [...ids];
    }

    const now = stamp(world.today, ctx.now());
    const execution = await trx
      .insertInto('executions')
      .values({ client_id: ctx.clientId, period_month: period, strategy, status: 'processing', policies_queued: 0, created_at: now, completed_at: null })
      .executeTakeFirstOrThrow();
    const executionId = Number(execution.insertId);
    const queued = await queueCollections(trx, ctx.clientId, executionId, period, policyIds);
    let answered = executionId;
    if (queued === 0) {
      // Nothing new to queue (a rerun, or one of several concurrent calls that lost the race):
      // no empty execution is recorded; the answer names the execution already holding the
      // policies. Only a period with no execution at all keeps this one, so it can be answered.
      const holder = await executionHolding(trx, ctx.clientId, period, policyIds, executionId);
      if (holder !== null) {
        await trx.deleteFrom('executions').where('id', '=', executionId).execute();
        answered = holder;
      }
    } else {
      await trx.updateTable('executions').set({ policies_queued: queued }).where('id', '=', executionId).execute();
    }

    await setMeta(trx, 'clock_locked', '1');
    const epoch = await trx.selectFrom('meta').select('value').where('key', '=', 'bank_epoch').executeTakeFirst();
    if (!epoch) {
      const first = period < periodOf(world.today) ? period : periodOf(world.today);
      await setMeta(trx, 'bank_epoch', fromDayNumber(epochFor(first)));
    }
    return { execution_id: encodeId(IdKind.execution, world.idSalt, answered), status: 'processing', policies_queued: queued };
  });
}

/**
 * The newest earlier execution of the period that holds a collection of one of `policyIds` (of
 * any policy when null); without one, the newest earlier execution of the period at all (one
 * recorded when it had nothing to queue). Null when the period has no other execution.
 */
async function executionHolding(trx: Trx, clientId: number, period: Period, policyIds: number[] | null, self: number): Promise<number | null> {
  const newest = (row: { id: unknown } | undefined): number | null => (row?.id === null || row?.id === undefined ? null : Number(row.id));
  const executions = trx
    .selectFrom('executions')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('client_id', '=', clientId)
    .where('period_month', '=', period)
    .where('id', '!=', self);
  const held =
    policyIds === null
      ? newest(await executions.where('policies_queued', '>', 0).executeTakeFirst())
      : newest(
          await trx
            .selectFrom('collections')
            .select((eb) => eb.fn.max('execution_id').as('id'))
            .where('policy_id', 'in', policyIds.length > 0 ? policyIds : [-1])
            .where('period_month', '=', period)
            .where('client_id', '=', clientId)
            .executeTakeFirst(),
        );
  return held ?? newest(await executions.executeTakeFirst());
}

/**
 * One collection per policy and period, with the amount in effect for the period (the newest
 * change effective by then; before any change took effect, the original amount). Policies
 * already queued for the period are skipped. Inserted in policy_number order.
 */
async function queueCollections(trx: Trx, clientId: number, executionId: number, period: Period, policyIds: number[] | null): Promise<number> {
  const only = policyIds === null ? sql`` : sql`and p.id in (${sql.join(policyIds.length > 0 ? policyIds : [-1])})`;
  const result = await sql`
    insert into collections (client_id, execution_id, policy_id, period_month, customer_id, external_customer_ref,
                             policy_number, product_code, amount_due, status)
    select p.client_id, ${executionId}, p.id, ${period}, p.customer_id, p.external_customer_ref, p.policy_number, p.product_code,
           coalesce(
             (select x.new_amount from policy_amount_changes x where x.policy_id = p.id and x.effective_period <= ${period}
               order by x.effective_period desc, x.seq desc limit 1),
             (select x.old_amount from policy_amount_changes x where x.policy_id = p.id order by x.seq limit 1),
             p.collection_amount),
           'UNPAID'
    from policies p
    where p.client_id = ${clientId} and p.status = 'active' ${only}
      and not exists (select 1 from collections c where c.client_id = p.client_id and c.period_month = ${period}
                      and c.policy_number = p.policy_number)
    order by p.policy_number`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

// ---------------------------------------------------------------------------------------------

interface CollectionRow {
  id: number;
  execution_id: number;
  policy_id: number;
  period_month: string;
  customer_id: string;
  external_customer_ref: string;
  policy_number: string;
  product_code: string;
  amount_due: number;
  amount_collected: number;
  status: string;
  first_attempt_date: string | null;
  last_attempt_date: string | null;
  attempts: number;
  last_failure_reason: string | null;
}

export function toCollection(r: CollectionRow, idSalt: number): Collection {
  return {
    id: encodeId(IdKind.collection, idSalt, r.id),
    period_month: r.period_month,
    customer_id: r.customer_id,
    external_customer_ref: r.external_customer_ref,
    policy_number: r.policy_number,
    product_code: r.product_code,
    collection_amount_due: r.amount_due,
    collection_amount_collected: r.amount_collected,
    shortfall: r.amount_due - r.amount_collected,
    collection_status: r.status as CollectionStatus,
    first_attempt_date: r.first_attempt_date,
    last_attempt_date: r.last_attempt_date,
    number_of_attempts: r.attempts,
    last_failure_reason: r.last_failure_reason,
    policy_id: encodeId(IdKind.policy, idSalt, r.policy_id),
    execution_id: encodeId(IdKind.execution, idSalt, r.execution_id),
  };
}

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
  'last_failure_reason',
] as const;

async function findCollectionRow(ctx: LocalContext, idSalt: number, id: string): Promise<CollectionRow> {
  const rowid = decodeId(IdKind.collection, idSalt, id);
  const row =
    rowid === null
      ? undefined
      : await ctx.store.db
          .selectFrom('collections')
          .select(COLLECTION_COLUMNS)
          .where('id', '=', rowid)
          .where('client_id', '=', ctx.clientId)
          .executeTakeFirst();
  if (!row) throw notFound('Collection', id);
  return row;
}

export async function getCollection(ctx: LocalContext, id: string): Promise<Collection> {
  const world = await readWorld(ctx.store.db);
  return toCollection(await findCollectionRow(ctx, world.idSalt, id), world.idSalt);
}

export async function listCollections(ctx: LocalContext, query: CollectionListQuery): Promise<Page<Collection>> {
  const period = checkPeriod(query.period_month);
  if (query.status !== undefined && !(COLLECTION_STATUSES as readonly string[]).includes(query.status)) {
    throw validationError(`status must be one of ${COLLECTION_STATUSES.join(', ')}; got ${JSON.stringify(query.status)}.`, [
      { field: 'status', code: 'INVALID_VALUE', message: `one of ${COLLECTION_STATUSES.join(', ')}` },
    ]);
  }
  const limit = Math.min(query.limit ?? 100, 10_000);
  const world = await readWorld(ctx.store.db);
  let q = ctx.store.db
    .selectFrom('collections')
    .select(COLLECTION_COLUMNS)
    .where('client_id', '=', ctx.clientId)
    .where('period_month', '=', period);
  if (query.status) q = q.where('status', '=', query.status);
  if (query.policy !== undefined) {
    const policy = await findPolicyByRef(ctx.store.db, ctx.clientId, world.idSalt, query.policy);
    if (!policy) throw notFound('Policy', query.policy);
    q = q.where('policy_number', '=', policy.policy_number);
  }
  if (query.after !== undefined) q = q.where('policy_number', '>', query.after);
  const rows = await q.orderBy('policy_number').limit(limit + 1).execute();
  const page = rows.slice(0, limit);
  return {
    data: page.map((r) => toCollection(r, world.idSalt)),
    next_after: rows.length > limit ? page[page.length - 1]!.policy_number : null,
  };
}

export async function getExecution(ctx: LocalContext, id: string): Promise<Execution> {
  const world = await readWorld(ctx.store.db);
  const rowid = decodeId(IdKind.execution, world.idSalt, id);
  const row =
    rowid === null
      ? undefined
      : await ctx.store.db.selectFrom('executions').selectAll().where('id', '=', rowid).where('client_id', '=', ctx.clientId).executeTakeFirst();
  if (!row) throw notFound('Execution', id);
  const counts = Object.fromEntries(COLLECTION_STATUSES.map((s) => [s, 0])) as Record<CollectionStatus, number>;
  const grouped = await ctx.store.db
    .selectFrom('collections')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('execution_id', '=', row.id)
    .groupBy('status')
    .execute();
  for (const g of grouped) counts[g.status] = Number(g.n);
  return {
    execution_id: id,
    period_month: row.period_month,
    status: row.status,
    strategy: row.strategy,
    policies_queued: row.policies_queued,
    created_at: iso(row.created_at),
    completed_at: row.completed_at === null ? null : iso(row.completed_at),
    counts,
  };
}

/** Every debit attempt of the period, in (date, policy_number) order, as CSV or JSON. */
export async function exportAttempts(ctx: LocalContext, periodInput: Period, format: ReportFormat): Promise<Download> {
  const period = checkPeriod(periodInput);
  const world = await readWorld(ctx.store.db);
  const rows = ctx.store.streamRows<[number, string, string, string, number, string, string | null]>(
    `select a.collection_id, c.policy_number, c.customer_id, a.date, a.amount, a.outcome, a.failure_reason
     from attempts a join collections c on c.id = a.collection_id
     where a.client_id = ? and a.period_month = ? order by a.id`,
    [ctx.clientId, period],
    { raw: true },
  );
  const salt = world.idSalt;
  async function* csv(): AsyncGenerator<string> {
    yield csvRow(ATTEMPT_COLUMNS);
    for await (const batch of rows) {
      let out = '';
      for (const r of batch) {
        out += csvRow([encodeId(IdKind.collection, salt, r[0]), r[1], r[2], r[3], formatCents(r[4]), r[5], r[6]]);
      }
      yield out;
    }
  }
  async function* json(): AsyncGenerator<string> {
    yield `{"period_month":${JSON.stringify(period)},"attempts":[`;
    let first = true;
    for await (const batch of rows) {
      let out = '';
      for (const r of batch) {
        out += (first ? '' : ',') +
          stringifyJson({
            collection_id: encodeId(IdKind.collection, salt, r[0]),
            policy_number: r[1],
            customer_id: r[2],
            date: r[3],
            amount: r[4],
            outcome: r[5],
            failure_reason: r[6],
          });
        first = false;
      }
      yield out;
    }
    yield ']}\n';
  }
  return format === 'json'
    ? { filename: `attempts-${period}.json`, contentType: 'application/json; charset=utf-8', body: json() }
    : { filename: `attempts-${period}.csv`, contentType: 'text/csv; charset=utf-8', body: csv() };
}

export function incomeView(a: IncomeAnalysis, fromDay: number): IncomePatternView {
  return {
    pattern: a.pattern,
    confidence: a.confidence,
    typical_amount: a.typicalAmount,
    next_income_dates: predictNext(a, fromDay),
    description: describeIncome(a),
  };
}

function predictNext(a: IncomeAnalysis, fromDay: number): string[] {
  if (a.pattern === 'irregular' && a.lastIncomeDay !== null && a.meanGap !== null) {
    const next = Math.max(fromDay, Math.round(a.lastIncomeDay + a.meanGap));
    return [`${fromDayNumber(next)}`];
  }
  // Regular patterns: the next three predicted days.
  return predictIncomeDays(a, fromDay, fromDay + 62).slice(0, 3).map(fromDayNumber);
}

const ORACLE_WHY: Why = blankWhy(WhyCode.ORACLE);

/** Why each attempt was made when it was, and what comes next. */
export async function explainCollection(ctx: LocalContext, id: string): Promise<Explanation> {
  const world = await readWorld(ctx.store.db);
  const row = await findCollectionRow(ctx, world.idSalt, id);
  const collection = toCollection(row, world.idSalt);
  const execution = await ctx.store.db.selectFrom('executions').select('strategy').where('id', '=', row.execution_id).executeTakeFirstOrThrow();
  const attempts = await ctx.store.db
    .selectFrom('attempts')
    .select(['date', 'amount', 'outcome', 'failure_reason'])
    .where('collection_id', '=', row.id)
    .orderBy('date')
    .execute();
  // The plans behind the attempts (and those still pending), from the batches of the days they
  // were planned on: at most a few days before each action day.
  const planDays = new Set<string>();
  for (const a of attempts) for (let k = 1; k <= 4; k++) planDays.add(addDays(a.date, -k));
  for (let k = 0; k <= 4; k++) planDays.add(addDays(world.today, -k));
  const batches =
    planDays.size === 0
      ? []
      : await ctx.store.db
          .selectFrom('plan_batches')
          .select('data')
          .where('client_id', '=', ctx.clientId)
          .where('plan_day', 'in', [...planDays])
          .execute();
  const whyOn = new Map<number, { amount: number; why: Why }>();
  for (const b of batches) {
    for (const p of decodePlans(b.data)) if (p.collection === row.id) whyOn.set(p.day, { amount: p.amount, why: p.why });
  }
  const today = dayNumber(world.today);
  // A cancelled collection's leftover submissions are skipped by the engine: none is pending.
  const plans = [...whyOn.entries()]
    .filter(([day]) => day > today && row.status !== 'CANCELLED')
    .sort((x, y) => x[0] - y[0])
    .map(([day, p]) => ({ date: fromDayNumber(day), amount: p.amount, reason: renderWhy(p.why) }));
  const account = await ctx.store.withConnection(async (_raw, statements) => {
    const keys = new Set([customerKey(ctx.clientId, row.customer_id)]);
    const metaRows = statements.get("select key, value from meta where key in ('bank_epoch')").all() as Array<{ key: string; value: string }>;
    const epoch = metaRows.find((m) => m.key === 'bank_epoch')?.value;
    return openAccount(
      {
        seed: world.seed,
        epochDay: epoch ? dayNumber(epoch) : epochFor(periodOf(world.today)),
        imported: readImportedRows(statements, keys),
        snapshots: new Map(),
        attempts: readAttempts(statements, keys, '0000-00-00'),
      },
      ctx.clientId,
      row.customer_id,
      dayNumber(world.today),
    );
  });
  const plan = plans.map((p) => `${p.date}: debit ${formatCents(p.amount)} planned (${p.reason})`);
  if (plan.length === 0 && collection.shortfall > 0 && row.status !== 'CANCELLED' && world.today < lastDay(row.period_month)) {
    plan.push('No debit is planned yet: the engine plans each debit two days ahead, after income it has seen or expects.');
  }
  const done = collection.collection_amount_collected;
  const summary =
    `${collection.collection_status}: collected ${formatCents(done)} of ${formatCents(collection.collection_amount_due)} ` +
    `in ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}` +
    (collection.last_failure_reason ? `; last failure ${collection.last_failure_reason}` : '') +
    (world.today >= lastDay(row.period_month) ? ' (period closed).' : ` (period open; clock at ${world.today}).`);
  return {
    collection,
    strategy: execution.strategy,
    income: incomeView(account.analysis, today + 1),
    plan,
    attempts: attempts.map((a) => ({
      collection_id: collection.id,
      policy_number: row.policy_number,
      customer_id: row.customer_id,
      date: a.date,
      amount: a.amount,
      outcome: a.outcome,
      failure_reason: a.failure_reason,
      why: renderWhy(whyOn.get(dayNumber(a.date))?.why ?? ORACLE_WHY),
    })),
    summary,
  };
}
