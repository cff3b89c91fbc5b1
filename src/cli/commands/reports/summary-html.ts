/**
 * The month as one self-contained HTML page (`premia reports summary --html FILE`, and the page
 * `premia simulate` writes beside each period's CSV files): the figures of the text summary,
 * their charts, and the table of the policies not paid in full.
 *
 * The charts are inline SVG drawn in the browser by Chartist (MIT, no dependencies, ~38 KB
 * minified), whose UMD build and stylesheet are copied into the page: nothing is fetched when
 * the page is viewed (no external URL at all; the only URLs in it are SVG namespace names).
 * Every figure is also in the page's tables as text, so it reads the same without JavaScript
 * (a mail client's preview).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { periodStateNote } from '../../../domain/period-state.js';
import type { SummaryFigures } from '../../../simulation/month-figures.js';
import { percentOf } from '../../output/format.js';
import { groupedCount, groupedMoney, noAttemptsText, noCollectionsText, noSettlementText } from './summary-text.js';

let library: { js: string; css: string } | undefined;

/** Chartist's UMD build and stylesheet, without their source-map comments (which name files). */
function chartist(): { js: string; css: string } {
  if (library === undefined) {
    const require = createRequire(import.meta.url);
    const strip = (text: string) => text.replace(/\/[/*]# sourceMappingURL=[^\n*]*(\*\/)?/g, '').trimEnd();
    library = {
      js: strip(readFileSync(require.resolve('chartist/dist/index.umd.js'), 'utf8')),
      css: strip(readFileSync(require.resolve('chartist/dist/index.css'), 'utf8')),
    };
  }
  return library;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** JSON safe inside a <script> element (no `</script`, no `<!--`). */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/**
 * What the page's own script draws: shares as percentages (as the tables print them: 99.9% short
 * of the whole, never 100), money as units (for the axes). The
 * horizontal bar charts list their rows bottom-up, so their rows are given reversed (the first
 * row on top, as in the tables).
 */
function chartData(s: SummaryFigures) {
  const patterns = [...(s.by_income_pattern ?? [])].reverse();
  const failures = [...s.failures_by_reason].reverse();
  return {
    byDay: { labels: s.by_day.map((d) => d.date.slice(8)), series: [s.by_day.map((d) => Number(percentOf(d.amount_collected, s.due).slice(0, -1)))] },
    byPattern: { labels: patterns.map((p) => p.pattern), series: [patterns.map((p) => p.due / 100), patterns.map((p) => p.collected / 100)] },
    failures: { labels: failures.map((f) => f.reason), series: [failures.map((f) => f.attempts)] },
  };
}

/** The page's own script: three charts from the data block. */
const DRAW = `
(function () {
  var data = JSON.parse(document.getElementById('premia-chart-data').textContent);
  var C = window.Chartist;
  if (data.byDay.labels.length > 0) {
    var byDay = document.getElementById('chart-by-day');
    new C.LineChart(byDay, data.byDay, {
      low: 0, high: 100, showArea: true, showPoint: false, fullWidth: true, lineSmooth: C.Interpolation.step(),
      chartPadding: { right: 20 },
      // Every day's label where there is room for it (24 px), else every 2nd, 3rd ... day's: on a
      // phone 30 labels side by side would run into one another. Asked again on every redraw.
      axisX: { labelInterpolationFnc: function (v, i) {
        var step = Math.max(1, Math.ceil(data.byDay.labels.length * 24 / Math.max(1, byDay.clientWidth - 60)));
        return i % step === 0 ? v : null;
      } },
      axisY: { labelInterpolationFnc: function (v) { return v + '%'; } }
    });
  }
  // Room on the right for the last axis label (175,000), which starts at the chart's edge.
  if (data.byPattern.labels.length > 0) {
    new C.BarChart('#chart-by-pattern', data.byPattern, {
      horizontalBars: true, seriesBarDistance: 14, chartPadding: { right: 60 },
      axisY: { offset: 170 },
      axisX: { scaleMinSpace: 80, labelInterpolationFnc: function (v) { return Number(v).toLocaleString('en-US'); } }
    });
  }
  if (data.failures.labels.length > 0) {
    new C.BarChart('#chart-failures', data.failures, {
      horizontalBars: true, chartPadding: { right: 60 },
      axisY: { offset: 170 }, axisX: { onlyInteger: true, scaleMinSpace: 60 }
    });
  }
  document.documentElement.setAttribute('data-charts', 'drawn');
})();
`;

const PAGE_CSS = `
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2430; margin: 2rem auto; max-width: 64rem; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; border-bottom: 1px solid #d8dde6; padding-bottom: .2rem; }
.note { color: #7a5a00; background: #fff6d6; padding: .4rem .6rem; border-radius: 4px; }
.totals { display: flex; flex-wrap: wrap; gap: 1rem; margin: 1rem 0; }
.totals div { background: #f3f6fa; border-radius: 6px; padding: .6rem 1rem; min-width: 9rem; }
.totals b { display: block; font-size: 1.35rem; font-variant-numeric: tabular-nums; }
.totals span { color: #5b6575; font-size: .85rem; }
table { border-collapse: collapse; margin: .5rem 0; font-variant-numeric: tabular-nums; }
th, td { padding: .25rem .7rem; border-bottom: 1px solid #e4e8ee; text-align: left; }
th { background: #f3f6fa; font-weight: 600; }
td.n, th.n { text-align: right; }
.chart { height: 280px; }
.ct-series-a .ct-line, .ct-series-a .ct-bar { stroke: #2a6fdb; }
.ct-series-a .ct-area { fill: #2a6fdb; }
.ct-bar { stroke-width: 14px; }
#chart-by-pattern .ct-series-a .ct-bar { stroke: #b9c3d3; }
#chart-by-pattern .ct-series-b .ct-bar { stroke: #1f9d55; }
#chart-failures .ct-series-a .ct-bar { stroke: #d6453d; }
td { white-space: nowrap; }
.wide { overflow-x: auto; }
.chart.tall { height: 320px; }
.legend span { display: inline-block; margin-right: 1rem; font-size: .85rem; }
.legend i { display: inline-block; width: .8rem; height: .8rem; margin-right: .3rem; vertical-align: -1px; }
footer { color: #8a93a3; font-size: .8rem; margin-top: 3rem; }
@media print {
  /* Paper does not scroll: a table wider than the page would lose its right-hand columns. */
  .wide { overflow: visible; }
  table { font-size: 11px; }
  th, td { padding: .2rem .35rem; }
  th, td:not(.n) { white-space: normal; overflow-wrap: anywhere; }
}
`;

interface Column<T> {
  header: string;
  value: (row: T) => string;
  numeric?: boolean;
}

/**
 * A chart's place: an image to assistive technology, named by what it shows (the axis labels
 * Chartist draws would otherwise be read one by one); its figures are in the table after it.
 */
function chart(id: string, extraClass: string, label: string): string {
  return `<div class="chart${extraClass}" id="${id}" role="img" aria-label="${esc(`${label} The figures are in the table below.`)}"></div>`;
}

function table<T>(id: string, columns: Column<T>[], rows: T[]): string {
  const head = columns.map((c) => `<th${c.numeric ? ' class="n"' : ''}>${esc(c.header)}</th>`).join('');
  const body = rows.map((r) => `<tr>${columns.map((c) => `<td${c.numeric ? ' class="n"' : ''}>${esc(c.value(r))}</td>`).join('')}</tr>`).join('\n');
  return `<div class="wide"><table id="${id}">\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table></div>`;
}

/** Rows of the unpaid and partial table at most (the largest shortfalls): the page stays mailable. */
export const UNPAID_ROWS_SHOWN = 5_000;

export function renderSummaryHtml(s: SummaryFigures, options: { unpaidRows?: number } = {}): string {
  const unpaidRows = options.unpaidRows ?? UNPAID_ROWS_SHOWN;
  const lib = chartist();
  const state = s.period_state === null ? '' : s.period_state.state === 'closed' ? 'closed, final' : s.period_state.state.replace('_', ' ');
  const note = s.period_state === null ? null : periodStateNote(s.period_month, s.period_state);
  const st = s.by_status;
  const total = (figure: string, value: string, label: string) => `<div><b data-figure="${figure}">${esc(value)}</b><span>${esc(label)}</span></div>`;
  const parts: string[] = [];
  parts.push(`<h1>Collections ${esc(s.period_month)}</h1>`);
  if (state !== '') parts.push(`<p>Period ${esc(state)}.</p>`);
  if (note !== null) parts.push(`<p class="note">${esc(note)}</p>`);
  parts.push(
    '<section class="totals">',
    total('collected', groupedMoney(s.collected), 'collected'),
    total('due', groupedMoney(s.due), 'due'),
    total('collection_rate', percentOf(s.collected, s.due), 'of what is due'),
    total('shortfall', groupedMoney(s.shortfall), 'shortfall'),
    total('policies', groupedCount(s.policies), `policies: ${groupedCount(st.PAID_FULL)} paid in full, ${groupedCount(st.PAID_PARTIAL)} partly, ${groupedCount(st.UNPAID)} unpaid, ${groupedCount(st.CANCELLED)} cancelled`),
    total('attempts', groupedCount(s.attempts), `debits attempted, ${groupedCount(s.failed_attempts)} failed`),
    '</section>',
    '<noscript><p class="note">The charts need JavaScript; every figure is in the tables.</p></noscript>',
  );

  parts.push('<h2>Collected by day</h2>', '<p>The cumulative share of what is due collected by the end of each day.</p>');
  if (s.by_day.length === 0) parts.push(`<p>${esc(noAttemptsText(s))}</p>`);
  else {
    const last = s.by_day[s.by_day.length - 1]!;
    parts.push(chart('chart-by-day', '', `Line chart of the share of what is due collected by the end of each day: ${percentOf(last.amount_collected, s.due)} by ${last.date}.`));
    parts.push(
      table(
        'table-by-day',
        [
          { header: 'day', value: (d) => d.date },
          { header: 'collected that day', value: (d) => groupedMoney(d.collected), numeric: true },
          { header: 'collected so far', value: (d) => groupedMoney(d.amount_collected), numeric: true },
          { header: 'share of due', value: (d) => percentOf(d.amount_collected, s.due), numeric: true },
          { header: 'debits', value: (d) => groupedCount(d.succeeded), numeric: true },
          { header: 'failed', value: (d) => groupedCount(d.failed), numeric: true },
        ],
        s.by_day.filter((d) => d.succeeded + d.failed > 0),
      ),
    );
  }

  parts.push('<h2>By income pattern</h2>');
  if (s.by_income_pattern === null) parts.push(`<p>Income patterns ${esc(s.patterns_note ?? 'not analysed')}.</p>`);
  else if (s.by_income_pattern.length === 0) parts.push(`<p>${esc(noCollectionsText(s))}</p>`);
  else {
    parts.push(
      '<p class="legend"><span><i style="background:#b9c3d3"></i>due</span><span><i style="background:#1f9d55"></i>collected</span></p>',
      chart('chart-by-pattern', ' tall', 'Bar chart of what was due and what was collected for each income pattern.'),
      table(
        'table-by-pattern',
        [
          { header: 'income pattern', value: (p) => p.pattern },
          { header: 'policies', value: (p) => groupedCount(p.policies), numeric: true },
          { header: 'paid in full', value: (p) => groupedCount(p.paid_full), numeric: true },
          { header: 'due', value: (p) => groupedMoney(p.due), numeric: true },
          { header: 'collected', value: (p) => groupedMoney(p.collected), numeric: true },
          { header: 'share', value: (p) => percentOf(p.collected, p.due), numeric: true },
          { header: 'failed attempts', value: (p) => groupedCount(p.failed_attempts), numeric: true },
        ],
        s.by_income_pattern,
      ),
    );
  }

  parts.push('<h2>Failures by reason</h2>');
  if (s.failures_by_reason.length === 0) parts.push('<p>No debit failed.</p>');
  else {
    parts.push(
      chart('chart-failures', '', 'Bar chart of the failed debit attempts for each reason.'),
      table(
        'table-failures',
        [
          { header: 'reason', value: (f) => f.reason },
          { header: 'failed attempts', value: (f) => groupedCount(f.attempts), numeric: true },
          { header: 'amount asked', value: (f) => groupedMoney(f.failed_amount), numeric: true },
          { header: 'policies not paid in full', value: (f) => groupedCount(f.policies), numeric: true },
        ],
        s.failures_by_reason,
      ),
    );
  }

  parts.push('<h2>Settlement</h2>');
  const t = s.settlement;
  if (t === null) {
    const none = noSettlementText(s);
    parts.push(
      none.reason === null
        ? `<p>No settlement statement has been made for ${esc(s.period_month)} yet.</p>`
        : `<p>No settlement statement${none.none === 'none yet' ? ' yet' : ''}: ${esc(none.reason)}.</p>`,
    );
  }
  else {
    const rows: Array<[string, string, string]> = [
      ['total_collections', 'total collections', groupedMoney(t.total_collections)],
      ['distribution_fee', 'distribution fee', groupedMoney(t.distribution_fee)],
      ['collections_fee', 'collections fee', groupedMoney(t.collections_fee)],
      ['vat', 'VAT on fees', groupedMoney(t.vat)],
      ...(t.previously_paid === 0 ? [] : [['previously_paid', 'previously paid', groupedMoney(t.previously_paid)] as [string, string, string]]),
      ['net_amount', 'net amount', groupedMoney(t.net_amount)],
    ];
    parts.push(
      `<p>Statement <b>${esc(t.settlement_number)}</b> (${esc(t.status)}; EFT on ${esc(t.payment_date)}, reference ${esc(t.payment_reference)}).</p>`,
      `<table id="table-settlement"><tbody>\n${rows.map(([k, label, v]) => `<tr><th>${esc(label)}</th><td class="n" data-figure="settlement.${k}">${esc(v)}</td></tr>`).join('\n')}\n</tbody></table>`,
    );
  }

  parts.push(`<h2>Unpaid and partly paid policies (${groupedCount(s.unpaid_and_partial.length)})</h2>`);
  if (s.unpaid_and_partial.length === 0) parts.push('<p>Every collection was paid in full (or cancelled).</p>');
  else {
    const shown = s.unpaid_and_partial.slice(0, unpaidRows);
    if (shown.length < s.unpaid_and_partial.length) {
      parts.push(
        `<p class="note">The ${groupedCount(shown.length)} largest shortfalls of ${groupedCount(s.unpaid_and_partial.length)}; ` +
          `every one is in the collections report (premia reports collections --period ${esc(s.period_month)}).</p>`,
      );
    }
    parts.push(
      table(
        'table-unpaid',
        [
          { header: 'policy', value: (p) => p.policy_number },
          { header: 'customer', value: (p) => p.customer_id },
          { header: 'reference', value: (p) => p.external_customer_ref },
          { header: 'product', value: (p) => p.product_code },
          { header: 'status', value: (p) => p.collection_status },
          { header: 'due', value: (p) => groupedMoney(p.collection_amount_due), numeric: true },
          { header: 'collected', value: (p) => groupedMoney(p.collection_amount_collected), numeric: true },
          { header: 'shortfall', value: (p) => groupedMoney(p.shortfall), numeric: true },
          { header: 'attempts', value: (p) => groupedCount(p.number_of_attempts), numeric: true },
          { header: 'last attempt', value: (p) => p.last_attempt_date ?? '-' },
          { header: 'last failure', value: (p) => p.last_failure_reason ?? '-' },
        ],
        shown,
      ),
    );
  }
  parts.push('<footer>Made by premia reports summary. Charts drawn with Chartist (MIT licence), included in this page.</footer>');

  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing may be fetched: the page is opened from a mail or a file share.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    `<title>Collections ${esc(s.period_month)}</title>`,
    `<style>\n${lib.css}\n${PAGE_CSS}</style>`,
    '</head>',
    '<body>',
    ...parts,
    `<script type="application/json" id="premia-chart-data">${scriptJson(chartData(s))}</script>`,
    `<script>\n${lib.js}\n</script>`,
    `<script>${DRAW}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
