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
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type BetterSqlite3 from 'better-sqlite3';
import { PremiaError } from '../../domain/errors.js';
import { formatCents } from '../../domain/money.js';
import { addDays, dayNumber, firstOpenPeriod, fromDayNumber, lastDay, periodOf, previousPeriod, type IsoDate } from '../../domain/period.js';
import { isRetryable, type FailureReason } from '../../bank/types.js';
import {
  DEFAULT_ENGINE_CONFIG,
  planCustomer,
  STRATEGY_LIST,
  strategyCode,
  type CollectionView,
  type DayDebit,
  type EngineConfig,
  type Strategy,
  type Why,
} from '../../engine/strategies.js';
import { settingIn } from '../../engine/settings.js';
import type { StatementCache } from '../../store/sqlite-dialect.js';
import { monthOf } from '../../domain/calendar.js';
import type { AdvanceOptions, AdvanceResult, AdvanceTarget, CollectionStatus, DaySummary } from '../types.js';
import type { DayFacts, PremiaDebits } from '../../bank/ledger.js';
import type { LocalContext } from './context.js';
import { decodePlans, encodePlans, type PlanEntry } from './plan-batches.js';
import { AccountView, epochFor, provisionalEpoch, simulatedBank } from './accounts.js';
import { acquireLease, releaseLease, renewLease, type AdvanceLease } from './advance-lease.js';
import type { Bank, BankAccounts } from '../bank.js';


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
    // The settings of `premia settings` (engine/settings.ts: checked, the default when unset).
    maxFailedAttempts: settingIn(meta, SETTING_KEYS.maxFailedAttempts),
    maxSplitDebits: num(SETTING_KEYS.maxSplitDebits, DEFAULT_ENGINE_CONFIG.maxSplitDebits),
    lapseAfterUnpaidPeriods: settingIn(meta, SETTING_KEYS.lapseAfterUnpaidPeriods),
  };
}

const NO_DAY = -0x7fffffff;
/** The strategies that take debits on the day itself (the oracle), and a scratch list for them. */
const DAY_STRATEGIES: readonly Strategy[] = STRATEGY_LIST.filter((s) => s.debitsOnDay !== undefined);
const DAY_DEBITS: DayDebit[] = [];
/** planAll's scratch: per strategy code, whether one of the customer's collections wants planning. */
const WANTS = new Uint8Array(STRATEGY_LIST.length);
const STATUS_CODES: CollectionStatus[] = ['UNPAID', 'PAID_PARTIAL', 'PAID_FULL', 'CANCELLED'];
const FAILURE_CODES: Array<string | null> = [null, 'INSUFFICIENT_FUNDS', 'ACCOUNT_CLOSED', 'PAYMENT_STOPPED', 'ACCOUNT_FROZEN'];
const S_UNPAID = 0;
const S_PARTIAL = 1;
const S_FULL = 2;
const S_CANCELLED = 3;
/** Plans a collection can hold: the action days D+1 .. D+1+leadDays. */
const PENDING_SLOTS = 3;

interface PeriodInfo {
  period: string;
  first: number;
  last: number;
}

/**
 * The open collections of the working set, column-wise, grouped by customer (account) and in
 * policy_number order within a customer: a million collections are a few typed arrays.
 */
class CollectionSet {
  n = 0;
  readonly rowid: Int32Array;
  readonly account: Int32Array;
  readonly policyNumber: string[] = [];
  readonly period: Uint8Array;
  readonly strategy: Uint8Array;
  readonly due: Int32Array;
  readonly collected: Int32Array;
  readonly attempts: Int16Array;
  readonly failed: Int16Array;
  readonly status: Uint8Array;
  readonly blocked: Uint8Array;
  readonly firstDay: Int32Array;
  readonly lastDay: Int32Array;
  readonly failure: Uint8Array;
  /** Submitted plans: PENDING_SLOTS (day, amount) pairs per collection, day 0 = free. */
  readonly pendDay: Int32Array;
  readonly pendAmount: Int32Array;
  readonly dirty: Uint8Array;
  readonly closed: Uint8Array;
  readonly periods: PeriodInfo[] = [];

