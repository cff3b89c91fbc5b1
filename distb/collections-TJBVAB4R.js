import {
  writeDownload
} from "./chunk-X5LTGHGA.js";
import {
  checkPeriodOption
} from "./chunk-HUXLOL7T.js";
import "./chunk-IVFONV4X.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import {
  periodStateNote
} from "./chunk-FKNU4UUY.js";
import "./chunk-CXYRJJKB.js";
import "./chunk-JX2JAKWC.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import {
  plural
} from "./chunk-7BKCKV6J.js";
import {
  PremiaError,
  conflict,
  usageError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/reports/collections.js
function collectionsOptions(deps, flags) {
  const period = checkPeriodOption(flags.period);
  if (deps.globals.json && flags.format === "csv")
    throw usageError("--json asks for JSON but --format csv asks for CSV; give only one of them.");
  const format = flags.format ?? (deps.globals.json ? "json" : "csv");
  return { ...deps, period, format, output: flags.output, requireClosed: flags.requireClosed === true };
}
async function collectionsRun({ ctx, ui, backend, period, format, output, requireClosed }) {
  const download = await (await backend()).collectionsReport(period, format);
  const state = download.periodState;
  const note = state ? periodStateNote(period, state) : null;
  if (requireClosed) {
    if (!state) {
      throw new PremiaError("NOT_SUPPORTED", `--require-closed needs to know whether ${period} has closed, and this server does not say (its report carries no Premia-Period-State header: a server that implements only the spec, or an older premia). Nothing was written; run the report without --require-closed.`);
    }
    if (state.state !== "closed") {
      const words = `${note} --require-closed writes the report only once the period has closed; nothing was written.`;
      throw conflict(state.state === "open" ? "PERIOD_OPEN" : "NO_COLLECTIONS", words, [{ period_month: period, ...state }]);
    }
  }
  const written = await writeDownload(ctx, download, output);
  if (written.path !== null)
    ui.status(`Wrote the ${period} collections report to ${written.path} (${plural(written.bytes, "byte")}).`);
  if (note && ctx.stderrIsTTY)
    ui.status(`${ui.err.yellow("note:")} ${note}`);
  return 0;
}
var collections_default = verb(collectionsOptions, collectionsRun);
export {
  collectionsOptions,
  collectionsRun,
  collections_default as default
};
