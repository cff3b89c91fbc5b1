/**
 * Customers with nothing to do sleep (issue 13). After the planning at the end of day D, an
 * account whose collections can give no debit before a later day leaves the active list the
 * engine lives each day: every collection paid, blocked or closed (nothing can be planned or
 * taken for it again), or due only in a period whose first plannable day is later (a run queued
 * early), and no debit submitted and not yet made. Such an account is not lived day by day:
 * nothing premia does touches it, and its summary is read by nobody, so its days are lived later
 * in one go (`catchUp`: the same days, the same facts, the same summary) when it is needed again:
 * on its wake day, or when a later advance loads it. The engine's image keeps it as of the last
 * day it lived (image.ts). What the strategies see is the same whichever way the days were lived.
 */
import { monthOf } from '../domain/calendar.js';
import type { FailureReason } from '../domain/debit-outcome.js';
import type { BankAccounts, DebitSource, PostedDay } from './ports.js';
import { PENDING_SLOTS } from './collection-set.js';
import { mayPlan } from './may-plan.js';
import type { EngineState } from './state.js';
import type { AccountSummaries } from './summary.js';

/** wakeDay of an active account. */
export const ACTIVE = 0;
/** wakeDay of a sleeping account with no day to wake on (every collection done). */
export const NEVER = 0x7fffffff;
/** wakeDay of an account that has left the working set (nothing open). */
export const GONE = -1;

/** premia's debits of a day an account lives while asleep: none. */
const NO_DEBITS: DebitSource = { debitsFor: () => 0 };

/**
 * The first day after D that account i must live in the engine's day loop, seen at the end of
 * D: D + 1 while anything can happen to it, later when its only open collections are in a period
 * not plannable yet, NEVER when all are done.
 */
export function nextNeeded(state: EngineState, i: number, D: number): number {
  const cs = state.cols;
  const lead = state.settings.leadDays;
  const start = state.colStart[i]!;
  const end = start + state.colCount[i]!;
  let next = NEVER;
  for (let c = start; c < end; c++) {
    if (cs.closed[c] === 1) continue;
    const base = c * PENDING_SLOTS;
    for (let s = 0; s < PENDING_SLOTS; s++) if (cs.pendDay[base + s] !== 0) return D + 1;
    if (cs.blocked[c] === 1 || cs.collected[c]! >= cs.due[c]!) continue;
    const p = cs.periods[cs.period[c]!]!;
    // The days that can give a debit: the evenings planning an action day of the period, or (a
    // planner taking debits on the day itself) the period's days.
    const dayDebits = state.planners[cs.strategy[c]!]!.debitsOnDay !== undefined;
    const first = dayDebits ? p.first : p.first - 1 - lead;
    const last = dayDebits ? p.last : p.last - 1 - lead;
    if (D + 1 > last) continue;
    if (D + 1 >= first) return D + 1;
    if (first < next) next = first;
  }
  return next;
}

/**
 * The first day after D on which account i, needed tomorrow by nextNeeded but with no debit
 * submitted, could have anything planned for it at the end of the day, as the bank and the
 * planners tell: the day a credit posts to it (the bank's feed of accounts with activity), the
 * last day of the month (its income analysis is made again as of that day), or the first day
 * before those on which the planning's cheap tests (may-plan.ts) pass with what the engine
 * knows of it now. Until then none of its facts those tests read changes but its balance, which
 * can only fall (no credit): its planner's account test says no on those days lived or not
 * (smart's reads the income analysis and recent income, and whether the balance reaches a
 * minimum). D + 1 when it must be lived tomorrow.
 */
function quietUntil(state: EngineState, i: number, D: number): number {
  if (state.hasDayDebits[i] === 1) return D + 1;
  const cs = state.cols;
  const start = state.colStart[i]!;
  const end = start + state.colCount[i]!;
  for (let x = start * PENDING_SLOTS; x < end * PENDING_SLOTS; x++) if (cs.pendDay[x] !== 0) return D + 1;
  const monthEnd = monthOf(D + 1).lastDay;
  const until = Math.min(monthEnd, state.accounts.nextCreditDay!(i, D, monthEnd));
  const lead = state.settings.leadDays;
  const calendar = state.settings.calendar;
  for (let d = D + 1; d < until; d++) {
    const A = d + 1 + lead;
    if (calendar.isBusinessDay(A) && mayPlan(state, i, d, A)) return d;
  }
  return until;
}

