/**
 * The collections engine, run by the virtual clock. `advance` lives through each day after the
 * clock's date up to the target, each day in its own transaction: a crash or kill leaves the
 * store at the end of the last whole day, and advancing again resumes from there with no debit
 * repeated or lost (a day's attempts, collection updates, new plans and the clock move commit
 * together).
 *
 * A day D:
 *  1. every customer with open collections lives through D (credits, premia's debits planned for
 *     D in policy_number order, other debits: see bank/ledger.ts), and the outcomes update the
 *     collections;
 *  2. each strategy plans the debits of the action date D + 1 + leadDays from what the engine
 *     has seen up to the end of D;
 *  3. when D is the last day of a month, that period closes: collections take their final
 *     status, its executions complete, the lapse rule runs and account balances are snapshot.
 *
 * State is kept in memory for the whole advance (the working set of the open periods) and
 * reloaded if another process writes to the store in between (PRAGMA data_version).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { PremiaError } from '../../domain/errors.js';
import { formatCents } from '../../domain/money.js';
import { addDays, dayNumber, fromDayNumber, lastDay, periodOf, previousPeriod, type IsoDate } from '../../domain/period.js';
import { isRetryable, type FailureReason } from '../../bank/types.js';
import {
  DEFAULT_ENGINE_CONFIG,
  isStrategy,
  oracleDebits,
  planCustomer,
  type CollectionView,
  type EngineConfig,
  type StrategyName,
} from '../../engine/strategies.js';
import type { StatementCache } from '../../store/sqlite-dialect.js';
import type { AdvanceOptions, AdvanceResult, AdvanceTarget, CollectionStatus, DaySummary } from '../types.js';
import type { DayFacts, PremiaDebits } from '../../bank/ledger.js';
import type { LocalContext } from './context.js';
import {
  customerKey,
  CustomerAccount,
  epochFor,
  openAccount,
  provisionalEpoch,
  readImportedRows,
  readSnapshots,
  readAttempts,
  summaryWindowStart,
  type AccountInputs,
} from './accounts.js';

export interface EngineSettings extends EngineConfig {
  lapseAfterUnpaidPeriods: number;
}

export const SETTING_KEYS = {
  leadDays: 'engine.lead_days',
  maxFailedAttempts: 'engine.max_failed_attempts',
  maxSplitDebits: 'engine.max_split_debits',
  lapseAfterUnpaidPeriods: 'lapse.unpaid_periods',
} as const;

export function engineSettings(meta: Map<string, string>): EngineSettings {
  const num = (key: string, fallback: number) => {
    const v = meta.get(key);
    return v === undefined ? fallback : Number(v);
  };
  return {
    ...DEFAULT_ENGINE_CONFIG,
    leadDays: num(SETTING_KEYS.leadDays, DEFAULT_ENGINE_CONFIG.leadDays),
    maxFailedAttempts: num(SETTING_KEYS.maxFailedAttempts, DEFAULT_ENGINE_CONFIG.maxFailedAttempts),
    maxSplitDebits: num(SETTING_KEYS.maxSplitDebits, DEFAULT_ENGINE_CONFIG.maxSplitDebits),
    lapseAfterUnpaidPeriods: num(SETTING_KEYS.lapseAfterUnpaidPeriods, 2),
  };
}

interface OpenCollection extends CollectionView {
  rowid: number;
  clientId: number;
  policyId: number;
  period: string;
  status: CollectionStatus;
  firstDate: string | null;
  lastDate: string | null;
  lastFailure: string | null;
  dirty: boolean;
}

/** Shared empty lists for collections with nothing pending (most of them, most days). */
const NONE: number[] = [];
Object.freeze(NONE);

/** One string per distinct value read from the store (periods, statuses, strategies, reasons). */
const interned = new Map<string, string>();
function intern<T extends string | null>(s: T): T {
  if (s === null) return s;
  let v = interned.get(s);
  if (v === undefined) interned.set(s, (v = s));
  return v as T;
}

interface Customer {
  account: CustomerAccount;
  collections: OpenCollection[];
  hasOracle: boolean;
}

function addPending(c: OpenCollection, day: number, amount: number): void {
  if (c.pendingDays === NONE) {
    c.pendingDays = [];
    c.pendingAmounts = [];
  }
  c.pendingDays.push(day);
  c.pendingAmounts.push(amount);
}

