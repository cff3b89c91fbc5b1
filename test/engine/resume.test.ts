/**
 * The working set kept between advances (engine/resume.ts, issue 13): an advance keeps its
 * accounts (balances) and the engine's summaries as of its last day, and the next advance opens
 * them from there instead of replaying each account's history. What it opens must be exactly
 * what a replay opens (every summary column, every balance, the day lived), and a kept state that
 * is not as of the clock's date, or was lived from other inputs (a bank import, a setting, a
 * calendar), must not be used.
 *
 * The book is the fixture book (imported and generated accounts).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalBackend } from '../../src/backend/local/index.js';
import type { EngineState } from '../../src/engine/state.js';
import { FIXTURES } from '../helpers/cli.js';
import { loadBoth } from '../helpers/resume.js';
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



/** Every account's balance, last day lived and summary columns, by customer. */
function snapshot(s: EngineState): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  const columns = s.summaries.columns();
  for (let i = 0; i < s.accounts.size; i++) {
    const row: unknown[] = [s.accounts.balance(i), s.accounts.lastLived!(i)];
    for (const c of columns) row.push(c.name, Array.from(c.data.subarray(i * c.stride, (i + 1) * c.stride)));
    out.set(`${s.accounts.clientId[i]}/${s.accounts.customerId[i]}`, row);
  }
  return out;
}

function expectSame(kept: EngineState, replayed: EngineState): void {
  expect(replayed.resumed).toBe(0);
  expect(kept.accounts.size).toBe(replayed.accounts.size);
  expect(snapshot(kept)).toEqual(snapshot(replayed));
}

describe('the working set kept between advances', () => {
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
    }
    // November closes: nothing is open, but every account is kept as of its last day.
    await b.advanceClock({ to: '2026-11-30' });
    expect((await loadBoth(b)).kept.accounts.size).toBe(0);
    expect(rawOf(b).prepare("select count(*) as n from engine_resume where as_of = '2026-11-30'").get()).toEqual({ n: 1 });

    // December: the customers of November (their state as of 2026-11-30) and one new customer,
    // replayed (its policy was imported after the state was kept).
    await b.importPolicies(
      textUpload(
        'more.csv',
        'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC900001,ACME-900001,POL-9000001,FUNERAL_FAMILY,150.00\n',
      ),
    );
    await b.executeCollections({ period_month: '2026-12' });
    const december = await loadBoth(b);
    expect(december.kept.accounts.size).toBeGreaterThan(1);
    expect(december.kept.resumed).toBe(december.kept.accounts.size - 1);
    expectSame(december.kept, december.replayed);
    await b.advanceClock({ to: '2026-12-04' });
    const after = await loadBoth(b);
    expect(after.kept.resumed).toBe(after.kept.accounts.size);
    expectSame(after.kept, after.replayed);
  });

  it('is not used when it is not as of the clock date or its inputs changed; the accounts are replayed', async () => {
    const b = await book();
    await b.advanceClock({ to: '2026-11-05' });
    expect((await loadBoth(b)).kept.resumed).toBe(400);
    const raw = rawOf(b);

    // Kept as of another day: ignored.
    raw.exec("update engine_resume set as_of = '2026-11-04'");
    expect((await loadBoth(b)).kept.resumed).toBe(0);
    raw.exec("update engine_resume set as_of = '2026-11-05'");
    expect((await loadBoth(b)).kept.resumed).toBe(400);

    // A setting of the engine changes the tag: ignored, until an advance keeps it again.
    await b.admin.settings.set('engine.max_failed_attempts', '4');
    expect((await loadBoth(b)).kept.resumed).toBe(0);
    await b.advanceClock({ days: 1 });
    expect((await loadBoth(b)).kept.resumed).toBe(400);

    // An imported holiday changes the calendar: ignored.
    await b.admin.calendar.import(textUpload('holidays.csv', 'date,name\n2026-11-20,A HOLIDAY\n'));
    const afterHoliday = await loadBoth(b);
    expect(afterHoliday.kept.resumed).toBe(0);
    expectSame(afterHoliday.kept, afterHoliday.replayed);
    await b.advanceClock({ days: 1 });
    expect((await loadBoth(b)).kept.resumed).toBe(400);

    // A bank import changes the history of its accounts: the kept state goes with it.
    await b.importBankTransactions(textUpload('more.csv', 'customer_id,date,amount,description\nC100001,2026-11-07,500.00,REFUND\n'));
    expect(raw.prepare('select count(*) as n from engine_resume').get()).toEqual({ n: 0 });
    const afterImport = await loadBoth(b);
    expect(afterImport.kept.resumed).toBe(0);
  });
});
