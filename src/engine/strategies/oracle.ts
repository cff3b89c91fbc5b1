/**
 * oracle: reads the balance on the day (after the day's credits) and takes what is there,
 * never failing. An upper bound for benchmarks, not a strategy a collector could run: it plans
 * nothing ahead, and the engine lets it see what no collector can (the balance of the day, and
 * whether the account is blocked).
 */
import { WhyCode, type CollectionView, type DayDebit, type Planner, type Strategy } from '../strategy.js';

/** The oracle keeps no state: one planner serves every run. */
const planner: Planner = {
  mayPlanCollection(): boolean {
    return false;
  },

  plan() {
    return null;
  },

  debitsOnDay(balance: number, collections: readonly CollectionView[], day: number, out: DayDebit[]): void {
    let left = balance;
    for (let i = 0; i < collections.length && left > 0; i++) {
      const c = collections[i]!;
      if (c.strategy !== oracle || c.blocked || day < c.periodFirst || day > c.periodLast) continue;
      const remaining = c.due - c.collected;
      if (remaining <= 0) continue;
      const amount = Math.min(remaining, left);
      left -= amount;
      out.push({ index: i, amount });
    }
  },
};

export const oracle: Strategy = {
  name: 'oracle',
  summary: 'reads the balance on the day and takes what is there; never fails; an upper bound for benchmarks, not something a collector could run',
  whyCodes: [WhyCode.ORACLE],
  planner: () => planner,

  explain(): string {
    return 'oracle: takes what the balance allows on the day (reads the future; a benchmark bound)';
  },
};
