/** Runs, cancellations, lapses, amount changes and the clock, on the local backend. */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { LocalBackend } from '../../src/backend/local/index.js';
import { PremiaError } from '../../src/domain/errors.js';
import { tempDir } from '../helpers/cli.js';
import { allCollections, localBackend, readDownload, textUpload } from '../helpers/local.js';
import { asCents } from '../../src/domain/money.js';
import { lastDay } from '../../src/domain/period.js';

const POLICIES = `customer_id,external_customer_ref,policy_number,product_code,collection_amount
K1,E1,P-1,LIFE,500.00
K2,E2,P-2,LIFE,300.00
K3,E3,P-3,FUNERAL,99.00
`;
// K1: salary 10 000.00 on the 25th; K2: salary on the 25th too; K3: no income at all.
function bank(): string {
  const lines = ['customer_id,date,amount,description'];
  for (const m of ['2026-07', '2026-08', '2026-09', '2026-10', '2026-11', '2026-12', '2027-01', '2027-02']) {
    const pay = { '2026-07': '24', '2026-10': '23', '2027-01': '25', '2027-02': '25' }[m] ?? '25';
    lines.push(`K1,${m}-${pay},10000.00,SALARY`, `K1,${m}-${pay},-6000.00,DEBIT ORDER`);
    lines.push(`K2,${m}-${pay},8000.00,SALARY`);
  }
  lines.push('K3,2026-07-02,10.00,TRANSFER');
  return `${lines.join('\n')}\n`;
}

/** The three policies and their bank, on a store in memory or (`path`) in a file. */
async function setup(path?: string): Promise<LocalBackend> {
  const b = await localBackend({ path, seed: 1 });
  await b.setClock('2026-10-31');
  expect((await b.importPolicies(textUpload('p.csv', POLICIES))).imported).toBe(3);
  expect((await b.importBankTransactions(textUpload('b.csv', bank()))).failed).toBe(0);
  return b;
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (e) {
    return (e as PremiaError).code;
  }
}

const byNumber = async (b: LocalBackend, period: string) => Object.fromEntries((await allCollections(b, period)).map((c) => [c.policy_number, c]));

