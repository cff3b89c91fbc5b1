/**
 * A day with very many submitted debits (the first business day of a million-policy month plans
 * ~900,000) is stored in batches of at most PLAN_BATCH debits, so that encoding it never holds the
 * whole day at once; read back, the day's debits are the same, in the same order.
 */
import { afterEach, expect, it } from 'vitest';
import type { LocalBackend } from '../../src/backend/local/index.js';
import type { SubmittedDebit } from '../../src/domain/plan-reason.js';
import { PlanBuffer } from '../../src/engine/day-rows.js';
import { PLAN_BATCH } from '../../src/domain/plan-reason.js';
import { engineStore } from '../../src/store/repos/engine.js';
import { localBackend } from '../helpers/local.js';

const open: LocalBackend[] = [];
afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});

it('a client-day of PLAN_BATCH + 5 debits is two batches and reads back whole, in order', async () => {
  const b = await localBackend();
  open.push(b);
  expect(PLAN_BATCH).toBe(65_536);
  const n = PLAN_BATCH + 5;
  const why = { code: 1, trigger: 0, triggerDays: 0, triggerDay: 0, triggerAmount: 0, estimate: 0, part: 0, maxSplit: 0, remaining: 0, full: 1, lastAttemptDay: 0 };
  const debits: SubmittedDebit[] = [];
  for (let k = 0; k < n; k++) debits.push({ collection: k + 1, day: 20_760 + (k % 3), amount: 100 + k, why: { ...why, estimate: k } } as SubmittedDebit);
  const rows = new PlanBuffer();
  for (const d of debits) rows.push(d.collection, d.day, d.amount, d.why);
  const store = engineStore(b.store);
  await store.runDay((unit) => unit.insertPlanColumns('2026-11-01', 1, rows));
  if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
  expect(b.store.raw.prepare("select count(*) as n from plan_batches where plan_day = '2026-11-01'").get()).toEqual({ n: 2 });
  const read: SubmittedDebit[] = [];
  await store.runDay((unit) => unit.loadSubmittedDebits('2026-11-01', (d) => read.push(d)));
  expect(read).toHaveLength(n);
  expect(read[0]).toEqual(debits[0]);
  expect(read[PLAN_BATCH - 1]).toEqual(debits[PLAN_BATCH - 1]);
  expect(read[PLAN_BATCH]).toEqual(debits[PLAN_BATCH]);
  expect(read[n - 1]).toEqual(debits[n - 1]);
  expect(read.map((d) => d.amount)).toEqual(debits.map((d) => d.amount));
});
