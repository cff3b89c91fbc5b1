/**
 * The table of policy numbers a PostgreSQL import into a client without policies keeps, so a
 * number the file repeats is answered DUPLICATE_IN_FILE before its row is sent (policy-import-pg.ts).
 */
import { describe, expect, it } from 'vitest';
import { PolicyNumbers } from '../../src/store/repos/policy-import-pg.js';

describe('PolicyNumbers', () => {
  it('gives the line of the row that took a number first, -1 for a new one', () => {
    const t = new PolicyNumbers();
    const bytes = Buffer.from('xPOL-1,POL-12,POL-1,POL-2,,POL-12', 'latin1');
    expect(t.firstLine(bytes, 1, 6, 2)).toBe(-1); // POL-1
    expect(t.firstLine(bytes, 7, 13, 3)).toBe(-1); // POL-12: POL-1 is its start, not it
    expect(t.firstLine(bytes, 14, 19, 4)).toBe(2); // POL-1 again
    expect(t.firstLine(bytes, 20, 25, 5)).toBe(-1); // POL-2
    expect(t.firstLine(bytes, 26, 26, 6)).toBe(-1); // the empty number
    expect(t.firstLine(bytes, 27, 33, 7)).toBe(3); // POL-12 again
    expect(t.firstLine(bytes, 14, 19, 8)).toBe(2); // still the first row's
  });

  it('keeps every number across growth, as a Map of strings would', () => {
    const t = new PolicyNumbers();
    const seen = new Map<string, number>();
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let line = 2; line < 200_000; line++) {
      const text = `P${next() % 150_000}${line % 3 === 0 ? '-X' : ''}`;
      const bytes = Buffer.from(`,${text},`, 'latin1');
      const want = seen.get(text) ?? -1;
      if (want === -1) seen.set(text, line);
      const got = t.firstLine(bytes, 1, bytes.length - 1, line);
      if (got !== want) expect({ text, got }).toEqual({ text, got: want });
    }
    expect(seen.size).toBeGreaterThan(100_000);
  });
});
