/**
 * The determinism guarantee (issue 13): the same month lived in one `clock advance`, day by day
 * (thirty one-day advances, each loading the working set afresh from the store), or with a failed
 * day in the middle and a rerun, gives byte-identical attempts and the same collections.
 *
 * The book is the fixture book: generated accounts and imported bank rows (the fixture bank),
 * plus one imported customer whose first bank row is dated after the clock's date (its account
 * opens in the middle of the month: it must live the same calendar days as every other).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBackend } from '../../src/backend/local/index.js';
import { FIXTURES } from '../helpers/cli.js';
import { allCollections, fileUpload, localBackend, readDownload, textUpload } from '../helpers/local.js';

/** C100030 holds POL-2026059 (180.00) and POL-2026060 (1618.63); it has no row in the fixture bank. */
const LATE_ACCOUNT =
  'customer_id,date,amount,description\n' +
  'C100030,2026-11-10,2500.00,SALARY ACME\n' +
  'C100030,2026-11-12,-300.00,CARD PURCHASE\n' +
  'C100030,2026-11-24,2500.00,SALARY ACME\n' +
  'C100030,2026-11-25,-900.00,DEBIT ORDER RENT\n';

async function book(): Promise<LocalBackend> {
  const b = await localBackend();
  await b.setClock('2026-10-31');
  await b.importPolicies(fileUpload(join(FIXTURES, 'policies.csv')));
  await b.importBankTransactions(fileUpload(join(FIXTURES, 'bank-transactions.csv')));
  expect(await b.importBankTransactions(textUpload('late.csv', LATE_ACCOUNT))).toMatchObject({ imported: 4, failed: 0 });
  await b.executeCollections({ period_month: '2026-11' });
  return b;
}

interface MonthResult {
  attemptsCsv: string;
  attemptsJson: string;
  collections: string;
  /** The plan batches (client, plan day, the debits submitted, as stored), in id order. */
  plans: string;
  /** The balances the bank keeps (bank_snapshots: at each period's close, of the accounts lived through it). */
  snapshots: string;
}

/** The SQLite handle of a test store. */
function rawOf(b: LocalBackend) {
  if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
  return b.store.raw;
}

async function result(b: LocalBackend): Promise<MonthResult> {
  expect((await b.getClock()).date).toBe('2026-11-30');
  return {
    attemptsCsv: await readDownload(await b.exportAttempts('2026-11', 'csv')),
    attemptsJson: await readDownload(await b.exportAttempts('2026-11', 'json')),
    collections: JSON.stringify(await allCollections(b, '2026-11')),
    plans: JSON.stringify(rawOf(b).prepare("select client_id, plan_day, hex(data) as data from plan_batches order by id").all()),
    snapshots: JSON.stringify(rawOf(b).prepare('select client_id, customer_id, as_of, balance from bank_snapshots order by client_id, customer_id, as_of').all()),
  };
}

const open: LocalBackend[] = [];
let oneAdvance: MonthResult;
beforeAll(async () => {
  const b = await book();
  open.push(b);
  const r = await b.advanceClock({ to: '2026-11-30' });
  expect(r.days).toHaveLength(30);
  oneAdvance = await result(b);
});
afterAll(async () => {
  for (const b of open.splice(0)) await b.close();
});

describe('the same month, however it is lived', () => {
  it('the one-advance month: its attempts, the late account on its own calendar', () => {
    const lines = oneAdvance.attemptsCsv.trimEnd().split('\n');
    expect(lines.length - 1).toBe(543);
    // The late account lives its own calendar: the salary of the 10th (a Tuesday) is seen that
    // evening and both premiums are debited the next day, the 11th, in full.
    expect(lines.filter((l) => l.includes(',C100030,'))).toEqual([
      '116472bc-a235-8b57-8be4-c2da4a2647b8,POL-2026059,C100030,2026-11-11,180.00,SUCCESS,',
      '974b494e-4611-808e-ac65-cd88cfea8481,POL-2026060,C100030,2026-11-11,1618.63,SUCCESS,',
    ]);
  });

  it('day by day: thirty one-day advances give byte-identical attempts, collections, plans and kept balances', async () => {
    const b = await book();
    open.push(b);
    for (let d = 1; d <= 30; d++) {
      const r = await b.advanceClock({ days: 1 });
      expect(r.days).toHaveLength(1);
    }
    const daily = await result(b);
    expect(daily).toEqual(oneAdvance);
  });

  it('a day whose writes break a constraint rolls back whole (a one-day advance), then a rerun: the same month', async () => {
    const b = await book();
    open.push(b);
    await b.advanceClock({ to: '2026-11-01' });
    // Something else already recorded an attempt of POL-2026021 for 2 November, the day smart
    // debits it: the engine's attempt of that day breaks the (collection, date) key.
    const raw = rawOf(b);
    raw
      .prepare("insert into attempts (client_id, collection_id, period_month, date, amount, outcome) select client_id, id, period_month, '2026-11-02', 1, 'SUCCESS' from collections where policy_number = 'POL-2026021'")
      .run();
    await expect(b.advanceClock({ days: 1 })).rejects.toThrow(/UNIQUE constraint failed: attempts\.date, attempts\.collection_id/);
    // Nothing of the day was written: the clock, the other attempts, the collections.
    expect((await b.getClock()).date).toBe('2026-11-01');
    expect(raw.prepare("select count(*) as n from attempts where date = '2026-11-02'").get()).toEqual({ n: 1 });
    expect(raw.prepare('select count(*) as n from collections where attempts > 0 or amount_collected > 0').get()).toEqual({ n: 0 });
    expect(raw.inTransaction).toBe(false);
    raw.prepare("delete from attempts where date = '2026-11-02'").run();
    await b.advanceClock({ days: 1 });
    await b.advanceClock({ to: '2026-11-30' });
    const rerun = await result(b);
    expect(rerun).toEqual(oneAdvance);
  });

  it('a day that fails before it commits, then a rerun: the same month', async () => {
    const b = await book();
    open.push(b);
    await b.advanceClock({ to: '2026-11-08' });
    // The same store, with a failure injected just before the 16th commits.
    const faulty = new LocalBackend({ ...b.ctx, engine: { failBeforeCommit: '2026-11-16' } }, false);
    await expect(faulty.advanceClock({ to: '2026-11-30' })).rejects.toThrow('injected failure before 2026-11-16 commits');
    expect((await b.getClock()).date).toBe('2026-11-15');
    const partial = await readDownload(await b.exportAttempts('2026-11', 'csv'));
    expect(partial).not.toContain(',2026-11-16,');
    expect(oneAdvance.attemptsCsv.startsWith(partial)).toBe(true);
    await b.advanceClock({ days: 1 });
    await b.advanceClock({ to: '2026-11-30' });
    const resumed = await result(b);
    expect(resumed).toEqual(oneAdvance);
  });
});
