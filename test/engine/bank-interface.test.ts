/**
 * The engine collects through the Bank port (src/engine/ports.ts), not through the simulated
 * bank directly: a bank put in its place decides the outcomes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { simulatedBankOn } from '../../src/backend/local/engine.js';
import type { Bank, BankAccounts } from '../../src/engine/ports.js';
import type { Store } from '../../src/store/store.js';
import { allCollections, FIXED_NOW, fixtureMonth, localBackend } from '../helpers/local.js';

const open: LocalBackend[] = [];
afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});

/** The simulated accounts, but the bank answers every debit of `frozen` customers with ACCOUNT_FROZEN. */
function freezingBank(frozen: Set<string>, calls: { opened: number; lived: Map<string, number> }): (store: Store) => Bank {
  return (store) => {
    const simulated = simulatedBankOn(store);
    return {
      async openAccounts(customers, today, posted) {
        calls.opened += customers.customerId.length;
        const inner = await simulated.openAccounts(customers, today, posted);
        const wrapped: BankAccounts = Object.create(inner) as BankAccounts;
        Object.assign(wrapped, {
          blockedOn: (i: number, day: number) => (frozen.has(inner.customerIdOf(i)) ? 'ACCOUNT_FROZEN' : inner.blockedOn(i, day)),
          live: (i: number, debits: Parameters<BankAccounts['live']>[1], outcomes: Parameters<BankAccounts['live']>[2], facts: Parameters<BankAccounts['live']>[3]) => {
            calls.lived.set(inner.customerIdOf(i), (calls.lived.get(inner.customerIdOf(i)) ?? 0) + 1);
            const result = inner.live(i, debits, outcomes, facts);
            if (frozen.has(inner.customerIdOf(i))) for (let j = 0; j < result.premiaDebits; j++) outcomes[j] = 'ACCOUNT_FROZEN';
            return result;
          },
        });
        return wrapped;
      },
    };
  };
}

describe('the Bank interface', () => {
  it("another bank's outcomes are the collections' outcomes", async () => {
    const calls = { opened: 0, lived: new Map<string, number>() };
    const b = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW, bank: freezingBank(new Set(['C100001', 'C100003']), calls) });
    open.push(b);
    await fixtureMonth(b, { bank: false });
    expect(calls.opened).toBe(400); // every customer of the book, once (one process, one advance)
    // Each frozen customer lived through the port up to its first debit (2026-11-02), whose
    // ACCOUNT_FROZEN blocks its collections: nothing more to do this month, it sleeps (awake.ts).
    expect([calls.lived.get('C100001'), calls.lived.get('C100003')]).toEqual([2, 2]);
    const rows = await allCollections(b, '2026-11');
    const frozen = rows.filter((c) => c.customer_id === 'C100001' || c.customer_id === 'C100003');
    expect(frozen.length).toBeGreaterThan(0);
    for (const c of frozen) {
      expect([c.collection_status, c.collection_amount_collected, c.last_failure_reason]).toEqual(['UNPAID', 0, 'ACCOUNT_FROZEN']);
    }
    // Everyone else as on the simulated bank.
    const plain = await localBackend();
    open.push(plain);
    await fixtureMonth(plain, { bank: false });
    const expected = (await allCollections(plain, '2026-11')).filter((c) => c.customer_id !== 'C100001' && c.customer_id !== 'C100003');
    expect(rows.filter((c) => c.customer_id !== 'C100001' && c.customer_id !== 'C100003')).toEqual(expected);
  });
});
