/**
 * The same inputs on SQLite and on PostgreSQL give the same bytes: the README's month (the
 * fixture book and bank, November executed, the clock moved past the period's end), then every
 * report, the attempts export, the settlement and its --lines export, the collections and the
 * policies, compared byte for byte between the two stores.
 */
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import type { Upload } from '../../src/backend/types.js';
import { asCents } from '../../src/domain/money.js';
import { FIXTURES } from '../helpers/cli.js';
import { allCollections, FIXED_NOW, fileUpload, fixtureMonth, readDownload, textUpload } from '../helpers/local.js';
import { freshDatabase, noPg, onDatabase, pg } from './db.js';
import type { PremiaError } from '../../src/domain/errors.js';

async function onEach<T>(backends: readonly LocalBackend[], f: (b: LocalBackend) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (const b of backends) out.push(await f(b));
  return out;
}

describe.skipIf(noPg)(`SQLite and PostgreSQL give the same bytes${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  let lite: LocalBackend;
  let post: LocalBackend;
  const both = () => [lite, post] as const;
  const onBoth = async <T>(f: (b: LocalBackend) => Promise<T>): Promise<[T, T]> => [await f(lite), await f(post)];

  beforeAll(async () => {
    lite = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    post = await openLocalBackend({ path: await freshDatabase('parity'), seed: 1, now: FIXED_NOW });
    for (const b of both()) {
      await fixtureMonth(b);
      await b.advanceClock({ to: '2026-12-02' });
    }
  });
  afterAll(async () => {
    await lite?.close();
    await post?.close();
  });

  it('the store is PostgreSQL on one side', () => {
    expect(post.store.kind).toBe('postgres');
    expect(lite.store.kind).toBe('sqlite');
  });

  it('the month collected the same, to the cent', async () => {
    const [l, p] = await onBoth((b) => allCollections(b, '2026-11'));
    expect(l).toHaveLength(520);
    expect(p).toEqual(l);
    // The README's month: 470,925.10 collected in November (clock advance's own figure).
    expect(l.reduce((s, c) => s + c.collection_amount_collected, 0)).toBe(47_092_510);
  });

  it("an advance's figures read back from the store (a replayed Idempotency-Key's) are the same on both, and the month's", async () => {
    const days = Array.from({ length: 30 }, (_, i) => {
      const date = `2026-11-${String(i + 1).padStart(2, '0')}`;
      return { date, attempts: 0, succeeded: 0, failed: 0, collected: asCents(0), closed_period: date === '2026-11-30' ? '2026-11' : null, lapsed_policies: 0 };
    });
    const [l, p] = await onBoth((b) => b.advanceResultFor({ from: '2026-10-31', to: '2026-11-30', days }));
    expect(p).toEqual(l);
    expect(l.days.reduce((s, d) => s + d.collected, 0)).toBe(47_092_510);
    expect(l.days.reduce((s, d) => s + d.attempts, 0)).toBe(l.days.reduce((s, d) => s + d.succeeded + d.failed, 0));
    expect(l.days.find((d) => d.date === '2026-11-02')!.attempts).toBeGreaterThan(0);
  });

  for (const format of ['csv', 'json'] as const) {
    it(`the collections report (${format}) is byte-identical`, async () => {
      const l = await readDownload(await lite.collectionsReport('2026-11', format));
      const p = await readDownload(await post.collectionsReport('2026-11', format));
      expect(l.length).toBeGreaterThan(50_000);
      expect(p).toBe(l);
    });

    it(`the attempts export (${format}) is byte-identical`, async () => {
      const l = await readDownload(await lite.exportAttempts('2026-11', format));
      const p = await readDownload(await post.exportAttempts('2026-11', format));
      expect(l.length).toBeGreaterThan(1000);
      expect(p).toBe(l);
    });
  }

  it('the settlement, its export and its --lines export are byte-identical', async () => {
    const [ls, ps] = await onBoth((b) => b.createSettlement('2026-11'));
    expect(ps).toEqual(ls);
    expect(ls.total_collections).toBe(47_092_510);
    const l = await readDownload(await lite.exportSettlement(ls.settlement_number));
    const p = await readDownload(await post.exportSettlement(ps.settlement_number));
    expect(p).toBe(l);
    const ll = await readDownload(await lite.exportSettlement(ls.settlement_number, { lines: true }));
    const pl = await readDownload(await post.exportSettlement(ps.settlement_number, { lines: true }));
    expect(ll.trimEnd().split('\n')).toHaveLength(521);
    expect(pl).toBe(ll);
    // Once per period: the second is refused the same way on both.
    const errors = await onBoth((b) => b.createSettlement('2026-11').then(() => null, (e: { code: string; message: string }) => [e.code, e.message]));
    expect(errors[0]).not.toBeNull();
    expect(errors[1]).toEqual(errors[0]);
  });

  it('policies: pages, one policy and its history are the same', async () => {
    const [l, p] = await onBoth((b) => b.listPolicies({ limit: 1000 }));
    expect(l.data.length).toBeGreaterThan(500);
    expect(p).toEqual(l);
    const [lp, pp] = await onBoth((b) => b.getPolicy('POL-2026021'));
    expect(pp).toEqual(lp);
  });
});

describe.skipIf(noPg)('policy import on PostgreSQL (COPY into policies or a staging table, in one transaction)', () => {
  const HEADER = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
  const FILE =
    HEADER +
    'C1,R1,POL-B,LIFE_STANDARD,10.00\n' + // line 2
    'C2,R2,POL-A,LIFE_STANDARD,999999.99\n' + // 3: the largest premium
    'C3,R3,POL-B,LIFE_STANDARD,12.00\n' + // 4: DUPLICATE_IN_FILE of line 2
    'C4,R4,POL-OLD,LIFE_STANDARD,13.00\n' + // 5: DUPLICATE_POLICY (created before)
    'C5,R5,POL-C,NOT A CODE,14.00\n' + // 6: invalid
    'C6,R6,POL-D,LIFE_STANDARD,15.00\n'; // 7

  async function run(b: LocalBackend) {
    await b.createPolicy({ customer_id: 'C0', external_customer_ref: 'R0', policy_number: 'POL-OLD', product_code: 'LIFE_STANDARD', collection_amount: asCents(100) });
    const result = await b.importPolicies(textUpload('p.csv', FILE));
    const list = await b.listPolicies({ limit: 100 });
    return { result, list };
  }

  it('imports, refuses and reports exactly as SQLite does', async () => {
    const lite = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    const post = await openLocalBackend({ path: await freshDatabase('import'), seed: 1, now: FIXED_NOW });
    try {
      const l = await run(lite);
      const p = await run(post);
      expect(l.result.imported).toBe(3);
      expect(l.result.failed).toBe(3);
      expect(p.result).toEqual(l.result);
      expect(p.list).toEqual(l.list);
      expect(p.list.data.find((x) => x.policy_number === 'POL-A')!.collection_amount).toBe(99_999_999);
      // The same file again: every row a duplicate of a stored policy; nothing imported, nothing changed.
      const again = await post.importPolicies(textUpload('p.csv', FILE));
      expect(again.imported).toBe(0);
      expect(await post.listPolicies({ limit: 100 })).toEqual(p.list);
    } finally {
      await lite.close();
      await post.close();
    }
  });

  it('into a client without policies (COPY straight into policies): duplicates in the file answered as SQLite does', async () => {
    const file =
      HEADER +
      'C1,R1,POL-B,LIFE_STANDARD,10.00\n' + // line 2
      'C2,R2,POL-A,LIFE_STANDARD,11.00\n' + // 3
      'C3,R3,POL-B,LIFE_STANDARD,12.00\n' + // 4: DUPLICATE_IN_FILE of line 2
      'C4,R4,POL-C,NOT A CODE,13.00\n' + // 5: invalid, so it takes no number
      'C5,R5,POL-C,LIFE_STANDARD,14.00\n' + // 6: imports POL-C
      'C6,R6,POL-B,LIFE_STANDARD,15.00\n' + // 7: DUPLICATE_IN_FILE of line 2 again
      'C7,R7,POL-C,LIFE_STANDARD,16.00\n' + // 8: DUPLICATE_IN_FILE of line 6
      'C8,R8,POL-BB,LIFE_STANDARD,17.00\n' + // 9: a number that starts as another does
      'C9,R9,POL-D,LIFE_STANDARD,999999.99\n'; // 10
    const lite = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    const url = await freshDatabase('import');
    const post = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
    try {
      const l = await lite.importPolicies(textUpload('p.csv', file));
      const p = await post.importPolicies(textUpload('p.csv', file));
      expect(l.imported).toBe(5);
      expect(l.errors.map((e) => [e.row, e.field, e.code === 'DUPLICATE_IN_FILE' ? e.message : '…'])).toEqual([
        [4, 'policy_number', 'policy POL-B already appears on row 2 of this file'],
        [5, 'product_code', '…'],
        [7, 'policy_number', 'policy POL-B already appears on row 2 of this file'],
        [8, 'policy_number', 'policy POL-C already appears on row 6 of this file'],
      ]);
      expect(p).toEqual(l);
      expect(await post.listPolicies({ limit: 100 })).toEqual(await lite.listPolicies({ limit: 100 }));
      // Ids in file order from 1, the amounts in cents.
      const rows = await onDatabase<{ id: string; policy_number: string; collection_amount: string }>(url, 'select id, policy_number, collection_amount from policies order by id');
      expect(rows.map((r) => [Number(r.id), r.policy_number, Number(r.collection_amount)])).toEqual([
        [1, 'POL-B', 1000],
        [2, 'POL-A', 1100],
        [3, 'POL-C', 1400],
        [4, 'POL-BB', 1700],
        [5, 'POL-D', 99_999_999],
      ]);
    } finally {
      await lite.close();
      await post.close();
    }
  });

  it('a file that fails part-way leaves nothing behind, into a client with policies or without', async () => {
    const url = await freshDatabase('import');
    const post = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
    const failing = (): Upload => ({
      name: 'p.csv',
      stream: Readable.from(
        (async function* () {
          // More than a batch of rows (4096), so some have gone to the server before the break.
          yield Buffer.from(HEADER + Array.from({ length: 10_000 }, (_, i) => `C${i},R${i},POL-X${i},LIFE_STANDARD,10.00\n`).join(''));
          throw new Error('the upload broke off');
        })(),
      ),
    });
    const count = async () => Number((await onDatabase<{ n: string }>(url, 'select count(*) as n from policies'))[0]!.n);
    try {
      await expect(post.importPolicies(failing())).rejects.toThrow();
      expect(await count()).toBe(0);
      await post.createPolicy({ customer_id: 'C0', external_customer_ref: 'R0', policy_number: 'POL-OLD', product_code: 'LIFE_STANDARD', collection_amount: asCents(100) });
      await expect(post.importPolicies(failing())).rejects.toThrow();
      expect(await count()).toBe(1);
    } finally {
      await post.close();
    }
  });

  it('a file found bad after rows went to the server: the same answer as SQLite, at once, and the store free for the next write', async () => {
    const lite = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    const post = await openLocalBackend({ path: await freshDatabase('badfile'), seed: 1, now: FIXED_NOW });
    // More than a batch of valid rows (4096), sent before the unclosed quote of the last line is read.
    const policies = HEADER + Array.from({ length: 10_000 }, (_, i) => `C${i},R${i},POL-X${i},LIFE_STANDARD,10.00\n`).join('') + 'C1,R1,"POL-Y,LIFE_STANDARD,1.00\n';
    // A valid row, then one that is not: the whole file is refused (exit 3), nothing imported.
    const bank = 'customer_id,date,amount,description\nC0,2026-10-01,100.00,SALARY\nC0,2026-13-01,5.00,BAD DATE\n';
    const outcome = (p: Promise<unknown>) =>
      p.then(
        (r) => ({ ok: r }),
        (e: PremiaError) => ({ code: e.code, message: e.message, details: e.details }),
      );
    try {
      for (const withPolicies of [false, true]) {
        const [a, b] = await onEach([lite, post], (x) => outcome(x.importPolicies(textUpload('p.csv', policies))));
        expect(b).toEqual(a);
        expect(a).toMatchObject({ code: 'INVALID_FILE' });
        if (!withPolicies) {
          for (const x of [lite, post]) await x.createPolicy({ customer_id: 'C0', external_customer_ref: 'R0', policy_number: 'POL-OLD', product_code: 'LIFE_STANDARD', collection_amount: asCents(100) });
        }
      }
      const [a, b] = await onEach([lite, post], (x) => outcome(x.importBankTransactions(textUpload('b.csv', bank))));
      expect(b).toEqual(a);
      expect(a).toMatchObject({ ok: { imported: 0, failed: 1 } });
      // Nothing kept, and the writer lock given back: the next write goes through.
      await post.createPolicy({ customer_id: 'C1', external_customer_ref: 'R1', policy_number: 'POL-NEW', product_code: 'LIFE_STANDARD', collection_amount: asCents(100) });
      expect(await onDatabase(post.store.target, 'select (select count(*)::int from policies) as policies, (select count(*)::int from bank_transactions) as bank')).toEqual([{ policies: 2, bank: 0 }]);
    } finally {
      await lite.close();
      await post.close();
    }
  });

  it('a statement imported again counts each stored row against one equal row of the file, on both alike', async () => {
    const head = 'customer_id,date,amount,description\nDAY-1,2026-08-03,500.00,SALARY\n';
    const coffee = 'DAY-1,2026-08-03,-20.00,COFFEE\n';
    const results: unknown[] = [];
    for (const path of [':memory:', await freshDatabase('dupcount')]) {
      const b = await openLocalBackend({ path, seed: 1, now: FIXED_NOW });
      try {
        await b.setClock('2026-07-31');
        const first = await b.importBankTransactions(textUpload('noon.csv', head + coffee));
        const again = await b.importBankTransactions(textUpload('day.csv', head + coffee + coffee));
        await b.setClock('2026-08-03');
        const account = await b.showBankAccount('DAY-1');
        results.push([first.imported, again.imported, again.errors.map((e) => [e.row, e.code]), account.balance]);
      } finally {
        await b.close();
      }
    }
    expect(results[0]).toEqual([2, 1, [[2, 'DUPLICATE_TRANSACTION'], [3, 'DUPLICATE_TRANSACTION']], 46000]);
    expect(results[1]).toEqual(results[0]);
  });

  it('a row with an empty description is stored with an empty one, on both alike (not NULL, which failed the import on PostgreSQL)', async () => {
    const bank = 'customer_id,date,amount,description\nE-1,2026-11-02,500.00,\nE-1,2026-11-03,-20.00,""\nE-1,2026-11-04,-5.00,COFFEE\n';
    const results: unknown[] = [];
    for (const path of [':memory:', await freshDatabase('emptydesc')]) {
      const b = await openLocalBackend({ path, seed: 1, now: FIXED_NOW });
      try {
        await b.setClock('2026-10-31');
        const r = await b.importBankTransactions(textUpload('b.csv', bank));
        await b.setClock('2026-11-04');
        const account = await b.showBankAccount('E-1');
        results.push([r, account.balance, account.recent_transactions.map((t) => [t.date, t.amount, t.description])]);
      } finally {
        await b.close();
      }
    }
    expect(results[0]).toEqual([
      { imported: 3, failed: 0, errors: [] },
      47500,
      [
        ['2026-11-02', 50000, ''],
        ['2026-11-03', -2000, ''],
        ['2026-11-04', -500, 'COFFEE'],
      ],
    ]);
    expect(results[1]).toEqual(results[0]);
  });

  it('the fixture book imports the same on both', async () => {
    const lite = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    const post = await openLocalBackend({ path: await freshDatabase('import'), seed: 1, now: FIXED_NOW });
    try {
      for (const file of ['policies.csv', 'policies-invalid.csv']) {
        const l = await lite.importPolicies(fileUpload(join(FIXTURES, file)));
        const p = await post.importPolicies(fileUpload(join(FIXTURES, file)));
        expect(p).toEqual(l);
      }
      expect(await post.listPolicies({ limit: 1000 })).toEqual(await lite.listPolicies({ limit: 1000 }));
    } finally {
      await lite.close();
      await post.close();
    }
  });
});

/**
 * What `fn` finds on a store in memory and on a fresh PostgreSQL database (`name`), each holding one
 * policy (L-1 of R1, 100.00) and R1's bank rows `bank`, with the clock at 2026-10-31.
 */
async function onBothStores<T>(name: string, bank: string, fn: (b: LocalBackend) => Promise<T>): Promise<[T, T]> {
  const out: T[] = [];
  for (const path of [':memory:', await freshDatabase(name)]) {
    const b = await openLocalBackend({ path, seed: 1, now: FIXED_NOW });
    try {
      await b.setClock('2026-10-31');
      await b.importPolicies(textUpload('p.csv', 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nR1,E1,L-1,LIFE,100.00\n'));
      await b.importBankTransactions(textUpload('b.csv', `customer_id,date,amount,description\n${bank}`));
      out.push(await fn(b));
    } finally {
      await b.close();
    }
  }
  return [out[0]!, out[1]!];
}

describe.skipIf(noPg)(`a reinstated policy's lapse count on PostgreSQL as on SQLite${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  it('lapses again only after two unpaid periods since its reinstatement, on both stores alike', async () => {
    const histories = await onBothStores('reinstated', 'R1,2026-07-01,1.00,DEPOSIT\n', async (b) => {
      for (const period of ['2026-11', '2026-12']) {
        await b.executeCollections({ period_month: period });
        await b.advanceClock({ to: period === '2026-11' ? '2026-11-30' : '2027-01-05' });
      }
      await b.updatePolicy('L-1', { status: 'active' });
      for (const [period, to] of [['2027-01', '2027-01-31'], ['2027-02', '2027-02-28']] as const) {
        await b.executeCollections({ period_month: period });
        await b.advanceClock({ to });
      }
      return (await b.getPolicy('L-1')).status_history.map((h) => `${h.changed_on} ${h.new_status} ${h.reason}`);
    });
    expect(histories[0]).toEqual([
      '2026-12-31 lapsed lapsed: unpaid in 2 consecutive periods (2026-11, 2026-12)',
      '2027-01-05 active update',
      '2027-02-28 lapsed lapsed: unpaid in 2 consecutive periods (2027-01, 2027-02)',
    ]);
    expect(histories[1]).toEqual(histories[0]);
  });

  it('a policy lapsed at a close inside one advance is debited no more after it, on both stores alike', async () => {
    // Pay only from January: November and December unpaid, then enough for January's premium.
    const outcomes = await onBothStores('lapsed_inside', 'R1,2026-07-01,1.00,DEPOSIT\nR1,2027-01-04,5000.00,SALARY\n', async (b) => {
      for (const period of ['2026-11', '2026-12', '2027-01']) await b.executeCollections({ period_month: period });
      const lapsed = (await b.advanceClock({ to: '2027-01-12' })).days.filter((d) => d.closed_period !== null).map((d) => d.lapsed_policies);
      const jan = (await allCollections(b, '2027-01'))[0]!;
      return [lapsed, (await b.getPolicy('L-1')).status, jan.collection_status, jan.number_of_attempts, await readDownload(await b.exportAttempts('2027-01', 'csv'))];
    });
    expect(outcomes[0]).toEqual([[0, 1], 'lapsed', 'UNPAID', 0, 'collection_id,policy_number,customer_id,date,amount,outcome,failure_reason\n']);
    expect(outcomes[1]).toEqual(outcomes[0]);
  });
});

