/**
 * Test data for reports and settlements without the collections engine: clients, policies, an
 * execution and collection rows inserted directly with kysely, and the virtual clock set
 * through the meta table (`clock_date`).
 */
import { join } from 'node:path';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import type { CollectionStatus } from '../../src/backend/types.js';
import { Rng } from '../../src/domain/hash.js';
import { setMeta } from '../../src/store/repos/meta.js';
import type { Store } from '../../src/store/store.js';
import { asCents } from '../../src/domain/money.js';

// The wall clock the day after the store's: a new store's clock starts on the day before today
// (backend/local/world.ts), so stores made under it are at 2026-11-21 and stamp 2026-11-21T09:30.
export const TEST_NOW = () => new Date('2026-11-22T09:30:00.000Z');

export interface SeedCollection {
  policy_number: string;
  customer_id?: string;
  external_customer_ref?: string;
  product_code?: string;
  /** Cents. */
  due: number;
  /** Cents. */
  collected: number;
  /** Derived from the amounts when absent. */
  status?: CollectionStatus;
  first_attempt_date?: string | null;
  last_attempt_date?: string | null;
  attempts?: number;
  failed_attempts?: number;
  last_failure_reason?: string | null;
}

/** Open (creating) a store file with the test wall clock; the caller closes it. */
export async function openTestBackend(path: string, seed = 1): Promise<LocalBackend> {
  return openLocalBackend({ path, seed, now: TEST_NOW });
}

export function dbPath(dir: string): string {
  return join(dir, 'premia.db');
}

export async function setClock(store: Store, date: string): Promise<void> {
  await setMeta(store.db, 'clock_date', date);
}

/** A second client in the same store (the server's multi-client case). */
export async function ensureClient(store: Store, id: number, name: string): Promise<void> {
  const found = await store.db.selectFrom('clients').select('id').where('id', '=', id).executeTakeFirst();
  if (!found) await store.db.insertInto('clients').values({ id, name, created_at: 0 }).execute();
}

function statusOf(c: SeedCollection): CollectionStatus {
  if (c.status) return c.status;
  if (c.collected === c.due) return 'PAID_FULL';
  return c.collected === 0 ? 'UNPAID' : 'PAID_PARTIAL';
}

/**
 * Insert one execution and a collection per row for `period`, in the order given (tests pass
 * them unsorted: the report's order must come from the index). Policies are created when
 * missing. Returns the collection rowids in the order given.
 */
export async function seedCollections(
  store: Store,
  period: string,
  rows: readonly SeedCollection[],
  options: { clientId?: number } = {},
): Promise<number[]> {
  const clientId = options.clientId ?? 1;
  return store.transaction(async (trx) => {
    const execution = await trx
      .insertInto('executions')
      .values({
        client_id: clientId,
        period_month: period,
        strategy: 'test',
        status: 'completed',
        policies_queued: rows.length,
        created_at: Date.UTC(2026, 10, 1),
        completed_at: null,
      })
      .executeTakeFirstOrThrow();
    const executionId = Number(execution.insertId);
    const ids: number[] = [];
    for (const c of rows) {
      const customer_id = c.customer_id ?? `C-${c.policy_number}`;
      const external_customer_ref = c.external_customer_ref ?? `EXT-${c.policy_number}`;
      const product_code = c.product_code ?? 'FUNERAL_BASIC';
      let policy = await trx
        .selectFrom('policies')
        .select('id')
        .where('client_id', '=', clientId)
        .where('policy_number', '=', c.policy_number)
        .executeTakeFirst();
      if (!policy) {
        const inserted = await trx
          .insertInto('policies')
          .values({
            client_id: clientId,
            policy_number: c.policy_number,
            customer_id,
            external_customer_ref,
            product_code,
            collection_amount: asCents(c.due),
            status: c.status === 'CANCELLED' ? 'cancelled' : 'active',
            created_at: 0,
            updated_at: 0,
          })
          .executeTakeFirstOrThrow();
        policy = { id: Number(inserted.insertId) };
      }
      const attempts = c.attempts ?? (c.collected > 0 ? 1 : 0);
      const result = await trx
        .insertInto('collections')
        .values({
          client_id: clientId,
          execution_id: executionId,
          policy_id: policy.id,
          period_month: period,
          customer_id,
          external_customer_ref,
          policy_number: c.policy_number,
          product_code,
          amount_due: asCents(c.due),
          amount_collected: asCents(c.collected),
          status: statusOf(c),
          first_attempt_date: c.first_attempt_date ?? null,
          last_attempt_date: c.last_attempt_date ?? null,
          attempts,
          failed_attempts: c.failed_attempts ?? 0,
          last_failure_reason: c.last_failure_reason ?? null,
        })
        .executeTakeFirstOrThrow();
      ids.push(Number(result.insertId));
    }
    return ids;
  });
}

