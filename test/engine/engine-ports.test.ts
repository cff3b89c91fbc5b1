/**
 * The engine (src/engine) on in-memory fakes of its ports, without SQLite: three customers'
 * November lived day by day, with the debits smart plans, the outcomes the bank gives, what the
 * engine writes, the period's close (runs completed, the lapse rule, balances kept) and a day
 * that fails before it commits.
 *
 * The customers (statements from July; the analysis reads the 120 days up to 31 October):
 *  - K-A, a monthly earner: 20,000.00 on the 25th (the Friday before when it falls on a
 *    weekend: 24 Jul, 25 Aug, 25 Sep, 23 Oct, 25 Nov), each pay before November spent the day
 *    after but for 10.00 (the rent of 6,000.00 on the 1st is declined); policies P-A1 (500.00)
 *    and P-A2 (200.00). Next to nothing is there before the pay: smart debits a day after the
 *    predicted pay, both on 26 Nov, in policy order, paid. (An account emptied to exactly 0.00
 *    and silent for a week would look closed: smart would wait to see the pay.)
 *  - K-B, an irregular earner: deposits of 3,000 (3 Jul, before the window), 1,500, 2,200,
 *    800, 2,500, 1,000 and 1,800 (20 Jul … 19 Oct), each spent the day after, then 1,200.00 on
 *    Friday 6 Nov and 900.00 on 17 Nov; policy P-B (1,000.00). On the first business day after
 *    the deposit, Monday 9 Nov (no debits on the weekend), the balance covers the premium: smart
 *    takes all of it.
 *  - K-C, paid 15,000.00 on the 15th (14 Aug, 13 Nov on weekends) and spending nothing, whose
 *    account closes on 2 Nov; policy P-C (300.00). The balance covers the premium on 31
 *    October: smart debits it on the first business day, Monday 2 Nov (the balance rule); the
 *    bank refuses it (ACCOUNT_CLOSED) and nothing more is tried.
 */
import { describe, expect, it } from 'vitest';
import { advance } from '../../src/engine/advance.js';
import { FakeBank, FakeStore, type FakeCollection, type Statement } from '../helpers/engine-fakes.js';

const FIXED_NOW = () => new Date('2026-11-21T09:30:00.000Z');

const STATEMENTS: Statement[] = [
  {
    clientId: 1,
    customerId: 'K-A',
    opens: '2026-07-01',
    credits: [
      ['2026-07-24', 2_000_000],
      ['2026-08-25', 2_000_000],
      ['2026-09-25', 2_000_000],
      ['2026-10-23', 2_000_000],
      ['2026-11-25', 2_000_000],
    ],
    // Each pay before November is spent the day after it but for 10.00 (the rent is declined).
    debits: [
      ['2026-07-01', 600_000],
      ['2026-07-25', 1_999_000],
      ['2026-08-01', 600_000],
      ['2026-08-26', 1_999_000],
      ['2026-09-01', 600_000],
      ['2026-09-26', 1_999_000],
      ['2026-10-01', 600_000],
      ['2026-10-24', 1_999_000],
      ['2026-11-01', 600_000],
    ],
  },
  {
    clientId: 1,
    customerId: 'K-B',
    opens: '2026-07-01',
    credits: [
      ['2026-07-03', 300_000],
      ['2026-07-20', 150_000],
      ['2026-08-09', 220_000],
      ['2026-08-28', 80_000],
      ['2026-09-14', 250_000],
      ['2026-10-02', 100_000],
      ['2026-10-19', 180_000],
      ['2026-11-06', 120_000],
      ['2026-11-17', 90_000],
    ],
    // Each deposit before November is spent the day after it.
    debits: [
      ['2026-07-04', 300_000],
      ['2026-07-21', 150_000],
      ['2026-08-10', 220_000],
      ['2026-08-29', 80_000],
      ['2026-09-15', 250_000],
      ['2026-10-03', 100_000],
      ['2026-10-20', 180_000],
    ],
  },
  {
    clientId: 1,
    customerId: 'K-C',
    opens: '2026-07-01',
    credits: [
      ['2026-07-15', 1_500_000],
      ['2026-08-14', 1_500_000],
      ['2026-09-15', 1_500_000],
      ['2026-10-15', 1_500_000],
      ['2026-11-13', 1_500_000],
    ],
    closes: '2026-11-02',
  },
];

function collection(id: number, customerId: string, policyId: number, policyNumber: string, due: number): FakeCollection {
  return {
    id,
    clientId: 1,
    customerId,
    policyId,
    policyNumber,
    period: '2026-11',
    due,
    collected: 0,
    status: 'UNPAID',
    firstAttempt: null,
    lastAttempt: null,
    attempts: 0,
    failed: 0,
    lastFailure: null,
    strategy: 'smart',
  };
}

