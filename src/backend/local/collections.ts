/**
 * Collections on the local store: queue a run, read collections, executions and attempts,
 * explain a collection. Inputs are checked with the request rules the server uses
 * (domain/requests.ts); the rows are store/repos/collections.ts.
 */
import { conflict, notFound, PremiaError, validationError, type FieldError } from '../../domain/errors.js';
import { decodeId, encodeId, IdKind } from '../../domain/ids.js';
import { count, plural } from '../../domain/words.js';
import { asCents, formatCents } from '../../domain/money.js';
import { addDays, dayNumber, firstDay, fromDayNumber, isPeriod, lastDay, monthsBetween, periodOf, type IsoDate, type Period } from '../../domain/period.js';
import { DEFAULT_PAGE_LIMIT, validateCollectionListQuery, validateExecuteRequest, validateReportQuery } from '../../domain/requests.js';
import type { Calendar } from '../../domain/calendar.js';
import { describeIncome, predictIncome as predictIncomeDays, type IncomeAnalysis } from '../../engine/income.js';
import { DEFAULT_STRATEGY, isStrategy, renderWhy, STRATEGY_NAMES, WhyCode, type Why } from '../../engine/strategies.js';
import { blankWhy, type EngineConfig } from '../../engine/strategy.js';
import { engineSettings, LEAD_DAYS } from '../../engine/settings.js';
import { readStoredBatch } from '../../domain/plan-reason.js';
import { csvRow } from '../../lib/csv-writer.js';
import { CSV_CONTENT_TYPE, JSON_CONTENT_TYPE, periodTextBody } from './reports.js';
import * as repo from '../../store/repos/collections.js';
import { findPolicyById, statusChanges } from '../../store/repos/policies.js';
import { getAllMeta, getMeta, setMeta } from '../../store/repos/meta.js';
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
import { epochFor } from '../../bank/simulated.js';
import type { LedgerObserver } from '../../bank/ledger.js';
import { isRetryable, type FailureReason } from '../../domain/debit-outcome.js';
import { CustomerMap } from '../../domain/customer.js';
import { readCustomerBankInputs } from '../../store/repos/bank.js';
import { openAccount } from './accounts.js';
import type { LocalContext } from './context.js';
import { findPoliciesByRefs, findPolicyByRef, policyNotFound } from './policies.js';
import { readWorld, stamp, stampDay, iso } from './world.js';
import { refuseInPartLivedDay } from '../../store/part-lived-day.js';
import { answered as answeredWithin } from './idempotency.js';

/** How many months after the clock's month a run may be queued for. */
export const MAX_MONTHS_AHEAD = 12;

/**
 * A refused execute names at most this many policies of each kind in its message, and lists at
 * most EXECUTE_DETAILS problems in its details: 60,000 unknown ids (a 529 KB body) answer in
 * kilobytes, not megabytes, as a hostile import file does (docs/decisions.md).
 */
export const EXECUTE_NAMED = 10;
export const EXECUTE_DETAILS = 100;

/** `refs` for a message: the first EXECUTE_NAMED, then how many more. */
function namedRefs(refs: readonly string[]): string {
  const shown = refs.slice(0, EXECUTE_NAMED).join(', ');
  return refs.length <= EXECUTE_NAMED ? shown : `${shown} and ${count(refs.length - EXECUTE_NAMED)} more`;
}

