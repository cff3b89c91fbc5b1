/** Edit distance and typos: the look-alike client names and command suggestions rest on them. */
import { describe, expect, it } from 'vitest';
import { editDistance, isTypoOf } from '../../src/domain/words.js';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions as one edit each', () => {
    expect(editDistance('acme', 'acme')).toBe(0);
    expect(editDistance('acme', 'acmee')).toBe(1);
    expect(editDistance('acme', 'acm')).toBe(1);
    expect(editDistance('acme', 'acne')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('counts two neighbouring letters swapped as one edit (Levenshtein counted two)', () => {
    expect(editDistance('beta', 'beat')).toBe(1);
    expect(editDistance('Acme Life', 'Acme Lief')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('abcd', 'badc')).toBe(2);
    // Letters further apart are not a swap: two substitutions.
    expect(editDistance('abc', 'cba')).toBe(2);
    expect(editDistance('ca', 'abc')).toBe(3);
  });
});

describe('isTypoOf', () => {
  it('one edit in names of up to 5 characters, two in longer ones; equal names are no typo', () => {
    expect(isTypoOf('beat', 'beta')).toBe(true);
    expect(isTypoOf('acme', 'acme')).toBe(false);
    expect(isTypoOf('acme', 'amce')).toBe(true);
    expect(isTypoOf('acme', 'mace')).toBe(false);
    expect(isTypoOf('Acme Lfie', 'Acme Life')).toBe(true);
    expect(isTypoOf('Acme Lfe', 'Acme Life')).toBe(true);
    expect(isTypoOf('Bravo Assurance', 'Acme Life')).toBe(false);
  });
});
