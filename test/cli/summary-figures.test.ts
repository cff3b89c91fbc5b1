/**
 * The summary's figures read from the two CSV downloads (summary-figures.ts readSummary), on a
 * backend that serves them: totals by status, day and failure; the income-pattern table while
 * its customers can be looked up, and a note past PATTERN_CUSTOMER_LIMIT; money read from its
 * text exactly.
 */
import { describe, expect, it } from 'vitest';
import { ATTEMPT_COLUMNS, REPORT_COLUMNS, type Backend, type Download } from '../../src/backend/types.js';
import { PremiaError } from '../../src/domain/errors.js';
import { moneyCents, PATTERN_CUSTOMER_LIMIT, readSummary } from '../../src/simulation/month-figures.js';

const P = '2026-11';

interface Row {
  customer: string;
  policy: string;
  due: string;
  collected: string;
  status: string;
  attempts: number;
  reason: string;
}

function download(lines: string[]): Download {
  return {
    filename: 'x.csv',
    contentType: 'text/csv',
    body: (async function* () {
      // Cut at odd places, as a stream comes.
      const text = lines.join('');
      for (let at = 0; at < text.length; at += 37) yield text.slice(at, at + 37);
    })(),
  };
}

/** A backend serving `rows` and `attempts` ([policy, customer, date, amount, outcome, reason]); bank accounts by `patterns`. */
function backend(rows: Row[], attempts: string[][], patterns: Record<string, string>, lookedUp: string[] = []): Backend {
  const report = [
    `${REPORT_COLUMNS.join(',')}\n`,
    ...rows.map((r) => {
      const shortfall = ((Math.round(Number(r.due) * 100) - Math.round(Number(r.collected) * 100)) / 100).toFixed(2);
      return `${P},${r.customer},EXT-${r.customer},${r.policy},FUNERAL,${r.due},${r.collected},${shortfall},${r.status},,${r.attempts > 0 ? '2026-11-02' : ''},${r.attempts},${r.reason}\n`;
    }),
  ];
  const export_ = [`${ATTEMPT_COLUMNS.join(',')}\n`, ...attempts.map((a) => `id-${a[0]},${a.join(',')}\n`)];
  const b: Partial<Backend> = {
    collectionsReport: async () => download(report),
    exportAttempts: async () => download(export_),
    listSettlements: async () => ({ data: [], has_more: false, next_cursor: null }) as never,
    showBankAccount: async (id: string) => {
      lookedUp.push(id);
      if (patterns[id] === undefined) throw new PremiaError('NOT_FOUND', `no account ${id}`);
      return { income: { pattern: patterns[id] } } as never;
    },
  };
  return b as Backend;
}