/** Queue the period's collections. Planning starts with the next day the clock lives through. */
export async function executeCollections(ctx: LocalContext, input: ExecuteInput): Promise<ExecutionAccepted> {
  const request = validateExecuteRequest({ period_month: input.period_month, policy_ids: input.policy_ids, strategy: input.strategy });
  const period = request.period_month;
  const strategy = request.strategy ?? DEFAULT_STRATEGY;
  if (!isStrategy(strategy)) {
    throw validationError(`strategy must be one of ${STRATEGY_NAMES.join(', ')}; got ${JSON.stringify(strategy)}.`, [
      { field: 'strategy', code: 'INVALID_VALUE', message: `one of ${STRATEGY_NAMES.join(', ')}` },
    ]);
  }
  const refs = request.policy_ids;
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    await refuseInPartLivedDay(ctx.store, trx, 'the collections runs');
    if (world.today >= lastDay(period)) {
      const closed = `Period ${period} has closed (its last day, ${lastDay(period)}, has run; the clock is at ${world.today}).`;
      // Before the first run the clock can still be set back: "can no longer be queued" was untrue then.
      throw conflict(
        'PERIOD_CLOSED',
        world.locked
          ? `${closed} Its collections can no longer be queued.`
          : `${closed} No collections run exists yet, so the clock can still be set back to queue it: 'premia clock set ${addDays(`${period}-01`, -1)}', then 'premia collections execute --period ${period}'.`,
      );
    }
    // A year ahead at most: 2062-11 for 2026-11 is a slip of the keyboard, not a plan.
    const ahead = monthsBetween(periodOf(world.today), period);
    if (ahead > MAX_MONTHS_AHEAD) {
      throw validationError(
        `Period ${period} is ${ahead} months after the clock's month ${periodOf(world.today)}; a run can be queued at most ${MAX_MONTHS_AHEAD} months ahead. Nothing was queued.`,
        [{ field: 'period_month', code: 'TOO_FAR_AHEAD', message: `at most ${MAX_MONTHS_AHEAD} months after the clock's month` }],
      );
    }
    let policyIds: number[] | null = null;
    if (refs !== undefined) {
      const problems: FieldError[] = [];
      const ids = new Set<number>();
      const unknown: string[] = [];
      const lapsed: string[] = [];
      const cancelled: string[] = [];
      const named = new Set(refs);
      const rows = await findPoliciesByRefs(trx, ctx.clientId, world.idSalt, named);
      for (const ref of named) {
        const row = rows.get(ref);
        if (!row) {
          problems.push({ field: 'policy_ids', code: 'UNKNOWN_POLICY', message: `no policy '${ref}'`, ref });
          unknown.push(ref);
        } else if (row.status !== 'active') {
          problems.push({ field: 'policy_ids', code: 'POLICY_NOT_ACTIVE', message: `policy ${row.policy_number} is ${row.status}`, ref });
          (row.status === 'lapsed' ? lapsed : cancelled).push(ref);
        } else ids.add(row.id);
      }
      if (problems.length > 0) {
        const parts: string[] = [];
        if (unknown.length > 0) parts.push(`unknown policies: ${namedRefs(unknown)}`);
        if (lapsed.length > 0) parts.push(`lapsed (reinstate them first): ${namedRefs(lapsed)}`);
        if (cancelled.length > 0) parts.push(`cancelled (a cancelled policy is never collected again): ${namedRefs(cancelled)}`);
        const left = problems.length - EXECUTE_DETAILS;
        const listed = left > 0 ? ` The details list the first ${count(EXECUTE_DETAILS)} of the ${count(problems.length)} policies refused; ${count(left)} more are not listed.` : '';
        throw validationError(`Nothing was queued: ${parts.join('; ')}.${listed}`, problems.slice(0, EXECUTE_DETAILS));
      }
      policyIds = [...ids];
    }

    const now = stamp(world.today, ctx.now());
    const executionId = await repo.insertExecution(trx, {
      client_id: ctx.clientId,
      period_month: period,
      strategy,
      status: 'processing',
      policies_queued: 0,
      created_at: now,
      completed_at: null,
    });
    const queued = await repo.queueCollections(trx, ctx.clientId, executionId, period, policyIds);
    let answered = executionId;
    if (queued === 0) {
      // Nothing new to queue (a rerun, or one of several concurrent calls that lost the race):
      // no empty execution is recorded; the answer names the execution already holding the
      // policies. Only a period with no execution at all keeps this one, so it can be answered.
      const holder = await repo.executionHolding(trx, ctx.clientId, period, policyIds, executionId);
      if (holder !== null) {
        await repo.deleteExecution(trx, ctx.clientId, executionId);
        answered = holder;
      }
    } else {
      await repo.setPoliciesQueued(trx, ctx.clientId, executionId, queued);
    }

    await setMeta(trx, 'clock_locked', '1');
    if ((await getMeta(trx, 'bank_epoch')) === undefined) {
      const first = period < periodOf(world.today) ? period : periodOf(world.today);
      await setMeta(trx, 'bank_epoch', fromDayNumber(epochFor(first)));
    }
    const accepted: ExecutionAccepted = { execution_id: encodeId(IdKind.execution, world.idSalt, answered), status: 'processing', policies_queued: queued };
    return answeredWithin(trx, accepted);
  });
}

