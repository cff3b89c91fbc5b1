/**
 * One day of the engine on its working set: live the day (the bank executes premia's debits for
 * it), write what happened, plan the debits of a later day, and close a period at its end.
 * Synchronous over the working set (a million collections a day); the store is reached through
 * the day's unit of work in a few bulk calls.
 */
import { monthOf } from '../domain/calendar.js';
import { isRetryable } from '../domain/debit-outcome.js';
import { applyLapseRule } from '../domain/lapse.js';
import { asCents, type Cents } from '../domain/money.js';
import { dayNumber, fromDayNumber, lastDay, type IsoDate, type Period } from '../domain/period.js';
import { failureCode } from '../domain/debit-outcome.js';
import { NO_DAY, type CollectionSet } from './collection-set.js';
import { DayPlans, insertPlans, orderBy, updateColumns } from './day-rows.js';
import type { AttemptColumns, DayUnit, DebitSource } from './ports.js';
import { ACTIVE, GONE, wake } from './awake.js';
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
  const settings = state.settings;
  const cs = state.cols;
  for (let k = 0; k < state.activeCount; k++) {
    const i = state.active[k]!;
    // Most customers, most days, fail the cheap tests: nothing can be planned for them today.
    if (!mayPlan(state, i, D, A)) continue;
    const start = state.colStart[i]!;
    const count = state.colCount[i]!;
    const views = state.views.fill(cs, start, count);
    const planned = planCustomer(state.planners, state.view.at(i), views, D, A, settings);
    for (const p of planned) {
      const c = start + p.index;
      cs.addPending(c, p.day, p.amount);
      out.push(state.accounts.clientId[i]!, cs.rowid[c]!, p.day, p.amount, p.why);
    }
  }
  return out;
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
  const date = fromDayNumber(day);
  const month = monthOf(day);
  const attempts = state.dayAttempts;
  attempts.n = 0;
  const summaries = new Map<number, DaySummary>();
  const accounts = state.accounts;
  const cs = state.cols;
  const outcomes = state.outcomes;
  wake(state, day);
  for (let k = 0; k < state.activeCount; k++) {
    const i = state.active[k]!;
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
      const s = summaryFor(summaries, clientId, date);
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
      attempts.push(c, amount, code);
    }
    state.summaries.endOfDay(accounts, i, day, facts, true, month);
  }
  // Stored in (client, policy_number) order within the day: rowid order is report order.
  return { attempts: attempts.columns(cs, (c) => accounts.clientId[cs.account[c]!]!), summaries };
}

/** Write the day's attempts and the collections they changed. */
export async function writeDay(unit: DayUnit, state: EngineState, day: number, out: DayOutcome): Promise<void> {
  await unit.insertAttemptColumns(fromDayNumber(day), out.attempts);
  const cs = state.cols;
  // In rowid order: consecutive rows share pages, so a day's updates touch each page once
  // (in customer order they hop across a table larger than the page cache).
  const dirty = state.dirty;
  const order = orderBy(dirty.length, (j) => cs.rowid[dirty[j]!]!);
  for (let k = 0; k < order.length; k++) order[k] = dirty[order[k]!]!;
  for (const c of dirty) cs.dirty[c] = 0;
  dirty.length = 0;
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