/** Take the collection's plan for `day` out of its pending list; returns the amount or 0. */
function takePending(c: OpenCollection, day: number): number {
  if (c.pendingDays === NONE) return 0;
  const k = c.pendingDays.indexOf(day);
  if (k < 0) return 0;
  const amount = c.pendingAmounts[k]!;
  if (c.pendingDays.length === 1) {
    c.pendingDays = NONE;
    c.pendingAmounts = NONE;
  } else {
    c.pendingDays.splice(k, 1);
    c.pendingAmounts.splice(k, 1);
  }
  return amount;
}

interface Meta {
  today: IsoDate;
  seed: number;
  epochDay: number;
  settings: EngineSettings;
}

interface AttemptRow {
  clientId: number;
  policyNumber: string;
  collectionId: number;
  period: string;
  amount: number;
  reason: FailureReason | null;
}

function readMeta(statements: StatementCache): Map<string, string> {
  const rows = statements.get('select key, value from meta').all() as Array<{ key: string; value: string }>;
  return new Map(rows.map((r) => [r.key, r.value]));
}

function statusOf(c: { due: number; collected: number; status: CollectionStatus }): CollectionStatus {
  if (c.status === 'CANCELLED') return 'CANCELLED';
  if (c.collected >= c.due) return 'PAID_FULL';
  return c.collected > 0 ? 'PAID_PARTIAL' : 'UNPAID';
}

/** The working set of the open periods, in memory. */
class EngineState {
  readonly customers: Customer[] = [];
  readonly byRowid = new Map<number, OpenCollection>();
  readonly openPeriods = new Set<string>();
  /** Collections changed since the last write. */
  readonly dirty: OpenCollection[] = [];

  constructor(readonly meta: Meta) {}
}

function load(statements: StatementCache): EngineState {
  const metaMap = readMeta(statements);
  const today = metaMap.get('clock_date')!;
  const epoch = metaMap.get('bank_epoch');
  const meta: Meta = {
    today,
    seed: Number(metaMap.get('seed')),
    epochDay: epoch ? dayNumber(epoch) : provisionalEpoch(today),
    settings: engineSettings(metaMap),
  };
  const state = new EngineState(meta);
  const todayDay = dayNumber(today);

  const rows = statements
    .get(
      `select c.id, c.client_id, c.customer_id, c.policy_number, c.policy_id, c.period_month, c.amount_due,
              c.amount_collected, c.status, c.first_attempt_date, c.last_attempt_date, c.attempts,
              c.failed_attempts, c.last_failure_reason, e.strategy, p.status as policy_status
       from collections c join executions e on e.id = c.execution_id join policies p on p.id = c.policy_id
       where c.closed = 0
       order by c.client_id, c.customer_id, c.policy_number`,
    )
    .all() as Array<{
    id: number;
    client_id: number;
    customer_id: string;
    policy_number: string;
    policy_id: number;
    period_month: string;
    amount_due: number;
    amount_collected: number;
    status: CollectionStatus;
    first_attempt_date: string | null;
    last_attempt_date: string | null;
    attempts: number;
    failed_attempts: number;
    last_failure_reason: string | null;
    strategy: string;
    policy_status: string;
  }>;
  if (rows.length === 0) return state;

  const groups = new Map<string, { clientId: number; customerId: string; collections: OpenCollection[] }>();
  for (const r of rows) {
    const key = customerKey(r.client_id, r.customer_id);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { clientId: r.client_id, customerId: r.customer_id, collections: [] }));
    const periodFirst = dayNumber(`${r.period_month}-01`);
    const c: OpenCollection = {
      rowid: r.id,
      clientId: r.client_id,
      policyId: r.policy_id,
      policyNumber: r.policy_number,
      period: intern(r.period_month),
      strategy: intern((isStrategy(r.strategy) ? r.strategy : 'smart') as StrategyName),
      due: r.amount_due,
      collected: r.amount_collected,
      attempts: r.attempts,
      failed: r.failed_attempts,
      status: intern(r.status),
      blocked:
        r.status === 'CANCELLED' ||
        r.policy_status !== 'active' ||
        (r.last_failure_reason !== null && !isRetryable(r.last_failure_reason)),
      periodFirst,
      periodLast: dayNumber(lastDay(r.period_month)),
      lastAttemptDay: r.last_attempt_date ? dayNumber(r.last_attempt_date) : null,
      firstDate: intern(r.first_attempt_date),
      lastDate: intern(r.last_attempt_date),
      lastFailure: intern(r.last_failure_reason),
      pendingDays: NONE,
      pendingAmounts: NONE,
      dirty: false,
    };
    g.collections.push(c);
    state.byRowid.set(c.rowid, c);
    state.openPeriods.add(c.period);
  }

  const plans = statements.get('select collection_id, date, amount from planned_debits where date > ? order by collection_id, date').iterate(today) as Iterable<{
    collection_id: number;
    date: string;
    amount: number;
  }>;
  for (const p of plans) {
    const c = state.byRowid.get(p.collection_id);
    if (c) addPending(c, dayNumber(p.date), p.amount);
  }

  const keys = new Set(groups.keys());
  const inputs: AccountInputs = {
    seed: meta.seed,
    epochDay: meta.epochDay,
    imported: readImportedRows(statements, keys),
    snapshots: readSnapshots(statements, keys, fromDayNumber(summaryWindowStart(todayDay) - 1)),
    attempts: new Map(),
  };
  let oldest = today;
  for (const key of keys) {
    const snap = inputs.snapshots.get(key);
    if (!snap) {
      oldest = '0000-00-00';
      break;
    }
    const d = fromDayNumber(snap.day);
    if (d < oldest) oldest = d;
  }
  inputs.attempts = readAttempts(statements, keys, oldest);
  for (const g of groups.values()) {
    const account = openAccount(inputs, g.clientId, g.customerId, todayDay);
    state.customers.push({ account, collections: g.collections, hasOracle: g.collections.some((c) => c.strategy === 'oracle') });
  }
  return state;
}

