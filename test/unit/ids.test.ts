import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeId, encodeId, IdKind, looksLikeId } from '../../src/domain/ids.js';

const KINDS = Object.values(IdKind);
const kind = fc.constantFrom(...KINDS);
const salt = fc.integer({ min: 0, max: 0xffffffff });
const rowid = fc.oneof(
  fc.integer({ min: 1, max: 10_000 }),
  fc.integer({ min: 1, max: 0xffffffff }),
  fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
);
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('public ids', () => {
  it('round-trips every rowid, kind and salt, and is a lower-case RFC 9562 version 8 UUID', () => {
    fc.assert(
      fc.property(kind, salt, rowid, (k, s, r) => {
        const id = encodeId(k, s, r);
        expect(id).toMatch(UUID_V8);
        expect(id[14]).toBe('8'); // version nibble
        expect(looksLikeId(id)).toBe(true);
        expect(decodeId(k, s, id)).toBe(r);
      }),
      { numRuns: 3000 },
    );
  });

  it('is deterministic: the same kind, salt and rowid give the same id', () => {
    expect(encodeId(IdKind.policy, 12345, 1)).toBe(encodeId(IdKind.policy, 12345, 1));
    expect(encodeId(IdKind.policy, 12345, 1)).not.toBe(encodeId(IdKind.policy, 12345, 2));
  });

  it('the first 20,000 rowids of one kind and salt give 20,000 different ids', () => {
    const seen = new Set<string>();
    for (let r = 1; r <= 20_000; r++) seen.add(encodeId(IdKind.policy, 7, r));
    expect(seen.size).toBe(20_000);
  });

  it('an id of another kind or another salt decodes to null', () => {
    fc.assert(
      fc.property(kind, kind, salt, salt, rowid, (k1, k2, s1, s2, r) => {
        const id = encodeId(k1, s1, r);
        if (k2 !== k1) expect(decodeId(k2, s1, id)).toBeNull();
        if (s2 !== s1) expect(decodeId(k1, s2, id)).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts the id in upper case', () => {
    fc.assert(
      fc.property(kind, salt, rowid, (k, s, r) => {
        expect(decodeId(k, s, encodeId(k, s, r).toUpperCase())).toBe(r);
      }),
      { numRuns: 500 },
    );
  });

  it('any one mangled hex character makes the id decode to null', () => {
    fc.assert(
      fc.property(kind, salt, rowid, (k, s, r) => {
        const id = encodeId(k, s, r);
        for (let i = 0; i < id.length; i++) {
          if (id[i] === '-') continue;
          for (const c of '0123456789abcdef') {
            if (c === id[i]) continue;
            const mangled = id.slice(0, i) + c + id.slice(i + 1);
            expect(decodeId(k, s, mangled), `${mangled} (position ${i})`).toBeNull();
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it.each([
    '',
    'POL-2026001',
    '00000000-0000-0000-0000-000000000000',
    '898e6ae7-06e7-4999-bab1-4cd0b14d40ea', // version 4 shape
    '898e6ae706e78999bab14cd0b14d40ea', // no dashes
    ' 898e6ae7-06e7-8999-bab1-4cd0b14d40ea',
    '898e6ae7-06e7-8999-bab1-4cd0b14d40ea0',
    '898e6ae7-06e7-8999-bab1-4cd0b14d40eg',
  ])('%j is not an id', (text) => {
    expect(decodeId(IdKind.policy, 12345, text)).toBeNull();
  });

  it('a known id decodes (a regression pin for stored ids)', () => {
    expect(encodeId(IdKind.policy, 12345, 1)).toBe('898e6ae7-06e7-8999-bab1-4cd0b14d40ea');
    expect(decodeId(IdKind.policy, 12345, '898e6ae7-06e7-8999-bab1-4cd0b14d40ea')).toBe(1);
    expect(decodeId(IdKind.collection, 12345, '898e6ae7-06e7-8999-bab1-4cd0b14d40ea')).toBeNull();
  });

  it('rowid 0 is never a valid id', () => {
    expect(decodeId(IdKind.policy, 0, encodeId(IdKind.policy, 0, 0))).toBeNull();
  });

  it('the largest safe rowid round-trips', () => {
    const id = encodeId(IdKind.settlement, 99, Number.MAX_SAFE_INTEGER);
    expect(decodeId(IdKind.settlement, 99, id)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
