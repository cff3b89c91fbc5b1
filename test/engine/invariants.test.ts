/**
 * Invariants over many seeds, books and strategies (fast-check):
 *  - collected = sum of the collection's successful attempts ≤ due; shortfall = due − collected;
 *    number_of_attempts = attempts made; no two attempts of a collection on one day; the status
 *    agrees with the amounts; at most 4 failed attempts (smart) per policy and month;
 *  - every account's balance stays ≥ 0 (bank show replays the account and re-checks every stored
 *    outcome against the ledger);
 *  - the same seed and inputs give byte-identical attempts and collections.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allCollections, localBackend, readDownload, textUpload } from '../helpers/local.js';

interface Book {
  seed: number;
  strategy: 'smart' | 'naive' | 'oracle';
  policies: Array<{ customer: number; premium: number }>;
}

const book = fc.record({
  seed: fc.integer({ min: 0, max: 999_999 }),
  strategy: fc.constantFrom('smart' as const, 'naive' as const, 'oracle' as const),
  policies: fc.array(fc.record({ customer: fc.integer({ min: 1, max: 8 }), premium: fc.integer({ min: 1_000, max: 900_000 }) }), {
    minLength: 1,
    maxLength: 14,
  }),
});

async function runMonths(b: Book) {
  const backend = await localBackend({ seed: b.seed });
  const csv = [
    'customer_id,external_customer_ref,policy_number,product_code,collection_amount',
    ...b.policies.map((p, i) => `CU${p.customer},EXT${p.customer},PN-${String(i).padStart(3, '0')},LIFE,${(p.premium / 100).toFixed(2)}`),
  ].join('\n');
  await backend.setClock('2026-10-31');
  await backend.importPolicies(textUpload('book.csv', csv));
  await backend.executeCollections({ period_month: '2026-11', strategy: b.strategy });
  await backend.advanceClock({ to: '2026-11-30' });
  await backend.executeCollections({ period_month: '2026-12', strategy: b.strategy });
  await backend.advanceClock({ to: '2026-12-31' });
  const out = {
    backend,
    attempts: (await readDownload(await backend.exportAttempts('2026-11', 'csv'))) + (await readDownload(await backend.exportAttempts('2026-12', 'csv'))),
    collections: [...(await allCollections(backend, '2026-11')), ...(await allCollections(backend, '2026-12'))],
  };
  return out;
}

describe('engine invariants', () => {
  it('hold for every collection and account, and runs are deterministic', async () => {
    await fc.assert(
      fc.asyncProperty(book, async (b) => {
        const first = await runMonths(b);
        const attempts = first.attempts
          .split('\n')
          .filter((l) => l !== '' && !l.startsWith('collection_id'))
          .map((l) => l.split(','));
        for (const c of first.collections) {
          const mine = attempts.filter((a) => a[0] === c.id);
          const succeeded = mine.filter((a) => a[5] === 'SUCCESS').reduce((s, a) => s + Math.round(Number(a[4]) * 100), 0);
          expect(c.collection_amount_collected).toBe(succeeded);
          expect(c.collection_amount_collected).toBeLessThanOrEqual(c.collection_amount_due);
          expect(c.shortfall).toBe(c.collection_amount_due - c.collection_amount_collected);
          expect(c.number_of_attempts).toBe(mine.length);
          expect(new Set(mine.map((a) => a[3])).size).toBe(mine.length);
          const failed = mine.filter((a) => a[5] === 'FAILED').length;
          if (b.strategy === 'smart') expect(failed).toBeLessThanOrEqual(4);
          if (b.strategy === 'naive') expect(mine.length).toBeLessThanOrEqual(4);
          if (b.strategy === 'oracle') expect(failed).toBe(0);
          const status =
            c.collection_amount_collected === c.collection_amount_due ? 'PAID_FULL' : c.collection_amount_collected > 0 ? 'PAID_PARTIAL' : 'UNPAID';
          expect(c.collection_status).toBe(status);
          expect(c.first_attempt_date === null).toBe(mine.length === 0);
        }
        for (const customer of new Set(b.policies.map((p) => p.customer))) {
          const view = await first.backend.showBankAccount(`CU${customer}`);
          expect(view.balance).toBeGreaterThanOrEqual(0);
          for (const t of view.recent_transactions) expect(t.balance).toBeGreaterThanOrEqual(0);
        }
        await first.backend.close();
        const again = await runMonths(b);
        expect(again.attempts).toBe(first.attempts);
        expect(JSON.stringify(again.collections)).toBe(JSON.stringify(first.collections));
        await again.backend.close();
      }),
      { numRuns: 25 },
    );
  });
});