/**
 * `n` random collections from a seed: premiums from 0.01 to 5000.00 (a few shared amounts, so
 * remainders tie), any collected amount from nothing to the full premium.
 */
export function randomCollections(seed: number, n: number): SeedCollection[] {
  const rng = new Rng(seed);
  const shared = [14950, 9999, 20000, 1, 33333];
  const rows: SeedCollection[] = [];
  for (let i = 0; i < n; i++) {
    const due = rng.next() < 0.3 ? rng.pick(shared) : rng.int(1, 500_000);
    const roll = rng.next();
    const collected = roll < 0.5 ? due : roll < 0.7 ? 0 : rng.int(1, due);
    rows.push({ policy_number: `P${String(rng.int(0, 99_999_999)).padStart(8, '0')}-${i}`, due, collected });
  }
  return rows;
}

/**
 * The fixture period used by the report and settlement tests: five collections of 2026-11 for
 * the local client, inserted out of policy_number order, one with a comma and quotes in its
 * reference; plus rows that must NOT appear (another period, another client).
 * Collected total 199.51.
 */
export const FIXTURE_PERIOD = '2026-11';

/** The five collections of the fixture period (client 1's view); other helpers seed them for other clients. */
export const FIXTURE_PERIOD_ROWS: readonly SeedCollection[] = [
  {
    policy_number: 'POL-0003', customer_id: 'C100003', external_customer_ref: 'EXT-3', due: 9999, collected: 0,
    first_attempt_date: '2026-11-02', last_attempt_date: '2026-11-27', attempts: 4, failed_attempts: 4, last_failure_reason: 'INSUFFICIENT_FUNDS',
  },
  { policy_number: 'POL-0010', customer_id: 'C100010', external_customer_ref: 'EXT-10', product_code: 'MICRO', due: 1, collected: 1, first_attempt_date: '2026-11-30', last_attempt_date: '2026-11-30', attempts: 1 },
  { policy_number: 'POL-0001', customer_id: 'C100001', external_customer_ref: 'EXT-1', due: 14950, collected: 14950, first_attempt_date: '2026-11-03', last_attempt_date: '2026-11-05', attempts: 2, failed_attempts: 1 },
  { policy_number: 'POL-0004', customer_id: 'C100004', external_customer_ref: 'EXT-4', due: 14950, collected: 0, status: 'CANCELLED' },
  {
    policy_number: 'POL-0002', customer_id: 'C100002', external_customer_ref: 'ACME, "Gold" ref', product_code: 'LIFE_PLUS', due: 20000, collected: 5000,
    first_attempt_date: '2026-11-02', last_attempt_date: '2026-11-28', attempts: 3, failed_attempts: 2, last_failure_reason: 'INSUFFICIENT_FUNDS',
  },
];

export async function seedFixturePeriod(store: Store): Promise<void> {
  await seedCollections(store, FIXTURE_PERIOD, FIXTURE_PERIOD_ROWS);
  await seedCollections(store, '2026-10', [{ policy_number: 'POL-0001', customer_id: 'C100001', external_customer_ref: 'EXT-1', due: 14950, collected: 14950 }]);
  await ensureClient(store, 2, 'Other Client');
  await seedCollections(store, FIXTURE_PERIOD, [{ policy_number: 'POL-0001', due: 777, collected: 777 }], { clientId: 2 });
}
