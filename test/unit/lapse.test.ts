/** The lapse rule (domain/lapse.ts): UNPAID in each of the last n closed periods, the closing one included. */
import { describe, expect, it } from 'vitest';
import { lapsePeriods, lapseReason, lapses } from '../../src/domain/lapse.js';

describe('the lapse rule', () => {
  it('looks at the closing period and the n − 1 before it, across a year end', () => {
    expect(lapsePeriods('2027-01', 3)).toEqual(['2027-01', '2026-12', '2026-11']);
    expect(lapsePeriods('2026-11', 1)).toEqual(['2026-11']);
  });

  it.each([
    [['UNPAID', 'UNPAID'], 2, true],
    [['UNPAID', 'PAID_PARTIAL'], 2, false],
    [['UNPAID', null], 2, false], // no collection queued the period before
    [['UNPAID', 'CANCELLED'], 2, false],
    [['UNPAID'], 1, true],
    [['PAID_FULL'], 1, false],
    [['UNPAID', 'UNPAID', 'UNPAID'], 3, true],
    [['UNPAID', 'UNPAID'], 3, false], // fewer statuses than periods asked for
    [['UNPAID'], 0, false], // the rule off
  ] as const)('%j over %i periods: %s', (statuses, n, lapsed) => {
    expect(lapses(statuses, n)).toBe(lapsed);
  });

  it('says why in the status history, oldest period first', () => {
    expect(lapseReason(lapsePeriods('2027-01', 2))).toBe('lapsed: unpaid in 2 consecutive periods (2026-12, 2027-01)');
  });
});
