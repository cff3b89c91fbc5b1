/**
 * The engine's sort of a day's rows (engine/day-rows.ts orderBy): 0 .. n - 1 by a whole-number
 * key, equal keys in their order, against Array.prototype.sort (stable) on the same keys.
 */
import { describe, expect, it } from 'vitest';
import { orderBy } from '../../src/engine/day-rows.js';
import { Rng } from '../../src/domain/hash.js';

function reference(keys: readonly number[]): number[] {
  return keys.map((_, j) => j).sort((a, b) => keys[a]! - keys[b]!);
}

describe('orderBy', () => {
  it('orders nothing, one row, and rows already in order', () => {
    expect([...orderBy(0, () => 0)]).toEqual([]);
    expect([...orderBy(1, () => 7)]).toEqual([0]);
    expect([...orderBy(5, (j) => j * 3)]).toEqual([0, 1, 2, 3, 4]);
  });

  it('orders by the key, equal keys in their order, keys of every size up to 2^31 - 1', () => {
    expect([...orderBy(6, (j) => [5, 0, 5, 2 ** 31 - 1, 0, 2048][j]!)]).toEqual([1, 4, 0, 2, 5, 3]);
    const rng = new Rng(20261129);
    for (const [n, bound] of [
      [1000, 10],
      [5000, 2048],
      [5000, 2 ** 22],
      [3000, 2 ** 31],
    ] as const) {
      const keys = Array.from({ length: n }, () => Math.floor(rng.next() * bound));
      expect([...orderBy(n, (j) => keys[j]!)]).toEqual(reference(keys));
    }
  });
});
