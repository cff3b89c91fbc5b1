/**
 * One day of the engine on its working set: live the day (the bank executes premia's debits for
 * it), write what happened, plan the debits of a later day, and close a period at its end.
 * Synchronous over the working set (a million collections a day); the store is reached through
 * the day's unit of work in a few bulk calls.
 */
import { monthOf, type Calendar } from '../domain/calendar.js';
import { isRetryable } from '../domain/debit-outcome.js';
import { applyLapseRule } from '../domain/lapse.js';
import { asCents, type Cents } from '../domain/money.js';
import { dayNumber, fromDayNumber, lastDay, type IsoDate, type Period } from '../domain/period.js';
import { failureCode } from '../domain/debit-outcome.js';
import { NO_DAY, type CollectionSet } from './collection-set.js';
import { DayPlans, insertPlans, orderBy, PlansInOrder, updateColumns } from './day-rows.js';
import type { AttemptColumns, DayUnit, DebitSource, UpdateColumns } from './ports.js';
import { ACTIVE, catchUp, GONE, nextWake, sleepUntil, wake } from './awake.js';
import { mayPlan } from './may-plan.js';
import type { EngineState } from './state.js';
import { planCustomer } from './strategies.js';

export { insertPlans };

/** What a day did for one client. */
export interface DaySummary {
  date: IsoDate;
  attempts: number;
  succeeded: number;
  failed: number;
  collected: Cents;
  /** The period that closed at the end of this day, if any. */
  closed_period: Period | null;
  lapsed_policies: number;
}

export function emptySummary(date: IsoDate): DaySummary {
  return { date, attempts: 0, succeeded: 0, failed: 0, collected: asCents(0), closed_period: null, lapsed_policies: 0 };
}

export interface DayOutcome {
  /** The day's attempts, in the order they are stored. */
  attempts: AttemptColumns;
  summaries: Map<number, DaySummary>;
}

/** Plan the debits of action day `A` at the end of day `D`. Returns rows to insert. */
export function planAll(state: EngineState, D: number, A: number): DayPlans {
  const out = new DayPlans();
  // Debits are submitted for business days only (the bank processes none on other days).
  if (!state.settings.calendar.isBusinessDay(A)) return out;
  for (let k = 0; k < state.activeCount; k++) planOne(state, state.active[k]!, D, A, out);
  return out;
}

/** planAll for account i. */
function planOne(state: EngineState, i: number, D: number, A: number, out: Pick<DayPlans, 'push'>): void {
  // Most customers, most days, fail the cheap tests: nothing can be planned for them today.
  if (!mayPlan(state, i, D, A)) return;
  const cs = state.cols;
  const start = state.colStart[i]!;
  const count = state.colCount[i]!;
  const views = state.views.fill(cs, start, count);
  const planned = planCustomer(state.planners, state.view.at(i), views, D, A, state.settings);
  for (const p of planned) {
    const c = start + p.index;
    cs.addPending(c, p.day, p.amount);
    out.push(state.accounts.clientId[i]!, cs.rowid[c]!, p.day, p.amount, p.why);
  }
}

function summaryFor(map: Map<number, DaySummary>, clientId: number, date: string): DaySummary {
  let s = map.get(clientId);
  if (!s) map.set(clientId, (s = emptySummary(date)));
  return s;
}

/**
 * Supplies each customer's debits of the day to its account: the plans submitted for the day
 * (in policy_number order, capped at what is still due) and, for collections whose planner
 * takes debits on the day (the oracle), what the balance allows. One object per state: nothing
 * is allocated per account.
 */
export class DayRunner implements DebitSource {
  account = 0;
  readonly cols: number[] = [];
  readonly amounts: number[] = [];
  count = 0;

