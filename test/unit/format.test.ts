import { describe, expect, it } from 'vitest';
import { count, plural } from '../../src/cli/output/format.js';

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
