/**
 * The lapse rule (docs/engine.md, "Lapse"): at the close of a period, an active policy whose collections
 * were UNPAID in each of the last `n` closed periods (the one closing included) becomes lapsed;
 * periods that ended on or before the day of its last reinstatement do not count (they lapsed it once already).
 * Pure: the store supplies each candidate's statuses and applies the result.
 */
import { lastDay, previousPeriod, type IsoDate, type Period } from './period.js';

/** The periods the rule looks at when `period` closes, newest first: `period` and the n − 1 before it. */
export function lapsePeriods(period: Period, n: number): Period[] {
  const periods = [period];
  for (let i = 1; i < n; i++) periods.push(previousPeriod(periods[i - 1]!));
  return periods;
}

/**
 * Whether a policy lapses: `statuses[k]` is the status of its collection in the k-th period of
 * `lapsePeriods` (null: none was queued). It lapses when every one of the `n` periods has an
 * UNPAID collection; `n` below 1 turns the rule off.
 */
export function lapses(statuses: ReadonlyArray<string | null>, n: number): boolean {
  if (n < 1 || statuses.length < n) return false;
  for (let k = 0; k < n; k++) if (statuses[k] !== 'UNPAID') return false;
  return true;
}

/** How the lapse rule's reasons begin (lapseReason), to tell its lapses from a user's. */
export const LAPSE_REASON_PREFIX = 'lapsed: unpaid in ';

/** The reason recorded in the policy's status history. */
export function lapseReason(periods: readonly Period[]): string {
  return `${LAPSE_REASON_PREFIX}${periods.length === 1 ? '1 period' : `${periods.length} consecutive periods`} (${[...periods].reverse().join(', ')})`;
}

/** A policy the rule may lapse, with the status of its collection in each period of `lapsePeriods` (null: none). */
export interface LapseCandidateStatuses {
  policyId: number;
  clientId: number;
  statuses: Array<string | null>;
  /** The day it was last reinstated (lapsed → active), or null. */
  reinstatedOn?: IsoDate | null;
}

/**
 * The statuses the rule reads: a period that ended on or before the day of the reinstatement counts
 * as none. A change on a period's last day is made after that day was lived, so after the close
 * (which may be the one that lapsed the policy).
 */
function sinceReinstatement(periods: readonly Period[], cand: LapseCandidateStatuses): ReadonlyArray<string | null> {
  const on = cand.reinstatedOn;
  if (on === undefined || on === null) return cand.statuses;
  return cand.statuses.map((s, k) => (lastDay(periods[k]!) <= on ? null : s));
}

/**
 * The lapse rule at the close of `period` with `n` periods: the candidates (the active policies
 * whose collection of `period` is UNPAID) from `candidates`, those that lapse handed to `lapse`
 * with the reason to record. Returns how many policies lapsed per client.
 */
export async function applyLapseRule(
  period: Period,
  n: number,
  candidates: (periods: readonly Period[]) => Promise<readonly LapseCandidateStatuses[]>,
  lapse: (policies: readonly LapseCandidateStatuses[], reason: string) => Promise<void>,
): Promise<Map<number, number>> {
  const lapsed = new Map<number, number>();
  if (n < 1) return lapsed;
  const periods = lapsePeriods(period, n);
  const lapsing: LapseCandidateStatuses[] = [];
  for (const cand of await candidates(periods)) {
    if (!lapses(sinceReinstatement(periods, cand), n)) continue;
    lapsing.push(cand);
    lapsed.set(cand.clientId, (lapsed.get(cand.clientId) ?? 0) + 1);
  }
  await lapse(lapsing, lapseReason(periods));
  return lapsed;
}
