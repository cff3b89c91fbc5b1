/**
 * The registry of collection strategies, and the dispatch the engine goes through.
 *
 * Adding a strategy is two things: its module in ./strategies/ implementing `Strategy`
 * (./strategy.ts), and its line here (with its name in domain/strategy-names.ts, which the type
 * of STRATEGIES requires). Nothing else changes: `--strategy` validation, the CLI's choices,
 * explanations and the engine's dispatch all come from this registry. The default strategy is
 * DEFAULT_STRATEGY (the first name), not a name written anywhere else.
 */
import { naive } from './strategies/naive.js';
import { oracle } from './strategies/oracle.js';
import { smart } from './strategies/smart.js';
import { DEFAULT_STRATEGY, STRATEGY_NAMES, type StrategyName } from '../domain/strategy-names.js';
import type { CollectionView, CustomerView, EngineConfig, PlannedDebit, Planner, Strategy, Why } from './strategy.js';

export * from './strategy.js';
export { DEFAULT_STRATEGY, STRATEGY_NAMES, type StrategyName };

/**
 * Every strategy by name (the names are declared in domain/strategy-names.ts for the CLI, which
 * may not load the engine: this type makes the two agree).
 */
export const STRATEGIES: Readonly<Record<StrategyName, Strategy>> = { smart, naive, oracle };

/**
 * The strategies in registry order: a strategy's index here is its code in the engine's
 * in-memory columns (never stored: executions store the name).
 */
export const STRATEGY_LIST: readonly Strategy[] = STRATEGY_NAMES.map((n) => STRATEGIES[n]);

export function isStrategy(s: unknown): s is StrategyName {
  return typeof s === 'string' && Object.prototype.hasOwnProperty.call(STRATEGIES, s);
}

/** The strategy of an execution's stored name (an unknown name runs as the default). */
export function strategyOf(name: unknown): Strategy {
  return isStrategy(name) ? STRATEGIES[name] : STRATEGIES[DEFAULT_STRATEGY];
}

/** Which strategy renders each reason code (a code belongs to one strategy only). */
const EXPLAINER: readonly Strategy[] = (() => {
  const owners: Strategy[] = [];
  for (const s of STRATEGY_LIST) {
    for (const code of s.whyCodes) {
      if (owners[code]) throw new Error(`reason code ${code} belongs to both ${owners[code].name} and ${s.name}`);
      owners[code] = s;
    }
  }
  return owners;
})();

/** The plain-words reason of a planned debit (an unknown code reads as the oracle's). */
export function renderWhy(w: Why): string {
  return (EXPLAINER[w.code] ?? oracle).explain(w);
}

/** One planner per registered strategy, in registry order: the planners of one run of the engine. */
export function planners(): Planner[] {
  return STRATEGY_LIST.map((s) => s.planner());
}

/** The collections planCustomer plans (index, remaining), reused: planning allocates nothing per customer. */
const candidates: number[] = [];
const remainders: number[] = [];

/**
 * Debits to submit at the end of day D for action day A, for one customer's collections, each
 * planned by the planner of its strategy (`planners`, by code). Collections are offered smallest
 * amount still due first (then in policy_number order): when the money a planner expects cannot
 * pay every policy, it pays as many in full as it covers and puts what is left toward the others,
 * rather than a part of the largest and nothing of the rest (issue 12). The bank attempts a day's
 * debits in policy_number order, as they are returned.
 */
export function planCustomer(
  planners: readonly Planner[],
  customer: CustomerView,
  collections: readonly CollectionView[],
  D: number,
  A: number,
  config: EngineConfig,
): PlannedDebit[] {
  const out: PlannedDebit[] = [];
  // Debits are submitted for business days only (the bank processes none on other days).
  if (!config.calendar.isBusinessDay(A)) return out;
  for (let s = 0; s < planners.length; s++) planners[s]!.beginCustomer?.();
  candidates.length = 0;
  remainders.length = 0;
  for (let i = 0; i < collections.length; i++) {
    const c = collections[i]!;
    if (c.blocked || A < c.periodFirst || A > c.periodLast || c.pendingDays.includes(A)) continue;
    let pending = 0;
    for (let k = 0; k < c.pendingAmounts.length; k++) pending += c.pendingAmounts[k]!;
    const remaining = c.due - c.collected - pending;
    if (remaining <= 0) continue;
    // Insertion by remaining (stable: equal amounts stay in policy_number order), by hand: a
    // splice makes an array of what it removes, twice for each collection of each customer planned.
    let at = candidates.length;
    candidates.push(i);
    remainders.push(remaining);
    for (; at > 0 && remainders[at - 1]! > remaining; at--) {
      candidates[at] = candidates[at - 1]!;
      remainders[at] = remainders[at - 1]!;
    }
    candidates[at] = i;
    remainders[at] = remaining;
  }
  for (let k = 0; k < candidates.length; k++) {
    const i = candidates[k]!;
    const p = planners[collections[i]!.code]!.plan(customer, collections, i, D, A, remainders[k]!, config);
    if (p) out.push({ index: i, day: A, amount: p.amount, why: p.why });
  }
  // Returned in policy_number order, as the debits are stored and attempted.
  if (out.length > 1) out.sort((x, y) => x.index - y.index);
  return out;
}

/** Whether the planner of an execution's stored strategy takes debits on the day itself (`debitsOnDay`). */
export function takesDebitsOnTheDay(name: unknown): boolean {
  return strategyOf(name).planner().debitsOnDay !== undefined;
}

/** A strategy's code (its index in STRATEGY_LIST) from an execution's stored name. */
export function strategyCode(name: unknown): number {
  return STRATEGY_LIST.indexOf(strategyOf(name));
}
