/** The period's state beside a report (domain/period-state.ts): the rule, the header, the note. */
import { describe, expect, it } from 'vitest';
import { formatPeriodStateHeader, parsePeriodStateHeader, periodStateNote, periodStateOf } from '../../src/domain/period-state.js';

describe('periodStateOf', () => {
  it('closed once the last day has run; as_of never passes it, so a closed report does not change', () => {
    expect(periodStateOf('2026-11', '2026-11-29', 520, 31)).toEqual({ state: 'open', as_of: '2026-11-29', closes_on: '2026-11-30', open_collections: 31 });
    expect(periodStateOf('2026-11', '2026-11-30', 520, 31)).toEqual({ state: 'closed', as_of: '2026-11-30', closes_on: '2026-11-30', open_collections: 0 });
    expect(periodStateOf('2026-11', '2027-03-01', 520, 0)).toEqual(periodStateOf('2026-11', '2026-12-01', 520, 0));
    expect(periodStateOf('2026-02', '2026-01-10', 0, 0)).toEqual({ state: 'not_run', as_of: '2026-01-10', closes_on: '2026-02-28', open_collections: 0 });
  });
});

describe('the Premia-Period-State header', () => {
  it('round-trips, and anything else is ignored (null)', () => {
    const s = periodStateOf('2026-11', '2026-11-10', 520, 275);
    expect(formatPeriodStateHeader(s)).toBe('open; as_of=2026-11-10; closes_on=2026-11-30; open_collections=275');
    expect(parsePeriodStateHeader(formatPeriodStateHeader(s))).toEqual(s);
    for (const bad of [undefined, '', 'final', 'open', 'open; as_of=2026-11-31; closes_on=2026-11-30; open_collections=1', 'closed; as_of=2026-11-30; closes_on=2026-11-30; open_collections=-1']) {
      expect(parsePeriodStateHeader(bad), String(bad)).toBeNull();
    }
  });
});

describe('periodStateNote', () => {
  it('says why a report is not final, with the plural right; nothing for a closed one', () => {
    expect(periodStateNote('2026-11', periodStateOf('2026-11', '2026-11-10', 9, 1275))).toBe(
      '2026-11 is open: the clock is at 2026-11-10; 1,275 collections are not paid in full yet (the report is final once 2026-11-30 has run).',
    );
    expect(periodStateNote('2026-11', periodStateOf('2026-11', '2026-11-28', 9, 0))).toBe(
      '2026-11 is open: the clock is at 2026-11-28; every one of its collections is paid in full or cancelled, but more may be queued (the report is final once 2026-11-30 has run).',
    );
    expect(periodStateNote('2026-11', periodStateOf('2026-11', '2026-12-01', 9, 0))).toBeNull();
  });
});
