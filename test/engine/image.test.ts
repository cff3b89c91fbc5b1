/**
 * The engine's image (engine/image.ts, issue 13): an advance keeps every customer of its working
 * set (account, summary, collections, wake day), and the next advance opens from it either only
 * the customers waking before it ends (nothing else changed the engine's inputs) or, when
 * something did, the accounts of the customers it holds with their collections read afresh. What
 * it opens must be exactly what a replay opens (every summary column, every balance, once brought
 * up to the clock's date), and an image that is not as of the clock's date, or was lived from
 * other inputs (a bank import, a setting, a calendar), must not be used.
 *
 * The book is the fixture book (imported and generated accounts).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalBackend } from '../../src/backend/local/index.js';
import { dayNumber } from '../../src/domain/period.js';
import { mayPlan } from '../../src/engine/may-plan.js';
import type { EngineState } from '../../src/engine/state.js';
import { FIXTURES } from '../helpers/cli.js';
import { accountsOf, loadBoth } from '../helpers/image.js';
import { fileUpload, localBackend, textUpload } from '../helpers/local.js';

const open: LocalBackend[] = [];
afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});

async function book(): Promise<LocalBackend> {
  const b = await localBackend();
  open.push(b);
  await b.setClock('2026-10-31');
  await b.importPolicies(fileUpload(join(FIXTURES, 'policies.csv')));
  await b.importBankTransactions(fileUpload(join(FIXTURES, 'bank-transactions.csv')));
  await b.executeCollections({ period_month: '2026-11' });
  return b;
}

/** The SQLite handle of a test store. */
function rawOf(b: LocalBackend) {
  if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
  return b.store.raw;
}

/**
 * The customers opened from the image as opened by replay (those of the replayed working set:
 * every one of them when `all`).
 */
function expectSame(kept: EngineState, replayed: EngineState, all = true): void {
  expect(replayed.resumed).toBe(0);
  const fromImage = accountsOf(kept);
  const fromReplay = accountsOf(replayed);
  let compared = 0;
  for (const [key, row] of fromReplay) {
    if (!all && !fromImage.has(key)) continue;
    expect([key, fromImage.get(key)]).toEqual([key, row]);
    compared++;
  }
  expect(compared).toBeGreaterThan(0);
}

/** The collections of a state, by row id: status code, collected, attempts, failures, blocked. */
function collectionsOf(s: EngineState): Map<number, number[]> {
  const cs = s.cols;
  const out = new Map<number, number[]>();
  for (let c = 0; c < cs.n; c++) if (cs.closed[c] === 0) out.set(cs.rowid[c]!, [cs.status[c]!, cs.collected[c]!, cs.attempts[c]!, cs.failed[c]!, cs.blocked[c]!]);
  return out;
}

