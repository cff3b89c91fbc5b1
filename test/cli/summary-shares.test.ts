/**
 * The summary's shares near the ends: a month short of what is due by a little is never shown
 * as all collected (not in the JSON's fractions, the text's bars, nor the page's chart), and a
 * month without collections has no empty income-pattern table.
 */
import { describe, expect, it } from 'vitest';
import { share, type SummaryFigures } from '../../src/simulation/month-figures.js';
import { renderSummaryHtml } from '../../src/cli/commands/reports/summary-html.js';
import { bar, renderSummaryText } from '../../src/cli/commands/reports/summary-text.js';

const plain = { fancy: false, heading: (t: string) => t };

/** A closed November of two policies: `collected` of 2,001.00 due, all on the 2nd. */
function month(collected: number, due = 200_100): SummaryFigures {
  const paid = collected === due;
  return {
    period_month: '2026-11',
    period_state: null,
    policies: 2,
    by_status: { PAID_FULL: paid ? 2 : 1, PAID_PARTIAL: 0, UNPAID: paid ? 0 : 1, CANCELLED: 0 },
    due,
    collected,
    shortfall: due - collected,
    collection_rate: share(collected, due),
    attempts: 2,
    failed_attempts: 0,
    by_day: [
      { date: '2026-11-01', collected: 0, amount_collected: 0, cumulative_rate: 0, succeeded: 0, failed: 0 },
      { date: '2026-11-02', collected, amount_collected: collected, cumulative_rate: share(collected, due), succeeded: 2, failed: 0 },
    ],
    by_income_pattern: null,
    patterns_note: 'not analysed',
    failures_by_reason: [],
    settlement: null,
    unpaid_and_partial: [],
  };
}

const chartSeries = (html: string): number[] => JSON.parse(/<script type="application\/json" id="premia-chart-data">(.*?)<\/script>/.exec(html)![1]!).byDay.series[0];

describe('summary shares', () => {
  it('a share short of the whole is at most 0.9999, anything collected at least 0.0001', () => {
    expect(share(999_960, 1_000_000)).toBe(0.9999);
    expect(share(200_000, 200_100)).toBe(0.9995);
    expect(share(1_000_000, 1_000_000)).toBe(1);
    expect(share(3, 1_000_000)).toBe(0.0001);
    expect(share(0, 1_000_000)).toBe(0);
    expect(share(0, 0)).toBe(0);
  });

  it('only the whole of what is due fills the bar', () => {
    expect(bar(0.9999, false)).toBe(`${'#'.repeat(39)} `);
    expect(bar(0.9995, true)).toBe(`${'█'.repeat(39)}▉`);
    expect(bar(1, false)).toBe('#'.repeat(40));
    expect(bar(1, true)).toBe('█'.repeat(40));
    expect(bar(0.99, true)).toBe(`${'█'.repeat(39)}▋`);
  });

  it('1,999.95 of 2,001.00: 99.9% in the text, its bar short of full, the page\'s chart at 99.9', () => {
    const s = month(199_995);
    expect(s.collection_rate).toBe(0.9995);
    expect(renderSummaryText(s, plain)).toContain(`\n11-02 |${'#'.repeat(39)} |  99.9%  +1,999.95\n`);
    expect(chartSeries(renderSummaryHtml(s))).toEqual([0, 99.9]);
    expect(chartSeries(renderSummaryHtml(month(200_100)))).toEqual([0, 100]);
    expect(chartSeries(renderSummaryHtml(month(20, 1_000_000)))).toEqual([0, 0.1]);
  });

  it('a month without collections says so instead of an empty income-pattern table and chart', () => {
    const s: SummaryFigures = { ...month(0, 0), policies: 0, attempts: 0, by_day: [], by_income_pattern: [], patterns_note: null };
    expect(renderSummaryText(s, plain)).toContain('\nBy income pattern\n2026-11 has no collections.\n\nFailures by reason\n');
    const html = renderSummaryHtml(s);
    expect(html).toContain('<h2>By income pattern</h2>\n<p>2026-11 has no collections.</p>\n<h2>Failures by reason</h2>');
    expect(html).not.toContain('chart-by-pattern"');
    expect(html).not.toContain('table-by-pattern');
  });
});
