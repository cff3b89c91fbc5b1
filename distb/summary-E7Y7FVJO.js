import {
  readSummary
} from "./chunk-DYOQJKF5.js";
import {
  writeDownload
} from "./chunk-X5LTGHGA.js";
import "./chunk-KZMX44YV.js";
import {
  checkPeriodOption
} from "./chunk-HUXLOL7T.js";
import "./chunk-IVFONV4X.js";
import "./chunk-MRLEVLPO.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import {
  periodStateNote
} from "./chunk-FKNU4UUY.js";
import "./chunk-CXYRJJKB.js";
import "./chunk-JX2JAKWC.js";
import {
  percentOf
} from "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import {
  moneyText
} from "./chunk-RB5YZ7WD.js";
import {
  count
} from "./chunk-7BKCKV6J.js";
import {
  usageError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/reports/summary-html.js
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

// dist/cli/commands/reports/summary-text.js
var BAR_WIDTH = 40;
var groupedMoney = (cents) => moneyText(cents, true);
var groupedCount = count;
function bar(rate, fancy) {
  const cells = Math.max(0, Math.min(1, rate)) * BAR_WIDTH;
  if (!fancy) {
    const full2 = Math.round(cells);
    return "#".repeat(full2) + " ".repeat(BAR_WIDTH - full2);
  }
  let full = Math.floor(cells);
  let eighths = Math.round((cells - full) * 8);
  if (eighths === 8) {
    full++;
    eighths = 0;
  }
  const part = eighths === 0 ? "" : " \u258F\u258E\u258D\u258C\u258B\u258A\u2589"[eighths];
  return "\u2588".repeat(full) + part + " ".repeat(BAR_WIDTH - full - part.length);
}
function table(columns, rows, style) {
  const cells = rows.map((r) => columns.map((c) => c.value(r)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i].length)));
  const line = (values) => values.map((v, i) => columns[i].right ? v.padStart(widths[i]) : v.padEnd(widths[i])).join("  ").trimEnd();
  return [style.heading(line(columns.map((c) => c.header))), ...cells.map(line)];
}
function renderSummaryText(s, style) {
  const out = [];
  const dash = style.fancy ? "\u2014" : "-";
  const state = s.period_state === null ? "" : ` ${dash} ${s.period_state.state === "closed" ? "closed, final" : s.period_state.state.replace("_", " ")}`;
  out.push(style.heading(`Collections ${s.period_month}${state}`));
  const note = s.period_state === null ? null : periodStateNote(s.period_month, s.period_state);
  if (note !== null)
    out.push(note);
  out.push(`Collected  ${groupedMoney(s.collected)} of ${groupedMoney(s.due)} due (${percentOf(s.collected, s.due)}); shortfall ${groupedMoney(s.shortfall)}`);
  const st = s.by_status;
  out.push(`Policies   ${groupedCount(s.policies)}: ${groupedCount(st.PAID_FULL)} paid in full, ${groupedCount(st.PAID_PARTIAL)} partly paid, ${groupedCount(st.UNPAID)} unpaid, ${groupedCount(st.CANCELLED)} cancelled`);
  out.push(`Attempts   ${groupedCount(s.attempts)}, ${groupedCount(s.failed_attempts)} failed`);
  out.push("", style.heading("Collected by day (cumulative share of what is due)"));
  if (s.by_day.length === 0)
    out.push("No debit has been attempted yet.");
  const edge = style.fancy ? "\u2502" : "|";
  const amounts = s.by_day.map((d) => d.collected === 0 ? "" : `+${groupedMoney(d.collected)}`);
  const amountWidth = Math.max(0, ...amounts.map((a) => a.length));
  s.by_day.forEach((d, i) => {
    const line = `${d.date.slice(5)} ${edge}${bar(d.cumulative_rate, style.fancy)}${edge} ${percentOf(d.amount_collected, s.due).padStart(6)}  ${amounts[i].padStart(amountWidth)}`;
    out.push(line.trimEnd());
  });
  out.push("", style.heading("By income pattern"));
  if (s.by_income_pattern === null)
    out.push(`Income patterns ${s.patterns_note ?? "not analysed"}.`);
  else {
    out.push(...table([
      { header: "income pattern", value: (p) => p.pattern },
      { header: "policies", value: (p) => groupedCount(p.policies), right: true },
      { header: "paid in full", value: (p) => groupedCount(p.paid_full), right: true },
      { header: "due", value: (p) => groupedMoney(p.due), right: true },
      { header: "collected", value: (p) => groupedMoney(p.collected), right: true },
      { header: "share", value: (p) => percentOf(p.collected, p.due), right: true },
      { header: "failed attempts", value: (p) => groupedCount(p.failed_attempts), right: true }
    ], s.by_income_pattern, style));
  }
  out.push("", style.heading("Failures by reason"));
  if (s.failures_by_reason.length === 0)
    out.push("No debit failed.");
  else {
    out.push(...table([
      { header: "reason", value: (f) => f.reason },
      { header: "failed attempts", value: (f) => groupedCount(f.attempts), right: true },
      { header: "amount asked", value: (f) => groupedMoney(f.failed_amount), right: true },
      { header: "policies left unpaid", value: (f) => groupedCount(f.policies), right: true }
    ], s.failures_by_reason, style));
  }
  out.push("");
  const t = s.settlement;
  if (t === null)
    out.push(`${style.heading("Settlement")}: none made for ${s.period_month} yet (premia settlements create --period ${s.period_month}).`);
  else {
    out.push(style.heading(`Settlement ${t.settlement_number}`) + ` (${t.status}; EFT on ${t.payment_date}, reference ${t.payment_reference})`);
    const pairs = [
      ["total collections", t.total_collections],
      ["distribution fee", t.distribution_fee],
      ["collections fee", t.collections_fee],
      ["VAT on fees", t.vat],
      ...t.previously_paid === 0 ? [] : [["previously paid", t.previously_paid]],
      ["net amount", t.net_amount]
    ];
    const kw = Math.max(...pairs.map(([k]) => k.length));
    const vw = Math.max(...pairs.map(([, v]) => groupedMoney(v).length));
    for (const [k, v] of pairs)
      out.push(`  ${k.padEnd(kw)}  ${groupedMoney(v).padStart(vw)}`);
  }
  return `${out.join("\n")}
`;
}

