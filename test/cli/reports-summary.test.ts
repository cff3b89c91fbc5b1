/**
 * `premia reports summary`: the month of a small fixed-seed simulation (13 policies of six
 * customers from the shipped fixtures, seed 1, the shipped bank file), printed as text (plain
 * ASCII off a terminal, Unicode bars on one), as JSON, and the same through the service. Its
 * debits all succeed (planned the evening before, they no longer ask for pay that did not come),
 * so failed debits are read in a month of their own: two customers whose debits fail.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend } from '../../src/backend/local/index.js';
import { createServer } from '../../src/server/app.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { simulateSmallMonth } from '../helpers/small-month.js';
import { moneyToCents } from '../../src/domain/json.js';
import type { SummaryFigures } from '../../src/cli/commands/reports/summary-figures.js';
import { renderSummaryHtml } from '../../src/cli/commands/reports/summary-html.js';

/** 11-03 to 11-26: nothing collected, the running share stays at 43.7% (17.46 of 40 cells). */
const FLAT_DAYS = Array.from({ length: 24 }, (_, i) => `11-${String(i + 3).padStart(2, '0')} |${'#'.repeat(17)}${' '.repeat(23)}|  43.7%`);

const ASCII = [
  'Collections 2026-11 - closed, final',
  'Collected  4,480.47 of 10,059.97 due (44.5%); shortfall 5,579.50',
  'Policies   13: 10 paid in full, 1 partly paid, 2 unpaid, 0 cancelled',
  'Attempts   11, 0 failed',
  '',
  'Collected by day (cumulative share of what is due)',
  `11-01 |${' '.repeat(40)}|   0.0%`,
  '11-02 |#################                       |  43.7%  +4,392.27',
  ...FLAT_DAYS,
  '11-27 |##################                      |  44.5%     +88.20',
  '',
  'By income pattern',
  'income pattern     policies  paid in full       due  collected   share  failed attempts',
  'monthly_fixed_day         9             9  4,300.27   4,300.27  100.0%                0',
  'irregular                 4             1  5,759.70     180.20    3.1%                0',
  '',
  'Failures by reason',
  'No debit failed.',
  '',
  'Settlement SETTLE-2026-11-001 (pending; EFT on 2026-12-03, reference PRM2611001-28KTXAGP)',
  '  total collections  4,480.47',
  '  distribution fee   1,120.12',
  '  collections fee      156.82',
  '  VAT on fees          191.54',
  '  net amount         3,011.99',
  '',
].join('\n');

let dir: string;
let cleanup: () => void;
let db: string;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('premia-summary-'));
  db = await simulateSmallMonth(dir);
}, 60_000);

afterAll(() => cleanup());

