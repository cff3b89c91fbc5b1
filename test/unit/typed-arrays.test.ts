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

  it('copies ASCII strings as they are kept, and says when they are not ASCII', () => {
    const p = new PackedStrings();
    for (const s of ['CUST-1', '', 'POL/2']) p.push(s);
    const out = new Uint8Array(16).fill(42);
    expect([p.asciiInto(0, out, 0), p.asciiInto(1, out, 6), p.asciiInto(2, out, 6)]).toEqual([6, 0, 5]);
    expect(new TextDecoder().decode(out.subarray(0, 11))).toBe('CUST-1POL/2');
    // No room: the length, nothing written.
    expect(p.asciiInto(0, out, 12)).toBe(6);
    expect(Array.from(out.subarray(11))).toEqual([42, 42, 42, 42, 42]);
    p.push('Zoë');
    expect(p.asciiInto(0, out, 0)).toBe(-1);
    expect(() => new PackedStrings().asciiInto(0, out, 0)).toThrow('no string 0 of 0');
  });

  it('refuses an index it does not hold', () => {
    const p = new PackedStrings();
    p.push('A');
    expect(() => p.get(1)).toThrow('no string 1 of 1');
    expect(() => p.get(-1)).toThrow(RangeError);
  });
});