describe('the summary figures', () => {
  it('a small month: totals, days, failures, patterns and the open policies, exactly', async () => {
    const rows: Row[] = [
      { customer: 'C1', policy: 'POL-1', due: '100.00', collected: '100.00', status: 'PAID_FULL', attempts: 1, reason: '' },
      { customer: 'C1', policy: 'POL-2', due: '50.50', collected: '20.25', status: 'PAID_PARTIAL', attempts: 2, reason: 'INSUFFICIENT_FUNDS' },
      { customer: 'C2', policy: 'POL-3', due: '75.00', collected: '0.00', status: 'UNPAID', attempts: 1, reason: 'ACCOUNT_FROZEN' },
      { customer: 'C3', policy: 'POL-4', due: '10.00', collected: '0.00', status: 'CANCELLED', attempts: 0, reason: '' },
    ];
    const attempts = [
      ['POL-1', 'C1', '2026-11-02', '100.00', 'SUCCESS', ''],
      ['POL-2', 'C1', '2026-11-02', '50.50', 'FAILED', 'INSUFFICIENT_FUNDS'],
      ['POL-3', 'C2', '2026-11-02', '75.00', 'FAILED', 'ACCOUNT_FROZEN'],
      ['POL-2', 'C1', '2026-11-04', '20.25', 'SUCCESS', ''],
    ];
    const looked: string[] = [];
    const s = await readSummary(backend(rows, attempts, { C1: 'monthly', C2: 'weekly' }, looked), P);
    expect(looked.sort()).toEqual(['C1', 'C2', 'C3']);
    expect(s.policies).toBe(4);
    expect(s.by_status).toEqual({ PAID_FULL: 1, PAID_PARTIAL: 1, UNPAID: 1, CANCELLED: 1 });
    expect([s.due, s.collected, s.shortfall, s.collection_rate]).toEqual([23_550, 12_025, 11_525, 0.5106]);
    expect([s.attempts, s.failed_attempts]).toEqual([4, 2]);
    expect(s.by_day.map((d) => [d.date, d.collected, d.amount_collected, d.succeeded, d.failed])).toEqual([
      ['2026-11-01', 0, 0, 0, 0],
      ['2026-11-02', 10_000, 10_000, 1, 2],
      ['2026-11-03', 0, 10_000, 0, 0],
      ['2026-11-04', 2_025, 12_025, 1, 0],
    ]);
    expect(s.failures_by_reason).toEqual([
      { reason: 'ACCOUNT_FROZEN', attempts: 1, policies: 1, failed_amount: 7_500 },
      { reason: 'INSUFFICIENT_FUNDS', attempts: 1, policies: 1, failed_amount: 5_050 },
    ]);
    expect(s.by_income_pattern).toEqual([
      { pattern: 'monthly', policies: 2, paid_full: 1, due: 15_050, collected: 12_025, collection_rate: 0.799, failed_attempts: 1 },
      { pattern: 'unknown', policies: 1, paid_full: 0, due: 1_000, collected: 0, collection_rate: 0, failed_attempts: 0 },
      { pattern: 'weekly', policies: 1, paid_full: 0, due: 7_500, collected: 0, collection_rate: 0, failed_attempts: 1 },
    ]);
    expect(s.patterns_note).toBeNull();
    expect(s.unpaid_and_partial.map((o) => [o.policy_number, o.shortfall, o.last_failure_reason])).toEqual([
      ['POL-3', 7_500, 'ACCOUNT_FROZEN'],
      ['POL-2', 3_025, 'INSUFFICIENT_FUNDS'],
    ]);
  });

  it("reads the report and attempts it is given (simulate's, as saved) rather than the backend's, to the same figures", async () => {
    const rows: Row[] = [
      { customer: 'C1', policy: 'POL-1', due: '100.00', collected: '100.00', status: 'PAID_FULL', attempts: 1, reason: '' },
      { customer: 'C2', policy: 'POL-2', due: '75.00', collected: '0.00', status: 'UNPAID', attempts: 1, reason: 'ACCOUNT_FROZEN' },
    ];
    const attempts = [
      ['POL-1', 'C1', '2026-11-02', '100.00', 'SUCCESS', ''],
      ['POL-2', 'C2', '2026-11-02', '75.00', 'FAILED', 'ACCOUNT_FROZEN'],
    ];
    const served = backend(rows, attempts, { C1: 'monthly', C2: 'weekly' });
    const fetched = await readSummary(served, P);
    const given = { report: await served.collectionsReport(P, 'csv'), attempts: await served.exportAttempts(P, 'csv') };
    const refusing: Backend = {
      ...served,
      collectionsReport: async () => {
        throw new Error('the report was fetched again');
      },
      exportAttempts: async () => {
        throw new Error('the attempts were fetched again');
      },
    };
    const read = await readSummary(refusing, P, { downloads: given });
    expect(read).toEqual(fetched);
    expect([read.policies, read.due, read.collected, read.failed_attempts]).toEqual([2, 17_500, 10_000, 1]);
  });

  it(`past ${PATTERN_CUSTOMER_LIMIT} customers to look up: no table, none looked up; a caller may allow more (simulate: 20,000)`, async () => {
    const n = PATTERN_CUSTOMER_LIMIT + 30;
    // Two policies each for the first 500 customers, one for the rest.
    const rows: Row[] = [];
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < (i < 500 ? 2 : 1); k++) rows.push({ customer: `C${i}`, policy: `POL-${i}-${k}`, due: '1.00', collected: '1.00', status: 'PAID_FULL', attempts: 1, reason: '' });
    }
    const looked: string[] = [];
    const s = await readSummary(backend(rows, [], {}, looked), P);
    expect(looked).toEqual([]);
    expect(s.by_income_pattern).toBeNull();
    expect(s.patterns_note).toBe(`not analysed: more than ${PATTERN_CUSTOMER_LIMIT} customers (the table looks each one up)`);
    expect([s.policies, s.due]).toEqual([n + 500, (n + 500) * 100]);

    // One customer fewer than the limit allowed: none looked up, the note names that limit.
    const under = await readSummary(backend(rows, [], {}, looked), P, { patternCustomers: n - 1 });
    expect(looked).toEqual([]);
    expect(under.patterns_note).toBe(`not analysed: more than ${n - 1} customers (the table looks each one up)`);
    // As many as allowed: each looked up once, the table made.
    const made = await readSummary(backend(rows, [], { C0: 'monthly', [`C${n - 1}`]: 'weekly' }, looked), P, { patternCustomers: n });
    expect(looked).toHaveLength(n);
    expect(new Set(looked).size).toBe(n);
    expect(made.patterns_note).toBeNull();
    expect(made.by_income_pattern!.map((p) => [p.pattern, p.policies])).toEqual([
      ['unknown', n + 500 - 2 - 1],
      ['monthly', 2],
      ['weekly', 1],
    ]);
  });

  it('money read from its text exactly, other decimal forms through the strict parser, bad ones refused', () => {
    expect(moneyCents('149.50', 'x')).toBe(14_950);
    expect(moneyCents('0.05', 'x')).toBe(5);
    expect(moneyCents('-0.05', 'x')).toBe(-5);
    expect(moneyCents('9999999999999.99', 'x')).toBe(999_999_999_999_999);
    expect(moneyCents('150', 'x')).toBe(15_000);
    expect(moneyCents('1.5', 'x')).toBe(150);
    for (const bad of ['1.2.3', '1,00', '12a.00', '', '-', '.50x', '1.999']) expect(() => moneyCents(bad, 'x'), bad).toThrow();
  });
});
