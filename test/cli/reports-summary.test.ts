/**
 * `premia reports summary`: the month of a small fixed-seed simulation (13 policies of six
 * customers from the shipped fixtures, seed 1, the shipped bank file), printed as text (plain
 * ASCII off a terminal, Unicode bars on one), as JSON, and the same through the service.
 */
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
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

const EMPTY_DAYS = Array.from({ length: 13 }, (_, i) => `11-${String(i + 1).padStart(2, '0')} |${' '.repeat(40)}|   0.0%`);

const ASCII = [
  'Collections 2026-11 - closed, final',
  'Collected  2,214.35 of 10,059.97 due (22.0%); shortfall 7,845.62',
  'Policies   13: 4 paid in full, 2 partly paid, 7 unpaid, 0 cancelled',
  'Attempts   15, 8 failed',
  '',
  'Collected by day (cumulative share of what is due)',
  ...EMPTY_DAYS,
  '11-14 |                                        |   0.6%     +55.50',
  '11-15 |                                        |   0.6%',
  '11-16 |#                                       |   2.3%    +171.63',
  ...['17', '18', '19', '20', '21', '22', '23', '24'].map((d) => `11-${d} |#                                       |   2.3%`),
  '11-25 |#                                       |   2.7%     +48.00',
  '11-26 |########                                |  20.7%  +1,811.42',
  '11-27 |#########                               |  22.0%    +127.80',
  '',
  'By income pattern',
  'income pattern     policies  paid in full       due  collected  share  failed attempts',
  'monthly_fixed_day         9             3  4,300.27   2,038.55  47.4%                6',
  'irregular                 4             1  5,759.70     175.80   3.1%                2',
  '',
  'Failures by reason',
  'reason              failed attempts  amount asked  policies left unpaid',
  'INSUFFICIENT_FUNDS                4        762.00                     3',
  'ACCOUNT_CLOSED                    2        968.87                     2',
  'PAYMENT_STOPPED                   2        857.48                     2',
  '',
  'Settlement SETTLE-2026-11-001 (pending; EFT on 2026-12-03, reference PRM2611001-28KTXAGP)',
  '  total collections  2,214.35',
  '  distribution fee     553.59',
  '  collections fee       77.50',
  '  VAT on fees           94.66',
  '  net amount         1,488.60',
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
    // 20.7% of 40 cells = 8.28: 8 full blocks and a quarter (2/8) block.
    expect(plain).toContain(`11-26 │████████▎${' '.repeat(31)}│  20.7%  +1,811.42\n`);
    expect(plain).toContain(`11-14 │▎${' '.repeat(39)}│   0.6%     +55.50\n`);
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
    expect([s.policies, s.due, s.collected, s.shortfall, s.collection_rate]).toEqual([13, 10059.97, 2214.35, 7845.62, 0.2201]);
    expect(r.stdout).toContain('"due":10059.97,"collected":2214.35,"shortfall":7845.62');
    expect(s.by_status).toEqual({ PAID_FULL: 4, PAID_PARTIAL: 2, UNPAID: 7, CANCELLED: 0 });
    expect([s.attempts, s.failed_attempts]).toEqual([15, 8]);
    expect(s.by_day).toHaveLength(27);
    expect(s.by_day[25]).toEqual({ date: '2026-11-26', collected: 1811.42, amount_collected: 2086.55, cumulative_rate: 0.2074, succeeded: 2, failed: 0 });
    expect(s.by_day[26].amount_collected).toBe(2214.35);
    expect(s.by_income_pattern).toEqual([
      { pattern: 'monthly_fixed_day', policies: 9, paid_full: 3, due: 4300.27, collected: 2038.55, collection_rate: 0.4741, failed_attempts: 6 },
      { pattern: 'irregular', policies: 4, paid_full: 1, due: 5759.7, collected: 175.8, collection_rate: 0.0305, failed_attempts: 2 },
    ]);
    expect(s.failures_by_reason).toEqual([
      { reason: 'INSUFFICIENT_FUNDS', attempts: 4, policies: 3, failed_amount: 762 },
      { reason: 'ACCOUNT_CLOSED', attempts: 2, policies: 2, failed_amount: 968.87 },
      { reason: 'PAYMENT_STOPPED', attempts: 2, policies: 2, failed_amount: 857.48 },
    ]);
    expect(s.settlement).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', status: 'pending', total_collections: 2214.35, total_fees: 631.09, vat: 94.66, net_amount: 1488.6 });
    expect(s.unpaid_and_partial.map((p: { policy_number: string; shortfall: number }) => [p.policy_number, p.shortfall])).toEqual([
      ['POL-2026169', 4917.49],
      ['POL-2026018', 790.48],
      ['POL-2026016', 644.22],
      ['POL-2026032', 588.91],
      ['POL-2026015', 324.65],
      ['POL-2026222', 286],
      ['POL-2026221', 149.37],
      ['POL-2026170', 77.5],
      ['POL-2026017', 67],
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
    expect(html).toContain('<b data-figure="collected">2,214.35</b>');
    expect(html).toContain('<b data-figure="due">10,059.97</b>');
    expect(html).toContain('<td class="n" data-figure="settlement.net_amount">1,488.60</td>');
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
    expect(unpaid.match(/<tr><td>POL-\d+/g)).toHaveLength(9);
    expect(unpaid).toContain(
      '<tr><td>POL-2026221</td><td>C100104</td><td>ACME-723576</td><td>FUNERAL_FAMILY</td><td>PAID_PARTIAL</td><td class="n">321.00</td><td class="n">171.63</td><td class="n">149.37</td><td class="n">2</td><td>2026-11-16</td><td>INSUFFICIENT_FUNDS</td></tr>',
    );
  });

  it('a long unpaid table keeps the largest shortfalls and says where the rest are', async () => {
    const r = await runCli(['--db', db, '--json', 'reports', 'summary', '--period', '2026-11'], { cwd: dir });
    const figures = moneyToCents(r.json()) as SummaryFigures;
    const html = renderSummaryHtml(figures, { unpaidRows: 2 });
    const unpaid = html.slice(html.indexOf('<table id="table-unpaid">'));
    expect(unpaid.match(/<tr><td>POL-\d+/g)).toEqual(['<tr><td>POL-2026169', '<tr><td>POL-2026018']);
    expect(html).toContain('<p class="note">The 2 largest shortfalls of 9; every one is in the collections report (premia reports collections --period 2026-11).</p>');
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
