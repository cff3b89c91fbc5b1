/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The summary page in a real browser: headless Chromium (Debian's package, /usr/bin/chromium)
 * driven by playwright-core, which never downloads a browser. One launch for the whole file.
 * The page `premia simulate` wrote for a small fixed-seed month (test/helpers/small-month.ts:
 * every outcome, failed debits of two reasons included) is opened from its file: every chart is
 * drawn (SVG with a size, and bars whose lengths follow the figures), nothing is fetched from
 * anywhere, the totals it shows are the CSV report's, and a screenshot of it is not blank. Where Chromium is not installed the test is skipped, and says why.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { tempDir } from '../helpers/cli.js';
import { simulateSmallMonth } from '../helpers/small-month.js';
// Plain JavaScript run in the browser (the tests are type-checked without the DOM library).
import { chartLabels, inkedPixels, measureCharts, shownFigures, tablesWiderThanTheirBox } from './support/summary-page-probes.js';

/** Debian's chromium; PREMIA_TEST_CHROMIUM names another binary (or a missing one, to see the skip). */
const CHROMIUM = process.env.PREMIA_TEST_CHROMIUM ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const SKIP_REASON = `${CHROMIUM} is not installed (apt-get install chromium): the summary page is not checked in a browser`;
if (!HAVE_CHROMIUM) console.warn(`skipped: ${SKIP_REASON}`);

/** 1234567 cents → "12,345.67" (what the page shows), written here independently of premia's code. */
function grouped(cents: number): string {
  const whole = Math.floor(cents / 100).toLocaleString('en-US');
  return `${whole}.${String(cents % 100).padStart(2, '0')}`;
}

const cents = (text: string) => Math.round(Number(text) * 100);

describe.skipIf(!HAVE_CHROMIUM)('the summary page in headless Chromium', () => {
  let dir: string;
  let cleanup: () => void;
  let browser: Browser;
  let pageUrl: string;

  beforeAll(async () => {
    ({ dir, cleanup } = tempDir('premia-page-'));
    const [{ chromium }] = await Promise.all([import('playwright-core'), simulateSmallMonth(dir)]);
    pageUrl = pathToFileURL(join(dir, 'out', '2026-11', 'summary-2026-11.html')).href;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    cleanup?.();
  });

  it('draws its three charts offline, shows the CSV report\'s totals, and its screenshot is not blank', async () => {
    const monthDir = join(dir, 'out', '2026-11');
    const pageFile = join(monthDir, 'summary-2026-11.html');
    const pageUrl = pathToFileURL(pageFile).href;
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const fetched: string[] = [];
    const errors: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url === pageUrl) return route.continue();
      fetched.push(url);
      return route.abort();
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(pageUrl);
    await page.waitForSelector('html[data-charts="drawn"]', { timeout: 120_000 });
    expect(errors).toEqual([]);
    expect(fetched).toEqual([]);

    // Each chart is an SVG with a size, holding what it plots.
    const charts: Array<{ id: string; width: number; height: number; lines: number[]; bars: number[] }> = await page.evaluate(measureCharts);
    expect(charts.map((c) => c.id)).toEqual(['chart-by-day', 'chart-by-pattern', 'chart-failures']);
    for (const c of charts) {
      expect(c.width).toBeGreaterThan(300);
      expect(c.height).toBeGreaterThan(200);
    }
    const [byDay, byPattern, failures] = charts;
    expect(byDay!.lines).toHaveLength(1);
    expect(byDay!.lines[0]).toBeGreaterThan(100);
    expect(byPattern!.bars).toHaveLength(4); // two patterns, due and collected
    expect(byPattern!.bars.every((l) => l > 0)).toBe(true);
    // Due bottom-up (irregular 6,593.15, monthly_fixed_day 5,410.84), then collected (337.44, 4,300.27):
    // the lengths follow the figures.
    const [dueIrregular, dueMonthly, collectedIrregular, collectedMonthly] = byPattern!.bars as [number, number, number, number];
    expect(dueIrregular / dueMonthly).toBeCloseTo(6593.15 / 5410.84, 3);
    expect(collectedMonthly / dueMonthly).toBeCloseTo(4300.27 / 5410.84, 3);
    expect(collectedIrregular / dueIrregular).toBeCloseTo(337.44 / 6593.15, 3);
    // Failures: two reasons, INSUFFICIENT_FUNDS with two failed attempts and ACCOUNT_CLOSED with
    // one. The longer runs to the end of its axis (which ends at 2, integers only), so it is at
    // least as long as the longest pattern bar (whose axis ends above 6,593.15); the other is half.
    expect(failures!.bars).toHaveLength(2);
    const [accountClosed, insufficientFunds] = [...failures!.bars].sort((x, y) => x - y) as [number, number];
    expect(insufficientFunds).toBeGreaterThanOrEqual(Math.max(...byPattern!.bars));
    expect(accountClosed / insufficientFunds).toBeCloseTo(0.5, 3);

    // The totals shown are the CSV report's, to the cent.
    const csv = readFileSync(join(monthDir, 'collections-2026-11.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
    const due = csv.reduce((s, r) => s + cents(r[5]!), 0);
    const collected = csv.reduce((s, r) => s + cents(r[6]!), 0);
    const open = csv.filter((r) => r[8] === 'UNPAID' || r[8] === 'PAID_PARTIAL');
    const shown: { due: string; collected: string; shortfall: string; settled: string; unpaid: string[][] } = await page.evaluate(shownFigures);
    expect(shown.due).toBe(grouped(due));
    expect(shown.collected).toBe(grouped(collected));
    expect(shown.shortfall).toBe(grouped(due - collected));
    expect(shown.settled).toBe(grouped(collected));
    expect(shown.unpaid.map((r) => r[0]).sort()).toEqual(open.map((r) => r[3]).sort());
    expect(shown.unpaid.reduce((s, r) => s + cents(r[7]!.replaceAll(',', '')), 0)).toBe(open.reduce((s, r) => s + cents(r[7]!), 0));

    // A screenshot, written to the test's directory; drawn into a canvas to count its non-white pixels.
    const png = await page.screenshot({ fullPage: true });
    writeFileSync(join(dir, 'summary-2026-11.png'), png);
    const blank = await browser.newPage();
    const inked: { n: number; total: number; width: number } = await blank.evaluate(inkedPixels, png.toString('base64'));
    expect(inked.width).toBe(1100);
    expect(inked.n / inked.total).toBeGreaterThan(0.01);
    await page.close();
    await blank.close();
  });

  describe('on a phone, a desktop and paper', () => {
    const names = [
      'Line chart of the share of what is due collected by the end of each day: 38.6% by 2026-11-27. The figures are in the table below.',
      'Bar chart of what was due and what was collected for each income pattern. The figures are in the table below.',
      'Bar chart of the failed debit attempts for each reason. The figures are in the table below.',
    ];

    it.each([375, 1280])('%s px wide: no axis label runs into another or is cut off, and each chart has a name', async (width) => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(pageUrl);
      await page.waitForSelector('html[data-charts="drawn"]', { timeout: 120_000 });
      const charts: Array<{ id: string; role: string | null; label: string | null; shown: number; overlapping: string[]; cut: string[] }> = await page.evaluate(chartLabels);
      expect(charts.map(({ id, role, label, overlapping, cut }) => ({ id, role, label, overlapping, cut }))).toEqual(
        ['chart-by-day', 'chart-by-pattern', 'chart-failures'].map((id, i) => ({ id, role: 'img', label: names[i], overlapping: [], cut: [] })),
      );
      // The days' axis names every one of the 27 days where there is room; on a phone every 3rd.
      expect(charts[0]!.shown).toBe(width === 375 ? 9 : 27);
      await page.close();
    });

    it('printed on A4, no table is wider than the paper', async () => {
      // A4's printable width at Chromium's default margins: 718 CSS pixels.
      const page = await browser.newPage({ viewport: { width: 718, height: 1000 } });
      await page.emulateMedia({ media: 'print' });
      await page.goto(pageUrl);
      await page.waitForSelector('html[data-charts="drawn"]', { timeout: 120_000 });
      expect(await page.evaluate(tablesWiderThanTheirBox)).toEqual([]);
      await page.close();
    });
  });
});

// Without Chromium the run lists the check as skipped, with the reason.
if (!HAVE_CHROMIUM) {
  describe('the summary page in headless Chromium', () => {
    it.skip(`skipped: ${SKIP_REASON}`, () => undefined);
  });
}