/** A store at the end of 31 October with November queued (smart), and the bank on it. */
function world(settings: Record<string, string> = {}) {
  const store = new FakeStore({
    clock: '2026-10-31',
    settings,
    periods: ['2026-11'],
    policies: [
      { id: 11, clientId: 1, policyNumber: 'P-A1', status: 'active' },
      { id: 12, clientId: 1, policyNumber: 'P-A2', status: 'active' },
      { id: 13, clientId: 1, policyNumber: 'P-B', status: 'active' },
      { id: 14, clientId: 1, policyNumber: 'P-C', status: 'active' },
    ],
    // Ids out of customer order: the engine finds collections by id, not by position.
    collections: [
      collection(104, 'K-C', 14, 'P-C', 30_000),
      collection(101, 'K-A', 11, 'P-A1', 50_000),
      collection(103, 'K-B', 13, 'P-B', 100_000),
      collection(102, 'K-A', 12, 'P-A2', 20_000),
    ],
  });
  return { store, bank: new FakeBank(STATEMENTS, store) };
}

const EXPECTED_ATTEMPTS = [
  { date: '2026-11-02', collectionId: 104, amount: 30_000, outcome: 'FAILED', reason: 'ACCOUNT_CLOSED' },
  { date: '2026-11-09', collectionId: 103, amount: 100_000, outcome: 'SUCCESS', reason: null },
  { date: '2026-11-26', collectionId: 101, amount: 50_000, outcome: 'SUCCESS', reason: null },
  { date: '2026-11-26', collectionId: 102, amount: 20_000, outcome: 'SUCCESS', reason: null },
];

const finalStates = (store: FakeStore) =>
  store.tables.collections
    .map((c) => [c.policyNumber, c.status, c.collected, c.attempts, c.failed, c.firstAttempt, c.lastAttempt, c.lastFailure])
    .sort((a, b) => (a[0]! < b[0]! ? -1 : 1));

const EXPECTED_FINAL = [
  ['P-A1', 'PAID_FULL', 50_000, 1, 0, '2026-11-26', '2026-11-26', null],
  ['P-A2', 'PAID_FULL', 20_000, 1, 0, '2026-11-26', '2026-11-26', null],
  ['P-B', 'PAID_FULL', 100_000, 1, 0, '2026-11-09', '2026-11-09', null],
  ['P-C', 'UNPAID', 0, 1, 1, '2026-11-02', '2026-11-02', 'ACCOUNT_CLOSED'],
];