  constructor(readonly capacity: number) {
    const c = Math.max(1, capacity);
    this.rowid = new Int32Array(c);
    this.account = new Int32Array(c);
    this.period = new Uint8Array(c);
    this.strategy = new Uint8Array(c);
    this.due = new Int32Array(c);
    this.collected = new Int32Array(c);
    this.attempts = new Int16Array(c);
    this.failed = new Int16Array(c);
    this.status = new Uint8Array(c);
    this.blocked = new Uint8Array(c);
    this.firstDay = new Int32Array(c);
    this.lastDay = new Int32Array(c);
    this.failure = new Uint8Array(c);
    this.pendDay = new Int32Array(c * PENDING_SLOTS);
    this.pendAmount = new Int32Array(c * PENDING_SLOTS);
    this.dirty = new Uint8Array(c);
    this.closed = new Uint8Array(c);
  }

  periodIndex(period: string): number {
    let k = this.periods.findIndex((p) => p.period === period);
    if (k < 0) {
      this.periods.push({ period, first: dayNumber(`${period}-01`), last: dayNumber(lastDay(period)) });
      k = this.periods.length - 1;
    }
    return k;
  }

  addPending(c: number, day: number, amount: number): void {
    const base = c * PENDING_SLOTS;
    for (let s = 0; s < PENDING_SLOTS; s++) {
      if (this.pendDay[base + s] === 0) {
        this.pendDay[base + s] = day;
        this.pendAmount[base + s] = amount;
        return;
      }
    }
    throw new Error(`collection ${this.rowid[c]} has more than ${PENDING_SLOTS} pending debits`);
  }

  /** Take the plan for `day` out of the collection's pending slots; its amount, or 0. */
  takePending(c: number, day: number): number {
    const base = c * PENDING_SLOTS;
    for (let s = 0; s < PENDING_SLOTS; s++) {
      if (this.pendDay[base + s] === day) {
        this.pendDay[base + s] = 0;
        return this.pendAmount[base + s]!;
      }
    }
    return 0;
  }

  /** Status from the amounts (a cancelled collection stays cancelled). */
  statusOf(c: number): number {
    if (this.status[c] === S_CANCELLED) return S_CANCELLED;
    if (this.collected[c]! >= this.due[c]!) return S_FULL;
    return this.collected[c]! > 0 ? S_PARTIAL : S_UNPAID;
  }
}

/** Reusable CollectionView objects for the strategies (filled from the columns per call). */
class Views {
  private readonly pool: CollectionView[] = [];
  readonly list: CollectionView[] = [];

  fill(cs: CollectionSet, start: number, count: number): CollectionView[] {
    const list = this.list;
    list.length = 0;
    for (let j = 0; j < count; j++) {
      const c = start + j;
      let v = this.pool[j];
      if (!v) {
        v = {
          policyNumber: '',
          strategy: STRATEGY_LIST[0]!,
          due: 0,
          collected: 0,
          attempts: 0,
          failed: 0,
          blocked: false,
          periodFirst: 0,
          periodLast: 0,
          lastAttemptDay: null,
          pendingDays: [],
          pendingAmounts: [],
        };
        this.pool[j] = v;
      }
      const p = cs.periods[cs.period[c]!]!;
      v.policyNumber = cs.policyNumber[c]!;
      v.strategy = STRATEGY_LIST[cs.strategy[c]!]!;
      v.due = cs.due[c]!;
      v.collected = cs.collected[c]!;
      v.attempts = cs.attempts[c]!;
      v.failed = cs.failed[c]!;
      // A closed collection (its period closed earlier in this advance) plans nothing.
      v.blocked = cs.blocked[c] === 1 || cs.closed[c] === 1;
      v.periodFirst = p.first;
      v.periodLast = p.last;
      v.lastAttemptDay = cs.lastDay[c] === NO_DAY ? null : cs.lastDay[c]!;
      v.pendingDays.length = 0;
      v.pendingAmounts.length = 0;
      const base = c * PENDING_SLOTS;
      for (let s = 0; s < PENDING_SLOTS; s++) {
        if (cs.pendDay[base + s] !== 0) {
          v.pendingDays.push(cs.pendDay[base + s]!);
          v.pendingAmounts.push(cs.pendAmount[base + s]!);
        }
      }
      // Ascending by day, as the strategies expect.
      if (v.pendingDays.length > 1 && v.pendingDays[0]! > v.pendingDays[1]!) {
        v.pendingDays.reverse();
        v.pendingAmounts.reverse();
      }
      list.push(v);
    }
    return list;
  }
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

/** The working set of the open periods, in memory. */
class EngineState {
  /** Accounts with open collections, in load order (client, customer). */
  active: Int32Array;
  activeCount: number;
  /** Per account: its collections are colStart .. colStart + colCount - 1. */
  readonly colStart: Int32Array;
  readonly colCount: Uint16Array;
  /** Per account: whether a collection's strategy takes debits on the day itself (the oracle). */
  readonly hasDayDebits: Uint8Array;
  /** Collections changed since the last write. */
  readonly dirty: number[] = [];
  readonly view = new AccountView();
  readonly views = new Views();

