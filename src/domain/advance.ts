/**
 * Where a clock advance goes and which periods it closes: pure date arithmetic, shared by the
 * engine's preview and the CLI's confirmation (which must know, before anything changes and
 * without a server round trip, whether an unattended advance closes more than one period).
 */
import { addDays, dayNumber, lastDay, nextPeriod, periodOf, type IsoDate, type Period } from './period.js';

export interface AdvanceTargetInput {
  days?: number;
  to?: IsoDate;
  to_month_end?: boolean;
}

/**
 * The date an already validated advance target reaches from `today` (as the engine resolves
 * it); a `to` before today is returned as given (the engine refuses it with CLOCK_BACKWARDS).
 */
export function advanceTargetDate(today: IsoDate, target: AdvanceTargetInput): IsoDate {
  if (target.days !== undefined) return addDays(today, target.days);
  if (target.to_month_end) return lastDay(periodOf(addDays(today, 1)));
  return target.to ?? today;
}

/** The periods whose last day lies after `from` and on or before `to`: those an advance from → to closes. */
export function periodsClosedBetween(from: IsoDate, to: IsoDate): Period[] {
  const out: Period[] = [];
  if (to <= from) return out;
  for (let p = periodOf(addDays(from, 1)); lastDay(p) <= to; p = nextPeriod(p)) out.push(p);
  return out;
}

/** Days from `from` to `to` (0 when `to` is not later). */
export function daysBetween(from: IsoDate, to: IsoDate): number {
  return Math.max(0, dayNumber(to) - dayNumber(from));
}