describe("the engine's image", () => {
  it('opens every account exactly as a replay does, across days, a month end and a new period', async () => {
    const b = await book();
    const customers = (await loadBoth(b)).replayed.accounts.size;
    expect(customers).toBe(400);
    // Nothing kept before the first advance.
    expect((await loadBoth(b)).kept.resumed).toBe(0);

    for (const step of [{ to: '2026-11-05' }, { days: 1 }, { days: 1 }, { to: '2026-11-24' }, { days: 3 }]) {
      await b.advanceClock(step);
      const { kept, replayed } = await loadBoth(b);
      expect(kept.resumed).toBe(customers);
      expectSame(kept, replayed);
      // The collections as the image keeps them are those of the table.
      expect(collectionsOf(kept)).toEqual(collectionsOf(replayed));
    }
    // November closes: nothing is open, but every customer is kept (asleep for good).
    await b.advanceClock({ to: '2026-11-30' });
    const closed = await loadBoth(b);
    expect(closed.replayed.accounts.size).toBe(0);
    expect(closed.kept.resumed).toBe(400);
    expect(closed.kept.cols.n).toBe(0);
    expect(rawOf(b).prepare("select count(*) as n from engine_image_head where as_of = '2026-11-30'").get()).toEqual({ n: 1 });

    // December: the customers of November (from the image, the collections read afresh: the run
    // changed the engine's inputs) and one new customer, replayed (imported after the image was kept).
    await b.importPolicies(
      textUpload(
        'more.csv',
        'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC900001,ACME-900001,POL-9000001,FUNERAL_FAMILY,150.00\n',
      ),
    );
    await b.executeCollections({ period_month: '2026-12' });
    const december = await loadBoth(b);
    expect(december.kept.accounts.size).toBe(401);
    expect(december.kept.resumed).toBe(400);
    expectSame(december.kept, december.replayed);
    await b.advanceClock({ to: '2026-12-04' });
    const after = await loadBoth(b);
    expect(after.kept.resumed).toBe(after.replayed.accounts.size);
    expectSame(after.kept, after.replayed);
  });

  it('a one-day advance opens only the customers with something to do', async () => {
    const b = await book();
    await b.advanceClock({ to: '2026-11-05' });
    const today = dayNumber('2026-11-05');
    const { kept, replayed } = await loadBoth(b, today + 1);
    // Most customers paid on the first business day: they sleep, and are not read.
    expect(kept.resumed).toBeGreaterThan(0);
    expect(kept.resumed).toBeLessThan(100);
    expectSame(kept, replayed, false);
    const loaded = new Set(Array.from({ length: kept.accounts.size }, (_, i) => kept.accounts.customerIdOf(i)));
    const cs = replayed.cols;
    const tomorrow = today + 1;
    // The planning at the end of tomorrow (a Friday) is for a Sunday: nothing is planned then.
    const action = tomorrow + 1 + replayed.settings.leadDays;
    const plans = replayed.settings.calendar.isBusinessDay(action);
    let unpaid = 0;
    for (let i = 0; i < replayed.accounts.size; i++) {
      if (loaded.has(replayed.accounts.customerIdOf(i))) continue;
      // A customer not read has nothing to do tomorrow: nothing submitted, and every collection
      // paid or blocked, or, with money due, no credit posting to it and nothing the planning
      // could plan for it (awake.ts).
      const start = replayed.colStart[i]!;
      const end = start + replayed.colCount[i]!;
      let owes = false;
      for (let c = start; c < end; c++) {
        expect(Array.from(cs.pendDay.subarray(c * 3, c * 3 + 3))).toEqual([0, 0, 0]);
        if (cs.collected[c]! < cs.due[c]! && cs.blocked[c] === 0) owes = true;
      }
      if (!owes) continue;
      unpaid++;
      expect(replayed.accounts.nextCreditDay!(i, today, tomorrow)).toBe(tomorrow + 1);
      if (plans) expect(mayPlan(replayed, i, tomorrow, action)).toBe(false);
    }
    // Some of those not read still owe money: they sleep until something happens.
    expect(unpaid).toBeGreaterThan(0);
  });

  it('is not used when it is not as of the clock date or its inputs changed', async () => {
    const b = await book();
    await b.advanceClock({ to: '2026-11-05' });
    expect((await loadBoth(b)).kept.resumed).toBe(400);
    const raw = rawOf(b);
    const head = () => raw.prepare('select inputs from engine_image_head').get() as { inputs: number };

    // Kept as of another day: ignored.
    raw.exec("update engine_image_head set as_of = '2026-11-04'");
    expect((await loadBoth(b)).kept.resumed).toBe(0);
    raw.exec("update engine_image_head set as_of = '2026-11-05'");
    expect((await loadBoth(b)).kept.resumed).toBe(400);

    // A policy cancelled: the engine's inputs changed. The accounts still open from the image, the
    // collections come from their table (the cancelled one is blocked), and a day later the image
    // is trusted again.
    const version = head().inputs;
    const before = raw.prepare("select status from collections where policy_number = 'POL-2026001'").get() as { status: string };
    await b.updatePolicy('POL-2026001', { status: 'cancelled' });
    const cancelled = await loadBoth(b);
    expect(cancelled.kept.resumed).toBe(400);
    expect(cancelled.kept.consumed).toBe(null);
    expect(collectionsOf(cancelled.kept)).toEqual(collectionsOf(cancelled.replayed));
    expect(before.status).not.toBe('CANCELLED');
    expectSame(cancelled.kept, cancelled.replayed);
    await b.advanceClock({ days: 1 });
    expect(head().inputs).not.toBe(version);
    expect((await loadBoth(b, dayNumber('2026-11-07'))).kept.consumed).toBe(dayNumber('2026-11-07'));

    // A setting of the engine changes the tag: ignored, until an advance keeps it again. The
    // Saturday after it passes without the working set (load.ts loadCanWait): the image stays as
    // it was, unused; the Monday's advance loads (the Sunday with it) and keeps it.
    await b.admin.settings.set('engine.max_failed_attempts', '4');
    expect((await loadBoth(b)).kept.resumed).toBe(0);
    const asOf = raw.prepare('select as_of from engine_image_head').pluck();
    await b.advanceClock({ days: 1 });
    expect(asOf.get()).toBe('2026-11-06');
    expect((await loadBoth(b)).kept.resumed).toBe(0);
    await b.advanceClock({ days: 2 });
    expect(asOf.get()).toBe('2026-11-09');
    expect((await loadBoth(b)).kept.resumed).toBe(400);

    // An imported holiday changes the calendar: ignored.
    await b.admin.calendar.import(textUpload('holidays.csv', 'date,name\n2026-11-20,A HOLIDAY\n'));
    const afterHoliday = await loadBoth(b);
    expect(afterHoliday.kept.resumed).toBe(0);
    expectSame(afterHoliday.kept, afterHoliday.replayed);
    await b.advanceClock({ days: 1 });
    expect((await loadBoth(b)).kept.resumed).toBe(400);

    // A bank import changes the history of its accounts: the image goes with it.
    await b.importBankTransactions(textUpload('more.csv', 'customer_id,date,amount,description\nC100001,2026-11-07,500.00,REFUND\n'));
    expect(raw.prepare('select (select count(*) from engine_image) + (select count(*) from engine_image_head) as n').get()).toEqual({ n: 0 });
    expect((await loadBoth(b)).kept.resumed).toBe(0);
  });
});