interface PlanRow {
  c: OpenCollection;
  day: number;
  amount: number;
  reason: string;
}

/** Plan the debits of action day `A` at the end of day `D`. Returns rows to insert. */
function planAll(state: EngineState, D: number, A: number): PlanRow[] {
  const out: PlanRow[] = [];
  const settings = state.meta.settings;
  for (const customer of state.customers) {
    let work = false;
    for (const c of customer.collections) {
      if (!c.blocked && c.strategy !== 'oracle' && c.collected < c.due && A >= c.periodFirst && A <= c.periodLast) {
        work = true;
        break;
      }
    }
    if (!work) continue;
    const view = customer.account;
    const planned = planCustomer(view, customer.collections, D, A, settings);
    for (const p of planned) {
      const c = customer.collections[p.index]!;
      addPending(c, p.day, p.amount);
      out.push({ c, day: p.day, amount: p.amount, reason: p.reason });
    }
  }
  return out;
}

interface DayOutcome {
  attempts: AttemptRow[];
  summaries: Map<number, DaySummary>;
}

function summaryFor(map: Map<number, DaySummary>, clientId: number, date: string): DaySummary {
  let s = map.get(clientId);
  if (!s) map.set(clientId, (s = { date, attempts: 0, succeeded: 0, failed: 0, collected: 0, closed_period: null, lapsed_policies: 0 }));
  return s;
}

/**
 * Supplies each customer's debits of the day to its ledger: the plans submitted for the day (in
 * policy_number order, capped at what is still due) and, for oracle collections, what the
 * balance allows. One object for the whole day: nothing is allocated per account.
 */
class DayRunner implements PremiaDebits {
  customer: Customer | null = null;
  day = 0;
  readonly cols: OpenCollection[] = [];
  readonly amounts: number[] = [];
  count = 0;

  debitsFor(balance: number, day: number, out: number[]): number {
    const amounts = this.amounts;
    const customer = this.customer!;
    const cols = customer.collections;
    let n = 0;
    for (let i = 0; i < cols.length; i++) {
      const c = cols[i]!;
      const planned = takePending(c, day);
      if (planned === 0) continue;
      // Never more than is still due, and nothing for a blocked collection.
      const amount = Math.min(planned, c.due - c.collected);
      if (c.blocked || amount <= 0) continue;
      this.cols[n] = c;
      amounts[n++] = amount;
    }
    if (customer.hasOracle && customer.account.ledger.blockedOn(day) === null) {
      let committed = 0;
      for (let i = 0; i < n; i++) committed += amounts[i]!;
      for (const o of oracleDebits(balance - committed, cols, day)) {
        const c = cols[o.index]!;
        let seen = false;
        for (let i = 0; i < n; i++) if (this.cols[i] === c) seen = true;
        if (seen) continue;
        this.cols[n] = c;
        amounts[n++] = o.amount;
      }
      // The bank attempts debits in policy_number order.
      sortByPolicy(this.cols, amounts, n);
    }
    for (let i = 0; i < n; i++) out[i] = amounts[i]!;
    this.count = n;
    return n;
  }
}

