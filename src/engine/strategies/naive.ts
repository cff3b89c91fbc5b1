/**
 * naive: the full premium on the first day it can (the next business day after the run is
 * queued, not before the period's first: debits are submitted the evening before), retried
 * every `naiveRetryDays` days (7), at most `naiveMaxAttempts` attempts (4), and no more failed
 * ones than `maxFailedAttempts` (`engine.max_failed_attempts`: with its default of 4 that changes
 * nothing). What a collector without any analysis does; the baseline smart is measured against.
 */
import { fromDayNumber } from '../../domain/period.js';
import { blankWhy, WhyCode, type CollectionView, type EngineConfig, type Plan, type Planner, type Strategy, type Why } from '../strategy.js';
import { plural } from '../../domain/words.js';

/** naive keeps no state: one planner serves every run. */
const planner: Planner = {
  mayPlanCollection(attempts: number, failed: number, lastAttemptDay: number | null, A: number, config: EngineConfig): boolean {
    return (
      attempts < config.naiveMaxAttempts &&
      failed < config.maxFailedAttempts &&
      (lastAttemptDay === null || A - lastAttemptDay >= config.naiveRetryDays)
    );
  },

  plan(_customer, collections: readonly CollectionView[], index: number, _D: number, A: number, remaining: number, config: EngineConfig): Plan | null {
    const c = collections[index]!;
    if (c.attempts >= config.naiveMaxAttempts || c.failed >= config.maxFailedAttempts || c.pendingDays.length > 0) return null;
    if (c.lastAttemptDay !== null && A - c.lastAttemptDay < config.naiveRetryDays) return null;
    let w: Why;
    if (c.lastAttemptDay === null) w = blankWhy(WhyCode.NAIVE_FIRST);
    else {
      w = blankWhy(WhyCode.NAIVE_RETRY);
      w.triggerDays = A - c.lastAttemptDay;
      w.lastAttemptDay = c.lastAttemptDay;
    }
    return { amount: remaining, why: w };
  },
};

export const naive: Strategy = {
  name: 'naive',
  summary: 'the full premium on the first day it can (debits are submitted the evening before: the next business day after the day the run is queued, and not before the period\'s first day), retried every 7 days, at most 4 attempts',
  whyCodes: [WhyCode.NAIVE_FIRST, WhyCode.NAIVE_RETRY],
  planner: () => planner,

  explain(w: Why): string {
    return w.code === WhyCode.NAIVE_FIRST
      ? 'naive: the full premium on the first day it can be collected'
      : `naive: retry ${plural(w.triggerDays, 'day')} after the failed attempt of ${fromDayNumber(w.lastAttemptDay)}`;
  },
};
