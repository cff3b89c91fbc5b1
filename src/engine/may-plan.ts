/**
 * The cheap tests the planning at the end of a day makes for each customer before it builds
 * views (day.ts planAll), on their own: sleeping accounts (awake.ts) ask them of the days ahead.
 */
import { NO_DAY, PENDING_SLOTS } from './collection-set.js';
import type { EngineState } from './state.js';

/**
 * Whether the planning at the end of D could plan a debit of action day A for account i: a
 * collection with money due in a period containing A, not covered by debits submitted nor with
 * one for A, that its strategy could plan for (each planner's cheap tests: smart waits for
 * income seen or expected just before A or the period's last chance; naive waits its 7 days;
 * the oracle never plans ahead), and an account its planner could plan on.
 */
export function mayPlan(state: EngineState, i: number, D: number, A: number): boolean {
  const cs = state.cols;
  const wants = state.wants;
  const start = state.colStart[i]!;
  const end = start + state.colCount[i]!;
  let periodLast = 0;
  let wanted = false;
  let least = Number.POSITIVE_INFINITY;
  let leastDue = Number.POSITIVE_INFINITY;
  for (let c = start; c < end; c++) {
    const p = cs.periods[cs.period[c]!]!;
    if (A >= p.first && A <= p.last && p.last > periodLast) periodLast = p.last; // A's period only (see smart's setup)
    if (cs.closed[c] === 1 || cs.blocked[c] === 1 || cs.collected[c]! >= cs.due[c]! || A < p.first || A > p.last) continue;
    // Nor one whose submitted debits already cover what is due, or that has one for A
    // (planCustomer would skip it: most customers, the day after a month's first planning).
    let pending = 0;
    let onA = false;
    for (let x = c * PENDING_SLOTS; x < (c + 1) * PENDING_SLOTS; x++) {
      if (cs.pendDay[x] === 0) continue;
      pending += cs.pendAmount[x]!;
      if (cs.pendDay[x] === A) onA = true;
    }
    const remaining = cs.due[c]! - cs.collected[c]! - pending;
    if (onA || remaining <= 0) continue;
    // Of every such collection, wanted by its planner or not: a bound from below.
    if (remaining < least) least = remaining;
    if (cs.due[c]! < leastDue) leastDue = cs.due[c]!;
    const code = cs.strategy[c]!;
    if (wants[code] === 1) continue;
    const last = cs.lastDay[c]!;
    if (state.planners[code]!.mayPlanCollection(cs.attempts[c]!, cs.failed[c]!, last === NO_DAY ? null : last, A, state.settings)) {
      wants[code] = 1;
      wanted = true;
    }
  }
  if (!wanted) return false;
  return mayPlanCustomer(state, i, D, A, periodLast, least, leastDue);
}

/**
 * Whether any planner that wants to plan for account i (`state.wants`, which this clears) could
 * plan: first those with no account test, then each one's test, in registry order.
 */
function mayPlanCustomer(state: EngineState, i: number, D: number, A: number, periodLast: number, leastRemaining: number, leastDue: number): boolean {
  const wants = state.wants;
  let may = false;
  for (let s = 0; s < wants.length; s++) if (wants[s] === 1 && state.planners[s]!.mayPlanCustomer === undefined) may = true;
  for (let s = 0; s < wants.length; s++) {
    if (wants[s] === 0) continue;
    wants[s] = 0;
    if (!may && state.planners[s]!.mayPlanCustomer!(state.reads, i, D, A, periodLast, leastRemaining, leastDue, state.settings)) may = true;
  }
  return may;
}
