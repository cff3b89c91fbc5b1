/** CaseTwins: the named customer ids no policy names that differ from a policy's only in letter case or leading zeros. */
import { describe, expect, it } from 'vitest';
import { CaseTwins, caseMismatches, describeCaseMismatches } from '../../src/domain/customer-case.js';

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

  // A spreadsheet that took 00123 for a number wrote 123: only ids of digits alone lose zeros.
  it('an id of digits alone without the leading zeros of a policy\'s, either way round', () => {
    expect(twinsOf(['123', '00456', '0', 'C7', '089'], ['00123', '456', '000', 'C007', '89', '089'])).toEqual({ '123': '00123', '00456': '456', '0': '000' });
  });

  it('says which kind of look-alike the ids are', () => {
    const one = (customer_id: string, policy_customer_id: string, row: number) => ({ customer_id, policy_customer_id, row });
    expect(describeCaseMismatches({ total: 1, first: [one('123', '00123', 2)] }, 'bank.csv')).toBe(
      "1 customer id of bank.csv has no policy but differs only in leading zeros from a policy's customer id (customer ids are compared exactly; " +
        "a spreadsheet drops a number's leading zeros): 123 (row 2) where a policy has 00123",
    );
    expect(describeCaseMismatches({ total: 2, first: [one('c1', 'C1', 2), one('123', '00123', 3)] }, 'bank.csv')).toBe(
      "2 customer ids of bank.csv have no policy but differ only in letter case or leading zeros from a policy's customer id (customer ids are compared exactly; " +
        "a spreadsheet drops a number's leading zeros): c1 (row 2) where a policy has C1; 123 (row 3) where a policy has 00123",
    );
    expect(describeCaseMismatches({ total: 1, first: [one('c1', 'C1', 2)] }, 'bank.csv')).toBe(
      "1 customer id of bank.csv has no policy but differs only in letter case from a policy's customer id (customer ids are case-sensitive): c1 (row 2) where a policy has C1",
    );
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
