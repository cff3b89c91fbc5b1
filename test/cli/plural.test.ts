/**
 * Plural agreement in the summaries premia prints most (issue 15): each with 1 and with 2, so
 * that no message says "1 days lived" or "1 cancellations".
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printSummary } from '../../src/cli/commands/simulate/simulate.js';
import { Ui } from '../../src/cli/output/ui.js';
import { lapseReason } from '../../src/domain/lapse.js';
import { plural } from '../../src/domain/words.js';
import { describeIncome, type IncomeAnalysis } from '../../src/engine/income.js';
import { RateLimited } from '../../src/server/auth.js';
import type { MonthSummary } from '../../src/simulation/scenario.js';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir('premia-plural-')));
afterAll(() => cleanup());

const HEADER = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
const good = (n: number) => `C9000${n},REF-${n},POL-900${n},LIFE,100.00\n`;
const bad = (n: number) => `C9100${n},REF-${n},POL-910${n},LIFE,-1\n`;

describe('plural agreement', () => {
  it('the helper: 1 day, 2 days, 1 policy, 2 policies, 1,000 rows', () => {
    expect([plural(1, 'day'), plural(2, 'day'), plural(0, 'day')]).toEqual(['1 day', '2 days', '0 days']);
    expect([plural(1, 'policy', 'policies'), plural(2, 'policy', 'policies'), plural(1000, 'row')]).toEqual(['1 policy', '2 policies', '1,000 rows']);
  });

  it.each([
    [1, 'Imported 1 policy; 1 row failed.'],
    [2, 'Imported 2 policies; 2 rows failed.'],
  ])('policies import with %i good and bad row: %s', async (n, line) => {
    const db = join(dir, `import-${n}.db`);
    const file = join(dir, `p${n}.csv`);
    let text = HEADER;
    for (let i = 1; i <= n; i++) text += good(i) + bad(i);
    writeFileSync(file, text);
    const r = await runCli(['--db', db, 'policies', 'import', file], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stdout.split('\n')[0]).toBe(line);
  });

  it.each([
    ['1', 'Clock moved from 2026-10-31 to 2026-11-01: 1 day lived, 0.00 collected.'],
    ['2', 'Clock moved from 2026-10-31 to 2026-11-02: 2 days lived, 0.00 collected.'],
  ])('clock advance --days %s: %s', async (days, line) => {
    const db = join(dir, `advance-${days}.db`);
    expect((await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    const r = await runCli(['--db', db, 'clock', 'advance', '--days', days], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe(line);
  });

  it('the lapse reason: 1 period, 2 consecutive periods', () => {
    expect(lapseReason(['2026-11'])).toBe('lapsed: unpaid in 1 period (2026-11)');
    expect(lapseReason(['2026-12', '2026-11'])).toBe('lapsed: unpaid in 2 consecutive periods (2026-11, 2026-12)');
  });

  it.each([
    [1, 'policy changes: 1 premium change (from next month), 1 cancellation, 1 lapsed'],
    [2, 'policy changes: 2 premium changes (from next month), 2 cancellations, 2 lapsed'],
  ])("simulate's policy changes with %i of each: %s", (n, line) => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString('utf8')));
    const ui = new Ui({ stdout: out, stderr: out, stdoutIsTTY: false, stderrIsTTY: false, env: {} } as never, {});
    printSummary(ui, { seed: 1, strategy: 'smart', months: [month(n)] });
    expect(text.split('\n')).toContain(line);
  });

  it('an irregular income: 1 deposit about every 1 day; 2 deposits about every 2 days', () => {
    const irregular = (observed: number, meanGap: number): IncomeAnalysis => ({
      pattern: 'irregular',
      confidence: 0.5,
      typicalAmount: 10_000,
      threshold: 1_000,
      dayOfMonth: null,
      anchorDay: null,
      meanGap,
      lastIncomeDay: null,
      lastIncomeAmount: 0,
      observed,
    });
    expect(describeIncome(irregular(1, 1))).toContain('(1 deposit, about every 1 day)');
    expect(describeIncome(irregular(2, 2))).toContain('(2 deposits, about every 2 days)');
  });

  it('the rate limit: retry after 1 second, 2 seconds', () => {
    expect(new RateLimited(1).message).toBe('Too many requests for this API key; retry after 1 second.');
    expect(new RateLimited(2).message).toBe('Too many requests for this API key; retry after 2 seconds.');
  });
});

function month(n: number): MonthSummary {
  return {
    period_month: '2026-11',
    policies: 4,
    by_status: { PAID_FULL: 4 },
    due: 40_000,
    collected: 40_000,
    collection_rate_amount: 1,
    collection_rate_count: 1,
    attempts: 4,
    failed_attempts: 0,
    failed_attempts_per_policy: 0,
    amount_changes: n,
    cancellations: n,
    lapsed_policies: n,
    by_income_pattern: null,
    settlement: {
      id: 'x',
      settlement_number: 'SETTLE-2026-11-001',
      period_month: '2026-11',
      total_collections: 40_000,
      distribution_fee: 0,
      collections_fee: 0,
      total_fees: 0,
      vat: 0,
      net_amount: 40_000,
      payment_date: '2026-12-05',
      status: 'pending',
      payment_reference: 'REF',
      collections_count: 4,
      previously_paid: 0,
      supersedes: null,
      superseded_by: null,
    } as never,
    files: [],
  };
}