describe('premia reports summary (local)', () => {
  it('prints the month in plain ASCII when stdout is not a terminal', async () => {
    const r = await runCli(['--db', db, 'reports', 'summary', '--period', '2026-11'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(ASCII);
    expect(/^[\x20-\x7e\n]*$/.test(r.stdout)).toBe(true);
  });

  it('draws Unicode bars (eighths of a cell) on a colour terminal, and plain ASCII on one under NO_COLOR', async () => {
    const tty = await runCli(['--db', db, 'reports', 'summary', '--period', '2026-11'], { cwd: dir, tty: true });
    expect(tty.code).toBe(0);
    const plain = stripVTControlCharacters(tty.stdout);
    expect(plain).toContain('Collections 2026-11 — closed, final\n');
    // 43.66% of 40 cells = 17.46: 17 full blocks and a half (4/8) block;
    // 44.54% of 40 cells = 17.82: 17 full blocks and a seven-eighths block.
    expect(plain).toContain(`11-02 │█████████████████▌${' '.repeat(22)}│  43.7%  +4,392.27\n`);
    expect(plain).toContain(`11-27 │█████████████████▉${' '.repeat(22)}│  44.5%     +88.20\n`);
    expect(tty.stdout).toContain('\x1b[1mBy income pattern\x1b[22m');

    const noColor = await runCli(['--db', db, 'reports', 'summary', '--period', '2026-11'], { cwd: dir, tty: true, env: { NO_COLOR: '1' } });
    expect(noColor.code).toBe(0);
    expect(noColor.stdout).toBe(ASCII);
  });

  it('--json gives the same figures, money as two-decimal numbers', async () => {
    const r = await runCli(['--db', db, '--json', 'reports', 'summary', '--period', '2026-11'], { cwd: dir });
    expect(r.code).toBe(0);
    const s = r.json();
    expect(s.period_month).toBe('2026-11');
    expect(s.period_state.state).toBe('closed');
    expect([s.policies, s.due, s.collected, s.shortfall, s.collection_rate]).toEqual([13, 10059.97, 4480.47, 5579.5, 0.4454]);
    expect(r.stdout).toContain('"due":10059.97,"collected":4480.47,"shortfall":5579.50');
    expect(s.by_status).toEqual({ PAID_FULL: 10, PAID_PARTIAL: 1, UNPAID: 2, CANCELLED: 0 });
    expect([s.attempts, s.failed_attempts]).toEqual([11, 0]);
    expect(s.by_day).toHaveLength(27);
    expect(s.by_day[1]).toEqual({ date: '2026-11-02', collected: 4392.27, amount_collected: 4392.27, cumulative_rate: 0.4366, succeeded: 10, failed: 0 });
    expect(s.by_day[18]).toEqual({ date: '2026-11-19', collected: 0, amount_collected: 4392.27, cumulative_rate: 0.4366, succeeded: 0, failed: 0 });
    expect(s.by_day[26]).toEqual({ date: '2026-11-27', collected: 88.2, amount_collected: 4480.47, cumulative_rate: 0.4454, succeeded: 1, failed: 0 });
    expect(s.by_income_pattern).toEqual([
      { pattern: 'monthly_fixed_day', policies: 9, paid_full: 9, due: 4300.27, collected: 4300.27, collection_rate: 1, failed_attempts: 0 },
      { pattern: 'irregular', policies: 4, paid_full: 1, due: 5759.7, collected: 180.2, collection_rate: 0.0313, failed_attempts: 0 },
    ]);
    expect(s.failures_by_reason).toEqual([]);
    expect(s.settlement).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', status: 'pending', total_collections: 4480.47, total_fees: 1276.94, vat: 191.54, net_amount: 3011.99 });
    expect(s.unpaid_and_partial.map((p: { policy_number: string; shortfall: number }) => [p.policy_number, p.shortfall])).toEqual([
      ['POL-2026169', 4917.49],
      ['POL-2026032', 584.51],
      ['POL-2026170', 77.5],
    ]);
  });

  it('a period without collections: zeros, no chart, no settlement, exit 0', async () => {
    const r = await runCli(['--db', db, 'reports', 'summary', '--period', '2026-09'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Collected  0.00 of 0.00 due (0.0%); shortfall 0.00\n');
    expect(r.stdout).toContain('No debit has been attempted yet.\n');
    expect(r.stdout).toContain('Settlement: none made for 2026-09 yet (premia settlements create --period 2026-09).\n');
  });

  it('a malformed period is a usage error (exit 2), nothing on stdout', async () => {
    const r = await runCli(['--db', db, 'reports', 'summary', '--period', '2026-13'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("--period '2026-13' is not a period");
  });
});

describe('premia reports summary --html', () => {
  it('writes one self-contained page: the figures, the charts\' library inline, the unpaid and partial policies', async () => {
    const r = await runCli(['--db', db, 'reports', 'summary', '--period', '2026-11', '--html', 'month.html'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const html = readFileSync(join(dir, 'month.html'), 'utf8');
    expect(r.stderr).toBe(`Wrote the 2026-11 summary page to ${join(dir, 'month.html')} (${Buffer.byteLength(html).toLocaleString('en-US')} bytes).\n`);
    expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
    expect(html).toContain('<b data-figure="collected">4,480.47</b>');
    expect(html).toContain('<b data-figure="due">10,059.97</b>');
    expect(html).toContain('<td class="n" data-figure="settlement.net_amount">3,011.99</td>');
    // Nothing is fetched: no src or href attribute, no url(), no import; the only http URLs are SVG namespace names.
    expect(html).not.toMatch(/\s(src|href)\s*=|url\(|@import|sourceMappingURL/i);
    expect([...new Set(html.match(/https?:\/\/[^"'\s)]+/g))].sort()).toEqual([
      'http://gionkunz.github.com/chartist-js/ct',
      'http://www.w3.org/1999/xhtml',
      'http://www.w3.org/1999/xlink',
      'http://www.w3.org/2000/svg',
      'http://www.w3.org/2000/xmlns/',
    ]);
    expect(html).toContain('e.LineChart=class'); // Chartist itself, inline
    const unpaid = html.slice(html.indexOf('<table id="table-unpaid">'));
    expect(unpaid.match(/<tr><td>POL-\d+/g)).toHaveLength(3);
    expect(unpaid).toContain(
      '<tr><td>POL-2026032</td><td>C100016</td><td>ACME-726704</td><td>DISABILITY</td><td>PAID_PARTIAL</td><td class="n">672.71</td><td class="n">88.20</td><td class="n">584.51</td><td class="n">1</td><td>2026-11-27</td><td>-</td></tr>',
    );
    expect(unpaid).toContain(
      '<tr><td>POL-2026170</td><td>C100085</td><td>ACME-773115</td><td>FUNERAL_BASIC</td><td>UNPAID</td><td class="n">77.50</td><td class="n">0.00</td><td class="n">77.50</td><td class="n">0</td><td>-</td><td>-</td></tr>',
    );
  });

  it('a long unpaid table keeps the largest shortfalls and says where the rest are', async () => {
    const r = await runCli(['--db', db, '--json', 'reports', 'summary', '--period', '2026-11'], { cwd: dir });
    const figures = moneyToCents(r.json()) as SummaryFigures;
    const html = renderSummaryHtml(figures, { unpaidRows: 2 });
    const unpaid = html.slice(html.indexOf('<table id="table-unpaid">'));
    expect(unpaid.match(/<tr><td>POL-\d+/g)).toEqual(['<tr><td>POL-2026169', '<tr><td>POL-2026032']);
    expect(html).toContain('<p class="note">The 2 largest shortfalls of 3; every one is in the collections report (premia reports collections --period 2026-11).</p>');
    expect(renderSummaryHtml(figures)).not.toContain('largest shortfalls');
  });

  it('into a directory: summary-<period>.html inside it; --json with --html is a usage error', async () => {
    mkdirSync(join(dir, 'pages'));
    const r = await runCli(['--db', db, 'reports', 'summary', '--period', '2026-11', '--html', 'pages'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(readdirSync(join(dir, 'pages'))).toEqual(['summary-2026-11.html']);
    const both = await runCli(['--db', db, '--json', 'reports', 'summary', '--period', '2026-11', '--html', 'x.html'], { cwd: dir });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give only one of them');
  });

  it('a missing directory is a validation error naming --html, nothing written', async () => {
    const r = await runCli(['--db', db, 'reports', 'summary', '--period', '2026-11', '--html', 'nowhere/month.html'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Cannot write --html nowhere/month.html: the directory');
  });

  it('premia simulate wrote the same page beside its CSV files', () => {
    const files = readdirSync(join(dir, 'out', '2026-11')).sort();
    expect(files).toEqual(['SETTLE-2026-11-001-lines.csv', 'SETTLE-2026-11-001.csv', 'attempts-2026-11.csv', 'collections-2026-11.csv', 'summary-2026-11.html']);
    const page = readFileSync(join(dir, 'out', '2026-11', 'summary-2026-11.html'), 'utf8');
    expect(page).toBe(readFileSync(join(dir, 'month.html'), 'utf8'));
  });
});

describe('premia reports summary: a month with failed debits', () => {
  // Two customers of fixtures/policies.csv (seed 1, the shipped bank file): C100101's income, read
  // as due on Fridays, does not come (INSUFFICIENT_FUNDS on 2026-11-06 and 2026-11-13, POL-2026213
  // left unpaid); C100019's account is closed (ACCOUNT_CLOSED on 2026-11-09).
  const FAILING_POLICIES =
    'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n' +
    'C100019,ACME-750461,POL-2026037,FUNERAL_BASIC,113.50\n' +
    'C100019,ACME-750461,POL-2026038,LIFE_STANDARD,997.07\n' +
    'C100101,ACME-799819,POL-2026211,FUNERAL_FAMILY,345.00\n' +
    'C100101,ACME-799819,POL-2026212,FUNERAL_FAMILY,286.00\n' +
    'C100101,ACME-799819,POL-2026213,HOSPITAL_CASH,202.45\n';
  let failing: string;
  beforeAll(async () => {
    const into = join(dir, 'failing');
    mkdirSync(into);
    writeFileSync(join(into, 'policies.csv'), FAILING_POLICIES);
    failing = join(into, 'month.db');
    const r = await runCli(['--db', failing, '--seed', '1', 'simulate', '--policies', join(into, 'policies.csv'), '--out', join(into, 'out')], { cwd: into });
    expect([r.code, r.stderr]).toEqual([0, '']);
  }, 60_000);

  it('counts them, by income pattern and by reason, with the policies they left unpaid', async () => {
    const r = await runCli(['--db', failing, 'reports', 'summary', '--period', '2026-11'], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain(
      '\nCollected  157.24 of 1,944.02 due (8.1%); shortfall 1,786.78\nPolicies   5: 0 paid in full, 1 partly paid, 4 unpaid, 0 cancelled\nAttempts   5, 3 failed\n',
    );
    expect(r.stdout).toContain(
      [
        '',
        'By income pattern',
        'income pattern     policies  paid in full       due  collected  share  failed attempts',
        'irregular                 3             0    833.45     157.24  18.9%                2',
        'monthly_fixed_day         2             0  1,110.57       0.00   0.0%                1',
        '',
        'Failures by reason',
        'reason              failed attempts  amount asked  policies left unpaid',
        'INSUFFICIENT_FUNDS                2        404.90                     1',
        'ACCOUNT_CLOSED                    1         44.15                     1',
        '',
      ].join('\n'),
    );
  });

  it('--json: the failures by reason and by day', async () => {
    const s = (await runCli(['--db', failing, '--json', 'reports', 'summary', '--period', '2026-11'], { cwd: dir })).json();
    expect([s.attempts, s.failed_attempts]).toEqual([5, 3]);
    expect(s.failures_by_reason).toEqual([
      { reason: 'INSUFFICIENT_FUNDS', attempts: 2, policies: 1, failed_amount: 404.9 },
      { reason: 'ACCOUNT_CLOSED', attempts: 1, policies: 1, failed_amount: 44.15 },
    ]);
    expect(s.by_day.filter((d: { failed: number }) => d.failed > 0)).toEqual([
      { date: '2026-11-06', collected: 0, amount_collected: 66, cumulative_rate: 0.034, succeeded: 0, failed: 1 },
      { date: '2026-11-09', collected: 0, amount_collected: 66, cumulative_rate: 0.034, succeeded: 0, failed: 1 },
      { date: '2026-11-13', collected: 0, amount_collected: 66, cumulative_rate: 0.034, succeeded: 0, failed: 1 },
    ]);
  });

  it('the page gives each unpaid policy its attempts, last attempt and last failure', async () => {
    const html = readFileSync(join(dir, 'failing', 'out', '2026-11', 'summary-2026-11.html'), 'utf8');
    const unpaid = html.slice(html.indexOf('<table id="table-unpaid">'));
    expect(unpaid.match(/<tr><td>POL-\d+/g)).toHaveLength(5);
    expect(unpaid).toContain(
      '<tr><td>POL-2026213</td><td>C100101</td><td>ACME-799819</td><td>HOSPITAL_CASH</td><td>UNPAID</td><td class="n">202.45</td><td class="n">0.00</td><td class="n">202.45</td><td class="n">2</td><td>2026-11-13</td><td>INSUFFICIENT_FUNDS</td></tr>',
    );
    expect(unpaid).toContain(
      '<tr><td>POL-2026037</td><td>C100019</td><td>ACME-750461</td><td>FUNERAL_BASIC</td><td>UNPAID</td><td class="n">113.50</td><td class="n">0.00</td><td class="n">113.50</td><td class="n">1</td><td>2026-11-09</td><td>ACCOUNT_CLOSED</td></tr>',
    );
  });
});

describe('premia reports summary (remote)', () => {
  it('prints exactly what local mode prints, through the service', async () => {
    const backend = await openLocalBackend({ path: db, now: () => new Date('2026-12-04T09:00:00Z') });
    const app = await createServer({ backend, tmpDir: dir, offload: false, rateLimit: 0, authFailureLimit: 0 });
    try {
      const key = (await backend.admin.keys.create(null, 'operator')).key;
      await app.listen({ host: '127.0.0.1', port: 0 });
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
      const r = await runCli(['reports', 'summary', '--period', '2026-11'], { cwd: dir, env: { PREMIA_BASE_URL: url, PREMIA_API_KEY: key } });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(ASCII);
    } finally {
      await app.close();
      await backend.close();
    }
  });
});
