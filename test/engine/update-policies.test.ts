/**
 * Backend.updatePolicies: several policies updated as updatePolicy updates each, locally in one
 * transaction (all or none: the simulation's monthly events), remotely one request each in order.
 */
import { describe, expect, it } from 'vitest';
import type { LocalBackend } from '../../src/backend/local/index.js';
import { RemoteBackend } from '../../src/backend/remote/index.js';
import type { Policy, PolicyPatch } from '../../src/backend/types.js';
import { PremiaError } from '../../src/domain/errors.js';
import { asCents } from '../../src/domain/money.js';
import { allCollections, localBackend, textUpload } from '../helpers/local.js';

const POLICIES = `customer_id,external_customer_ref,policy_number,product_code,collection_amount
K1,E1,P-1,LIFE,500.00
K2,E2,P-2,LIFE,300.00
K3,E3,P-3,FUNERAL,99.00
`;

/** The three policies on a store in memory, November queued (the clock on 2026-10-31). */
async function setup(): Promise<LocalBackend> {
  const b = await localBackend({ seed: 1 });
  await b.setClock('2026-10-31');
  expect((await b.importPolicies(textUpload('p.csv', POLICIES))).imported).toBe(3);
  await b.executeCollections({ period_month: '2026-11' });
  return b;
}

const UPDATES: Array<{ ref: string; patch: PolicyPatch }> = [
  { ref: 'P-1', patch: { collection_amount: asCents(55_000) } },
  { ref: 'P-2', patch: { status: 'cancelled' } },
  { ref: 'P-3', patch: { collection_amount: asCents(12_000) } },
];

/** What a store holds of its policies and November's collections (timestamps left out: the wall clock's). */
async function state(b: LocalBackend) {
  const policies = [];
  for (const ref of ['P-1', 'P-2', 'P-3']) {
    const { updated_at: _u, created_at: _c, ...p } = await b.getPolicy(ref);
    policies.push(p);
  }
  const collections = (await allCollections(b, '2026-11')).map((c) => [c.policy_number, c.collection_amount_due, c.collection_status]);
  return { policies, collections };
}

const code = async (p: Promise<unknown>) => p.then(() => 'OK', (e: PremiaError) => e.code);

describe('updatePolicies', () => {
  it('locally: what updatePolicy gives one by one, in one go', async () => {
    const one = await setup();
    const each: Policy[] = [];
    for (const u of UPDATES) each.push(await one.updatePolicy(u.ref, u.patch));
    const batch = await setup();
    const all = await batch.updatePolicies(UPDATES);
    const plain = (ps: Policy[]) => ps.map(({ updated_at: _u, created_at: _c, ...p }) => p);
    expect(plain(all)).toEqual(plain(each));
    expect(all.map((p) => [p.policy_number, p.collection_amount, p.status])).toEqual([
      ['P-1', 55_000, 'active'],
      ['P-2', 30_000, 'cancelled'],
      ['P-3', 12_000, 'active'],
    ]);
    const after = await state(batch);
    expect(after).toEqual(await state(one));
    // The new premiums from November, whose collections were not attempted yet: repriced;
    // P-2's cancelled with the policy.
    expect(after.collections).toEqual([
      ['P-1', 55_000, 'UNPAID'],
      ['P-2', 30_000, 'CANCELLED'],
      ['P-3', 12_000, 'UNPAID'],
    ]);
    expect(after.policies.map((p) => [p.amount_history.length, p.status_history.length])).toEqual([
      [1, 0],
      [0, 1],
      [1, 0],
    ]);
  });

  it('locally: all or none; a patch with nothing to change is refused before anything', async () => {
    const b = await setup();
    const before = await state(b);
    // The third cannot be made (a cancelled policy's premium no longer changes): the first two are not kept.
    expect(await code(b.updatePolicies([...UPDATES.slice(0, 2), { ref: 'P-2', patch: { collection_amount: asCents(10_000) } }]))).toBe('INVALID_TRANSITION');
    expect(await state(b)).toEqual(before);
    expect(await code(b.updatePolicies([UPDATES[0]!, { ref: 'P-3', patch: {} }]))).toBe('VALIDATION_ERROR');
    expect(await code(b.updatePolicies([UPDATES[0]!, { ref: 'P-404', patch: { status: 'cancelled' } }]))).toBe('NOT_FOUND');
    expect(await state(b)).toEqual(before);
    expect(await b.updatePolicies([])).toEqual([]);
  });

  it('remotely: one request each, in order, stopping at the first refused', async () => {
    const sent: string[] = [];
    const remote = {
      updatePolicy: async (ref: string, patch: PolicyPatch) => {
        sent.push(`${ref} ${JSON.stringify(patch)}`);
        if (ref === 'P-2') throw new PremiaError('INVALID_TRANSITION', 'refused');
        return { policy_number: ref } as Policy;
      },
    };
    const updates = RemoteBackend.prototype.updatePolicies.bind(remote as unknown as RemoteBackend);
    expect(await updates([UPDATES[0]!, UPDATES[2]!])).toEqual([{ policy_number: 'P-1' }, { policy_number: 'P-3' }]);
    expect(await code(updates(UPDATES))).toBe('INVALID_TRANSITION');
    expect(sent).toEqual(['P-1 {"collection_amount":55000}', 'P-3 {"collection_amount":12000}', 'P-1 {"collection_amount":55000}', 'P-2 {"status":"cancelled"}']);
  });
});
