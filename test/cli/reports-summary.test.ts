/**
 * `premia reports summary`: the month of a small fixed-seed simulation (18 policies of eight
 * customers from the shipped fixtures, seed 1, the shipped bank file; test/helpers/small-month.ts
 * lists who pays, who pays part and whose debits fail), printed as text (plain ASCII off a
 * terminal, Unicode bars on one), as JSON, and the same through the service.
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
import type { SummaryFigures } from '../../src/simulation/month-figures.js';
import { renderSummaryHtml } from '../../src/cli/commands/reports/summary-html.js';
import { renderSummaryText } from '../../src/cli/commands/reports/summary-text.js';

/** Days `from` to `to` of November with nothing collected: the running share stays at `share`, 15 of 40 cells. */
const flatDays = (from: number, to: number, share: string) =>
  Array.from({ length: to - from + 1 }, (_, i) => `11-${String(from + i).padStart(2, '0')} |${'#'.repeat(15)}${' '.repeat(25)}|  ${share}`);

const ASCII = [
  'Collections 2026-11 - closed, final',
  'Collected  4,637.71 of 12,003.99 due (38.6%); shortfall 7,366.28',
  'Policies   18: 10 paid in full, 2 partly paid, 6 unpaid, 0 cancelled',
  'Attempts   16, 3 failed',
  '',
  'Collected by day (cumulative share of what is due)',
  `11-01 |${' '.repeat(40)}|   0.0%`,
  '11-02 |###############                         |  36.6%  +4,392.27',
  ...flatDays(3, 4, '36.6%'),
  '11-05 |###############                         |  37.1%     +66.00',
  ...flatDays(6, 25, '37.1%'),
  '11-26 |###############                         |  37.9%     +91.24',
  '11-27 |###############                         |  38.6%     +88.20',
  '',
  'By income pattern',
  'income pattern     policies  paid in full       due  collected  share  failed attempts',
  'monthly_fixed_day        11             9  5,410.84   4,300.27  79.5%                1',
  'irregular                 7             1  6,593.15     337.44   5.1%                2',
  '',
  'Failures by reason',
  'reason              failed attempts  amount asked  policies not paid in full',
  'INSUFFICIENT_FUNDS                2        272.90                          1',
  'ACCOUNT_CLOSED                    1         44.15                          1',
  '',
  'Settlement SETTLE-2026-11-001 (pending; EFT on 2026-12-03, reference PRM2611001-28KTXAGP)',
  '  total collections  4,637.71',
  '  distribution fee   1,159.43',
  '  collections fee      162.32',
  '  VAT on fees          198.26',
  '  net amount         3,117.70',
  '',
].join('\n');