// ---------------------------------------------------------------------------------------------

export function toCollection(r: repo.CollectionRow, idSalt: number): Collection {
  return {
    id: encodeId(IdKind.collection, idSalt, r.id),
    period_month: r.period_month,
    customer_id: r.customer_id,
    external_customer_ref: r.external_customer_ref,
    policy_number: r.policy_number,
    product_code: r.product_code,
    collection_amount_due: r.amount_due,
    collection_amount_collected: r.amount_collected,
    shortfall: asCents(r.amount_due - r.amount_collected),
    collection_status: r.status,
    first_attempt_date: r.first_attempt_date,
    last_attempt_date: r.last_attempt_date,
    number_of_attempts: r.attempts,
    last_failure_reason: r.last_failure_reason,
    policy_id: encodeId(IdKind.policy, idSalt, r.policy_id),
    execution_id: encodeId(IdKind.execution, idSalt, r.execution_id),
  };
}

async function findCollectionRow(ctx: LocalContext, idSalt: number, id: string): Promise<repo.CollectionRow> {
  const rowid = decodeId(IdKind.collection, idSalt, id);
  const row = rowid === null ? undefined : await repo.findCollection(ctx.store.db, ctx.clientId, rowid);
  if (row) return row;
  // A policy's number or id where a collection's id was asked for (the usual slip with
  // `collections explain`): say so, and name the policy's newest collections.
  const policy = rowid === null ? await findPolicyByRef(ctx.store.db, ctx.clientId, idSalt, id) : undefined;
  if (!policy) throw notFound('Collection', id);
  const newest = await repo.newestCollectionsOfPolicy(ctx.store.db, ctx.clientId, policy.id, COLLECTIONS_NAMED + 1);
  const named = newest.slice(0, COLLECTIONS_NAMED).map((c) => `${c.period_month} ${encodeId(IdKind.collection, idSalt, c.id)}`);
  const which =
    newest.length === 0
      ? 'it has no collections (no run has queued it).'
      : `its ${newest.length > COLLECTIONS_NAMED ? `newest ${COLLECTIONS_NAMED} collections` : newest.length === 1 ? 'collection' : `${newest.length} collections`}: ${named.join(', ')}` +
        ` (premia collections list --period P --policy ${policy.policy_number} lists a month's).`;
  throw new PremiaError('NOT_FOUND', `Collection '${id}' was not found: ${id === policy.policy_number ? 'that is the number of a policy' : 'that is the id of policy ' + policy.policy_number}, not a collection's id; ${which}`);
}

/** How many of a policy's collections a NOT_FOUND for its number names. */
const COLLECTIONS_NAMED = 3;

export async function getCollection(ctx: LocalContext, id: string): Promise<Collection> {
  const world = await readWorld(ctx.store.db);
  return toCollection(await findCollectionRow(ctx, world.idSalt, id), world.idSalt);
}

