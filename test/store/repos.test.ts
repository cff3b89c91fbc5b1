/**
 * The repositories of policies, collections, executions, attempts and settlements, on a
 * temporary SQLite file and nothing else: no backend, no engine. Rows are written through the
 * repositories themselves where they have a writer, else with plain kysely inserts.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Cents } from '../../src/domain/money.js';
import { ONE_CUSTOMER_ATTEMPTS, readCustomerBankInputs } from '../../src/store/repos/bank.js';
import { encodeId, IdKind } from '../../src/domain/ids.js';
import { streamCollectedCounts, streamPeriodText } from '../../src/store/repos/collection-reports.js';
import * as collections from '../../src/store/repos/collections.js';
import { dayNumber } from '../../src/domain/period.js';
import { setMeta } from '../../src/store/repos/meta.js';
import * as policies from '../../src/store/repos/policies.js';
import * as settlements from '../../src/store/repos/settlements.js';
import { openSqliteStore as openStore, type SqliteStore as Store } from '../../src/store/store.js';
import { tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
let store: Store;

const C = (n: number) => n as Cents;
const ACME = 1;
const OTHER = 2;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir('premia-repos-'));
  store = await openStore({ path: join(dir, 'premia.db') });
  await store.db.insertInto('clients').values([{ id: ACME, name: 'Acme', created_at: 0 }, { id: OTHER, name: 'Other', created_at: 0 }]).execute();
  await setMeta(store.db, 'clock_date', '2026-10-31');
});

afterEach(async () => {
  await store.close();
  cleanup();
});

async function policy(clientId: number, number: string, amount: number, status = 'active'): Promise<number> {
  return policies.insertPolicy(store.db, {
    client_id: clientId,
    policy_number: number,
    customer_id: `C-${number}`,
    external_customer_ref: `EXT-${number}`,
    product_code: 'FUNERAL_BASIC',
    collection_amount: C(amount),
    status,
    created_at: 1000,
    updated_at: 1000,
  });
}

async function execution(clientId: number, period: string): Promise<number> {
  return collections.insertExecution(store.db, {
    client_id: clientId,
    period_month: period,
    strategy: 'smart',
    status: 'processing',
    policies_queued: 0,
    created_at: 2000,
    completed_at: null,
  });
}

describe('policies', () => {
  it('the premium of a period comes from the amount history when collections are queued', async () => {
    const a = await policy(ACME, 'POL-B', 10000);
    const b = await policy(ACME, 'POL-A', 20000);
    await policy(ACME, 'POL-C', 30000, 'lapsed');
    await policy(OTHER, 'POL-A', 99999);
    // POL-B: 100.00, then 120.00 from 2026-12; POL-A: 200.00, then 150.00 from 2026-11.
    await policies.insertAmountChange(store.db, { client_id: ACME, policy_id: a, effective_period: '2026-12', old_amount: C(10000), new_amount: C(12000), changed_on: '2026-11-05', changed_at: 1 });
    await policies.updatePolicyRow(store.db, ACME, a, { collection_amount: C(12000), updated_at: 2 });
    await policies.insertAmountChange(store.db, { client_id: ACME, policy_id: b, effective_period: '2026-11', old_amount: C(20000), new_amount: C(15000), changed_on: '2026-10-20', changed_at: 1 });
    await policies.updatePolicyRow(store.db, ACME, b, { collection_amount: C(15000), updated_at: 2 });

    expect(await policies.latestEffectivePeriod(store.db, ACME, a)).toBe('2026-12');
    expect(await policies.latestEffectivePeriod(store.db, OTHER, a)).toBeNull();
    expect(await policies.latestPolicyChangeDay(store.db)).toBe('2026-11-05');

    const nov = await execution(ACME, '2026-11');
    expect(await collections.queueCollections(store.db, ACME, nov, '2026-11', null)).toBe(2);
    // queued again: nothing new
    expect(await collections.queueCollections(store.db, ACME, nov, '2026-11', null)).toBe(0);
    const rows = await collections.listCollections(store.db, ACME, { period: '2026-11', limit: 10 });
    expect(rows.map((r) => [r.policy_number, r.amount_due, r.status, r.execution_id])).toEqual([
      ['POL-A', 15000, 'UNPAID', nov],
      ['POL-B', 10000, 'UNPAID', nov],
    ]);
    const dec = await execution(ACME, '2026-12');
    expect(await collections.queueCollections(store.db, ACME, dec, '2026-12', [a])).toBe(1);
    expect((await collections.listCollections(store.db, ACME, { period: '2026-12', limit: 10 })).map((r) => [r.policy_number, r.amount_due])).toEqual([['POL-B', 12000]]);
  });

  it('a run queues the newest change in effect by its period, the latest made of a tie, else the first change\'s old amount', async () => {
    const a = await policy(ACME, 'POL-A', 10000);
    const change = (effective: string, from: number, to: number) =>
      policies.insertAmountChange(store.db, { client_id: ACME, policy_id: a, effective_period: effective, old_amount: C(from), new_amount: C(to), changed_on: '2026-10-01', changed_at: 1 });
    // Made in this order (seq): 2026-12 first, then two for 2026-11, then 2027-02.
    await change('2026-12', 10000, 11000);
    await change('2026-11', 11000, 12000);
    await change('2026-11', 12000, 12500);
    await change('2027-02', 12500, 13000);
    const due: Array<[string, number]> = [];
    for (const period of ['2026-10', '2026-11', '2026-12', '2027-01', '2027-02']) {
      expect(await collections.queueCollections(store.db, ACME, await execution(ACME, period), period, null)).toBe(1);
      for (const r of await collections.listCollections(store.db, ACME, { period, limit: 10 })) due.push([period, r.amount_due]);
    }
    expect(due).toEqual([
      ['2026-10', 10000],
      ['2026-11', 12500],
      ['2026-12', 11000],
      ['2027-01', 11000],
      ['2027-02', 13000],
    ]);
  });

  it('no policy change yet: no latest day', async () => {
    expect(await policies.latestPolicyChangeDay(store.db)).toBeNull();
  });

  it('a bulk import commits what its work inserted, and rolls back all of it when the work fails', async () => {
    const rows = (texts: string[], cents: number[], lines: number[]): policies.PolicyImportRows => {
      const bytes = Buffer.from(texts.join(''), 'latin1');
      const offsets = new Int32Array(texts.length * 5);
      let at = 0;
      texts.forEach((t, r) => {
        offsets[r * 5] = at;
        let k = 1;
        for (let i = 0; i < t.length; i++) if (t[i] === ',') offsets[r * 5 + k++] = at + i;
        at += t.length;
      });
      return { count: texts.length, bytes, offsets, amounts: Int32Array.from(cents), lines: Int32Array.from(lines) };
    };
    const duplicates: policies.DuplicatePolicyRow[] = [];
    const imported = await policies.inPolicyImport(store, ACME, async (session) => {
      expect(session.today).toBe('2026-10-31');
      const sink = session.sink(5000, (d) => duplicates.push(d));
      sink.insert(rows(['C1,E1,POL-1,FUNERAL_BASIC,149.50', 'C2,E2,POL-2,LIFE,20', 'C3,E3,POL-1,LIFE,1'], [14950, 2000, 100], [2, 3, 7]));
      return sink.finish();
    });
    expect(imported).toBe(2);
    expect(duplicates).toEqual([{ line: 7, policyNumber: 'POL-1', firstLine: 2 }]);
    const stored = await policies.listPolicies(store.db, ACME, { limit: 10 });
    expect(stored.map((p) => [p.policy_number, p.customer_id, p.external_customer_ref, p.product_code, p.collection_amount, p.status, p.created_at])).toEqual([
      ['POL-1', 'C1', 'E1', 'FUNERAL_BASIC', 14950, 'active', 5000],
      ['POL-2', 'C2', 'E2', 'LIFE', 2000, 'active', 5000],
    ]);

    await expect(
      policies.inPolicyImport(store, ACME, async (session) => {
        session.sink(6000, () => undefined).insert(rows(['C9,E9,POL-9,LIFE,1'], [100], [2]));
        throw new Error('the file broke off');
      }),
    ).rejects.toThrow('the file broke off');
    expect((await policies.listPolicies(store.db, ACME, { limit: 10 })).map((p) => p.policy_number)).toEqual(['POL-1', 'POL-2']);
    // foreign keys are on again after the import
    expect(store.raw.pragma('foreign_keys', { simple: true })).toBe(1);
    await expect(policies.inPolicyImport(store, 99, async () => 'never')).rejects.toMatchObject({ code: 'INTERNAL', message: 'client 99 does not exist in this store' });
  });
});

describe('collections and executions', () => {
  async function seeded() {
    const ids = [await policy(ACME, 'POL-1', 10000), await policy(ACME, 'POL-2', 20000), await policy(ACME, 'POL-3', 30000)];
    const exec = await execution(ACME, '2026-11');
    await collections.queueCollections(store.db, ACME, exec, '2026-11', null);
    const rows = await collections.listCollections(store.db, ACME, { period: '2026-11', limit: 10 });
    // POL-1 paid in full, POL-2 part paid, POL-3 nothing yet
    await store.db.updateTable('collections').set({ amount_collected: C(10000), status: 'PAID_FULL', attempts: 1 }).where('id', '=', rows[0]!.id).execute();
    await store.db.updateTable('collections').set({ amount_collected: C(5000), status: 'PAID_PARTIAL', attempts: 2, failed_attempts: 1 }).where('id', '=', rows[1]!.id).execute();
    await store.db
      .insertInto('attempts')
      .values([
        { client_id: ACME, collection_id: rows[1]!.id, period_month: '2026-11', date: '2026-11-25', amount: C(15000), outcome: 'FAILED', failure_reason: 'INSUFFICIENT_FUNDS' },
        { client_id: ACME, collection_id: rows[0]!.id, period_month: '2026-11', date: '2026-11-25', amount: C(10000), outcome: 'SUCCESS', failure_reason: null },
        { client_id: ACME, collection_id: rows[1]!.id, period_month: '2026-11', date: '2026-11-26', amount: C(5000), outcome: 'SUCCESS', failure_reason: null },
      ])
      .execute();
    await collections.setPoliciesQueued(store.db, ACME, exec, 3);
    return { ids, exec, rows };
  }

  it('reads, pages and filters a period, and counts an execution by status', async () => {
    const { exec, rows } = await seeded();
    expect((await collections.findCollection(store.db, ACME, rows[1]!.id))?.amount_collected).toBe(5000);
    expect(await collections.findCollection(store.db, OTHER, rows[1]!.id)).toBeUndefined();
    expect((await collections.listCollections(store.db, ACME, { period: '2026-11', after: 'POL-1', limit: 1 })).map((r) => r.policy_number)).toEqual(['POL-2']);
    expect((await collections.listCollections(store.db, ACME, { period: '2026-11', status: 'UNPAID', limit: 10 })).map((r) => r.policy_number)).toEqual(['POL-3']);
    expect((await collections.listCollections(store.db, ACME, { period: '2026-11', policyNumber: 'POL-2', limit: 10 })).map((r) => r.id)).toEqual([rows[1]!.id]);
    expect((await collections.findExecution(store.db, ACME, exec))?.policies_queued).toBe(3);
    expect(await collections.findExecution(store.db, OTHER, exec)).toBeUndefined();
    expect(await collections.executionStrategy(store.db, exec)).toEqual({ strategy: 'smart', createdAt: 2000 });
    expect((await collections.executionStatusCounts(store.db, exec)).sort((a, b) => a.status.localeCompare(b.status))).toEqual([
      { status: 'PAID_FULL', count: 1 },
      { status: 'PAID_PARTIAL', count: 1 },
      { status: 'UNPAID', count: 1 },
    ]);
  });

  it("the period's figures: open counts, what the open ones owe, and whether it has collections", async () => {
    await seeded();
    expect(await collections.periodOpenCounts(store.db, ACME, '2026-11')).toEqual({ collections: 3, open: 2 });
    expect(await collections.periodOpenCounts(store.db, ACME, '2026-12')).toEqual({ collections: 0, open: 0 });
    expect(await collections.periodHasCollections(store.db, ACME, '2026-11')).toBe(true);
    expect(await collections.periodHasCollections(store.db, OTHER, '2026-11')).toBe(false);
    expect(await collections.periodClosings(store.db, ACME, ['2026-11', '2026-12'])).toEqual([
      // open: POL-2 (owes 150.00) and POL-3 (owes 300.00); nothing collected: POL-3
      { period_month: '2026-11', collections: 3, open: 2, nothing_collected: 1, amount_remaining: 45000 },
    ]);
    expect(await collections.periodClosings(store.db, ACME, [])).toEqual([]);
  });

  it("a collection's attempts outside its period's days are still found (the count tells)", async () => {
    const { rows } = await seeded();
    await store.db
      .insertInto('attempts')
      .values({ client_id: ACME, collection_id: rows[0]!.id, period_month: '2026-11', date: '2026-12-01', amount: C(100), outcome: 'FAILED', failure_reason: 'INSUFFICIENT_FUNDS' })
      .execute();
    expect((await collections.attemptsOfCollection(store.db, { ...rows[0]!, attempts: 2 })).map((a) => a.date)).toEqual(['2026-11-25', '2026-12-01']);
  });

  it('attempts: of a collection by date, and of a period in the order made', async () => {
    const { rows } = await seeded();
    // rows were listed before seeded() recorded the attempts made: the counts as it set them.
    expect(await collections.attemptsOfCollection(store.db, { ...rows[1]!, attempts: 2 })).toEqual([
      { date: '2026-11-25', amount: 15000, outcome: 'FAILED', failure_reason: 'INSUFFICIENT_FUNDS' },
      { date: '2026-11-26', amount: 5000, outcome: 'SUCCESS', failure_reason: null },
    ]);
    expect(await collections.attemptsOfCollection(store.db, { ...rows[2]!, attempts: 0 })).toEqual([]);
    // The export's CSV lines, in the order made: by day, then policy_number.
    const lines = async (clientId: number, format: 'csv' | 'json' = 'csv') => {
      let text = '';
      for await (const chunk of streamPeriodText(store, clientId, '2026-11', { rows: 'attempts', format, idSalt: 7 })) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return text;
    };
    const id = (row: { id: number }) => encodeId(IdKind.collection, 7, row.id);
    expect(await lines(ACME)).toBe(
      `${id(rows[1]!)},POL-2,C-POL-2,2026-11-25,150.00,FAILED,INSUFFICIENT_FUNDS\n` +
        `${id(rows[0]!)},POL-1,C-POL-1,2026-11-25,100.00,SUCCESS,\n` +
        `${id(rows[1]!)},POL-2,C-POL-2,2026-11-26,50.00,SUCCESS,\n`,
    );
    expect(await lines(ACME, 'json')).toBe(
      `,{"collection_id":"${id(rows[1]!)}","policy_number":"POL-2","customer_id":"C-POL-2","date":"2026-11-25","amount":150.00,"outcome":"FAILED","failure_reason":"INSUFFICIENT_FUNDS"}` +
        `,{"collection_id":"${id(rows[0]!)}","policy_number":"POL-1","customer_id":"C-POL-1","date":"2026-11-25","amount":100.00,"outcome":"SUCCESS","failure_reason":null}` +
        `,{"collection_id":"${id(rows[1]!)}","policy_number":"POL-2","customer_id":"C-POL-2","date":"2026-11-26","amount":50.00,"outcome":"SUCCESS","failure_reason":null}`,
    );
    expect(await lines(OTHER)).toBe('');
  });

  it('a cancellation cancels the open periods; a new premium reprices only what was not attempted', async () => {
    const { ids } = await seeded();
    const dec = await execution(ACME, '2026-12');
    await collections.queueCollections(store.db, ACME, dec, '2026-12', null);
    await collections.repriceUnattempted(store.db, ACME, ids[0]!, '2026-11', C(11000));
    await collections.repriceUnattempted(store.db, ACME, ids[2]!, '2026-11', C(33000));
    const due = async (period: string) => (await collections.listCollections(store.db, ACME, { period, limit: 10 })).map((r) => [r.policy_number, r.amount_due, r.status]);
    expect(await due('2026-11')).toEqual([
      ['POL-1', 10000, 'PAID_FULL'], // attempted: kept
      ['POL-2', 20000, 'PAID_PARTIAL'],
      ['POL-3', 33000, 'UNPAID'],
    ]);
    expect(await collections.liveCollectionsOfPolicy(store.db, ACME, ids[1]!, '2026-11')).toEqual([
      expect.objectContaining({ period_month: '2026-11', amount_due: 20000, amount_collected: 5000, status: 'PAID_PARTIAL' }),
      expect.objectContaining({ period_month: '2026-12', amount_due: 20000, amount_collected: 0, status: 'UNPAID' }),
    ]);
    await collections.cancelPolicyCollections(store.db, ACME, ids[1]!, '2026-12');
    expect((await collections.liveCollectionsOfPolicy(store.db, ACME, ids[1]!, '2026-11')).map((r) => r.period_month)).toEqual(['2026-11']);
    expect(await due('2026-12')).toEqual([
      ['POL-1', 11000, 'UNPAID'],
      ['POL-2', 20000, 'CANCELLED'],
      ['POL-3', 33000, 'UNPAID'],
    ]);
    const states = await collections.debitStates(store.db, (await collections.listCollections(store.db, ACME, { period: '2026-12', limit: 10 })).map((r) => r.id));
    expect(states.map((s) => [s.status, s.policy_status, s.amount_due - s.amount_collected])).toEqual([
      ['UNPAID', 'active', 11000],
      ['CANCELLED', 'active', 20000],
      ['UNPAID', 'active', 33000],
    ]);
  });

  it('the execution holding a period: the newest other one with the policies, else the newest other one', async () => {
    const { ids, exec } = await seeded();
    const rerun = await execution(ACME, '2026-11');
    expect(await collections.executionHolding(store.db, ACME, '2026-11', null, rerun)).toBe(exec);
    expect(await collections.executionHolding(store.db, ACME, '2026-11', [ids[2]!], rerun)).toBe(exec);
    await collections.deleteExecution(store.db, ACME, rerun);
    expect(await collections.findExecution(store.db, ACME, rerun)).toBeUndefined();
    const first = await execution(ACME, '2026-12');
    expect(await collections.executionHolding(store.db, ACME, '2026-12', null, first)).toBeNull();
  });

  it('plan batches by day', async () => {
    await store.db
      .insertInto('plan_batches')
      .values([
        { client_id: ACME, plan_day: '2026-11-02', data: Uint8Array.of(1) },
        { client_id: ACME, plan_day: '2026-11-04', data: Uint8Array.of(2) },
        { client_id: OTHER, plan_day: '2026-11-04', data: Uint8Array.of(3) },
      ])
      .execute();
    const bytes = (list: Uint8Array[]) => list.map((d) => [...d]);
    expect(bytes(await collections.planBatchesOn(store.db, ACME, ['2026-11-04', '2026-11-05']))).toEqual([[2]]);
    expect(bytes(await collections.planBatchesOn(store.db, ACME, []))).toEqual([]);
  });
});

describe('settlements', () => {
  function statement(seq: number, status: 'pending' | 'paid' | 'disputed', net: number, previouslyPaid: number, supersedes: number | null): settlements.NewSettlementRow {
    return {
      client_id: ACME,
      period_month: '2026-11',
      seq,
      settlement_number: `SETTLE-2026-11-00${seq}`,
      total_collections: C(100000),
      distribution_fee: C(25000),
      collections_fee: C(3500),
      total_fees: C(28500),
      vat: C(4275),
      period_net: C(net),
      collections_count: 10,
      payment_date: '2026-12-03',
      payment_reference: `PRM261100${seq}-X`,
      status,
      created_at: seq,
      updated_at: seq,
      paid_on: status === 'pending' ? null : '2026-12-03',
      paid_reference: null,
      disputed_on: null,
      dispute_reason: null,
      previously_paid: C(previouslyPaid),
      supersedes_id: supersedes,
    };
  }

  it('numbers, live statements, what was paid for the period, and who supersedes whom', async () => {
    expect(await settlements.nextSettlementSeq(store.db, ACME, '2026-11')).toBe(1);
    const first = await settlements.insertSettlement(store.db, statement(1, 'paid', 67225, 0, null));
    expect((await settlements.findLiveSettlement(store.db, ACME, '2026-11'))?.id).toBe(first);
    await settlements.updateSettlement(store.db, ACME, first, { status: 'disputed', disputed_on: '2026-12-10', dispute_reason: 'short', updated_at: 9 });
    expect(await settlements.findLiveSettlement(store.db, ACME, '2026-11')).toBeUndefined();
    expect(await settlements.nextSettlementSeq(store.db, ACME, '2026-11')).toBe(2);
    expect(await settlements.paidForPeriod(store.db, ACME, '2026-11')).toBe(67225);

    const second = await settlements.insertSettlement(store.db, statement(2, 'pending', 67225, 67225, first));
    expect((await settlements.latestSettlement(store.db, ACME, '2026-11'))?.id).toBe(second);
    expect(await settlements.paidForPeriod(store.db, ACME, '2026-11')).toBe(67225);
    const list = await settlements.listSettlements(store.db, ACME, {});
    expect(list.map((s) => [s.settlement_number, s.status, s.supersedes_number, s.superseded_by_number])).toEqual([
      ['SETTLE-2026-11-002', 'pending', 'SETTLE-2026-11-001', null],
      ['SETTLE-2026-11-001', 'disputed', null, 'SETTLE-2026-11-002'],
    ]);
    expect((await settlements.listSettlements(store.db, ACME, { status: 'disputed' })).map((s) => s.id)).toEqual([first]);
    expect(await settlements.listSettlements(store.db, OTHER, {})).toEqual([]);
    expect((await settlements.findSettlementByNumber(store.db, ACME, 'SETTLE-2026-11-002'))?.supersedes_number).toBe('SETTLE-2026-11-001');
    expect(await settlements.findSettlementById(store.db, OTHER, second)).toBeUndefined();
    expect(await settlements.paymentReferenceExists(store.db, 'PRM2611002-X')).toBe(true);
    expect(await settlements.paymentReferenceExists(store.db, 'PRM2611003-X')).toBe(false);

    // A second live statement of the period is refused by the index, and recognised as such.
    const refused = await settlements.insertSettlement(store.db, statement(3, 'pending', 67225, 0, null)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(settlements.isLiveSettlementConflict(refused)).toBe(true);
    expect(settlements.isLiveSettlementConflict(new Error('UNIQUE constraint failed: settlements.payment_reference'))).toBe(false);
  });

  it("the collected counts: GROUP BY's pairs in amount order, a page at a time, only the client's period", async () => {
    const exec = await execution(ACME, '2026-11');
    const other = await execution(OTHER, '2026-11');
    const insert = store.raw.prepare(
      `insert into collections (client_id, execution_id, policy_id, period_month, customer_id, external_customer_ref, policy_number, product_code, amount_due, amount_collected, status)
       values (?, ?, ?, ?, 'C', 'E', ?, 'P', 500000, ?, 'PAID_PARTIAL')`,
    );
    const holder = await policy(ACME, 'POL-X', 500000);
    store.raw.transaction(() => {
      // 3,000 collections over 1,500 amounts (0 and 500000 among them), out of amount order.
      for (let i = 0; i < 3000; i++) insert.run(ACME, exec, holder, '2026-11', `N-${i}`, ((i * 7919) % 1500) * 333);
      insert.run(ACME, exec, holder, '2026-12', 'N-dec', 17);
      insert.run(OTHER, other, holder, '2026-11', 'N-other', 17);
    })();
    const groupBy = store.raw
      .prepare("select amount_collected, count(*) from collections where client_id = ? and period_month = '2026-11' group by amount_collected")
      .raw()
      .all(ACME);
    const batches: number[] = [];
    const pairs: unknown[] = [];
    for await (const batch of streamCollectedCounts(store, ACME, '2026-11')) {
      batches.push(batch.length);
      pairs.push(...batch);
    }
    expect(groupBy).toHaveLength(1500);
    expect(pairs).toEqual(groupBy);
    expect(batches).toEqual([1024, 476]);
    expect(pairs[0]).toEqual([0, 2]);
    expect(pairs.at(-1)).toEqual([1499 * 333, 2]);
    const none: unknown[] = [];
    for await (const batch of streamCollectedCounts(store, ACME, '2027-01')) none.push(batch);
    expect(none).toEqual([]);
  });

  it('the period totals sum what was collected', async () => {
    await policy(ACME, 'POL-1', 10000);
    await policy(ACME, 'POL-2', 20000);
    const exec = await execution(ACME, '2026-11');
    await collections.queueCollections(store.db, ACME, exec, '2026-11', null);
    await store.db.updateTable('collections').set({ amount_collected: C(7501) }).where('policy_number', '=', 'POL-2').execute();
    expect(await settlements.periodCollectionTotals(store.db, ACME, '2026-11')).toEqual({ count: 2, collected: 7501 });
    expect(await settlements.periodCollectionTotals(store.db, ACME, '2026-10')).toEqual({ count: 0, collected: 0 });
  });
});

describe("a customer's bank inputs (bank show, collections explain)", () => {
  async function seeded() {
    const insert = (clientId: number, number: string, customerId: string) =>
      policies.insertPolicy(store.db, {
        client_id: clientId,
        policy_number: number,
        customer_id: customerId,
        external_customer_ref: `EXT-${number}`,
        product_code: 'FUNERAL_BASIC',
        collection_amount: C(10000),
        status: 'active',
        created_at: 1000,
        updated_at: 1000,
      });
    await insert(ACME, 'POL-A1', 'CUS-A');
    await insert(ACME, 'POL-A2', 'CUS-A');
    await insert(ACME, 'POL-B', 'CUS-B');
    await insert(OTHER, 'POL-X', 'CUS-A');
    const queue = async (clientId: number, period: string) => {
      await collections.queueCollections(store.db, clientId, await execution(clientId, period), period, null);
      return new Map((await collections.listCollections(store.db, clientId, { period, limit: 10 })).map((r) => [r.policy_number, r.id]));
    };
    const nov = await queue(ACME, '2026-11');
    const dec = await queue(ACME, '2026-12');
    const other = await queue(OTHER, '2026-11');
    const attempt = (clientId: number, collectionId: number, date: string, amount: number, failure: string | null = null) => ({
      client_id: clientId,
      collection_id: collectionId,
      period_month: date.slice(0, 7) === '2026-12' ? '2026-12' : '2026-11',
      date,
      amount: C(amount),
      outcome: failure ? ('FAILED' as const) : ('SUCCESS' as const),
      failure_reason: failure,
    });
    await store.db
      .insertInto('attempts')
      .values([
        attempt(ACME, nov.get('POL-B')!, '2026-11-25', 10000),
        attempt(ACME, nov.get('POL-A2')!, '2026-11-25', 10000),
        attempt(ACME, nov.get('POL-A1')!, '2026-11-25', 6000, 'INSUFFICIENT_FUNDS'),
        attempt(OTHER, other.get('POL-X')!, '2026-11-25', 10000),
        attempt(ACME, nov.get('POL-A1')!, '2026-11-26', 4000),
        attempt(ACME, nov.get('POL-A1')!, '2026-12-01', 100, 'INSUFFICIENT_FUNDS'),
        attempt(ACME, nov.get('POL-B')!, '2026-12-01', 1),
        attempt(ACME, dec.get('POL-A2')!, '2026-12-02', 10000),
      ])
      .execute();
    const row = (clientId: number, customerId: string, date: string, amount: number, description: string) => ({
      client_id: clientId,
      customer_id: customerId,
      date,
      amount,
      description,
    });
    await store.db
      .insertInto('bank_transactions')
      .values([
        row(ACME, 'CUS-A', '2026-11-20', 50000, 'SALARY'),
        row(ACME, 'CUS-B', '2026-11-20', 40000, 'SALARY B'),
        row(OTHER, 'CUS-A', '2026-11-20', 30000, 'SALARY OTHER'),
        row(ACME, 'CUS-A', '2026-11-03', -2000, 'GROCER'),
        row(ACME, 'cus-a', '2026-11-04', -1000, 'NOT THIS CUSTOMER'),
      ])
      .execute();
  }

  it("reads one customer's imported rows in file order and its debits in (date, policy) order, no one else's", async () => {
    await seeded();
    const inputs = await readCustomerBankInputs(store, ACME, 'CUS-A');
    expect(inputs.known).toBe(true);
    expect(inputs.imported.size).toBe(1);
    expect(inputs.imported.get(ACME, 'CUS-A')).toEqual([
      { day: dayNumber('2026-11-20'), amount: 50000, description: 'SALARY' },
      { day: dayNumber('2026-11-03'), amount: -2000, description: 'GROCER' },
    ]);
    expect(inputs.attempts.size).toBe(1);
    expect(inputs.attempts.get(ACME, 'CUS-A')).toEqual([
      { day: dayNumber('2026-11-25'), amount: 6000, failure: 'INSUFFICIENT_FUNDS', policyNumber: 'POL-A1' },
      { day: dayNumber('2026-11-25'), amount: 10000, failure: null, policyNumber: 'POL-A2' },
      { day: dayNumber('2026-11-26'), amount: 4000, failure: null, policyNumber: 'POL-A1' },
      { day: dayNumber('2026-12-01'), amount: 100, failure: 'INSUFFICIENT_FUNDS', policyNumber: 'POL-A1' },
      { day: dayNumber('2026-12-02'), amount: 10000, failure: null, policyNumber: 'POL-A2' },
    ]);
    const b = await readCustomerBankInputs(store, ACME, 'CUS-B');
    expect(b.attempts.get(ACME, 'CUS-B')?.map((a) => a.amount)).toEqual([10000, 1]);
    expect(b.imported.get(ACME, 'CUS-B')?.map((r) => r.description)).toEqual(['SALARY B']);
    const other = await readCustomerBankInputs(store, OTHER, 'CUS-A');
    expect(other.attempts.get(OTHER, 'CUS-A')?.map((a) => a.policyNumber)).toEqual(['POL-X']);
    expect(other.imported.get(OTHER, 'CUS-A')?.map((r) => r.description)).toEqual(['SALARY OTHER']);
    expect((await readCustomerBankInputs(store, ACME, 'CUS-Z')).known).toBe(false);
  });

  it('looks the debits up by (date, collection): the plan never scans every attempt', async () => {
    await seeded();
    const plan = await store.withConnection(async (raw) =>
      (raw.prepare(`explain query plan ${ONE_CUSTOMER_ATTEMPTS}`).all('0000-00-00', ACME, 'CUS-A') as Array<{ detail: string }>).map((r) => r.detail),
    );
    expect(plan.some((d) => /^SEARCH a USING (COVERING )?INDEX sqlite_autoindex_attempts_1 \(date=\? AND collection_id=\?\)/.test(d))).toBe(true);
    expect(plan.filter((d) => /^SCAN (a|attempts)\b/.test(d))).toEqual([]);
  });
});
