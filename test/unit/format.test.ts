import { describe, expect, it } from 'vitest';
import { count, percentOf, plural } from '../../src/cli/output/format.js';

describe('count groups digits in threes for people', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [999, '999'],
    [1000, '1,000'],
    [12345, '12,345'],
    [999999, '999,999'],
    [1000000, '1,000,000'],
    [1234567, '1,234,567'],
    [-1234, '-1,234'],
    [-999, '-999'],
  ])('%d → %s', (n, text) => {
    expect(count(n)).toBe(text);
  });

  it('agrees with en-US grouping across magnitudes', () => {
    for (let n = 1; n < 1e15; n = n * 7 + 3) expect(count(n)).toBe(n.toLocaleString('en-US'));
  });

  it('plural uses it', () => {
    expect(plural(1, 'row')).toBe('1 row');
    expect(plural(1200, 'row')).toBe('1,200 rows');
    expect(plural(2, 'policy', 'policies')).toBe('2 policies');
  });
});

describe('percentOf rounds once, from the amounts', () => {
  it.each([
    [0, 0, '0.0%'],
    [48_601_262, 51_898_309, '93.6%'],
    [1, 3, '33.3%'],
    [2, 3, '66.7%'],
    // 8.345%: a rate first rounded to 0.0835 would read 8.4%; from the amounts it is 8.3%, as
    // simulate prints it for the same month.
    [8_345, 100_000, '8.3%'],
    [100, 100, '100.0%'],
    // Short of the whole is never 100.0%, more than nothing never 0.0%.
    [100_000, 100_010, '99.9%'],
    [200_140_964, 200_190_964, '99.9%'],
    [1, 100_000, '0.1%'],
  ])('%d of %d → %s', (part, whole, text) => {
    expect(percentOf(part, whole)).toBe(text);
  });
});