// dist/cli/commands/reports/summary-html.js
var library;
function chartist() {
  if (library === void 0) {
    const require2 = createRequire(import.meta.url);
    const strip = (text) => text.replace(/\/[/*]# sourceMappingURL=[^\n*]*(\*\/)?/g, "").trimEnd();
    library = {
      js: strip(readFileSync(require2.resolve("chartist/dist/index.umd.js"), "utf8")),
      css: strip(readFileSync(require2.resolve("chartist/dist/index.css"), "utf8"))
    };
  }
  return library;
}
var ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
var esc = (text) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
var scriptJson = (value) => JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
function chartData(s) {
  const patterns = [...s.by_income_pattern ?? []].reverse();
  const failures = [...s.failures_by_reason].reverse();
  return {
    byDay: { labels: s.by_day.map((d) => d.date.slice(8)), series: [s.by_day.map((d) => Math.round(d.cumulative_rate * 1e3) / 10)] },
    byPattern: { labels: patterns.map((p) => p.pattern), series: [patterns.map((p) => p.due / 100), patterns.map((p) => p.collected / 100)] },
    failures: { labels: failures.map((f) => f.reason), series: [failures.map((f) => f.attempts)] }
  };
}
var DRAW = `
(function () {
  var data = JSON.parse(document.getElementById('premia-chart-data').textContent);
  var C = window.Chartist;
  if (data.byDay.labels.length > 0) {
    new C.LineChart('#chart-by-day', data.byDay, {
      low: 0, high: 100, showArea: true, showPoint: false, fullWidth: true, lineSmooth: C.Interpolation.step(),
      chartPadding: { right: 20 },
      axisY: { labelInterpolationFnc: function (v) { return v + '%'; } }
    });
  }
  if (data.byPattern.labels.length > 0) {
    new C.BarChart('#chart-by-pattern', data.byPattern, {
      horizontalBars: true, seriesBarDistance: 14,
      axisY: { offset: 170 },
      axisX: { scaleMinSpace: 80, labelInterpolationFnc: function (v) { return Number(v).toLocaleString('en-US'); } }
    });
  }
  if (data.failures.labels.length > 0) {
    new C.BarChart('#chart-failures', data.failures, {
      horizontalBars: true,
      axisY: { offset: 170 }, axisX: { onlyInteger: true, scaleMinSpace: 60 }
    });
  }
  document.documentElement.setAttribute('data-charts', 'drawn');
})();
`;
var PAGE_CSS = `
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
`;
function table2(id, columns, rows) {
  const head = columns.map((c) => `<th${c.numeric ? ' class="n"' : ""}>${esc(c.header)}</th>`).join("");
  const body = rows.map((r) => `<tr>${columns.map((c) => `<td${c.numeric ? ' class="n"' : ""}>${esc(c.value(r))}</td>`).join("")}</tr>`).join("\n");
  return `<div class="wide"><table id="${id}">
<thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody>
</table></div>`;
}
var UNPAID_ROWS_SHOWN = 5e3;
function renderSummaryHtml(s, options = {}) {
  const unpaidRows = options.unpaidRows ?? UNPAID_ROWS_SHOWN;
  const lib = chartist();
  const state = s.period_state === null ? "" : s.period_state.state === "closed" ? "closed, final" : s.period_state.state.replace("_", " ");
  const note = s.period_state === null ? null : periodStateNote(s.period_month, s.period_state);
  const st = s.by_status;
  const total = (figure, value, label) => `<div><b data-figure="${figure}">${esc(value)}</b><span>${esc(label)}</span></div>`;
  const parts = [];
  parts.push(`<h1>Collections ${esc(s.period_month)}</h1>`);
  if (state !== "")
    parts.push(`<p>Period ${esc(state)}.</p>`);
  if (note !== null)
    parts.push(`<p class="note">${esc(note)}</p>`);
  parts.push('<section class="totals">', total("collected", groupedMoney(s.collected), "collected"), total("due", groupedMoney(s.due), "due"), total("collection_rate", percentOf(s.collected, s.due), "of what is due"), total("shortfall", groupedMoney(s.shortfall), "shortfall"), total("policies", groupedCount(s.policies), `policies: ${groupedCount(st.PAID_FULL)} paid in full, ${groupedCount(st.PAID_PARTIAL)} partly, ${groupedCount(st.UNPAID)} unpaid, ${groupedCount(st.CANCELLED)} cancelled`), total("attempts", groupedCount(s.attempts), `debits attempted, ${groupedCount(s.failed_attempts)} failed`), "</section>", '<noscript><p class="note">The charts need JavaScript; every figure is in the tables.</p></noscript>');
  parts.push("<h2>Collected by day</h2>", "<p>The cumulative share of what is due collected by the end of each day.</p>");
  if (s.by_day.length === 0)
    parts.push("<p>No debit has been attempted yet.</p>");
  else {
    parts.push('<div class="chart" id="chart-by-day"></div>');
    parts.push(table2("table-by-day", [
      { header: "day", value: (d) => d.date },
      { header: "collected that day", value: (d) => groupedMoney(d.collected), numeric: true },
      { header: "collected so far", value: (d) => groupedMoney(d.amount_collected), numeric: true },
      { header: "share of due", value: (d) => percentOf(d.amount_collected, s.due), numeric: true },
      { header: "debits", value: (d) => groupedCount(d.succeeded), numeric: true },
      { header: "failed", value: (d) => groupedCount(d.failed), numeric: true }
    ], s.by_day.filter((d) => d.succeeded + d.failed > 0)));
  }
  parts.push("<h2>By income pattern</h2>");
  if (s.by_income_pattern === null)
    parts.push(`<p>Income patterns ${esc(s.patterns_note ?? "not analysed")}.</p>`);
  else {
    parts.push('<p class="legend"><span><i style="background:#b9c3d3"></i>due</span><span><i style="background:#1f9d55"></i>collected</span></p>', '<div class="chart tall" id="chart-by-pattern"></div>', table2("table-by-pattern", [
      { header: "income pattern", value: (p) => p.pattern },
      { header: "policies", value: (p) => groupedCount(p.policies), numeric: true },
      { header: "paid in full", value: (p) => groupedCount(p.paid_full), numeric: true },
      { header: "due", value: (p) => groupedMoney(p.due), numeric: true },
      { header: "collected", value: (p) => groupedMoney(p.collected), numeric: true },
      { header: "share", value: (p) => percentOf(p.collected, p.due), numeric: true },
      { header: "failed attempts", value: (p) => groupedCount(p.failed_attempts), numeric: true }
    ], s.by_income_pattern));
  }
  parts.push("<h2>Failures by reason</h2>");
  if (s.failures_by_reason.length === 0)
    parts.push("<p>No debit failed.</p>");
  else {
    parts.push('<div class="chart" id="chart-failures"></div>', table2("table-failures", [
      { header: "reason", value: (f) => f.reason },
      { header: "failed attempts", value: (f) => groupedCount(f.attempts), numeric: true },
      { header: "amount asked", value: (f) => groupedMoney(f.failed_amount), numeric: true },
      { header: "policies left unpaid", value: (f) => groupedCount(f.policies), numeric: true }
    ], s.failures_by_reason));
  }
  parts.push("<h2>Settlement</h2>");
  const t = s.settlement;
  if (t === null)
    parts.push(`<p>No settlement statement has been made for ${esc(s.period_month)} yet.</p>`);
  else {
    const rows = [
      ["total_collections", "total collections", groupedMoney(t.total_collections)],
      ["distribution_fee", "distribution fee", groupedMoney(t.distribution_fee)],
      ["collections_fee", "collections fee", groupedMoney(t.collections_fee)],
      ["vat", "VAT on fees", groupedMoney(t.vat)],
      ...t.previously_paid === 0 ? [] : [["previously_paid", "previously paid", groupedMoney(t.previously_paid)]],
      ["net_amount", "net amount", groupedMoney(t.net_amount)]
    ];
    parts.push(`<p>Statement <b>${esc(t.settlement_number)}</b> (${esc(t.status)}; EFT on ${esc(t.payment_date)}, reference ${esc(t.payment_reference)}).</p>`, `<table id="table-settlement"><tbody>
${rows.map(([k, label, v]) => `<tr><th>${esc(label)}</th><td class="n" data-figure="settlement.${k}">${esc(v)}</td></tr>`).join("\n")}
</tbody></table>`);
  }
  parts.push(`<h2>Unpaid and partly paid policies (${groupedCount(s.unpaid_and_partial.length)})</h2>`);
  if (s.unpaid_and_partial.length === 0)
    parts.push("<p>Every collection was paid in full (or cancelled).</p>");
  else {
    const shown = s.unpaid_and_partial.slice(0, unpaidRows);
    if (shown.length < s.unpaid_and_partial.length) {
      parts.push(`<p class="note">The ${groupedCount(shown.length)} largest shortfalls of ${groupedCount(s.unpaid_and_partial.length)}; every one is in the collections report (premia reports collections --period ${esc(s.period_month)}).</p>`);
    }
    parts.push(table2("table-unpaid", [
      { header: "policy", value: (p) => p.policy_number },
      { header: "customer", value: (p) => p.customer_id },
      { header: "reference", value: (p) => p.external_customer_ref },
      { header: "product", value: (p) => p.product_code },
      { header: "status", value: (p) => p.collection_status },
      { header: "due", value: (p) => groupedMoney(p.collection_amount_due), numeric: true },
      { header: "collected", value: (p) => groupedMoney(p.collection_amount_collected), numeric: true },
      { header: "shortfall", value: (p) => groupedMoney(p.shortfall), numeric: true },
      { header: "attempts", value: (p) => groupedCount(p.number_of_attempts), numeric: true },
      { header: "last attempt", value: (p) => p.last_attempt_date ?? "-" },
      { header: "last failure", value: (p) => p.last_failure_reason ?? "-" }
    ], shown));
  }
  parts.push("<footer>Made by premia reports summary. Charts drawn with Chartist (MIT licence), included in this page.</footer>");
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing may be fetched: the page is opened from a mail or a file share.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    `<title>Collections ${esc(s.period_month)}</title>`,
    `<style>
${lib.css}
${PAGE_CSS}</style>`,
    "</head>",
    "<body>",
    ...parts,
    `<script type="application/json" id="premia-chart-data">${scriptJson(chartData(s))}</script>`,
    `<script>
${lib.js}
</script>`,
    `<script>${DRAW}</script>`,
    "</body>",
    "</html>",
    ""
  ].join("\n");
}

// dist/cli/commands/reports/summary.js
function summaryOptions(deps, flags) {
  const period = checkPeriodOption(flags.period);
  if (deps.globals.json && flags.html !== void 0)
    throw usageError("--json prints the figures as JSON and --html writes them as a page; give only one of them.");
  return { ...deps, period, html: flags.html };
}
function summaryPage(figures) {
  return {
    filename: `summary-${figures.period_month}.html`,
    contentType: "text/html; charset=utf-8",
    body: (async function* () {
      yield renderSummaryHtml(figures);
    })()
  };
}
async function summaryRun({ ctx, ui, backend, period, html }) {
  const figures = await readSummary(await backend(), period);
  if (html !== void 0) {
    const written = await writeDownload(ctx, summaryPage(figures), html, void 0, "--html");
    if (written.path !== null)
      ui.status(`Wrote the ${period} summary page to ${written.path} (${groupedCount(written.bytes)} bytes).`);
    return 0;
  }
  if (ui.json) {
    ui.printJson(figures);
    return 0;
  }
  const fancy = ui.out.level > 0;
  ui.write(renderSummaryText(figures, { fancy, heading: (t) => ui.out.bold(t) }));
  return 0;
}
var summary_default = verb(summaryOptions, summaryRun);
export {
  summary_default as default,
  summaryOptions,
  summaryPage,
  summaryRun
};