describe('collections execute', () => {
  it('queues every active policy once per period; a rerun queues only new ones', async () => {
    const b = await setup();
    const first = await b.executeCollections({ period_month: '2026-11' });
    expect([first.status, first.policies_queued]).toEqual(['processing', 3]);
    // A rerun records no empty execution: it names the one holding the policies.
    expect(await b.executeCollections({ period_month: '2026-11' })).toEqual({ ...first, policies_queued: 0 });
    await b.importPolicies(textUpload('more.csv', 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nK4,E4,P-4,LIFE,10.00\n'));
    const more = await b.executeCollections({ period_month: '2026-11' });
    expect(more.policies_queued).toBe(1);
    expect(more.execution_id).not.toBe(first.execution_id);
    expect(await b.executeCollections({ period_month: '2026-11', policy_ids: ['P-1'] })).toEqual({ ...first, policies_queued: 0 });
    expect(await b.executeCollections({ period_month: '2026-11', policy_ids: ['P-4', 'P-1'] })).toEqual({ ...more, policies_queued: 0 });
    expect(await b.executeCollections({ period_month: '2026-11' })).toEqual({ ...more, policies_queued: 0 });
    const executions = await b.store.db.selectFrom('executions').select(['period_month', 'policies_queued']).orderBy('id').execute();
    expect(executions).toEqual([
      { period_month: '2026-11', policies_queued: 3 },
      { period_month: '2026-11', policies_queued: 1 },
    ]);
    const rows = await allCollections(b, '2026-11');
    expect(rows.map((c) => [c.policy_number, c.collection_amount_due, c.collection_status, c.number_of_attempts, c.first_attempt_date])).toEqual([
      ['P-1', 50000, 'UNPAID', 0, null],
      ['P-2', 30000, 'UNPAID', 0, null],
      ['P-3', 9900, 'UNPAID', 0, null],
      ['P-4', 1000, 'UNPAID', 0, null],
    ]);
  });

  it('a period with nothing to queue records one execution, and reruns name it', async () => {
    const b = await localBackend();
    await b.setClock('2026-10-31');
    const first = await b.executeCollections({ period_month: '2026-11' });
    expect(first.policies_queued).toBe(0);
    expect(await b.executeCollections({ period_month: '2026-11' })).toEqual(first);
    expect(await b.store.db.selectFrom('executions').select('policies_queued').execute()).toEqual([{ policies_queued: 0 }]);
  });

  it('a run is queued at most 12 months after the clock\'s month: a mistyped year queues nothing', async () => {
    const b = await setup();
    const err = await b.executeCollections({ period_month: '2062-11' }).catch((e) => e as PremiaError);
    expect([(err as PremiaError).code, (err as PremiaError).exitCode]).toEqual(['VALIDATION_ERROR', 2]);
    expect((err as PremiaError).message).toBe(
      "Period 2062-11 is 433 months after the clock's month 2026-10; a run can be queued at most 12 months ahead. Nothing was queued.",
    );
    expect(await b.store.db.selectFrom('collections').select('id').execute()).toEqual([]);
    expect((await b.executeCollections({ period_month: '2027-10' })).policies_queued).toBe(3);
  });

  it('a cancelled policy in the list is named as cancelled, not as one to reinstate', async () => {
    const b = await setup();
    await b.updatePolicy('P-2', { status: 'cancelled' });
    await b.updatePolicy('P-3', { status: 'lapsed' });
    const err = await b.executeCollections({ period_month: '2026-11', policy_ids: ['P-2', 'P-3'] }).catch((e) => e as PremiaError);
    expect((err as PremiaError).message).toBe(
      'Nothing was queued: lapsed (reinstate them first): P-3; cancelled (a cancelled policy is never collected again): P-2.',
    );
    expect((err as PremiaError).details).toEqual([
      { field: 'policy_ids', code: 'POLICY_NOT_ACTIVE', message: 'policy P-2 is cancelled', ref: 'P-2' },
      { field: 'policy_ids', code: 'POLICY_NOT_ACTIVE', message: 'policy P-3 is lapsed', ref: 'P-3' },
    ]);
    expect(await allCollections(b, '2026-11')).toEqual([]);
  });

  it('unknown or inactive policies make the whole request a VALIDATION_ERROR naming them, with nothing queued', async () => {
    const b = await setup();
    await b.updatePolicy('P-3', { status: 'lapsed' });
    const err = await b.executeCollections({ period_month: '2026-11', policy_ids: ['P-1', 'NOPE', 'P-3'] }).catch((e) => e as PremiaError);
    expect(err).toBeInstanceOf(PremiaError);
    expect((err as PremiaError).code).toBe('VALIDATION_ERROR');
    expect((err as PremiaError).message).toBe('Nothing was queued: unknown policies: NOPE; lapsed (reinstate them first): P-3.');
    expect(await allCollections(b, '2026-11')).toEqual([]);
    // By id or by number; lapsed policies are skipped when no list is given.
    const p1 = await b.getPolicy('P-1');
    expect((await b.executeCollections({ period_month: '2026-11', policy_ids: [p1.id, 'P-2'] })).policies_queued).toBe(2);
    expect((await b.executeCollections({ period_month: '2026-11' })).policies_queued).toBe(0);
  });

  it('policy_ids name policies by id or by number as a look-up of one does, repeats counted once', async () => {
    const b = await setup();
    const [p1, p2] = [await b.getPolicy('P-1'), await b.getPolicy('P-2')];
    // Numbers are case-sensitive: p-3 names nothing, and nothing is queued.
    const err = await b.executeCollections({ period_month: '2026-11', policy_ids: [p1.id, 'P-2', p1.id, 'p-3', 'P-2'] }).catch((e) => e as PremiaError);
    expect((err as PremiaError).message).toBe('Nothing was queued: unknown policies: p-3.');
    expect((err as PremiaError).details).toEqual([{ field: 'policy_ids', code: 'UNKNOWN_POLICY', message: "no policy 'p-3'", ref: 'p-3' }]);
    expect(await allCollections(b, '2026-11')).toEqual([]);
    // The same two policies by id and by number: each queued once.
    expect((await b.executeCollections({ period_month: '2026-11', policy_ids: [p2.id, 'P-1', p1.id, 'P-2'] })).policies_queued).toBe(2);
    expect((await allCollections(b, '2026-11')).map((c) => c.policy_number)).toEqual(['P-1', 'P-2']);
  });

  it('a period whose last day has run is closed; a bad period or strategy is a validation error', async () => {
    const b = await setup();
    expect(await code(b.executeCollections({ period_month: '2026-10' }))).toBe('PERIOD_CLOSED');
    expect(await code(b.executeCollections({ period_month: '2026-13' }))).toBe('VALIDATION_ERROR');
    expect(await code(b.executeCollections({ period_month: '2026-11', strategy: 'greedy' }))).toBe('VALIDATION_ERROR');
  });
});

describe('the clock', () => {
  it('can be set before the first run, then only moves forward', async () => {
    const b = await setup();
    expect((await b.setClock('2026-10-15')).date).toBe('2026-10-15');
    await b.setClock('2026-10-31');
    await b.executeCollections({ period_month: '2026-11' });
    expect(await code(b.setClock('2026-11-05'))).toBe('CLOCK_LOCKED');
    expect(await code(b.seedBank(9))).toBe('SEED_LOCKED');
    expect(await code(b.advanceClock({ to: '2026-10-30' }))).toBe('CLOCK_BACKWARDS');
    expect(await code(b.advanceClock({ days: 1, to: '2026-11-02' }))).toBe('VALIDATION_ERROR');
    const r = await b.advanceClock({ days: 3 });
    expect([r.from, r.to, r.days.map((d) => d.date)]).toEqual(['2026-10-31', '2026-11-03', ['2026-11-01', '2026-11-02', '2026-11-03']]);
    expect((await b.advanceClock({ to_month_end: true })).to).toBe('2026-11-30');
    expect((await b.advanceClock({ to_month_end: true })).to).toBe('2026-12-31');
    expect((await b.advanceClock({ days: 0 })).days).toEqual([]);
  });

  it('closing a month completes its executions and gives every collection its final status', async () => {
    const b = await setup();
    const ex = await b.executeCollections({ period_month: '2026-11' });
    const r = await b.advanceClock({ to: '2026-11-30' });
    expect(r.days.at(-1)).toEqual({ date: '2026-11-30', attempts: 0, succeeded: 0, failed: 0, collected: 0, closed_period: '2026-11', lapsed_policies: 0 });
    const e = await b.getExecution(ex.execution_id);
    expect([e.status, e.counts]).toEqual(['completed', { PAID_FULL: 2, PAID_PARTIAL: 0, UNPAID: 1, CANCELLED: 0 }]);
    const rows = await byNumber(b, '2026-11');
    expect(['P-1', 'P-2', 'P-3'].map((p) => [rows[p]!.collection_status, rows[p]!.first_attempt_date])).toEqual([
      ['PAID_FULL', '2026-11-02'],
      ['PAID_FULL', '2026-11-02'],
      ['UNPAID', null],
    ]);
    // Executing a period once closed is refused.
    expect(await code(b.executeCollections({ period_month: '2026-11' }))).toBe('PERIOD_CLOSED');
  });
});

describe('policy changes during a period', () => {
  it('a cancellation stops attempts at once; what was collected stays collected', async () => {
    const b = await setup();
    // A large premium for K1 so the engine debits part of it in the last days.
    await b.executeCollections({ period_month: '2026-11' });
    await b.advanceClock({ to: '2026-11-26' });
    expect((await byNumber(b, '2026-11'))['P-2']!.collection_status).toBe('PAID_FULL');
    await b.updatePolicy('P-2', { status: 'cancelled' });
    await b.updatePolicy('P-3', { status: 'cancelled' });
    await b.advanceClock({ to: '2026-11-30' });
    const rows = await byNumber(b, '2026-11');
    expect([rows['P-2']!.collection_status, rows['P-2']!.collection_amount_collected]).toEqual(['CANCELLED', 30000]);
    expect([rows['P-3']!.collection_status, rows['P-3']!.number_of_attempts]).toEqual(['CANCELLED', 0]);
    // A cancelled policy is not queued again.
    expect((await b.executeCollections({ period_month: '2026-12' })).policies_queued).toBe(1);
  });

  it('an amount change applies from the month after the clock month', async () => {
    const b = await setup();
    await b.executeCollections({ period_month: '2026-11' });
    await b.advanceClock({ to: '2026-11-10' });
    const updated = await b.updatePolicy('P-1', { collection_amount: asCents(65000) });
    expect([updated.collection_amount, updated.collection_amount_effective_period]).toEqual([65000, '2026-12']);
    await b.advanceClock({ to: '2026-11-30' });
    await b.executeCollections({ period_month: '2026-12' });
    await b.advanceClock({ to: '2026-12-31' });
    expect((await byNumber(b, '2026-11'))['P-1']!.collection_amount_due).toBe(50000);
    const dec = (await byNumber(b, '2026-12'))['P-1']!;
    expect([dec.collection_amount_due, dec.collection_amount_collected, dec.collection_status]).toEqual([65000, 65000, 'PAID_FULL']);
  });

  it('a policy UNPAID in two consecutive closed periods lapses, is not queued, and is queued again once reinstated', async () => {
    const b = await setup();
    await b.executeCollections({ period_month: '2026-11' });
    const nov = await b.advanceClock({ to: '2026-11-30' });
    expect(nov.days.at(-1)!.lapsed_policies).toBe(0);
    await b.executeCollections({ period_month: '2026-12' });
    const dec = await b.advanceClock({ to: '2026-12-31' });
    expect(dec.days.at(-1)!.lapsed_policies).toBe(1);
    const p3 = await b.getPolicy('P-3');
    expect(p3.status).toBe('lapsed');
    expect(p3.status_history).toEqual([
      { old_status: 'active', new_status: 'lapsed', changed_on: '2026-12-31', reason: 'lapsed: unpaid in 2 consecutive periods (2026-11, 2026-12)' },
    ]);
    expect((await b.executeCollections({ period_month: '2027-01' })).policies_queued).toBe(2);
    await b.updatePolicy('P-3', { status: 'active' });
    expect((await b.executeCollections({ period_month: '2027-01' })).policies_queued).toBe(1);
  });

  it.each(['in memory', 'in a file'])('a policy lapsed at a close inside one advance is debited no more after it, as when the close ends an advance (store %s)', async (where) => {
    // K4's pay starts in January: November and December go unpaid, and January's pay would cover
    // the premium of a policy still in force.
    const tmp = tempDir('premia-lapse-');
    let files = 0;
    const opened: LocalBackend[] = [];
    onTestFinished(async () => {
      for (const b of opened) await b.close();
      tmp.cleanup();
    });
    const run = async (stops: string[]) => {
      const b = await setup(where === 'in a file' ? join(tmp.dir, `s${++files}.db`) : undefined);
      opened.push(b);
      await b.importPolicies(textUpload('k4.csv', 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nK4,E4,P-4,LIFE,80.00\n'));
      await b.importBankTransactions(textUpload('k4-bank.csv', 'customer_id,date,amount,description\nK4,2027-01-04,5000.00,SALARY\nK4,2027-01-08,20.00,TRANSFER\n'));
      for (const period of ['2026-11', '2026-12', '2027-01']) await b.executeCollections({ period_month: period });
      const lapsed: number[] = [];
      for (const to of stops) lapsed.push(...(await b.advanceClock({ to })).days.filter((d) => d.closed_period !== null).map((d) => d.lapsed_policies));
      const jan = await byNumber(b, '2027-01');
      return { b, lapsed, jan, attempts: await readDownload(await b.exportAttempts('2027-01', 'csv')) };
    };
    const one = await run(['2027-01-12']);
    const two = await run(['2026-12-31', '2027-01-12']);
    // December's close lapses P-3 (no income) and P-4 (none before January) in both.
    expect(one.lapsed).toEqual([0, 2]);
    expect(two.lapsed).toEqual([0, 2]);
    expect((await one.b.getPolicy('P-4')).status).toBe('lapsed');
    // January's collections of the lapsed policies stay UNPAID with no attempt; the others are collected.
    for (const r of [one, two]) {
      const j = r.jan;
      expect([j['P-3']!.collection_status, j['P-3']!.number_of_attempts, j['P-4']!.collection_status, j['P-4']!.number_of_attempts]).toEqual(['UNPAID', 0, 'UNPAID', 0]);
      expect([j['P-1']!.collection_status, j['P-2']!.collection_status]).toEqual(['PAID_FULL', 'PAID_FULL']);
    }
    expect(one.attempts.split('\n').filter((l) => l.includes('P-4') || l.includes('P-3'))).toEqual([]);
    expect(one.attempts).toBe(two.attempts);
  });

  // Reinstated days after the close that lapsed it, or on that very day (the clock at 2026-12-31:
  // December has closed and lapsed P-3): either way December is not counted again.
  it.each([
    ['days after the close that lapsed it', '2027-01-05'],
    ['on the day of the close that lapsed it', '2026-12-31'],
  ])('a policy reinstated %s lapses again only after n unpaid periods since', async (_, reinstatedOn) => {
    const b = await setup();
    for (const period of ['2026-11', '2026-12']) {
      await b.executeCollections({ period_month: period });
      await b.advanceClock({ to: lastDay(period) });
    }
    expect((await b.getPolicy('P-3')).status).toBe('lapsed');
    if (reinstatedOn !== '2026-12-31') await b.advanceClock({ to: reinstatedOn });
    await b.updatePolicy('P-3', { status: 'active' });
    await b.executeCollections({ period_month: '2027-01' });
    // January unpaid: with December (which lapsed it) it would be two; since the reinstatement it is one.
    const jan = await b.advanceClock({ to: '2027-01-31' });
    expect(jan.days.at(-1)!.lapsed_policies).toBe(0);
    expect((await b.getPolicy('P-3')).status).toBe('active');
    await b.executeCollections({ period_month: '2027-02' });
    const feb = await b.advanceClock({ to: '2027-02-28' });
    expect(feb.days.at(-1)!.lapsed_policies).toBe(1);
    const history = (await b.getPolicy('P-3')).status_history;
    expect(history.map((h) => [h.changed_on, h.new_status, h.reason])).toEqual([
      ['2026-12-31', 'lapsed', 'lapsed: unpaid in 2 consecutive periods (2026-11, 2026-12)'],
      [reinstatedOn, 'active', 'update'],
      ['2027-02-28', 'lapsed', 'lapsed: unpaid in 2 consecutive periods (2027-01, 2027-02)'],
    ]);
    expect(history.at(-1)!.old_status).toBe('active');
  });
});

describe('attempts export', () => {
  it('CSV has the seven columns in (date, policy_number) order; JSON the same fields', async () => {
    const b = await setup();
    await b.executeCollections({ period_month: '2026-11' });
    await b.advanceClock({ to: '2026-11-30' });
    const csv = await readDownload(await b.exportAttempts('2026-11', 'csv'));
    const lines = csv.split('\n');
    expect(lines[0]).toBe('collection_id,policy_number,customer_id,date,amount,outcome,failure_reason');
    expect(lines.slice(1).map((l) => l.split(',').slice(1).join(','))).toEqual(['P-1,K1,2026-11-02,500.00,SUCCESS,', 'P-2,K2,2026-11-02,300.00,SUCCESS,', '']);
    const json = JSON.parse(await readDownload(await b.exportAttempts('2026-11', 'json')));
    expect(Object.keys(json.attempts[0])).toEqual(['collection_id', 'policy_number', 'customer_id', 'date', 'amount', 'outcome', 'failure_reason']);
    expect(json.attempts[0].amount).toBe(500);
  });
});