export async function listCollections(ctx: LocalContext, query: CollectionListQuery): Promise<Page<Collection>> {
  const q = validateCollectionListQuery({
    period_month: query.period_month,
    status: query.status,
    policy: query.policy,
    limit: query.limit,
    after: query.after,
  });
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const world = await readWorld(ctx.store.db);
  let policyNumber: string | undefined;
  if (q.policy !== undefined) {
    const policy = await findPolicyByRef(ctx.store.db, ctx.clientId, world.idSalt, q.policy);
    if (!policy) throw await policyNotFound(ctx.store.db, ctx.clientId, q.policy);
    policyNumber = policy.policy_number;
  }
  const rows = await repo.listCollections(ctx.store.db, ctx.clientId, { period: q.period_month, status: q.status, policyNumber, after: q.after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    data: page.map((r) => toCollection(r, world.idSalt)),
    next_after: rows.length > limit ? page[page.length - 1]!.policy_number : null,
  };
}

/** How many of a period's executions a NOT_FOUND for the period names. */
const EXECUTIONS_NAMED = 3;

/**
 * NOT_FOUND for the execution `id`. A period given for it (`collections execution 2026-11`):
 * the period's executions are named, as an execution has an id and no number.
 */
async function executionNotFound(ctx: LocalContext, idSalt: number, id: string): Promise<PremiaError> {
  const period = id.trim();
  if (!isPeriod(period)) return notFound('Execution', id, 'id');
  const ids = await repo.executionsOfPeriod(ctx.store.db, ctx.clientId, period, EXECUTIONS_NAMED + 1);
  const named = ids.slice(0, EXECUTIONS_NAMED).map((rowid) => encodeId(IdKind.execution, idSalt, rowid));
  const which =
    ids.length === 0
      ? `${period} has no execution (premia collections execute --period ${period} queues its run).`
      : `${period}'s ${ids.length === 1 ? 'execution is' : ids.length > EXECUTIONS_NAMED ? `first ${EXECUTIONS_NAMED} executions are` : 'executions are'} ${named.join(', ')}.`;
  return new PremiaError('NOT_FOUND', `Execution '${period}' was not found: that is a period, and an execution is named by its id; ${which}`);
}

export async function getExecution(ctx: LocalContext, id: string): Promise<Execution> {
  const world = await readWorld(ctx.store.db);
  const rowid = decodeId(IdKind.execution, world.idSalt, id);
  const row = rowid === null ? undefined : await repo.findExecution(ctx.store.db, ctx.clientId, rowid);
  if (!row) throw await executionNotFound(ctx, world.idSalt, id);
  const counts = Object.fromEntries(COLLECTION_STATUSES.map((s) => [s, 0])) as Record<CollectionStatus, number>;
  for (const g of await repo.executionStatusCounts(ctx.store.db, row.id)) counts[g.status] = g.count;
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

/**
 * Every debit attempt of the period, in (date, policy_number) order, as CSV or JSON: written
 * from the store as the collections report is (store/report-ranges.ts), on a large SQLite
 * period by two threads in one snapshot.
 */
export async function exportAttempts(ctx: LocalContext, periodInput: Period, formatInput: ReportFormat): Promise<Download> {
  const { period_month: period, format } = validateReportQuery({ period_month: periodInput, format: formatInput });
  // Read before the first byte: a bad store fails before anything is written.
  const { idSalt } = await readWorld(ctx.store.db);
  const text = { rows: 'attempts', format, idSalt } as const;
  return format === 'json'
    ? { filename: `attempts-${period}.json`, contentType: JSON_CONTENT_TYPE, body: periodTextBody(ctx, period, text, `{"period_month":${JSON.stringify(period)},"attempts":[`, ']}\n') }
    : { filename: `attempts-${period}.csv`, contentType: CSV_CONTENT_TYPE, body: periodTextBody(ctx, period, text, csvRow(ATTEMPT_COLUMNS), '') };
}

export function incomeView(a: IncomeAnalysis, fromDay: number, calendar: Calendar): IncomePatternView {
  return {
    pattern: a.pattern,
    confidence: a.confidence,
    typical_amount: asCents(a.typicalAmount),
    next_income_dates: predictNext(a, fromDay, calendar),
    description: describeIncome(a),
  };
}

function predictNext(a: IncomeAnalysis, fromDay: number, calendar: Calendar): string[] {
  if (a.pattern === 'irregular' && a.lastIncomeDay !== null && a.meanGap !== null) {
    const next = Math.max(fromDay, Math.round(a.lastIncomeDay + a.meanGap));
    return [`${fromDayNumber(next)}`];
  }
  // Regular patterns: the next three predicted days.
  return predictIncomeDays(a, fromDay, fromDay + 62, calendar).slice(0, 3).map(fromDayNumber);
}

const ORACLE_WHY: Why = blankWhy(WhyCode.ORACLE);

/** The account's posted balance at the end of each day, as a replay reports its entries (cents). */
class EndOfDayBalances implements LedgerObserver {
  /** Days with an entry, ascending, and the balance after the day's last one. */
  readonly days: number[] = [];
  readonly balances: number[] = [];
  /** The balance before the first entry (null: no entry). */
  opening: number | null = null;

  private entry(day: number, before: number, after: number): void {
    this.opening ??= before;
    if (this.days[this.days.length - 1] === day) this.balances[this.balances.length - 1] = after;
    else {
      this.days.push(day);
      this.balances.push(after);
    }
  }
  /** Days a credit posted on. */
  readonly creditDays = new Set<number>();

  credit(day: number, amount: number, _text: string, balance: number): void {
    this.creditDays.add(day);
    this.entry(day, balance - amount, balance);
  }

  /** Whether any credit posted from `from` to `to` (day numbers, both included). */
  creditedBetween(from: number, to: number): boolean {
    for (let d = from; d <= to; d++) if (this.creditDays.has(d)) return true;
    return false;
  }
  premiaDebit(day: number, amount: number, reason: FailureReason | null, balance: number): void {
    this.entry(day, reason === null ? balance + amount : balance, balance);
  }
  debit(day: number, amount: number, _text: string, posted: boolean, balance: number): void {
    this.entry(day, posted ? balance + amount : balance, balance);
  }

  /**
   * The highest end-of-day balance of the given days (ascending), and the first day it held: a
   * day's balance is the one after its last entry, else the one carried into it; with no entry at
   * all, `closing` (the balance now). Null for no days.
   */
  highest(evenings: readonly number[], closing: number): { cents: number; day: number } | null {
    let k = 0;
    let balance = this.opening ?? closing;
    let best: { cents: number; day: number } | null = null;
    for (const day of evenings) {
      while (k < this.days.length && this.days[k]! <= day) balance = this.balances[k++]!;
      if (best === null || balance > best.cents) best = { cents: balance, day };
    }
    return best;
  }
}

const ACCOUNT_BLOCKED: Record<FailureReason, string> = {
  ACCOUNT_CLOSED: 'the account is closed',
  ACCOUNT_FROZEN: 'the account is frozen',
  PAYMENT_STOPPED: 'the customer has stopped payments to premia',
  INSUFFICIENT_FUNDS: '',
};

/**
 * For a collection its run never attempted: what its account held on the evenings the run could
 * plan a debit of its period, and whether the account refuses debits now. Those evenings are the
 * ones whose next day is a business day of the period (debits are planned the evening before
 * their day, for business days only), from the day the run was queued (`queuedOn`: the engine
 * plans on that evening, at the next advance) to the clock's day, or, for a policy lapsed since
 * (`lapsedOn`), to the day before it lapsed: no debit of it is made after that. Facts the bank
 * shows, not the engine's reasons: a finance user can tell a customer who never had the money
 * from one who had it while another of its policies took it.
 */
function untriedFacts(
  balances: EndOfDayBalances,
  closing: number,
  calendar: Calendar,
  row: { period_month: Period; amount_due: number },
  queuedOn: number,
  today: number,
  lapsedOn: number | null,
  blocked: FailureReason | null,
): string {
  const evenings: number[] = [];
  const from = Math.max(queuedOn, dayNumber(firstDay(row.period_month)) - 1 - LEAD_DAYS);
  const to = Math.min(today, dayNumber(lastDay(row.period_month)) - 1 - LEAD_DAYS, lapsedOn === null ? today : lapsedOn - 1);
  for (let day = from; day <= to; day++) if (calendar.isBusinessDay(day + 1 + LEAD_DAYS)) evenings.push(day);
  const state = blocked === null ? '' : ACCOUNT_BLOCKED[blocked];
  const high = balances.highest(evenings, closing);
  if (high === null) return state === '' ? '' : ` Now ${state}.`;
  const first = evenings[0]!;
  const last = evenings[evenings.length - 1]!;
  const range = first === last ? fromDayNumber(first) : `${fromDayNumber(first)} to ${fromDayNumber(last)}`;
  return (
    ` Its account's posted balance on the evenings the run could plan a debit of this period (${range}) was at most ` +
    `${formatCents(high.cents)} (${fromDayNumber(high.day)}), against ${formatCents(row.amount_due)} due${state === '' ? '' : `; ${state}`}.`
  );
}

/**
 * Why the engine makes no further attempt in the period, when it makes none: a failure that is
 * not retried (the account closed, frozen or stopped), the failed attempts a month allows
 * (`engine.max_failed_attempts`, every strategy), or naive's attempts a month. Null otherwise.
 */
function noMoreAttempts(strategy: string, attempts: ReadonlyArray<{ failure_reason: string | null }>, settings: EngineConfig): string | null {
  const last = attempts.findLast((a) => a.failure_reason !== null)?.failure_reason ?? null;
  if (last !== null && !isRetryable(last)) return `No further debit is made in this period: the last one was refused ${last}, which is not retried.`;
  const failed = attempts.filter((a) => a.failure_reason !== null).length;
  if (failed >= settings.maxFailedAttempts) {
    return `No further debit is made in this period: ${plural(failed, 'failed attempt')}, the most a month allows (engine.max_failed_attempts ${settings.maxFailedAttempts}).`;
  }
  if (strategy === 'naive' && attempts.length >= settings.naiveMaxAttempts) {
    return `No further debit is made in this period: naive makes at most ${settings.naiveMaxAttempts} attempts a month.`;
  }
  return null;
}

/**
 * The income analysis as read today. Once the period has closed, that is not what the engine saw
 * when it planned the period's debits (a customer `irregular` in November may read `none` by
 * January): the description says on which day it was read.
 */
function incomeAsRead(view: IncomePatternView, today: IsoDate, period: Period): IncomePatternView {
  if (today <= lastDay(period)) return view;
  return { ...view, description: `${view.description} (as read on ${today}, after ${period} closed: not necessarily what its debits were planned on)` };
}

/**
 * An attempt's reason, and, when it rests on income expected by its day (not seen), whether any
 * money was paid in from that payday to the debit: a failed debit on a payday whose pay never
 * came reads as such, not as a pay that came and was not enough.
 */
function whyWithIncomeSeen(w: Why, day: number, balances: EndOfDayBalances): string {
  const why = renderWhy(w);
  if ((w.trigger !== 2 && w.trigger !== 3) || w.triggerDay > day || balances.creditedBetween(w.triggerDay, day)) return why;
  const when = w.triggerDay === day ? `on ${fromDayNumber(day)}` : `from ${fromDayNumber(w.triggerDay)} to ${fromDayNumber(day)}`;
  return `${why}; no money was paid in ${when}`;
}

/** Why each attempt was made when it was, and what comes next. */
export async function explainCollection(ctx: LocalContext, id: string): Promise<Explanation> {
  const world = await readWorld(ctx.store.db);
  const row = await findCollectionRow(ctx, world.idSalt, id);
  const collection = toCollection(row, world.idSalt);
  const { strategy, createdAt } = await repo.executionStrategy(ctx.store.db, row.execution_id);
  const attempts = await repo.attemptsOfCollection(ctx.store.db, row);
  // The plans behind the attempts (and those still pending), from the batches of the days they
  // were planned on: at most a few days before each action day.
  const planDays = new Set<string>();
  for (const a of attempts) for (let k = 1; k <= 4; k++) planDays.add(addDays(a.date, -k));
  for (let k = 0; k <= 4; k++) planDays.add(addDays(world.today, -k));
  const batches = await repo.planBatchesOn(ctx.store.db, ctx.clientId, [...planDays]);
  const whyOn = new Map<number, { amount: number; why: Why }>();
  for (const data of batches) {
    for (const p of readStoredBatch(data)) if (p.collection === row.id) whyOn.set(p.day, { amount: p.amount, why: p.why });
  }
  const today = dayNumber(world.today);
  // The day the policy lapsed, while it is lapsed (a reinstated one is debited again).
  const lapsed = (await findPolicyById(ctx.store.db, ctx.clientId, row.policy_id))?.status === 'lapsed';
  // A cancelled collection: the day its policy was cancelled (what was collected before stays).
  const cancelled = row.status === 'CANCELLED';
  const changes = lapsed || cancelled ? await statusChanges(ctx.store.db, ctx.clientId, row.policy_id) : [];
  const lapsedOn = lapsed ? changes.findLast((c) => c.new_status === 'lapsed')?.changed_on : undefined;
  const cancelledOn = cancelled ? changes.findLast((c) => c.new_status === 'cancelled')?.changed_on : undefined;
  // A cancelled collection's leftover submissions are skipped by the engine, and a lapsed
  // policy's are not made: none is pending.
  const plans = [...whyOn.entries()]
    .filter(([day]) => day > today && row.status !== 'CANCELLED' && !lapsed)
    .sort((x, y) => x[0] - y[0])
    .map(([day, p]) => ({ date: fromDayNumber(day), amount: p.amount, reason: renderWhy(p.why) }));
  const epoch = await getMeta(ctx.store.db, 'bank_epoch');
  // The customer has a policy (this collection's), so the store knows it: its replay inputs are read.
  const inputs = await readCustomerBankInputs(ctx.store, ctx.clientId, row.customer_id);
  const balances = new EndOfDayBalances();
  const account = openAccount(
    {
      seed: world.seed,
      calendar: world.calendar,
      epochDay: epoch ? dayNumber(epoch) : epochFor(periodOf(world.today)),
      imported: inputs.imported,
      snapshots: new CustomerMap(),
      attempts: inputs.attempts,
    },
    ctx.clientId,
    row.customer_id,
    dayNumber(world.today),
    balances,
  );
  const plan = plans.map((p) => `${p.date}: debit ${formatCents(p.amount)} planned (${p.reason})`);
  if (plan.length === 0 && collection.shortfall > 0 && row.status !== 'CANCELLED' && world.today < lastDay(row.period_month)) {
    plan.push(
      lapsed
        ? 'No debit is planned: the policy is lapsed.'
        : (noMoreAttempts(strategy, attempts, engineSettings(await getAllMeta(ctx.store.db))) ??
            `No debit is planned yet: the engine plans each debit ${plural(1 + LEAD_DAYS, 'day')} ahead, after income it has seen or expects.`),
    );
  }
  const done = collection.collection_amount_collected;
  const summary =
    `${collection.collection_status}: collected ${formatCents(done)} of ${formatCents(collection.collection_amount_due)} ` +
    `in ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}` +
    (collection.last_failure_reason ? `; last failure ${collection.last_failure_reason}` : '') +
    (world.today >= lastDay(row.period_month) ? ' (period closed).' : ` (period open; clock at ${world.today}).`) +
    (attempts.length === 0 && row.status !== 'CANCELLED' ? untriedFacts(balances, account.balance, account.calendar, row, stampDay(createdAt), today, lapsedOn === undefined ? null : dayNumber(lapsedOn), account.blockedOn(today)) : '') +
    // Lapsed before the period's last day (not by this period's own close): it stopped the debits.
    (lapsedOn !== undefined && lapsedOn < lastDay(row.period_month) ? ` The policy lapsed on ${lapsedOn}: a lapsed policy is not debited until it is reinstated.` : '') +
    (cancelledOn !== undefined ? ` The policy was cancelled on ${cancelledOn}: no debit of this period is made after that.` : '');
  return {
    collection,
    strategy,
    income: incomeAsRead(incomeView(account.analysis, today + 1, account.calendar), world.today, row.period_month),
    plan,
    attempts: attempts.map((a) => ({
      collection_id: collection.id,
      policy_number: row.policy_number,
      customer_id: row.customer_id,
      date: a.date,
      amount: a.amount,
      outcome: a.outcome,
      failure_reason: a.failure_reason,
      why: whyWithIncomeSeen(whyOn.get(dayNumber(a.date))?.why ?? ORACLE_WHY, dayNumber(a.date), balances),
    })),
    summary,
  };
}