  constructor(private readonly state: EngineState) {}

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
    // Planners that take debits on the day (the oracle) read the balance after the day's
    // credits, and whether the account is blocked that day: the future no collector sees.
    if (s.hasDayDebits[this.account] === 1 && s.accounts.blockedOn(this.account, day) === null) {
      const views = s.views.fill(cs, start, end - start);
      for (let d = 0; d < s.dayPlanners.length; d++) {
        let committed = 0;
        for (let j = 0; j < n; j++) committed += amounts[j]!;
        const taken = s.dayDebits;
        taken.length = 0;
        s.dayPlanners[d]!.debitsOnDay!(balance - committed, views, day, taken);
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
    for (let j = i; j > 0 && cs.rank[cols[j - 1]!]! > cs.rank[cols[j]!]!; j--) {
      const c = cols[j]!;
      cols[j] = cols[j - 1]!;
      cols[j - 1] = c;
      const a = amounts[j]!;
      amounts[j] = amounts[j - 1]!;
      amounts[j - 1] = a;
    }
  }
}

/** Live through `day` for every customer of the working set. */
export function liveDay(state: EngineState, runner: DayRunner, day: number): DayOutcome {
  state.dayAttempts.n = 0;
  const summaries = new Map<number, DaySummary>();
  wake(state, day);
  const live = new LiveOne(state, runner, day, summaries);
  for (let k = 0; k < state.activeCount; k++) live.one(state.active[k]!);
  return dayOutcome(state, summaries);
}

/** The day's attempts not handed over yet, as stored: in (client, policy_number) order within the day (rowid order is report order). */
function dayOutcome(state: EngineState, summaries: Map<number, DaySummary>): DayOutcome {
  const cs = state.cols;
  return { attempts: state.dayAttempts.columns(cs, (c) => state.accounts.clientId[cs.account[c]!]!), summaries };
}

/** Living one day, an account at a time (liveDay, eveningAndDay). */
class LiveOne {
  private readonly date: IsoDate;
  private readonly month: ReturnType<typeof monthOf>;

  constructor(
    private readonly state: EngineState,
    private readonly runner: DayRunner,
    private readonly day: number,
    private readonly summaries: Map<number, DaySummary>,
  ) {
    this.date = fromDayNumber(day);
    this.month = monthOf(day);
  }

