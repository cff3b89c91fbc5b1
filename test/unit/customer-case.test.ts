/** CaseTwins: the named customer ids no policy names that differ from a policy's only in letter case. */
import { describe, expect, it } from 'vitest';
import { CaseTwins, caseMismatches } from '../../src/domain/customer-case.js';

function twinsOf(named: string[], policies: string[]): Record<string, string> {
  const twins = new CaseTwins(named);
  for (const id of policies) twins.policy(id);
  return Object.fromEntries(twins.mismatches());
}

describe('CaseTwins', () => {
  it('finds an id only where no policy names it exactly', () => {
    expect(twinsOf(['c1', 'C2', 'c3', 'X'], ['C1', 'C1', 'c2', 'C3', 'c3', 'Y'])).toEqual({ c1: 'C1', C2: 'c2' });
  });

  it('keeps the named ids that share a lower case apart', () => {
    expect(twinsOf(['ab', 'AB', 'Ab'], ['aB', 'AB'])).toEqual({ ab: 'aB', Ab: 'aB' });
  });

  it('nothing named: empty, and nothing found', () => {
    const twins = new CaseTwins([]);
    expect(twins.empty).toBe(true);
    twins.policy('A');
    expect(twins.mismatches().size).toBe(0);
    expect(caseMismatches(new Map())).toBeUndefined();
  });

  it('a hundred thousand of each side in one pass (a lookup each, never every pair)', () => {
    const n = 100_000;
    const named = Array.from({ length: n }, (_, i) => (i % 1000 === 0 ? `c${i}` : `C${i}`));
    const policies = Array.from({ length: n }, (_, i) => `C${i}`);
    const found = new CaseTwins(named);
    for (const id of policies) found.policy(id);
    const m = caseMismatches(found.mismatches(), (id) => Number(id.slice(1)) + 2);
    expect(m?.total).toBe(100);
    expect(m?.first.slice(0, 2)).toEqual([
      { row: 2, customer_id: 'c0', policy_customer_id: 'C0' },
      { row: 1002, customer_id: 'c1000', policy_customer_id: 'C1000' },
    ]);
    expect(m?.first.length).toBe(10);
  });
});