/** After the planning at the end of day D: the active accounts with nothing to do tomorrow fall asleep. */
export function sleepIdle(state: EngineState, D: number): void {
  let keep = 0;
  for (let k = 0; k < state.activeCount; k++) {
    const i = state.active[k]!;
    const next = nextWake(state, i, D);
    if (next === D + 1) state.active[keep++] = i;
    else sleepUntil(state, i, next);
  }
  state.activeCount = keep;
}

/** The day active account i must live next, seen at the end of day D (after its planning): D + 1 when it stays awake. */
export function nextWake(state: EngineState, i: number, D: number): number {
  let next = nextNeeded(state, i, D);
  if (next === D + 1 && state.accounts.nextCreditDay !== undefined) {
    next = quietUntil(state, i, D);
    // Quiet past its collections' last evening of planning: not needed then either (asleep, its
    // collections do not change), so it wakes when nextNeeded would have it, as a working set
    // loaded on that day would have it (NEVER, or a later period's first evening).
    if (next > D + 1) next = nextNeeded(state, i, next - 1);
  }
  return next;
}

/** Account i (not in the active list) sleeps until `day` (NEVER: until a later advance loads it again). */
export function sleepUntil(state: EngineState, i: number, day: number): void {
  state.wakeDay[i] = day;
  if (day === NEVER) return;
  let list = state.wakes.get(day);
  if (!list) state.wakes.set(day, (list = []));
  list.push(i);
}

/**
 * Before living `day`: the accounts due to wake on it are brought up to the day before and
 * rejoin the active list (which stays in account order: the order the day's plans are made in).
 */
export function wake(state: EngineState, day: number): void {
  const list = state.wakes.get(day);
  if (!list) return;
  state.wakes.delete(day);
  const woken = list.filter((i) => state.wakeDay[i] === day);
  if (woken.length === 0) return;
  for (const i of woken) {
    catchUp(state, i, day - 1);
    state.wakeDay[i] = ACTIVE;
  }
  woken.sort((a, b) => a - b);
  // Merge into the active list from the back.
  let a = state.activeCount - 1;
  let w = woken.length - 1;
  let at = state.activeCount + woken.length - 1;
  while (w >= 0) {
    if (a >= 0 && state.active[a]! > woken[w]!) state.active[at--] = state.active[a--]!;
    else state.active[at--] = woken[w--]!;
  }
  state.activeCount += woken.length;
}

const catchUpFacts: PostedDay = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };

/** Live account i's days up to the end of `day` (none of premia's debits: it was asleep). */
export function catchUp(state: EngineState, i: number, day: number): void {
  catchUpAccount(state.accounts, state.summaries, state.outcomes, i, day);
}

/**
 * Account i of `accounts` lived up to the end of `day` with none of premia's debits, each day
 * told to its summary: catchUp, for whoever opens accounts kept as of an earlier day (the engine,
 * the helper process).
 */
export function catchUpAccount(accounts: BankAccounts, summaries: AccountSummaries, outcomes: Array<FailureReason | null>, i: number, day: number): void {
  let lived = accounts.lastLived!(i);
  if (lived >= day) return;
  let month = monthOf(lived + 1);
  const learn = (d: number, facts: PostedDay) => {
    if (d > month.lastDay) month = monthOf(d);
    summaries.endOfDay(accounts, i, d, facts, true, month);
  };
  if (accounts.liveQuietly?.(i, day, catchUpFacts, learn) === true) return;
  while (lived < day) {
    lived++;
    if (lived > month.lastDay) month = monthOf(lived);
    accounts.live(i, NO_DEBITS, outcomes, catchUpFacts);
    summaries.endOfDay(accounts, i, lived, catchUpFacts, true, month);
  }
}