let dir: string;
let cleanup: () => void;
let db: string;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('premia-summary-'));
  db = await simulateSmallMonth(dir);
});

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
    // 36.59% of 40 cells = 14.64: 14 full blocks and a five-eighths block (5.09 eighths);
    // 38.63% of 40 cells = 15.45: 15 full blocks and a half (4/8) block (3.63 eighths).
    expect(plain).toContain(`11-02 │${'█'.repeat(14)}▋${' '.repeat(25)}│  36.6%  +4,392.27\n`);
    expect(plain).toContain(`11-27 │${'█'.repeat(15)}▌${' '.repeat(24)}│  38.6%     +88.20\n`);
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
    expect([s.policies, s.due, s.collected, s.shortfall, s.collection_rate]).toEqual([18, 12003.99, 4637.71, 7366.28, 0.3863]);
    expect(r.stdout).toContain('"due":12003.99,"collected":4637.71,"shortfall":7366.28');
    expect(s.by_status).toEqual({ PAID_FULL: 10, PAID_PARTIAL: 2, UNPAID: 6, CANCELLED: 0 });
    expect([s.attempts, s.failed_attempts]).toEqual([16, 3]);
    expect(s.by_day).toHaveLength(27);
    expect(s.by_day[1]).toEqual({ date: '2026-11-02', collected: 4392.27, amount_collected: 4392.27, cumulative_rate: 0.3659, succeeded: 10, failed: 0 });
    expect(s.by_day[4]).toEqual({ date: '2026-11-05', collected: 66, amount_collected: 4458.27, cumulative_rate: 0.3714, succeeded: 1, failed: 0 });
    expect(s.by_day[18]).toEqual({ date: '2026-11-19', collected: 0, amount_collected: 4458.27, cumulative_rate: 0.3714, succeeded: 0, failed: 0 });
    expect(s.by_day[25]).toEqual({ date: '2026-11-26', collected: 91.24, amount_collected: 4549.51, cumulative_rate: 0.379, succeeded: 1, failed: 0 });
    expect(s.by_day[26]).toEqual({ date: '2026-11-27', collected: 88.2, amount_collected: 4637.71, cumulative_rate: 0.3863, succeeded: 1, failed: 0 });
    // The days with failures: ACCOUNT_CLOSED on the 9th, INSUFFICIENT_FUNDS on the 13th and the 20th.
    expect(s.by_day.filter((d: { failed: number }) => d.failed > 0)).toEqual([
      { date: '2026-11-09', collected: 0, amount_collected: 4458.27, cumulative_rate: 0.3714, succeeded: 0, failed: 1 },
      { date: '2026-11-13', collected: 0, amount_collected: 4458.27, cumulative_rate: 0.3714, succeeded: 0, failed: 1 },
      { date: '2026-11-20', collected: 0, amount_collected: 4458.27, cumulative_rate: 0.3714, succeeded: 0, failed: 1 },
    ]);
    expect(s.by_income_pattern).toEqual([
      { pattern: 'monthly_fixed_day', policies: 11, paid_full: 9, due: 5410.84, collected: 4300.27, collection_rate: 0.7948, failed_attempts: 1 },
      { pattern: 'irregular', policies: 7, paid_full: 1, due: 6593.15, collected: 337.44, collection_rate: 0.0512, failed_attempts: 2 },
    ]);
    expect(s.failures_by_reason).toEqual([
      { reason: 'INSUFFICIENT_FUNDS', attempts: 2, policies: 1, failed_amount: 272.9 },
      { reason: 'ACCOUNT_CLOSED', attempts: 1, policies: 1, failed_amount: 44.15 },
    ]);
    expect(s.settlement).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', status: 'pending', total_collections: 4637.71, total_fees: 1321.75, vat: 198.26, net_amount: 3117.7 });
    expect(s.unpaid_and_partial.map((p: { policy_number: string; shortfall: number }) => [p.policy_number, p.shortfall])).toEqual([
      ['POL-2026169', 4917.49],
      ['POL-2026038', 997.07],
      ['POL-2026032', 584.51],
      ['POL-2026211', 345],
      ['POL-2026212', 286],
      ['POL-2026037', 113.5],
      ['POL-2026170', 77.5],
      ['POL-2026213', 45.21],
    ]);
  });

  it('a period without collections: zeros, no chart, no settlement, exit 0', async () => {
    const r = await runCli(['--db', db, 'reports', 'summary', '--period', '2026-09'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Collected  0.00 of 0.00 due (0.0%); shortfall 0.00\n');
    // Its last day has passed: no debit will come, and settlements create would refuse it (NO_COLLECTIONS).
    expect(r.stdout).toContain('No debit was attempted in 2026-09.\n');
    expect(r.stdout).toContain('Settlement: none: 2026-09 has no collections to settle.\n');
    expect(r.stdout).not.toContain('settlements create');
  });

  it('names settlements create only for a closed period with collections, and says "yet" only while debits may come', async () => {
    const r = await runCli(['--db', db, '--json', 'reports', 'summary', '--period', '2026-11'], { cwd: dir });
    const closed = moneyToCents(r.json()) as SummaryFigures;
    const plain = { fancy: false, heading: (t: string) => t };
    const month = (over: Partial<SummaryFigures>): SummaryFigures => ({ ...closed, attempts: 0, failed_attempts: 0, by_day: [], settlement: null, ...over });
    // Closed, no debit attempted (every account empty), no statement yet.
    const done = month({});
    expect(renderSummaryText(done, plain)).toContain('\nNo debit was attempted in 2026-11.\n');
    expect(renderSummaryText(done, plain)).toContain('\nSettlement: none made for 2026-11 yet (premia settlements create --period 2026-11).\n');
    expect(renderSummaryHtml(done)).toContain('<p>No debit was attempted in 2026-11.</p>');
    expect(renderSummaryHtml(done)).toContain('<p>No settlement statement has been made for 2026-11 yet.</p>');
    // Open: settlements create refuses it (PERIOD_OPEN) until its last day has run.
    const open = month({ period_state: { state: 'open', as_of: '2026-11-10', closes_on: '2026-11-30', open_collections: 18 } });
    expect(renderSummaryText(open, plain)).toContain('\nNo debit has been attempted yet.\n');
    expect(renderSummaryText(open, plain)).toContain('\nSettlement: none yet: one can be made once 2026-11 has closed (its last day, 2026-11-30, has run).\n');
    expect(renderSummaryHtml(open)).toContain('<p>No settlement statement yet: one can be made once 2026-11 has closed (its last day, 2026-11-30, has run).</p>');
    // Not run, last day to come: nothing to settle, debits may still come once it is queued.
    const ahead = month({ period_state: { state: 'not_run', as_of: '2026-11-10', closes_on: '2026-11-30', open_collections: 0 } });
    expect(renderSummaryText(ahead, plain)).toContain('\nNo debit has been attempted yet.\n');
    expect(renderSummaryText(ahead, plain)).toContain('\nSettlement: none: 2026-11 has no collections to settle.\n');
    expect(renderSummaryHtml(ahead)).toContain('<p>No settlement statement: 2026-11 has no collections to settle.</p>');
  });

  it('a malformed period is a usage error (exit 2), nothing on stdout', async () => {
    const r = await runCli(['--db', db, 'reports', 'summary', '--period', '2026-13'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: --period 2026-13 is not a month: there is no month 13.\n  (code VALIDATION_ERROR)\n');
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
    expect(html).toContain('<b data-figure="collected">4,637.71</b>');
    expect(html).toContain('<b data-figure="due">12,003.99</b>');
    expect(html).toContain('<td class="n" data-figure="settlement.net_amount">3,117.70</td>');
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
    const failures = html.slice(html.indexOf('<table id="table-failures">'), html.indexOf('<h2>Settlement</h2>'));
    expect(failures.match(/<tr><td>[A-Z_]+<\/td>.*<\/tr>/g)).toEqual([
      '<tr><td>INSUFFICIENT_FUNDS</td><td class="n">2</td><td class="n">272.90</td><td class="n">1</td></tr>',
      '<tr><td>ACCOUNT_CLOSED</td><td class="n">1</td><td class="n">44.15</td><td class="n">1</td></tr>',
    ]);
    const unpaid = html.slice(html.indexOf('<table id="table-unpaid">'));
    expect(unpaid.match(/<tr><td>POL-\d+/g)).toHaveLength(8);
    // Each unpaid or partly paid policy with its attempts, last attempt and last failure.
    expect(unpaid).toContain(
      '<tr><td>POL-2026032</td><td>C100016</td><td>ACME-726704</td><td>DISABILITY</td><td>PAID_PARTIAL</td><td class="n">672.71</td><td class="n">88.20</td><td class="n">584.51</td><td class="n">1</td><td>2026-11-27</td><td>-</td></tr>',
    );
    expect(unpaid).toContain(
      '<tr><td>POL-2026170</td><td>C100085</td><td>ACME-773115</td><td>FUNERAL_BASIC</td><td>UNPAID</td><td class="n">77.50</td><td class="n">0.00</td><td class="n">77.50</td><td class="n">0</td><td>-</td><td>-</td></tr>',
    );
    expect(unpaid).toContain(
      '<tr><td>POL-2026211</td><td>C100101</td><td>ACME-799819</td><td>FUNERAL_FAMILY</td><td>UNPAID</td><td class="n">345.00</td><td class="n">0.00</td><td class="n">345.00</td><td class="n">0</td><td>-</td><td>-</td></tr>',
    );
    expect(unpaid).toContain(
      '<tr><td>POL-2026213</td><td>C100101</td><td>ACME-799819</td><td>HOSPITAL_CASH</td><td>PAID_PARTIAL</td><td class="n">202.45</td><td class="n">157.24</td><td class="n">45.21</td><td class="n">4</td><td>2026-11-26</td><td>INSUFFICIENT_FUNDS</td></tr>',
    );
    expect(unpaid).toContain(
      '<tr><td>POL-2026037</td><td>C100019</td><td>ACME-750461</td><td>FUNERAL_BASIC</td><td>UNPAID</td><td class="n">113.50</td><td class="n">0.00</td><td class="n">113.50</td><td class="n">1</td><td>2026-11-09</td><td>ACCOUNT_CLOSED</td></tr>',
    );
  });

  it('a long unpaid table keeps the largest shortfalls and says where the rest are', async () => {
    const r = await runCli(['--db', db, '--json', 'reports', 'summary', '--period', '2026-11'], { cwd: dir });
    const figures = moneyToCents(r.json()) as SummaryFigures;
    const html = renderSummaryHtml(figures, { unpaidRows: 2 });
    const unpaid = html.slice(html.indexOf('<table id="table-unpaid">'));
    expect(unpaid.match(/<tr><td>POL-\d+/g)).toEqual(['<tr><td>POL-2026169', '<tr><td>POL-2026038']);
    expect(html).toContain('<p class="note">The 2 largest shortfalls of 8; every one is in the collections report (premia reports collections --period 2026-11).</p>');
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
    expect(files).toEqual(['.premia-simulate.json', 'SETTLE-2026-11-001-lines.csv', 'SETTLE-2026-11-001.csv', 'attempts-2026-11.csv', 'collections-2026-11.csv', 'summary-2026-11.html']);
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