describe.skipIf(noPg)(`a run naming more policies than one statement's list, on PostgreSQL as on SQLite${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  it('by id and by number, repeats once: the same policies queued in policy_number order, the same answer again', async () => {
    const numbers = Array.from({ length: 1_300 }, (_, i) => `N-${String(i).padStart(4, '0')}`);
    const csv = ['customer_id,external_customer_ref,policy_number,product_code,collection_amount', ...numbers.map((n, i) => `C${i},E${i},${n},LIFE,10.00`)].join('\n');
    const seen: unknown[] = [];
    for (const path of [':memory:', await freshDatabase('many_named')]) {
      const b = await openLocalBackend({ path, seed: 1, now: FIXED_NOW });
      try {
        await b.setClock('2026-10-31');
        expect((await b.importPolicies(textUpload('p.csv', csv))).imported).toBe(1_300);
        await b.updatePolicy('N-0005', { status: 'cancelled' });
        // 700 by number from the end, 600 by id from the start (overlapping N-0600..N-0599+…), unsorted.
        const ids: string[] = [];
        for (const n of numbers.slice(0, 600)) ids.push((await b.getPolicy(n)).id);
        const named = [...numbers.slice(600).reverse(), ...ids.filter((_, k) => k !== 5), numbers[650]!];
        const first = await b.executeCollections({ period_month: '2026-11', policy_ids: named });
        const again = await b.executeCollections({ period_month: '2026-11', policy_ids: named });
        const refused = await b.executeCollections({ period_month: '2026-11', policy_ids: [...named, 'N-0005', 'n-0006'] }).catch((e: PremiaError) => [e.code, e.message]);
        seen.push([first.policies_queued, again.policies_queued, again.execution_id === first.execution_id, refused, (await allCollections(b, '2026-11')).map((c) => c.policy_number)]);
      } finally {
        await b.close();
      }
    }
    expect(seen[0]).toEqual([
      1_299,
      0,
      true,
      ['VALIDATION_ERROR', 'Nothing was queued: unknown policies: n-0006; cancelled (a cancelled policy is never collected again): N-0005.'],
      numbers.filter((n) => n !== 'N-0005'),
    ]);
    expect(seen[1]).toEqual(seen[0]);
  });
});

describe.skipIf(noPg)(`the premium a run queues from a policy's amount history, on PostgreSQL as on SQLite${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  it("the newest change in effect by the period (the later of two for one period), else the first change's old amount", async () => {
    const csv = ['customer_id,external_customer_ref,policy_number,product_code,collection_amount', 'C1,E1,A,LIFE,100.00', 'C2,E2,B,LIFE,200.00', 'C3,E3,C,LIFE,300.00', 'C4,E4,D,LIFE,400.00'].join('\n');
    const seen: unknown[] = [];
    for (const path of [':memory:', await freshDatabase('amount_history')]) {
      const b = await openLocalBackend({ path, seed: 1, now: FIXED_NOW });
      try {
        await b.setClock('2026-09-30');
        expect((await b.importPolicies(textUpload('p.csv', csv))).imported).toBe(4);
        // A: 110.00 then 115.00 from 2026-10, 120.00 from 2026-11, 130.00 then 135.00 from 2026-12 (two changes for one period).
        await b.updatePolicy('A', { collection_amount: asCents(11000) });
        await b.updatePolicy('A', { collection_amount: asCents(11500) });
        await b.setClock('2026-10-15');
        await b.updatePolicy('A', { collection_amount: asCents(12000) });
        await b.updatePolicy('B', { collection_amount: asCents(21000) });
        await b.setClock('2026-11-15');
        await b.updatePolicy('A', { collection_amount: asCents(13000) });
        await b.updatePolicy('A', { collection_amount: asCents(13500) });
        // D: 450.00 then 470.00, both from 2026-12: November keeps the first change's old amount, 400.00.
        await b.updatePolicy('D', { collection_amount: asCents(45000) });
        await b.updatePolicy('D', { collection_amount: asCents(47000) });
        for (const period of ['2026-11', '2026-12', '2027-01']) await b.executeCollections({ period_month: period });
        const due: string[] = [];
        for (const period of ['2026-11', '2026-12', '2027-01']) for (const c of await allCollections(b, period)) due.push(`${period} ${c.policy_number} ${c.collection_amount_due}`); // cents
        seen.push(due);
      } finally {
        await b.close();
      }
    }
    expect(seen[0]).toEqual([
      '2026-11 A 12000', '2026-11 B 21000', '2026-11 C 30000', '2026-11 D 40000',
      '2026-12 A 13500', '2026-12 B 21000', '2026-12 C 30000', '2026-12 D 47000',
      '2027-01 A 13500', '2027-01 B 21000', '2027-01 C 30000', '2027-01 D 47000',
    ]);
    expect(seen[1]).toEqual(seen[0]);
  });
});
