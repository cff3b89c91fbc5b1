/**
 * The engine's buffer of one client's submitted debits packs them as they come into the batches
 * the store keeps (domain/plan-reason.ts), compressed as stored: read back, the batches hold
 * every debit once, in collection id order (stable for a collection planned twice), at most
 * PLAN_BATCH a batch.
 */
import { expect, it } from 'vitest';
import { packedBatch, PLAN_BATCH, PLAN_BATCH_VERSION, planBatchBytes, storedBatch, unpackBatch, type SubmittedDebit, type Why } from '../../src/domain/plan-reason.js';
import { DayPlans, PlanBuffer, PlansInOrder } from '../../src/engine/day-rows.js';

const why = (k: number): Why => ({
  code: (1 + (k % 5)) as Why['code'],
  trigger: (k % 3) as Why['trigger'],
  triggerDays: k % 7,
  triggerDay: 20_700 + (k % 11),
  triggerAmount: 1_000 + k,
  estimate: k / 4,
  part: k % 2,
  maxSplit: 2,
  remaining: 50_000 - k,
  full: k % 2,
  lastAttemptDay: 20_690 + (k % 13),
});

function fill(ids: number[]): { rows: PlanBuffer; debits: SubmittedDebit[] } {
  const rows = new PlanBuffer();
  const debits: SubmittedDebit[] = [];
  ids.forEach((collection, k) => {
    const d: SubmittedDebit = { collection, day: 20_760 + (k % 3), amount: 100 + k, why: why(k) };
    debits.push(d);
    rows.push(d.collection, d.day, d.amount, d.why);
  });
  return { rows, debits };
}

const readBack = async (rows: PlanBuffer) =>
  (await rows.batches()).map((stored) => {
    const packed = new Uint8Array(packedBatch(stored));
    return { bytes: packed.byteLength, debits: unpackBatch(packed) };
  });

it('debits planned in id order come back as they were, in batches of PLAN_BATCH and the rest', async () => {
  const n = 2 * PLAN_BATCH + 3;
  const { rows, debits } = fill(Array.from({ length: n }, (_, k) => 10 + 2 * k));
  expect(rows.n).toBe(n);
  const batches = await readBack(rows);
  expect(batches.map((b) => b.debits.length)).toEqual([PLAN_BATCH, PLAN_BATCH, 3]);
  expect(batches.map((b) => b.bytes)).toEqual([planBatchBytes(PLAN_BATCH), planBatchBytes(PLAN_BATCH), planBatchBytes(3)]);
  expect(batches.flatMap((b) => b.debits)).toEqual(debits);
});

it('a batch that never filled (grown from 64) is cut to its debits, with its doubles after them', async () => {
  const { rows, debits } = fill(Array.from({ length: 1_000 }, (_, k) => k + 1));
  const [stored, ...more] = await rows.batches();
  expect(more).toHaveLength(0);
  const only = packedBatch(stored!);
  expect(only.byteLength).toBe(8 + 1_000 * (4 * 10 + 8 * 4));
  expect([...new Int32Array(only, 0, 2)]).toEqual([PLAN_BATCH_VERSION, 1_000]);
  expect(unpackBatch(new Uint8Array(only))).toEqual(debits);
  // Stored as the store keeps it: compressed, in a buffer of its own (handed to the day writer).
  expect(stored!.byteLength).toBeLessThan(only.byteLength / 2);
  expect([stored!.byteOffset, stored!.buffer.byteLength]).toEqual([0, stored!.byteLength]);
  expect(stored).toEqual(await storedBatch(new Uint8Array(only)));
});

it('debits planned out of id order are sorted by collection, a collection planned twice in planning order', async () => {
  // Ids from a working set loaded in wake-day blocks: descending runs, one id twice.
  const ids = Array.from({ length: PLAN_BATCH + 10 }, (_, k) => (k < PLAN_BATCH ? PLAN_BATCH + 100 - k : k - PLAN_BATCH + 1));
  ids.push(5);
  const { rows, debits } = fill(ids);
  const batches = await readBack(rows);
  expect(batches.map((b) => b.debits.length)).toEqual([PLAN_BATCH, 11]);
  const back = batches.flatMap((b) => b.debits);
  const expected = debits.map((d, k) => ({ d, k })).sort((a, b) => a.d.collection - b.d.collection || a.k - b.k).map((x) => x.d);
  expect(back).toEqual(expected);
  const fives = back.filter((d) => d.collection === 5);
  expect(fives.map((d) => d.amount)).toEqual([100 + PLAN_BATCH + 4, 100 + PLAN_BATCH + 10]);
});

it('no debits: no batch', async () => {
  expect(await new PlanBuffer().batches()).toEqual([]);
});

it('debits held until their ids are final go in in id order: the batches of the same debits pushed sorted, the clients in first-planned order', async () => {
  // Two clients; ids planned out of order, released below rising bounds as eveningAndDay does.
  const planned: Array<[number, number]> = [];
  for (let k = 0; k < 3 * PLAN_BATCH; k++) planned.push([k % 5 === 0 ? 2 : 1, k % 7 === 0 ? k + 40 : k]);
  const held = new DayPlans();
  const inOrder = new PlansInOrder(held);
  planned.forEach(([client, id], k) => {
    inOrder.push(client, id, 20_760, 100 + k, why(k));
    // Every id below k + 1 is final here: one planned later is at least k + 1.
    if (k % 1000 === 999) inOrder.release(k + 1);
  });
  inOrder.release(0x7fffffff);
  const sorted = new DayPlans();
  const order = planned.map((p, k) => ({ p, k })).sort((a, b) => a.p[1] - b.p[1] || a.k - b.k);
  // The client planned first (2, at k = 0) comes first, as DayPlans.push keeps it.
  sorted.of(2);
  for (const { p, k } of order) sorted.push(p[0], p[1], 20_760, 100 + k, why(k));
  expect([...held.byClient.keys()]).toEqual([2, 1]);
  expect(held.count).toBe(planned.length);
  for (const client of [1, 2]) expect(await readBack(held.byClient.get(client)!)).toEqual(await readBack(sorted.byClient.get(client)!));
});
