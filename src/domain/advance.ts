/**
 * Where a clock advance goes and which periods it closes: pure date arithmetic, shared by the
 * engine's preview and the CLI's confirmation (which must know, before anything changes and
 * without a server round trip, whether an unattended advance closes more than one period).
 */
import { PremiaError } from './errors.js';
import { MAX_ADVANCE_DAYS, MIN_ADVANCE_DAYS } from './requests.js';
import { addDays, dayNumber, fromDayNumber, lastDay, nextPeriod, periodOf, type IsoDate, type Period } from './period.js';

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

/**
 * The date an advance target reaches from `today`, checked: exactly one of days, to and
 * to_month_end; a whole number of days up to ten years; a real date, not before the clock
 * (CLOCK_BACKWARDS: the clock only moves forward) and at most ten years ahead.
 */
export function resolveAdvanceTarget(today: IsoDate, target: AdvanceTargetInput): IsoDate {
  const given = [target.days !== undefined, target.to !== undefined, target.to_month_end === true].filter(Boolean).length;
  if (given !== 1) {
    throw new PremiaError('VALIDATION_ERROR', 'Say how far to advance with exactly one of days, to or to_month_end.', {
      details: [{ field: 'target', code: 'REQUIRED', message: 'give exactly one of days, to, to_month_end' }],
    });
  }
  if (target.days !== undefined) {
    if (!Number.isInteger(target.days) || target.days < MIN_ADVANCE_DAYS || target.days > MAX_ADVANCE_DAYS) {
      throw new PremiaError('VALIDATION_ERROR', `days must be a whole number from ${MIN_ADVANCE_DAYS} to ${MAX_ADVANCE_DAYS}; got ${String(target.days)}.`, {
        details: [{ field: 'days', code: 'INVALID_VALUE', message: `a whole number from ${MIN_ADVANCE_DAYS} to ${MAX_ADVANCE_DAYS}` }],
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
  if (dayNumber(to) - dayNumber(today) > MAX_ADVANCE_DAYS) {
    throw new PremiaError('VALIDATION_ERROR', `${to} is more than ten years ahead of the clock (${today}).`);
  }
  return to;
}

/**
 * The target of an advance retried under the Idempotency-Key of one whose process stopped part
 * way: the date that one resolved to reach (`resumeTo`), the rest of the request (safe_close) as
 * asked. `days` or `to_month_end` counted again from the clock it left would go past that date.
 * Without `resumeTo` (none recorded: nothing was lived), the request as asked.
 */
function resumedTarget<T extends AdvanceTargetInput & { safe_close?: boolean }>(target: T, resumeTo: IsoDate | undefined): T {
  if (resumeTo === undefined) return target;
  return { ...(target.safe_close === undefined ? {} : { safe_close: target.safe_close }), to: resumeTo } as T;
}

/**
 * An advance run under an Idempotency-Key (the service's job, the CLI's local key): its target
 * (resumedTarget) and its options, whose `onRange` records on the key the date it resolved to
 * reach (`note`), so that a retry taking the key over runs to that date. A failure to record is
 * not the advance's: it goes on.
 */
export function keyedAdvance<T extends AdvanceTargetInput & { safe_close?: boolean }, O extends object>(
  target: T,
  options: O,
  resumeTo: IsoDate | undefined,
  note: (to: IsoDate) => Promise<unknown>,
): [T, O & { onRange: (from: IsoDate, to: IsoDate) => Promise<void> }] {
  const onRange = (_from: IsoDate, to: IsoDate) => note(to).then(
    () => undefined,
    () => undefined,
  );
  return [resumedTarget(target, resumeTo), { ...options, onRange }];
}
