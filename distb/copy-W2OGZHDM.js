import {
  confirmMode,
  declined
} from "./chunk-ICH5SV3J.js";
import {
  isPostgresUrl,
  redactDbUrl
} from "./chunk-7L3A4ARV.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import {
  moneyText
} from "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";
import {
  usageError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/db/copy.js
import { resolve } from "node:path";
function copyOptions(deps, flags) {
  const from = String(flags.from ?? "").trim();
  const to = String(flags.to ?? "").trim();
  if (from === "" || to === "")
    throw usageError("Name both stores: premia db copy --from ./premia.db --to postgres://user@host/db.");
  const place = (store) => isPostgresUrl(store) || store === ":memory:" ? store : resolve(deps.ctx.cwd, store);
  return { ...deps, from: place(from), to: place(to) };
}
var rowsText = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
function money(cents, group) {
  if (cents === null)
    return "-";
  const n = Number(cents);
  return Number.isSafeInteger(n) ? moneyText(n, group) : cents;
}
async function copyRun({ ctx, ui, globals, from, to }) {
  const mode = confirmMode({ ctx, globals });
  ui.status(`Copying ${redactDbUrl(from)} to ${redactDbUrl(to)}\u2026`);
  const report = await ctx.copyStore({
    from,
    to,
    replace: globals.yes === true,
    confirm: async ({ target, tables }) => {
      const list = tables.map((t) => `${t.table} (${rowsText(t.rows)} ${t.rows === 1 ? "row" : "rows"})`).join(", ");
      ctx.stderr.write(`${target} is not empty: the copy replaces all it holds: ${list}.
`);
      if (mode !== "unattended" && ctx.stdinIsTTY && ctx.stderrIsTTY) {
        if (!await ctx.prompter.confirm(`Replace everything in ${target} with the copy of ${redactDbUrl(from)}?`))
          throw declined();
      }
    },
    onTable: (table, rows2) => {
      if (ui.interactive)
        ui.status(ui.err.dim(`  ${table}: ${rowsText(rows2)} rows`));
    }
  });
  if (ui.json)
    ui.printJson(report);
  else {
    const group = ctx.stdoutIsTTY;
    ui.table([
      { header: "table", value: (r) => r.table },
      { header: "rows (source)", value: (r) => group ? rowsText(r.from.rows) : r.from.rows, align: "right" },
      { header: "rows (copy)", value: (r) => group ? rowsText(r.to.rows) : r.to.rows, align: "right" },
      { header: "money (source)", value: (r) => money(r.from.money, group), align: "right" },
      { header: "money (copy)", value: (r) => money(r.to.money, group), align: "right" },
      { header: "check", value: (r) => r.same ? "same" : "DIFFERS" }
    ], report.tables);
  }
  const rows = report.tables.reduce((s, t) => s + BigInt(t.from.rows), 0n);
  if (!report.identical) {
    const bad = report.tables.filter((t) => !t.same).map((t) => t.table);
    ctx.stderr.write(`premia: the copy differs from its source in ${bad.join(", ")}; it was rolled back and ${report.to} is unchanged.
`);
    return 1;
  }
  const replaced = report.replaced.length > 0 ? ` (replacing what it held: ${report.replaced.map((t) => t.table).join(", ")})` : "";
  ui.status(`Copied ${report.from} to ${report.to}${replaced}: ${report.tables.length} tables, ${rowsText(rows.toString())} rows; counts and money totals identical.`);
  return 0;
}
var copy_default = verb(copyOptions, copyRun);
export {
  copyOptions,
  copyRun,
  copy_default as default
};
