/** The live lines of clock advance and policies import (output/live.ts), exact. */
import { describe, expect, it } from 'vitest';
import { advanceLine, bar, ImportProgressLine, percent, rowsPerSecond } from '../../src/cli/output/live.js';

describe('live lines', () => {
  it('bar and percent', () => {
    expect(bar(0, 10)).toBe('[░░░░░░░░░░░░░░░░░░░░]');
    expect(bar(5, 10)).toBe('[██████████░░░░░░░░░░]');
    expect(bar(10, 10)).toBe('[████████████████████]');
    expect(bar(3, 7, 7)).toBe('[███░░░░]');
    expect(percent(1, 3)).toBe(33);
    expect(percent(999, 1000)).toBe(99);
    expect(percent(3, 3)).toBe(100);
  });

  it('clock advance: day X of Y, the bar, the running total grouped by thousands', () => {
    expect(advanceLine(12, 30, '2026-11-12', 1, 1234567)).toBe('Day 12 of 30 (2026-11-12) [████████░░░░░░░░░░░░] 40% · 1 attempt · 12,345.67 collected so far');
  });

  it('policies import: rows, rows/s once a second has passed, a percentage that never goes back and stops at 99', () => {
    const line = new ImportProgressLine('policies.csv', 1000);
    expect(line.line(0, 100, 10)).toBe('Importing policies.csv [██░░░░░░░░░░░░░░░░░░] 10% · 0 rows');
    expect(line.line(20_000, 500, 2000)).toBe('Importing policies.csv [██████████░░░░░░░░░░] 50% · 20,000 rows · 10,000 rows/s');
    // Bytes that go back (another source's count) do not move the bar back.
    expect(line.line(20_001, 400, 2000)).toBe('Importing policies.csv [██████████░░░░░░░░░░] 50% · 20,001 rows · 10,001 rows/s');
    expect(line.line(40_000, 1000, 4000)).toBe('Importing policies.csv [███████████████████░] 99% · 40,000 rows · 10,000 rows/s');
    expect(new ImportProgressLine('-', undefined).line(1, 50, 5000)).toBe('Importing -: 1 row · 0 rows/s');
    expect(rowsPerSecond(5, 999)).toBeNull();
  });
});
