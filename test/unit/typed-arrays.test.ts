import { describe, expect, it } from 'vitest';
import { grown, PackedStrings } from '../../src/domain/typed-arrays.js';

describe('grown', () => {
  it('keeps what the array held and at least doubles it', () => {
    const a = Int32Array.of(7, 8, 9);
    const b = grown(a, 4);
    expect(b.length).toBe(6);
    expect(Array.from(b)).toEqual([7, 8, 9, 0, 0, 0]);
    expect(grown(b, 6)).toBe(b);
  });
});

describe('PackedStrings', () => {
  it('gives back each string pushed, across growth', () => {
    const p = new PackedStrings();
    const ids = Array.from({ length: 5000 }, (_, i) => `C${String(i).padStart(7, '0')}`);
    ids.push('', 'x', 'POL-1/2_3.4');
    for (const s of ids) p.push(s);
    expect(p.length).toBe(ids.length);
    expect(Array.from({ length: p.length }, (_, i) => p.get(i))).toEqual(ids);
  });

  it('keeps strings that are not ASCII, before and after ASCII ones', () => {
    const p = new PackedStrings();
    const ids = ['A1', 'Zoë-7', 'B2', '日本-3', '😀', 'C3'];
    for (const s of ids) p.push(s);
    expect(Array.from({ length: p.length }, (_, i) => p.get(i))).toEqual(ids);
  });

  it('refuses an index it does not hold', () => {
    const p = new PackedStrings();
    p.push('A');
    expect(() => p.get(1)).toThrow('no string 1 of 1');
    expect(() => p.get(-1)).toThrow(RangeError);
  });
});
