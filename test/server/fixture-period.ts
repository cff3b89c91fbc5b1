/**
 * A closed period for the report and settlement tests of the service, without the engine:
 * collection rows inserted for the two clients of `startServer` (see test/helpers/seed-collections.ts).
 *
 * Acme Life, 2026-11: five collections inserted out of policy_number order, one with a comma and
 * quotes in its reference; collected 199.51 (fees 49.88 + 6.98, VAT 8.53, net 134.12). Acme also
 * has one collection in 2026-10 (not in the 2026-11 report). Other Insure, 2026-11: one
 * collection of 7.77 (never in Acme's answers).
 */
import type { Store } from '../../src/store/store.js';
import { findClientByName } from '../../src/store/repos/clients.js';
import { FIXTURE_PERIOD_ROWS, seedCollections } from '../helpers/seed-collections.js';

export const PERIOD = '2026-11';

export const REPORT_HEADER =
  'period_month,customer_id,external_customer_ref,policy_number,product_code,collection_amount_due,' +
  'collection_amount_collected,shortfall,collection_status,first_attempt_date,last_attempt_date,number_of_attempts,last_failure_reason\n';

/** Acme's 2026-11 report, byte for byte: policy_number order, RFC 4180 quoting, `\n` line ends. */
export const ACME_REPORT_CSV =
  REPORT_HEADER +
  '2026-11,C100001,EXT-1,POL-0001,FUNERAL_BASIC,149.50,149.50,0.00,PAID_FULL,2026-11-03,2026-11-05,2,\n' +
  '2026-11,C100002,"ACME, ""Gold"" ref",POL-0002,LIFE_PLUS,200.00,50.00,150.00,PAID_PARTIAL,2026-11-02,2026-11-28,3,INSUFFICIENT_FUNDS\n' +
  '2026-11,C100003,EXT-3,POL-0003,FUNERAL_BASIC,99.99,0.00,99.99,UNPAID,2026-11-02,2026-11-27,4,INSUFFICIENT_FUNDS\n' +
  '2026-11,C100004,EXT-4,POL-0004,FUNERAL_BASIC,149.50,0.00,149.50,CANCELLED,,,0,\n' +
  '2026-11,C100010,EXT-10,POL-0010,MICRO,0.01,0.01,0.00,PAID_FULL,2026-11-30,2026-11-30,1,\n';

export const OTHER_REPORT_CSV = REPORT_HEADER + '2026-11,C-POL-0001,EXT-POL-0001,POL-0001,FUNERAL_BASIC,7.77,7.77,0.00,PAID_FULL,,,1,\n';

export async function clientIdOf(store: Store, name: string): Promise<number> {
  const client = await findClientByName(store.db, name);
  if (!client) throw new Error(`no client ${name}`);
  return client.id;
}

/** Seed the period for both clients; returns their client ids and Acme's collection rowids (in insertion order). */
export async function seedPeriod(store: Store): Promise<{ acme: number; other: number; acmeCollections: number[] }> {
  const acme = await clientIdOf(store, 'Acme Life');
  const other = await clientIdOf(store, 'Other Insure');
  const acmeCollections = await seedCollections(store, PERIOD, FIXTURE_PERIOD_ROWS, { clientId: acme });
  await seedCollections(store, '2026-10', [{ policy_number: 'POL-0001', customer_id: 'C100001', external_customer_ref: 'EXT-1', due: 14950, collected: 14950 }], {
    clientId: acme,
  });
  await seedCollections(store, PERIOD, [{ policy_number: 'POL-0001', due: 777, collected: 777 }], { clientId: other });
  return { acme, other, acmeCollections };
}

/** Acme's first statement of 2026-11 (seed 1, client 2): the figures of a 199.51 total. */
export const ACME_001 = {
  settlement_number: 'SETTLE-2026-11-001',
  period_month: '2026-11',
  total_collections: 199.51,
  distribution_fee: 49.88,
  collections_fee: 6.98,
  total_fees: 56.86,
  vat: 8.53,
  net_amount: 134.12,
  payment_date: '2026-12-03',
  status: 'pending',
  payment_reference: 'PRM2611001-8AXE21JX',
  created_at: '2026-12-02T09:30:00.000Z',
  collections_count: 5,
  paid_on: null,
  paid_reference: null,
  disputed_on: null,
  dispute_reason: null,
  previously_paid: 0,
  supersedes: null,
  superseded_by: null,
};