describe('the engine on in-memory ports', () => {
  it("lives three customers' November: the debits, their outcomes and the final statuses", async () => {
    const { store, bank } = world();
    const result = await advance({ store, bank }, { to: '2026-11-30' }, { clientId: 1, now: FIXED_NOW });

    expect(store.tables.attempts).toEqual(EXPECTED_ATTEMPTS);
    expect(finalStates(store)).toEqual(EXPECTED_FINAL);
    expect(result.from).toBe('2026-10-31');
    expect(result.to).toBe('2026-11-30');
    expect(result.days.filter((d) => d.attempts > 0).map((d) => [d.date, d.attempts, d.succeeded, d.failed, d.collected])).toEqual([
      ['2026-11-02', 1, 0, 1, 0],
      ['2026-11-09', 1, 1, 0, 100_000],
      ['2026-11-26', 2, 2, 0, 70_000],
    ]);
    expect(result.days).toHaveLength(30);
    expect(result.days.at(-1)).toMatchObject({ date: '2026-11-30', closed_period: '2026-11', lapsed_policies: 0 });
    // The bank was opened once for the three customers and lived each of them 30 days.
    expect([bank.opened, bank.lived]).toEqual([3, 90]);
  });

  it('writes each day as one unit: attempts, collection updates, plans, the clock; closes the period at its end', async () => {
    const { store, bank } = world();
    await advance({ store, bank }, { to: '2026-11-30' }, { clientId: 1, now: FIXED_NOW });

    // Plans go out the evening before: each attempt was submitted at the end of the day before it.
    const plans = store.tables.batches.flatMap((b) => b.debits.map((d) => [b.planDay, d.collection, d.day, d.amount]));
    expect(plans.map(([planDay, collection, day, amount]) => [planDay, collection, day, amount])).toEqual([
      ['2026-11-01', 104, 20_759, 30_000], // for 2026-11-02 (a Monday: planned on the Sunday before)
      ['2026-11-08', 103, 20_766, 100_000], // for 2026-11-09
      ['2026-11-25', 101, 20_783, 50_000], // for 2026-11-26
      ['2026-11-25', 102, 20_783, 20_000],
    ]);
    expect(store.tables.batches.map((b) => b.debits[0]!.why.code)).toEqual([11, 5, 3]); // the balance covers it, the rest after a deposit, after income

    const kinds = store.writes.map((w) => (w.kind === 'clock' ? `clock ${w.date}` : w.kind));
    // Every day ends with the clock move; days with attempts write them, then the collections.
    expect(kinds.filter((k) => k.startsWith('clock'))).toHaveLength(30);
    expect(kinds.slice(kinds.indexOf('clock 2026-11-08') + 1, kinds.indexOf('clock 2026-11-09') + 1)).toEqual(['attempts', 'collections', 'clock 2026-11-09']);
    const updates = store.writes.flatMap((w) => (w.kind === 'collections' ? w.rows : []));
    expect(updates.find((u) => u.id === 104)).toEqual({
      id: 104,
      collected: 0,
      status: 'UNPAID',
      firstAttempt: '2026-11-02',
      lastAttempt: '2026-11-02',
      attempts: 1,
      failed: 1,
      lastFailure: 'ACCOUNT_CLOSED',
    });
    // The close: on 30 November the run completes, the lapse rule looks (K-C is UNPAID in one
    // period only: the default needs two), the accounts' balances are kept, then the clock moves.
    expect(kinds.slice(-3)).toEqual(['executions', 'lapse', 'clock 2026-11-30']);
    expect(store.tables.executions).toEqual([{ period: '2026-11', status: 'completed', completedAt: expect.any(Number) }]);
    expect(store.writes.find((w) => w.kind === 'lapse')).toEqual({ kind: 'lapse', day: '2026-11-30', policies: [], reason: 'lapsed: unpaid in 2 consecutive periods (2026-10, 2026-11)' });
    expect(bank.kept.map((k) => [k.customerId, k.day, k.balance])).toEqual([
      ['K-A', '2026-11-30', 5 * 2_000_000 - 4 * 1_999_000 - 70_000], // every rent declined (the pay was spent)
      ['K-B', '2026-11-30', 120_000 + 90_000 - 100_000],
      ['K-C', '2026-11-30', 6_000_000],
    ]);
  });

  it('reads its settings from the store: lapse.unpaid_periods = 1 lapses K-C at the close', async () => {
    const { store, bank } = world({ 'lapse.unpaid_periods': '1' });
    const result = await advance({ store, bank }, { to: '2026-11-30' }, { clientId: 1, now: FIXED_NOW });
    expect(result.days.at(-1)).toMatchObject({ closed_period: '2026-11', lapsed_policies: 1 });
    expect(store.tables.policies.map((p) => [p.policyNumber, p.status])).toEqual([
      ['P-A1', 'active'],
      ['P-A2', 'active'],
      ['P-B', 'active'],
      ['P-C', 'lapsed'],
    ]);
    expect(store.tables.statusChanges).toEqual([{ policyId: 14, clientId: 1, day: '2026-11-30', reason: 'lapsed: unpaid in 1 period (2026-11)' }]);
  });

  it('a day that fails before it commits leaves the store at the day before; advancing again ends as an uninterrupted run', async () => {
    const { store, bank } = world();
    const crash = new Error('killed before 2026-11-19 committed');
    const failing = advance({ store, bank }, { to: '2026-11-30' }, {
      clientId: 1,
      now: FIXED_NOW,
      hooks: {
        beforeCommit: (date) => {
          if (date === '2026-11-19') throw crash;
        },
      },
    });
    await expect(failing).rejects.toBe(crash);
    expect(await store.readClock()).toBe('2026-11-18');
    expect(store.tables.attempts).toEqual(EXPECTED_ATTEMPTS.slice(0, 2));

    const resumed = await advance({ store, bank }, { to: '2026-11-30' }, { clientId: 1, now: FIXED_NOW });
    expect(resumed.from).toBe('2026-11-18');
    expect(resumed.days.map((d) => d.date)[0]).toBe('2026-11-19');
    expect(store.tables.attempts).toEqual(EXPECTED_ATTEMPTS);
    expect(finalStates(store)).toEqual(EXPECTED_FINAL);
    // The resumed advance opened the accounts again (replaying premia's committed debits).
    expect(bank.opened).toBe(6);
  });

  it('stops between days when asked to, after the day being committed', async () => {
    const { store, bank } = world();
    const stop = new AbortController();
    const result = await advance({ store, bank }, { to: '2026-11-30' }, {
      clientId: 1,
      now: FIXED_NOW,
      signal: stop.signal,
      onDay: (day) => {
        if (day.date === '2026-11-10') stop.abort();
      },
    });
    expect(result.days.map((d) => d.date).at(-1)).toBe('2026-11-10');
    expect(result.to).toBe('2026-11-10');
    expect(store.tables.attempts).toEqual(EXPECTED_ATTEMPTS.slice(0, 2));
  });
});
