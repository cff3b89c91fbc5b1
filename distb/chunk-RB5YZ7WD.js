import {
  count
} from "./chunk-7BKCKV6J.js";

// dist/cli/output/table.js
var ELLIPSIS = "\u2026";
var MIN_WIDTH = 4;
var GAP = 2;
function moneyText(cents, group) {
  if (!Number.isSafeInteger(cents))
    return String(cents);
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const frac = abs - whole * 100;
  return `${cents < 0 ? "-" : ""}${group ? count(whole) : String(whole)}.${frac < 10 ? "0" : ""}${frac}`;
}
function truncate(text, width) {
  if (text.length <= width)
    return text;
  if (width <= 0)
    return "";
  return `${text.slice(0, width - 1)}${ELLIPSIS}`;
}
function renderTable(columns, rows, options = {}) {
  const opts = typeof options === "function" ? { colour: options } : options;
  const group = opts.group === true;
  const right = columns.map((c) => c.align === "right" || c.money === true);
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row), c.money === true, group)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i].length)));
  if (opts.width !== void 0 && opts.width > 0)
    fit(widths, right, opts.width);
  const fmt = (values) => values.map((v, i) => {
    const cut = truncate(v, widths[i]);
    return right[i] ? cut.padStart(widths[i]) : cut.padEnd(widths[i]);
  }).join(" ".repeat(GAP)).trimEnd();
  const header = fmt(columns.map((c) => c.header));
  let lines = [header, ...cells.map(fmt)];
  if (opts.width !== void 0 && opts.width > 0)
    lines = lines.map((l) => truncate(l, opts.width));
  if (opts.colour)
    lines[0] = opts.colour.bold(lines[0]);
  return `${lines.join("\n")}
`;
}
function fit(widths, right, width) {
  const total = () => widths.reduce((s, w) => s + w, 0) + GAP * (widths.length - 1);
  while (total() > width) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (right[i] || widths[i] <= MIN_WIDTH)
        continue;
      if (widest === -1 || widths[i] > widths[widest])
        widest = i;
    }
    if (widest === -1)
      return;
    widths[widest] = widths[widest] - 1;
  }
}
function cellText(v, money, group) {
  if (v === null || v === void 0)
    return "-";
  if (money && typeof v === "number")
    return moneyText(v, group);
  return String(v);
}

export {
  moneyText,
  renderTable
};