function sortByPolicy(cols: OpenCollection[], amounts: number[], n: number): void {
  for (let i = 1; i < n; i++) {
    for (let j = i; j > 0 && cols[j - 1]!.policyNumber > cols[j]!.policyNumber; j--) {
      const c = cols[j]!;
      cols[j] = cols[j - 1]!;
      cols[j - 1] = c;
      const a = amounts[j]!;
      amounts[j] = amounts[j - 1]!;
      amounts[j - 1] = a;
    }
  }
}

const RUNNER = new DayRunner();
const OUTCOMES: Array<FailureReason | null> = [];
const FACTS: DayFacts = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };

/** Live through `day` for every customer of the working set. */
function liveDay(state: EngineState, day: number): DayOutcome {
  const date = fromDayNumber(day);
  const attempts: AttemptRow[] = [];
  const summaries = new Map<number, DaySummary>();
  const runner = RUNNER;
  runner.day = day;
  for (const customer of state.customers) {
    runner.customer = customer;
    runner.count = 0;
    const facts = customer.account.ledger.live(runner, OUTCOMES, FACTS);
    for (let i = 0; i < facts.premiaDebits; i++) {
      const c = runner.cols[i]!;
      const reason = OUTCOMES[i]!;
      const amount = runner.amounts[i]!;
      c.attempts++;
      c.lastAttemptDay = day;
      c.firstDate ??= date;
      c.lastDate = date;
      const s = summaryFor(summaries, c.clientId, date);
      s.attempts++;
      if (reason === null) {
        c.collected += amount;
        s.succeeded++;
        s.collected += amount;
      } else {
        c.failed++;
        c.lastFailure = reason;
        s.failed++;
        if (!isRetryable(reason)) c.blocked = true;
      }
      c.status = statusOf(c);
      if (!c.dirty) {
        c.dirty = true;
        state.dirty.push(c);
      }
      attempts.push({ clientId: c.clientId, policyNumber: c.policyNumber, collectionId: c.rowid, period: c.period, amount, reason });
    }
    customer.account.endOfDay(day, facts);
  }
  runner.customer = null;
  // Stored in (client, policy_number) order within the day: rowid order is report order.
  attempts.sort((a, b) => a.clientId - b.clientId || (a.policyNumber < b.policyNumber ? -1 : a.policyNumber > b.policyNumber ? 1 : 0));
  return { attempts, summaries };
}

function writeDay(statements: StatementCache, state: EngineState, day: number, out: DayOutcome): void {
  const date = fromDayNumber(day);
  const insertAttempt = statements.get(
    'insert into attempts (client_id, collection_id, period_month, date, amount, outcome, failure_reason) values (?, ?, ?, ?, ?, ?, ?)',
  );
  for (const a of out.attempts) {
    insertAttempt.run(a.clientId, a.collectionId, a.period, date, a.amount, a.reason === null ? 'SUCCESS' : 'FAILED', a.reason);
  }
  const update = statements.get(
    `update collections set amount_collected = ?, status = ?, first_attempt_date = ?, last_attempt_date = ?,
       attempts = ?, failed_attempts = ?, last_failure_reason = ? where id = ?`,
  );
  for (const c of state.dirty) {
    update.run(c.collected, c.status, c.firstDate, c.lastDate, c.attempts, c.failed, c.lastFailure, c.rowid);
    c.dirty = false;
  }
  state.dirty.length = 0;
}

/** Submitted plans are kept as the record of why each attempt was made (and of plans that a
 * success or a cancellation made unnecessary). */
function insertPlans(statements: StatementCache, plans: PlanRow[]): void {
  const insertPlan = statements.get(
    'insert or ignore into planned_debits (client_id, collection_id, date, amount, reason) values (?, ?, ?, ?, ?)',
  );
  for (const p of plans) insertPlan.run(p.c.clientId, p.c.rowid, fromDayNumber(p.day), p.amount, p.reason);
}