  /** Account i lives the day (premia's debits of the day among its postings); its collections and the day's attempts record what happened. */
  one(i: number): void {
    const { state, runner, day } = this;
    const accounts = state.accounts;
    const cs = state.cols;
    const outcomes = state.outcomes;
    runner.account = i;
    runner.count = 0;
    const facts = accounts.live(i, runner, outcomes, state.facts);
    for (let j = 0; j < facts.premiaDebits; j++) {
      const c = runner.cols[j]!;
      const reason = outcomes[j]!;
      const amount = runner.amounts[j]!;
      cs.attempts[c]!++;
      cs.lastDay[c] = day;
      if (cs.firstDay[c] === NO_DAY) cs.firstDay[c] = day;
      const clientId = accounts.clientId[i]!;
      const s = summaryFor(this.summaries, clientId, this.date);
      s.attempts++;
      let code = 0;
      if (reason === null) {
        cs.collected[c]! += amount;
        s.succeeded++;
        s.collected = asCents(s.collected + amount);
      } else {
        code = failureCode(reason);
        cs.failed[c]!++;
        cs.failure[c] = code;
        s.failed++;
        if (!isRetryable(reason)) cs.blocked[c] = 1;
      }
      cs.status[c] = cs.statusOf(c);
      if (cs.dirty[c] === 0) {
        cs.dirty[c] = 1;
        state.dirty.push(c);
      }
      state.dayAttempts.push(c, amount, code);
    }
    state.summaries.endOfDay(accounts, i, day, facts, true, this.month);
  }
}

/**
 * Where a day lived by eveningAndDay hands its rows as they become final: every `every`
 * accounts or so, the attempts and collection updates no account still to live can come before
 * (the attempts in (client, policy_number) order, the updates in rowid order), so that a store
 * writing on another thread begins on the day while the rest is lived.
 */
export interface DayParts {
  every: number;
  hand(attempts: AttemptColumns, updates: UpdateColumns): void;
}

/**
 * The evening of day D (when `evening`: the debits of action day D + 1 + leadDays planned, the
 * idle accounts put to sleep), then day D + 1 lived: planAll, sleepIdle and liveDay fused, one
 * account at a time. Each account's evening and day touch only its own collections, bank account
 * and summary, so the plans, the day and the state after it are those of the three run one after
 * the other; what differs is that the day's first rows are made before the evening has planned
 * every account, and `parts` takes them then (the first business day of a million-policy month
 * plans ~900,000 debits in its evening and makes as many attempts the next day: its store's
 * writer no longer waits for both).
 *
 * With `quiet` > 0, the `quiet` days after D are days no debit can be made on (quietDays), each
 * lived and followed by its evening in the same pass before the last, D + quiet + 1: a weekend
 * before a first business day no longer keeps the writer waiting while every account lives it.
 * Returns the plans of each evening (D's first: empty when not `evening`), the quiet days' summaries
 * and the last day's outcome.
 */
export async function eveningAndDay(
  state: EngineState,
  runner: DayRunner,
  D: number,
  evening: boolean,
  parts?: DayParts,
  quiet = 0,
): Promise<{ evenings: DayPlans[]; quietDays: Array<Map<number, DaySummary>>; out: DayOutcome }> {
  const last = D + quiet + 1;
  const lead = state.settings.leadDays;
  const calendar = state.settings.calendar;
  const evenings: DayPlans[] = [];
  const inOrder: PlansInOrder[] = [];
  // Evening D + k plans the debits of D + k + 1 + lead (a business day), into evenings[k].
  for (let k = 0; k <= quiet; k++) {
    evenings.push(new DayPlans());
    // Planned in account order; kept in collection id order as the ids become final (day-rows.ts).
    inOrder.push(new PlansInOrder(evenings[k]!));
  }
  const planOn = (d: number) => (d > D || evening) && calendar.isBusinessDay(d + 1 + lead);
  const sleepOn = (d: number) => (d > D || evening) && state.canSleep;
  state.dayAttempts.n = 0;
  const summaries = new Map<number, DaySummary>();
  const quietDays = Array.from({ length: quiet }, () => new Map<number, DaySummary>());
  const lives = Array.from({ length: quiet + 1 }, (_, k) => new LiveOne(state, runner, D + 1 + k, k === quiet ? summaries : quietDays[k]!));
  // The accounts: those active this evening, and those waking on one of the days (asleep now),
  // in account order; wakes[j]: the day account order[j] wakes on (0: active this evening).
  const woken: number[] = [];
  const wokenOn = new Map<number, number>();
  for (let d = D + 1; d <= last; d++) {
    for (const i of state.wakes.get(d) ?? []) {
      if (state.wakeDay[i] !== d || wokenOn.has(i)) continue;
      woken.push(i);
      wokenOn.set(i, d);
    }
    state.wakes.delete(d);
  }
  woken.sort((a, b) => a - b);
  const n = state.activeCount + woken.length;
  const order = new Int32Array(n);
  const wakes = new Int32Array(n);
  for (let a = 0, w = 0, k = 0; k < n; k++) {
    if (w < woken.length && (a === state.activeCount || woken[w]! < state.active[a]!)) {
      order[k] = woken[w]!;
      wakes[k] = wokenOn.get(woken[w++]!)!;
    } else order[k] = state.active[a++]!;
  }
  const bounds = partBounds(state, order);
  const pass: Pass = { state, order, wakes, D, last, planOn, sleepOn, inOrder, lives, keep: 0 };
  const every = Math.max(1, parts?.every ?? PLANS_EVERY); // a part of at least one account (the loop below must move)
  for (let k = 0; k < n; ) {
    const end = Math.min(n, k + every);
    livePass(pass, k, end);
    k = end;
    if (k < n) {
      for (const p of inOrder) p.release(bounds.rowid[k]!);
      if (parts) handPart(state, parts, bounds.rank[k]!, bounds.rowid[k]!);
      // The event loop turns: the plan batches compressed meanwhile on libuv's pool are taken
      // (their buffers serve the next batches: day-rows.ts PlanBuffer), rather than piling up
      // uncompressed until the day is lived (~66 MB on a million-policy month's first business day).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  state.activeCount = pass.keep;
  for (const p of inOrder) p.release(0x7fffffff);
  return { evenings, quietDays, out: dayOutcome(state, summaries) };
}

/** An eveningAndDay pass over its accounts: what livePass reads, and the accounts kept active so far. */
interface Pass {
  state: EngineState;
  /** The accounts in account order, and the day each wakes on (0: active this evening). */
  order: Int32Array;
  wakes: Int32Array;
  D: number;
  last: number;
  planOn: (d: number) => boolean;
  sleepOn: (d: number) => boolean;
  inOrder: PlansInOrder[];
  lives: LiveOne[];
  keep: number;
}

/**
 * Accounts `from` to `to` (exclusive) of `pass`: each one's evenings and days through the pass's
 * last. A function of its own, called once per part, rather than the body of eveningAndDay's
 * loop: V8 then optimizes this loop alone, where eveningAndDay, entered a few times a month with
 * one long loop, was compiled again (on stack) each time a path after its loop first ran (the
 * 100k month compiled it eight times).
 */
function livePass(pass: Pass, from: number, to: number): void {
  const { state, order, wakes, D, last, planOn, sleepOn, inOrder, lives } = pass;
  let keep = pass.keep;
  for (let k = from; k < to; k++) {
    const i = order[k]!;
    // The day it lives first: D + 1, or the day it wakes on (its days before lived asleep).
    let d = wakes[k]! === 0 ? eveningOf(state, i, D, last, planOn, sleepOn, inOrder[0]!) : wakes[k]!;
    while (d <= last) {
      // Asleep since before this pass, or from one of its evenings, until d: its days lived asleep.
      if (state.wakeDay[i] !== ACTIVE) catchUp(state, i, d - 1);
      state.wakeDay[i] = ACTIVE;
      lives[d - D - 1]!.one(i);
      if (d === last) {
        state.active[keep++] = i;
        break;
      }
      d = eveningOf(state, i, d, last, planOn, sleepOn, inOrder[d - D]!);
    }
  }
  pass.keep = keep;
}

/**
 * Account i's evening of day d (awake that day): its planning and whether it sleeps. Returns the
 * next day it lives: d + 1, a later day it wakes on (its wake day set; put on the wake list when
 * that is after the pass's last day), or NEVER.
 */
function eveningOf(
  state: EngineState,
  i: number,
  d: number,
  last: number,
  planOn: (d: number) => boolean,
  sleepOn: (d: number) => boolean,
  plans: PlansInOrder,
): number {
  if (planOn(d)) planOne(state, i, d, d + 1 + state.settings.leadDays, plans);
  if (!sleepOn(d)) return d + 1;
  const next = nextWake(state, i, d);
  if (next === d + 1) return next;
  state.wakeDay[i] = next;
  // Beyond this pass (or never): on the wake list, as sleepIdle leaves it.
  if (next > last) sleepUntil(state, i, next);
  return next;
}

/**
 * Days after `from` on which no debit can be made, as a day lived in one pass with the next may
 * take them (eveningAndDay's `quiet`): days that are not business days (no debit is submitted for
 * one), while no planner of the working set takes debits on the day itself (the oracle), none
 * closing a period, and before `to`.
 */
export function quietDays(state: EngineState, from: number, to: number): number {
  const calendar = state.settings.calendar;
  if (calendar.isBusinessDay(from + 1)) return 0;
  for (let i = 0; i < state.accounts.size; i++) if (state.hasDayDebits[i] === 1) return 0;
  let q = 0;
  for (let d = from + 1; d < to && isQuiet(calendar, d); d++) q++;
  return q;
}

/** A day no premia debit is made on and no period closes at the end of (without a planner taking debits on the day). */
function isQuiet(calendar: Calendar, day: number): boolean {
  return !calendar.isBusinessDay(day) && day !== monthOf(day).lastDay;
}

/**
 * Whether every day after `from` up to `to` is quiet (isQuiet) and no evening among them plans a
 * debit: those are for action days `leadDays` + 1 after each, from the evening of `from` (when
 * not made yet) to that of the day before `to`, none of them a business day. Such days change
 * nothing in the store but the clock when no planner of the working set takes debits on the day
 * (the caller's to know), and the evening of `to` is made by the next load, as after a stop.
 */
export function quietThrough(calendar: Calendar, leadDays: number, from: number, to: number): boolean {
  for (let d = from + 1; d <= to; d++) if (!isQuiet(calendar, d)) return false;
  for (let a = from + 1 + leadDays; a <= to + leadDays; a++) if (calendar.isBusinessDay(a)) return false;
  return to > from;
}

/** Accounts between releases of the plans held (PlansInOrder) when no parts are handed. */
const PLANS_EVERY = 32_768;

/**
 * For each place k in `order`, the least rank and the least rowid of the collections of the
 * accounts from order[k] on: every attempt and update made before k with a smaller one is final.
 */
function partBounds(state: EngineState, order: Int32Array): { rank: Int32Array; rowid: Int32Array } {
  const cs = state.cols;
  const n = order.length;
  const rank = new Int32Array(n + 1);
  const rowid = new Int32Array(n + 1);
  rank[n] = 0x7fffffff;
  rowid[n] = 0x7fffffff;
  for (let k = n - 1; k >= 0; k--) {
    const i = order[k]!;
    let r = rank[k + 1]!;
    let id = rowid[k + 1]!;
    const start = state.colStart[i]!;
    const end = start + state.colCount[i]!;
    for (let c = start; c < end; c++) {
      if (cs.rank[c]! < r) r = cs.rank[c]!;
      if (cs.rowid[c]! < id) id = cs.rowid[c]!;
    }
    rank[k] = r;
    rowid[k] = id;
  }
  return { rank, rowid };
}

/** Hand the day's attempts ranked below `rank` and its updates of rowids below `rowid`. */
function handPart(state: EngineState, parts: DayParts, rank: number, rowid: number): void {
  const cs = state.cols;
  const attempts = state.dayAttempts.take(cs, rank, (c) => state.accounts.clientId[cs.account[c]!]!);
  const updated = takeDirty(state, rowid);
  if (attempts.n === 0 && updated.length === 0) return;
  parts.hand(attempts, updateColumns(cs, updated, 0, updated.length));
}

/**
 * The collections the day changed with rowids below `bound`, in rowid order, no longer dirty
 * (the others stay): consecutive rows share pages, so the updates touch each page once (in
 * customer order they hop across a table larger than the page cache).
 */
export function takeDirty(state: EngineState, bound = 0x7fffffff): Int32Array {
  const cs = state.cols;
  const dirty = state.dirty;
  let m = 0;
  for (let j = 0; j < dirty.length; j++) if (cs.rowid[dirty[j]!]! < bound) m++;
  const ready = new Int32Array(m);
  m = 0;
  let keep = 0;
  for (let j = 0; j < dirty.length; j++) {
    const c = dirty[j]!;
    if (cs.rowid[c]! < bound) {
      ready[m++] = c;
      cs.dirty[c] = 0;
    } else dirty[keep++] = c;
  }
  dirty.length = keep;
  const order = orderBy(m, (j) => cs.rowid[ready[j]!]!);
  for (let k = 0; k < m; k++) order[k] = ready[order[k]!]!;
  return order;
}

/** Write the day's attempts and the collections they changed. */
export async function writeDay(unit: DayUnit, state: EngineState, day: number, out: DayOutcome): Promise<void> {
  await unit.insertAttemptColumns(fromDayNumber(day), out.attempts);
  const cs = state.cols;
  const order = takeDirty(state);
  // Handed over UPDATE_CHUNK rows a call, as the day's attempts are written.
  for (let at = 0; at < order.length; at += UPDATE_CHUNK) await unit.updateCollectionColumns(updateColumns(cs, order, at, Math.min(order.length, at + UPDATE_CHUNK)));
  if (order.length === 0) await unit.updateCollectionColumns(updateColumns(cs, order, 0, 0));
}

/** Collection updates per store call. */
const UPDATE_CHUNK = 16_384;

/**
 * Close `period` at the end of its last day: its runs complete, the lapse rule runs, the
 * accounts active that day that held its collections have their balances kept, and its
 * collections leave the working set (with the accounts that have nothing else open). Returns,
 * once known, the lapsed policies per client: at once from a store that commits the day with the
 * unit, once the day has committed from one that hands the day over (`DayUnit.closePeriod`).
 */
export async function closePeriod(unit: DayUnit, state: EngineState, period: Period, stampMs: number): Promise<{ lapsed: Promise<Map<number, number>> }> {
  const runs = await closePeriodRuns(unit, state.settings.lapseAfterUnpaidPeriods, period, stampMs);
  await closePeriodAccounts(state, period);
  return runs;
}

/**
 * The store-wide part of closing `period`: its runs complete and the lapse rule runs over every
 * client's collections (a day lived in shards does this once, when every shard is done).
 */
export async function closePeriodRuns(unit: DayUnit, lapseAfter: number, period: Period, stampMs: number): Promise<{ lapsed: Promise<Map<number, number>> }> {
  const day = lastDay(period);
  if (unit.closePeriod) return { lapsed: unit.closePeriod(period, lapseAfter, day, stampMs) };
  await unit.completeExecutions(period, stampMs);
  const now = await applyLapseRule(
    period,
    lapseAfter,
    (periods) => unit.lapseCandidates(periods),
    (policies, reason) => unit.lapsePolicies(policies, day, stampMs, reason),
  );
  return { lapsed: Promise.resolve(now) };
}

/**
 * The working set's part of closing `period`: its collections close, the accounts active that
 * day that held them have their balances kept, and accounts with nothing else open leave.
 */
export async function closePeriodAccounts(state: EngineState, period: Period): Promise<void> {
  const day = lastDay(period);
  const kept: number[] = []; // accounts whose balance is kept as of `day`
  const cs = state.cols;
  const k = cs.periods.findIndex((p) => p.period === period);
  // Sleeping accounts: their collections of the period close too, and those with nothing else
  // open leave the working set. Their balances are not kept: they stand as of the last day they
  // lived (the image keeps them there: awake.ts).
  for (let i = 0; i < state.accounts.size; i++) {
    const w = state.wakeDay[i]!;
    if (w === ACTIVE || w === GONE) continue;
    const start = state.colStart[i]!;
    const end = start + state.colCount[i]!;
    let open = false;
    for (let c = start; c < end; c++) {
      if (cs.closed[c] === 1) continue;
      if (cs.period[c] === k) cs.closed[c] = 1;
      else open = true;
    }
    if (!open) state.wakeDay[i] = GONE;
  }
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
    if (had) kept.push(i);
    // An account with nothing left open leaves the working set.
    if (open) state.active[keep++] = i;
    else state.wakeDay[i] = GONE;
  }
  state.activeCount = keep;
  await state.accounts.keepBalances(dayNumber(day), kept);
}
