/**
 * A small month with every outcome: `premia simulate` (seed 1, the shipped bank file) of 18
 * policies of eight customers from fixtures/policies.csv, into a store file. Used by the summary
 * tests (text, JSON, the HTML page and its test in headless Chromium). Its outcomes:
 * - C100001, C100008, C100009, C100104 (monthly_fixed_day): all 9 policies paid in full on 2026-11-02;
 * - C100016 (irregular): POL-2026031 paid in full on 2026-11-02, POL-2026032 partly paid
 *   (88.20 of 672.71 on 2026-11-27);
 * - C100019 (monthly_fixed_day): its account is closed (ACCOUNT_CLOSED on 2026-11-09, asking 44.15
 *   for POL-2026037); both policies unpaid, POL-2026038 never attempted;
 * - C100085 (irregular): both policies unpaid, never attempted;
 * - C100101 (irregular): its smallest premium first (issue 12): POL-2026213 partly paid (66.00 on
 *   2026-11-05, INSUFFICIENT_FUNDS on 2026-11-13 and 2026-11-20, 91.24 on 2026-11-26: 157.24 of
 *   202.45); POL-2026211 and POL-2026212 unpaid, never attempted.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli.js';

/** Eight customers of fixtures/policies.csv chosen for a month with every outcome (lines as in that file, in its order). */
export const SMALL_POLICIES =
  'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n' +
  'C100001,ACME-707919,POL-2026001,DISABILITY,870.08\n' +
  'C100001,ACME-707919,POL-2026002,LIFE_STANDARD,941.34\n' +
  'C100008,ACME-763352,POL-2026015,LIFE_STANDARD,324.65\n' +
  'C100008,ACME-763352,POL-2026016,LIFE_STANDARD,644.22\n' +
  'C100009,ACME-771271,POL-2026017,FUNERAL_BASIC,67.00\n' +
  'C100009,ACME-771271,POL-2026018,DISABILITY,790.48\n' +
  'C100016,ACME-726704,POL-2026031,FUNERAL_BASIC,92.00\n' +
  'C100016,ACME-726704,POL-2026032,DISABILITY,672.71\n' +
  'C100019,ACME-750461,POL-2026037,FUNERAL_BASIC,113.50\n' +
  'C100019,ACME-750461,POL-2026038,LIFE_STANDARD,997.07\n' +
  'C100085,ACME-773115,POL-2026169,LIFE_PREMIER,4917.49\n' +
  'C100085,ACME-773115,POL-2026170,FUNERAL_BASIC,77.50\n' +
  'C100101,ACME-799819,POL-2026211,FUNERAL_FAMILY,345.00\n' +
  'C100101,ACME-799819,POL-2026212,FUNERAL_FAMILY,286.00\n' +
  'C100101,ACME-799819,POL-2026213,HOSPITAL_CASH,202.45\n' +
  'C100104,ACME-723576,POL-2026220,FUNERAL_BASIC,55.50\n' +
  'C100104,ACME-723576,POL-2026221,FUNERAL_FAMILY,321.00\n' +
  'C100104,ACME-723576,POL-2026222,FUNERAL_FAMILY,286.00\n';

/** Simulate the month into `into`/month.db (its files in `into`/out/2026-11/); the store's path. */
export async function simulateSmallMonth(into: string, extra: string[] = []): Promise<string> {
  const policies = join(into, 'small-policies.csv');
  writeFileSync(policies, SMALL_POLICIES);
  const store = join(into, 'month.db');
  const r = await runCli(['--db', store, '--seed', '1', 'simulate', '--policies', policies, '--out', join(into, 'out'), ...extra], { cwd: into });
  if (r.code !== 0) throw new Error(`simulate failed (${r.code}): ${r.stderr}`);
  return store;
}