/**
 * Close `period` at the end of its last day: final statuses, executions completed, the lapse
 * rule, balance snapshots. Returns lapsed policies per client.
 */
function closePeriod(statements: StatementCache, state: EngineState | null, period: string, stampMs: number): Map<number, number> {
  const day = lastDay(period);
  statements.get('update collections set closed = 1 where period_month = ? and closed = 0').run(period);
  statements.get("update executions set status = 'completed', completed_at = ? where period_month = ? and status = 'processing'").run(stampMs, period);

  const lapsed = new Map<number, number>();
  const n = state?.meta.settings.lapseAfterUnpaidPeriods ?? engineSettings(readMeta(statements)).lapseAfterUnpaidPeriods;
  if (n >= 1) {
    const periods = [period];
    for (let i = 1; i < n; i++) periods.push(previousPeriod(periods[i - 1]!));
    const candidates = statements
      .get(
        `select c.policy_id, c.client_id from collections c join policies p on p.id = c.policy_id
         where c.period_month = ? and c.status = 'UNPAID' and p.status = 'active' order by c.client_id, c.policy_number`,
      )
      .all(period) as Array<{ policy_id: number; client_id: number }>;
    const countUnpaid = statements.get(
      `select count(*) as n from collections where policy_id = ? and status = 'UNPAID' and closed = 1
       and period_month in (${periods.map(() => '?').join(',')})`,
    );
    const lapse = statements.get("update policies set status = 'lapsed', updated_at = ? where id = ? and status = 'active'");
    const history = statements.get(
      `insert into policy_status_changes (client_id, policy_id, old_status, new_status, changed_on, changed_at, reason)
       values (?, ?, 'active', 'lapsed', ?, ?, ?)`,
    );
    const why = `lapsed: unpaid in ${n} consecutive periods (${[...periods].reverse().join(', ')})`;
    for (const cand of candidates) {
      const row = countUnpaid.get(cand.policy_id, ...periods) as { n: number };
      if (row.n < n) continue;
      lapse.run(stampMs, cand.policy_id);
      history.run(cand.client_id, cand.policy_id, day, stampMs, why);
      lapsed.set(cand.client_id, (lapsed.get(cand.client_id) ?? 0) + 1);
    }
  }

  if (state) {
    const snapshot = statements.get('insert or replace into bank_snapshots (client_id, customer_id, as_of, balance) values (?, ?, ?, ?)');
    const keep: Customer[] = [];
    for (const customer of state.customers) {
      const hadPeriod = customer.collections.some((c) => c.period === period);
      if (hadPeriod) snapshot.run(customer.account.clientId, customer.account.customerId, day, customer.account.balance);
      customer.collections = customer.collections.filter((c) => {
        if (c.period !== period) return true;
        state.byRowid.delete(c.rowid);
        return false;
      });
      if (customer.collections.length > 0) {
        customer.hasOracle = customer.collections.some((c) => c.strategy === 'oracle');
        keep.push(customer);
      } else customer.account.release();
    }
    state.customers.splice(0, state.customers.length, ...keep);
    state.openPeriods.delete(period);
  }
  return lapsed;
}

export function resolveTarget(today: IsoDate, target: AdvanceTarget): IsoDate {
  const given = [target.days !== undefined, target.to !== undefined, target.to_month_end === true].filter(Boolean).length;
  if (given !== 1) {
    throw new PremiaError('VALIDATION_ERROR', 'Say how far to advance with exactly one of days, to or to_month_end.', {
      details: [{ field: 'target', code: 'REQUIRED', message: 'give exactly one of days, to, to_month_end' }],
    });
  }
  if (target.days !== undefined) {
    if (!Number.isInteger(target.days) || target.days < 0 || target.days > 3660) {
      throw new PremiaError('VALIDATION_ERROR', `days must be a whole number from 0 to 3660; got ${String(target.days)}.`, {
        details: [{ field: 'days', code: 'INVALID_VALUE', message: 'a whole number from 0 to 3660' }],
      });
    }
    return addDays(today, target.days);
  }
  if (target.to_month_end) return lastDay(periodOf(addDays(today, 1)));
  const to = target.to!;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(to) || fromDayNumber(dayNumber(to)) !== to) {
    throw new PremiaError('VALIDATION_ERROR', `'${to}' is not a date; write it as YYYY-MM-DD.`, {
      details: [{ field: 'to', code: 'INVALID_FORMAT', message: 'expected YYYY-MM-DD' }],
    });
  }
  if (to < today) {
    throw new PremiaError('CLOCK_BACKWARDS', `The clock is at ${today}; it only moves forward, so it cannot go back to ${to}.`);
  }
  if (dayNumber(to) - dayNumber(today) > 3660) {
    throw new PremiaError('VALIDATION_ERROR', `${to} is more than ten years ahead of the clock (${today}).`);
  }
  return to;
}