  constructor(
    readonly meta: Meta,
    readonly accounts: BankAccounts,
    readonly cols: CollectionSet,
    /** How many accounts the working set has (all of them active at first). */
    n: number,
  ) {
    this.active = new Int32Array(n);
    for (let i = 0; i < n; i++) this.active[i] = i;
    this.activeCount = n;
    this.colStart = new Int32Array(Math.max(1, n));
    this.colCount = new Uint16Array(Math.max(1, n));
    this.hasDayDebits = new Uint8Array(Math.max(1, n));
  }
}

function load(statements: StatementCache, bank: Bank<StatementCache>): EngineState {
  const metaMap = readMeta(statements);
  const today = metaMap.get('clock_date')!;
  const epoch = metaMap.get('bank_epoch');
  const meta: Meta = {
    today,
    seed: Number(metaMap.get('seed')),
    epochDay: epoch ? dayNumber(epoch) : provisionalEpoch(today),
    settings: engineSettings(metaMap),
  };
  const todayDay = dayNumber(today);
  // Open collections: those of periods whose last day has not run (per client, on the unique
  // index (client_id, period_month, policy_number)).
  const firstOpen = firstOpenPeriod(today);
  const total = (
    statements.get('select count(*) as n from collections where client_id in (select id from clients) and period_month >= ?').get(firstOpen) as {
      n: number;
    }
  ).n;
  const cols = new CollectionSet(total);

  // Pass 1: the open collections, in (client, customer, policy_number) order, into the columns;
  // the distinct customers in the same order.
  const customerClient: number[] = [];
  const customerIds: string[] = [];
  const firstCol: number[] = [];
  const rows = statements
    .get(
      `select c.id, c.client_id, c.customer_id, c.policy_number, c.period_month, c.amount_due,
              c.amount_collected, c.status, c.first_attempt_date, c.last_attempt_date, c.attempts,
              c.failed_attempts, c.last_failure_reason, e.strategy, p.status as policy_status
       from collections c join executions e on e.id = c.execution_id join policies p on p.id = c.policy_id
       where c.client_id in (select id from clients) and c.period_month >= ?
       order by c.client_id, c.customer_id, c.policy_number`,
    )
    .raw(true)
    .iterate(firstOpen) as Iterable<
    [number, number, string, string, string, number, number, CollectionStatus, string | null, string | null, number, number, string | null, string, string]
  >;
  let prevClient = -1;
  let prevCustomer = '';
  for (const r of rows) {
    const c = cols.n++;
    if (r[1] !== prevClient || r[2] !== prevCustomer) {
      prevClient = r[1];
      prevCustomer = r[2];
      customerClient.push(r[1]);
      customerIds.push(r[2]);
      firstCol.push(c);
    }
    cols.rowid[c] = r[0];
    cols.account[c] = customerIds.length - 1;
    cols.policyNumber[c] = r[3];
    cols.period[c] = cols.periodIndex(r[4]);
    cols.strategy[c] = strategyCode(r[13]);
    cols.due[c] = r[5];
    cols.collected[c] = r[6];
    cols.status[c] = STATUS_CODES.indexOf(r[7]);
    cols.firstDay[c] = r[8] ? dayNumber(r[8]) : NO_DAY;
    cols.lastDay[c] = r[9] ? dayNumber(r[9]) : NO_DAY;
    cols.attempts[c] = r[10];
    cols.failed[c] = r[11];
    cols.failure[c] = Math.max(0, FAILURE_CODES.indexOf(r[12]));
    cols.blocked[c] = r[7] === 'CANCELLED' || r[14] !== 'active' || (r[12] !== null && !isRetryable(r[12])) ? 1 : 0;
  }

  // Debits submitted for the days after today (planned at most leadDays + 1 days ago). Read
  // before the accounts are opened: the rowid map and the replay's temporaries never coexist.
  if (cols.n > 0) {
    const batches = statements
      .get('select data from plan_batches where client_id in (select id from clients) and plan_day >= ?')
      .raw(true)
      .iterate(fromDayNumber(todayDay - 1 - Math.max(2, meta.settings.leadDays))) as Iterable<[Uint8Array]>;
    // Collections were read in customer order, not rowid order: find them by rowid.
    const byRowid = new Map<number, number>();
    for (let c = 0; c < cols.n; c++) byRowid.set(cols.rowid[c]!, c);
    for (const [data] of batches) {
      for (const p of decodePlans(data)) {
        if (p.day <= todayDay) continue;
        const c = byRowid.get(p.collection);
        if (c !== undefined) cols.addPending(c, p.day, p.amount);
      }
    }
    byRowid.clear();
  }

  // Account k is customer k (client customerClient[k], customer customerIds[k]).
  const accounts = bank.openAccounts(statements, { clientId: customerClient, customerId: customerIds }, todayDay, { seed: meta.seed, epochDay: meta.epochDay });
  const state = new EngineState(meta, accounts, cols, customerIds.length);
  if (cols.n === 0) return state;

  for (let k = 0; k < customerIds.length; k++) {
    const start = firstCol[k]!;
    const end = k + 1 < firstCol.length ? firstCol[k + 1]! : cols.n;
    state.colStart[k] = start;
    state.colCount[k] = end - start;
    for (let c = start; c < end; c++) if (STRATEGY_LIST[cols.strategy[c]!]!.debitsOnDay !== undefined) state.hasDayDebits[k] = 1;
  }
  return state;
}

interface PlanRow {
  c: number;
  clientId: number;
  day: number;
  amount: number;
  why: Why;
}

/**
 * Whether any strategy that wants to plan for account i (WANTS, which this clears) could plan:
 * first those with no account test, then each one's test, in registry order.
 */
function mayPlanCustomer(state: EngineState, i: number, D: number, A: number, periodLast: number): boolean {
  let may = false;
  for (let s = 0; s < WANTS.length; s++) if (WANTS[s] === 1 && STRATEGY_LIST[s]!.mayPlanCustomer === undefined) may = true;
  for (let s = 0; s < WANTS.length; s++) {
    if (WANTS[s] === 0) continue;
    WANTS[s] = 0;
    if (!may && STRATEGY_LIST[s]!.mayPlanCustomer!(state.accounts, i, D, A, periodLast)) may = true;
  }
  return may;
}

/** Plan the debits of action day `A` at the end of day `D`. Returns rows to insert. */
function planAll(state: EngineState, D: number, A: number): PlanRow[] {
  const out: PlanRow[] = [];
  const settings = state.meta.settings;
  const cs = state.cols;
  for (let k = 0; k < state.activeCount; k++) {
    const i = state.active[k]!;
    const start = state.colStart[i]!;
    const count = state.colCount[i]!;
    // Skip customers for whom nothing can be planned today (most of them, most days): no
    // collection with money due in a period containing A, or none its strategy could plan for
    // (each strategy's cheap tests: smart waits for income seen or expected just before A or
    // the period's last chance; naive waits its 7 days; the oracle never plans ahead).
    let periodLast = 0;
    let wanted = false;
    for (let c = start; c < start + count; c++) {
      const p = cs.periods[cs.period[c]!]!;
      if (A >= p.first && A <= p.last && p.last > periodLast) periodLast = p.last; // A's period only (see smart's setup)
      if (cs.closed[c] === 1 || cs.blocked[c] === 1 || cs.collected[c]! >= cs.due[c]! || A < p.first || A > p.last) continue;
      const code = cs.strategy[c]!;
      if (WANTS[code] === 1) continue;
      const last = cs.lastDay[c]!;
      if (STRATEGY_LIST[code]!.mayPlanCollection(cs.attempts[c]!, cs.failed[c]!, last === NO_DAY ? null : last, A, settings)) {
        WANTS[code] = 1;
        wanted = true;
      }
    }
    if (!wanted) continue;
    if (!mayPlanCustomer(state, i, D, A, periodLast)) continue;
    const views = state.views.fill(cs, start, count);
    const planned = planCustomer(state.view.at(state.accounts, i), views, D, A, settings);
    for (const p of planned) {
      const c = start + p.index;
      cs.addPending(c, p.day, p.amount);
      out.push({ c, clientId: state.accounts.clientId[i]!, day: p.day, amount: p.amount, why: p.why });
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
 * Supplies each customer's debits of the day to its account: the plans submitted for the day
 * (in policy_number order, capped at what is still due) and, for oracle collections, what the
 * balance allows. One object for the whole day: nothing is allocated per account.
 */
class DayRunner implements PremiaDebits {
  state!: EngineState;
  account = 0;
  readonly cols: number[] = [];
  readonly amounts: number[] = [];
  count = 0;

  debitsFor(balance: number, day: number, out: number[]): number {
    const s = this.state;
    const cs = s.cols;
    const start = s.colStart[this.account]!;
    const end = start + s.colCount[this.account]!;
    const amounts = this.amounts;
    let n = 0;
    for (let c = start; c < end; c++) {
      const planned = cs.takePending(c, day);
      if (planned === 0) continue;
      // Never more than is still due, and nothing for a blocked collection.
      const amount = Math.min(planned, cs.due[c]! - cs.collected[c]!);
      if (cs.blocked[c] === 1 || cs.closed[c] === 1 || amount <= 0) continue;
      this.cols[n] = c;
      amounts[n++] = amount;
    }
    // Strategies that take debits on the day (the oracle) read the balance after the day's
    // credits, and whether the account is blocked that day: the future no collector sees.
    if (s.hasDayDebits[this.account] === 1 && s.accounts.blockedOn(this.account, day) === null) {
      const views = s.views.fill(cs, start, end - start);
      for (let d = 0; d < DAY_STRATEGIES.length; d++) {
        let committed = 0;
        for (let j = 0; j < n; j++) committed += amounts[j]!;
        const taken = DAY_DEBITS;
        taken.length = 0;
        DAY_STRATEGIES[d]!.debitsOnDay!(balance - committed, views, day, taken);
        for (const o of taken) {
          const c = start + o.index;
          let seen = false;
          for (let j = 0; j < n; j++) if (this.cols[j] === c) seen = true;
          if (seen || cs.closed[c] === 1) continue;
          this.cols[n] = c;
          amounts[n++] = o.amount;
        }
      }
      // The bank attempts debits in policy_number order.
      sortByPolicy(cs, this.cols, amounts, n);
    }
    for (let j = 0; j < n; j++) out[j] = amounts[j]!;
    this.count = n;
    return n;
  }
}

function sortByPolicy(cs: CollectionSet, cols: number[], amounts: number[], n: number): void {
  for (let i = 1; i < n; i++) {
    for (let j = i; j > 0 && cs.policyNumber[cols[j - 1]!]! > cs.policyNumber[cols[j]!]!; j--) {
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
  const month = monthOf(day);
  const attempts: AttemptRow[] = [];
  const summaries = new Map<number, DaySummary>();
  const runner = RUNNER;
  runner.state = state;
  const accounts = state.accounts;
  const cs = state.cols;
  for (let k = 0; k < state.activeCount; k++) {
    const i = state.active[k]!;
    runner.account = i;
    runner.count = 0;
    const facts = accounts.live(i, runner, OUTCOMES, FACTS);
    for (let j = 0; j < facts.premiaDebits; j++) {
      const c = runner.cols[j]!;
      const reason = OUTCOMES[j]!;
      const amount = runner.amounts[j]!;
      cs.attempts[c]!++;
      cs.lastDay[c] = day;
      if (cs.firstDay[c] === NO_DAY) cs.firstDay[c] = day;
      const clientId = accounts.clientId[i]!;
      const s = summaryFor(summaries, clientId, date);
      s.attempts++;
      if (reason === null) {
        cs.collected[c]! += amount;
        s.succeeded++;
        s.collected += amount;
      } else {
        cs.failed[c]!++;
        cs.failure[c] = FAILURE_CODES.indexOf(reason);
        s.failed++;
        if (!isRetryable(reason)) cs.blocked[c] = 1;
      }
      cs.status[c] = cs.statusOf(c);
      if (cs.dirty[c] === 0) {
        cs.dirty[c] = 1;
        state.dirty.push(c);
      }
      attempts.push({ clientId, policyNumber: cs.policyNumber[c]!, collectionId: cs.rowid[c]!, period: cs.periods[cs.period[c]!]!.period, amount, reason });
    }
    accounts.endOfDay(i, day, facts, true, month);
  }
  // Stored in (client, policy_number) order within the day: rowid order is report order.
  attempts.sort((a, b) => a.clientId - b.clientId || (a.policyNumber < b.policyNumber ? -1 : a.policyNumber > b.policyNumber ? 1 : 0));
  return { attempts, summaries };
}

/** Rows per statement of the day's writes: fewer, larger statements cost less per row. */
const WRITE_ROWS = 64;

/**
 * Run `sql(k)` (a statement over k rows) for `count` rows, WRITE_ROWS at a time; `fill`
 * writes row `r`'s values into `params` at `at`.
 */
function runInGroups(
  statements: StatementCache,
  sql: (rows: number) => string,
  width: number,
  count: number,
  fill: (params: unknown[], at: number, r: number) => void,
): void {
  const full = new Array<unknown>(WRITE_ROWS * width);
  let r = 0;
  if (count >= WRITE_ROWS) {
    const stmt = statements.get(sql(WRITE_ROWS));
    for (; r + WRITE_ROWS <= count; r += WRITE_ROWS) {
      for (let k = 0; k < WRITE_ROWS; k++) fill(full, k * width, r + k);
      stmt.run(full);
    }
  }
  if (r < count) {
    // The rest one row at a time: one statement per size would crowd the statement cache.
    const stmt = statements.get(sql(1));
    const params = new Array<unknown>(width);
    for (; r < count; r++) {
      fill(params, 0, r);
      stmt.run(params);
    }
  }
}

const valuesList = (rows: number, width: number) => {
  const one = `(${new Array(width).fill('?').join(',')})`;
  return new Array(rows).fill(one).join(',');
};

function writeDay(statements: StatementCache, state: EngineState, day: number, out: DayOutcome): void {
  const date = fromDayNumber(day);
  const attempts = out.attempts;
  runInGroups(
    statements,
    (k) => `insert into attempts (client_id, collection_id, period_month, date, amount, outcome, failure_reason) values ${valuesList(k, 7)}`,
    7,
    attempts.length,
    (p, at, r) => {
      const a = attempts[r]!;
      p[at] = a.clientId;
      p[at + 1] = a.collectionId;
      p[at + 2] = a.period;
      p[at + 3] = date;
      p[at + 4] = a.amount;
      p[at + 5] = a.reason === null ? 'SUCCESS' : 'FAILED';
      p[at + 6] = a.reason;
    },
  );
  const cs = state.cols;
  // In rowid order: consecutive rows share pages, so a day's updates touch each page once
  // (in customer order they hop across a table larger than the page cache).
  const dirty = state.dirty;
  dirty.sort((x, y) => cs.rowid[x]! - cs.rowid[y]!);
  runInGroups(
    statements,
    (k) =>
      `update collections set amount_collected = v.column2, status = v.column3, first_attempt_date = v.column4,
         last_attempt_date = v.column5, attempts = v.column6, failed_attempts = v.column7, last_failure_reason = v.column8
       from (values ${valuesList(k, 8)}) as v where collections.id = v.column1`,
    8,
    dirty.length,
    (p, at, r) => {
      const c = dirty[r]!;
      p[at] = cs.rowid[c]!;
      p[at + 1] = cs.collected[c]!;
      p[at + 2] = STATUS_CODES[cs.status[c]!]!;
      p[at + 3] = cs.firstDay[c] === NO_DAY ? null : fromDayNumber(cs.firstDay[c]!);
      p[at + 4] = cs.lastDay[c] === NO_DAY ? null : fromDayNumber(cs.lastDay[c]!);
      p[at + 5] = cs.attempts[c]!;
      p[at + 6] = cs.failed[c]!;
      p[at + 7] = FAILURE_CODES[cs.failure[c]!]!;
      cs.dirty[c] = 0;
    },
  );
  dirty.length = 0;
}

/** The day's submitted debits, one compressed batch per client (kept as the record of why each
 * attempt was made, and of debits a success or a cancellation made unnecessary). */
function insertPlans(statements: StatementCache, state: EngineState, plans: PlanRow[], planDay: number): void {
  if (plans.length === 0) return;
  const byClient = new Map<number, PlanEntry[]>();
  for (const p of plans) {
    let list = byClient.get(p.clientId);
    if (!list) byClient.set(p.clientId, (list = []));
    list.push({ collection: state.cols.rowid[p.c]!, day: p.day, amount: p.amount, why: p.why });
  }
  const insert = statements.get('insert into plan_batches (client_id, plan_day, data) values (?, ?, ?)');
  for (const [clientId, entries] of byClient) insert.run(clientId, fromDayNumber(planDay), encodePlans(entries));
}

/**
 * Close `period` at the end of its last day: final statuses, executions completed, the lapse
 * rule, balance snapshots. Returns lapsed policies per client.
 */
function closePeriod(statements: StatementCache, state: EngineState | null, period: string, stampMs: number): Map<number, number> {
  const day = lastDay(period);
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
      `select count(*) as n from collections where policy_id = ? and status = 'UNPAID'
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
    const snapshots: number[] = []; // accounts whose balance is kept as of `day`
    const cs = state.cols;
    const accounts = state.accounts;
    const k = cs.periods.findIndex((p) => p.period === period);
    let keep = 0;
    for (let a = 0; a < state.activeCount; a++) {
      const i = state.active[a]!;
      const start = state.colStart[i]!;
      const end = start + state.colCount[i]!;
      let had = false;
      let open = false;
      for (let c = start; c < end; c++) {
        if (cs.closed[c] === 1) continue;
        if (cs.period[c] === k) {
          had = true;
          cs.closed[c] = 1;
        } else open = true;
      }
      if (had) snapshots.push(i);
      // An account with nothing left open leaves the working set.
      if (open) state.active[keep++] = i;
    }
    state.activeCount = keep;
    runInGroups(
      statements,
      (k) => `insert or replace into bank_snapshots (client_id, customer_id, as_of, balance) values ${valuesList(k, 4)}`,
      4,
      snapshots.length,
      (p, at, r) => {
        const i = snapshots[r]!;
        p[at] = accounts.clientId[i]!;
        p[at + 1] = accounts.customerId[i]!;
        p[at + 2] = day;
        p[at + 3] = accounts.balance(i);
      },
    );
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

/** SQLite's page cache during an advance, as PRAGMA cache_size counts it (negative: KiB). */
const ADVANCE_CACHE_SIZE = -160 * 1024;

/** Live through the days after the clock's date up to the target. */
export async function advance(ctx: LocalContext, target: AdvanceTarget, options: AdvanceOptions = {}): Promise<AdvanceResult> {
  const { store, clientId, now } = ctx;
  // A bad target is refused at once (the clock only moves forward, so what is refused now stays
  // refused); the range itself is resolved once this advance holds the lease, from the clock's
  // date in that same transaction (another advance may be running: see advance-lease.ts).
  resolveTarget(await store.withConnection(async (_raw, statements) => readMeta(statements).get('clock_date')!), target);
  const lease = await acquireLease(store, (today) => resolveTarget(today, target), options.onWait);
  try {
    return await advanceHolding(ctx, lease, options);
  } finally {
    await releaseLease(store, lease);
  }
}

async function advanceHolding(ctx: LocalContext, lease: AdvanceLease, options: AdvanceOptions): Promise<AdvanceResult> {
  const { store, clientId, now } = ctx;
  const { from, to } = lease;
  const days: DaySummary[] = [];
  const total = dayNumber(to) - dayNumber(from);
  let state: EngineState | null = null;
  // Testing aid (README, "Crash safety"): PREMIA_FAULT=kill-before-commit:YYYY-MM-DD makes the
  // process kill itself with SIGKILL just before committing that day.
  const fault = /^kill-before-commit:(\d{4}-\d{2}-\d{2})$/.exec(process.env.PREMIA_FAULT ?? '')?.[1];
  let seen = { version: -1, generation: -1 };
  /** The heap in use after the last full collection (0: none done, a small working set). */
  let heapAfterGc = 0;
  // Simulated days are recomputed exactly on resume (the bank lives in the store too), so an
  // advance commits without waiting for the disk on each day; the store stays consistent
  // whatever happens. Ordinary writes keep synchronous = FULL.
  // A larger page cache while living through days: a day's updates land all over the
  // collections table and its attempts indexes, and with the store's usual 64 MiB a million-policy
  // month spent a tenth of its time re-reading and re-spilling pages (measured: 160 MiB took the
  // 1M month from ~55 s to ~49 s, peak RSS ~0.8 GiB).
  const cacheSize = store.raw.pragma('cache_size', { simple: true }) as number;
  if (total > 0) {
    store.raw.pragma('synchronous = NORMAL');
    store.raw.pragma(`cache_size = ${ADVANCE_CACHE_SIZE}`);
  }
  try {
    for (let index = 0; index < total; index++) {
      // Between days the event loop runs (a day's work is synchronous): a Ctrl-C handler, a
      // server's other requests. A stop asked for meanwhile ends the advance here, after the
      // day just committed.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (options.signal?.aborted) break;
      const result = await store.withConnection(async (raw, statements) => {
        raw.exec('begin immediate');
        try {
          renewLease(statements, lease);
          const meta = readMeta(statements);
          const today = meta.get('clock_date')!;
          if (today >= to) {
            raw.exec('commit');
            return null; // moved meanwhile by something that does not take the lease
          }
          const version = dataVersion(raw);
          const stale = state === null || version !== seen.version || store.generation !== seen.generation || state.meta.today !== today;
          if (stale) {
            state = load(statements, ctx.bank ?? simulatedBank);
            if (state.cols.n >= 50_000) heapAfterGc = collectGarbage();
            if (process.env.PREMIA_DEBUG_MEM) memLog('after load');
            if (process.env.PREMIA_DEBUG_HEAPSNAPSHOT) (await import('node:v8')).writeHeapSnapshot(process.env.PREMIA_DEBUG_HEAPSNAPSHOT);
          }
          const s: EngineState = state!;
          const todayDay = dayNumber(today);
          const lead = s.meta.settings.leadDays;
          if (stale) {
            // Plans for the first action day that can still be planned, for collections queued
            // since the last planning. Existing plans stand; the same state gives the same plans.
            insertPlans(statements, s, planAll(s, todayDay, todayDay + 1 + lead), todayDay);
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
          insertPlans(statements, s, planAll(s, day, day + 1 + lead), day);
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
      // Each day's objects (attempts, plans) live until its writes, so they reach the old
      // generation, and V8 (sized for a 23 GiB machine) let a 1M month's garbage grow from
      // 130 MB to 460 MB before collecting it: RSS passed 1 GiB. A full collection when the heap
      // has grown by 96 MB since the last one (every few days at 1M; ~60 ms each) keeps it flat.
      if (heapAfterGc > 0 && v8.getHeapStatistics().used_heap_size > heapAfterGc + (96 << 20)) heapAfterGc = collectGarbage();
      days.push(result);
      options.onDay?.(result, days.length, total);
    }
  } finally {
    if (total > 0) {
      store.raw.pragma('synchronous = FULL');
      store.raw.pragma(`cache_size = ${cacheSize}`);
    }
  }
  if (process.env.PREMIA_DEBUG_MEM) memLog('end of advance');
  const reached = await store.withConnection(async (_raw, statements) => readMeta(statements).get('clock_date')!);
  return { from, to: reached, days };
}

let fullGc: (() => void) | null | undefined;

/**
 * A full garbage collection, where V8 allows one (after loading a large working set only: it
 * costs tens of milliseconds). Loading a million-policy month leaves ~160 MB of temporaries
 * behind, and V8 sizes its heap from that peak: without this the heap of a long advance
 * drifted up to ~480 MB (the live set is ~90 MB), taking the process to 1 GiB.
 */
function collectGarbage(): number {
  if (fullGc === undefined) {
    fullGc = (globalThis as { gc?: () => void }).gc ?? null;
    if (fullGc === null) {
      try {
        v8.setFlagsFromString('--expose-gc');
        fullGc = runInNewContext('gc') as () => void;
      } catch {
        fullGc = null;
      }
    }
  }
  fullGc?.();
  return v8.getHeapStatistics().used_heap_size;
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
