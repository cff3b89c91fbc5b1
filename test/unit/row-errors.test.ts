import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_REPORTED_ERRORS, RowErrors } from '../../src/backend/local/row-errors.js';

describe('RowErrors: the first errors by row, bounded', () => {
  it('keeps every error when there are at most the limit, sorted by row (stable within a row)', () => {
    const e = new RowErrors<{ row: number; k: string }>(5);
    for (const [row, k] of [[4, 'a'], [2, 'b'], [4, 'c'], [9, 'd'], [2, 'e']] as const) e.push({ row, k });
    expect(e.result()).toEqual({ errors: [{ row: 2, k: 'b' }, { row: 2, k: 'e' }, { row: 4, k: 'a' }, { row: 4, k: 'c' }, { row: 9, k: 'd' }] });
  });

  it('beyond the limit keeps the lowest rows and counts the rest (any arrival order)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 500 }), { maxLength: 300 }), fc.integer({ min: 1, max: 40 }), (rows, limit) => {
        const e = new RowErrors<{ row: number; i: number }>(limit);
        rows.forEach((row, i) => e.push({ row, i }));
        const expected = rows.map((row, i) => ({ row, i })).sort((a, b) => a.row - b.row).slice(0, limit);
        const omitted = rows.length - expected.length;
        expect(e.result()).toEqual(omitted > 0 ? { errors: expected, errors_omitted: omitted } : { errors: expected });
      }),
      { numRuns: 500 },
    );
  });

  it('resultBefore: the first errors of one kind, then of the other in the room left, in row order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 500 }), fc.boolean()), { maxLength: 300 }), fc.integer({ min: 1, max: 40 }), (rows, limit) => {
        const first = new RowErrors<{ row: number; i: number }>(limit);
        const rest = new RowErrors<{ row: number; i: number }>(limit);
        // A row's errors are of one kind: its row number decides it.
        rows.forEach(([row], i) => (row % 3 === 0 ? first : rest).push({ row, i }));
        const all = rows.map(([row], i) => ({ row, i })).sort((a, b) => a.row - b.row);
        const firsts = all.filter((e) => e.row % 3 === 0).slice(0, limit);
        const rests = all.filter((e) => e.row % 3 !== 0).slice(0, limit - firsts.length);
        const expected = [...firsts, ...rests].sort((a, b) => a.row - b.row);
        const omitted = rows.length - expected.length;
        expect(first.resultBefore(rest)).toEqual(omitted > 0 ? { errors: expected, errors_omitted: omitted } : { errors: expected });
      }),
      { numRuns: 500 },
    );
  });

  it('the limit is 10,000', () => {
    expect(MAX_REPORTED_ERRORS).toBe(10_000);
  });
});