/** Live through the days after the clock's date up to the target. */
export async function advance(ctx: LocalContext, target: AdvanceTarget, options: AdvanceOptions = {}): Promise<AdvanceResult> {
  const { store, clientId, now } = ctx;
  const from = await store.withConnection(async (_raw, statements) => readMeta(statements).get('clock_date')!);
  const to = resolveTarget(from, target);
  const days: DaySummary[] = [];
  const total = dayNumber(to) - dayNumber(from);
  let state: EngineState | null = null;
  // Testing aid (README, "Crash safety"): PREMIA_FAULT=kill-before-commit:YYYY-MM-DD makes the
  // process kill itself with SIGKILL just before committing that day.
  const fault = /^kill-before-commit:(\d{4}-\d{2}-\d{2})$/.exec(process.env.PREMIA_FAULT ?? '')?.[1];
  let seen = { version: -1, generation: -1 };

  for (let index = 0; index < total; index++) {
    const result = await store.withConnection(async (raw, statements) => {
      raw.exec('begin immediate');
      try {
        const meta = readMeta(statements);
        const today = meta.get('clock_date')!;
        if (today >= to) {
          raw.exec('commit');
          return null; // another process got there first
        }
        const version = dataVersion(raw);
        const stale = state === null || version !== seen.version || store.generation !== seen.generation || state.meta.today !== today;
        if (stale) {
          state = load(statements);
          if (process.env.PREMIA_DEBUG_MEM) memLog('after load');
        }
        const s: EngineState = state!;
        const todayDay = dayNumber(today);
        const lead = s.meta.settings.leadDays;
        if (stale) {
          // Plans for the first action day that can still be planned, for collections queued
          // since the last planning. Existing plans stand; the same state gives the same plans.
          insertPlans(statements, planAll(s, todayDay, todayDay + 1 + lead));
        }
        const day = todayDay + 1;
        const date = fromDayNumber(day);
        const stampMs = day * 86_400_000 + (now().getTime() % 86_400_000);

        const out = liveDay(s, day);
        writeDay(statements, s, day, out);
        let closed: string | null = null;
        let lapsed = new Map<number, number>();
        if (date === lastDay(periodOf(date))) {
          closed = periodOf(date);
          lapsed = closePeriod(statements, s, closed, stampMs);
        }
        insertPlans(statements, planAll(s, day, day + 1 + lead));
        statements.get("update meta set value = ? where key = 'clock_date'").run(date);
        s.meta.today = date;
        if (fault === date) process.kill(process.pid, 'SIGKILL');
        raw.exec('commit');
        seen = { version: dataVersion(raw), generation: store.generation + 1 }; // +1: this call's own write
        const mine = out.summaries.get(clientId) ?? {
          date,
          attempts: 0,
          succeeded: 0,
          failed: 0,
          collected: 0,
          closed_period: null,
          lapsed_policies: 0,
        };
        mine.closed_period = closed;
        mine.lapsed_policies = lapsed.get(clientId) ?? 0;
        return mine;
      } catch (e) {
        if (raw.inTransaction) raw.exec('rollback');
        state = null;
        throw e;
      }
    });
    if (result === null) break;
    days.push(result);
    options.onDay?.(result, days.length, total);
  }
  if (process.env.PREMIA_DEBUG_MEM) memLog('end of advance');
  const reached = await store.withConnection(async (_raw, statements) => readMeta(statements).get('clock_date')!);
  return { from, to: reached, days };
}

function memLog(what: string): void {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  process.stderr.write(`[mem] ${what}: heap ${(m.heapUsed / 1e6).toFixed(0)} MB, rss ${(m.rss / 1e6).toFixed(0)} MB, external ${(m.external / 1e6).toFixed(0)} MB\n`);
}

function dataVersion(raw: BetterSqlite3.Database): number {
  return raw.pragma('data_version', { simple: true }) as number;
}

export { closePeriod, epochFor };
