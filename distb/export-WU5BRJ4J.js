import {
  writeDownload
} from "./chunk-X5LTGHGA.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import {
  plural
} from "./chunk-7BKCKV6J.js";
import "./chunk-U6UK7MPY.js";

// dist/cli/commands/settlements/export.js
async function exportRun({ ctx, ui, backend, ref, lines, output }) {
  const download = await (await backend()).exportSettlement(ref, { lines });
  const written = await writeDownload(ctx, download, output);
  if (written.path !== null)
    ui.status(`Wrote ${download.filename} to ${written.path} (${plural(written.bytes, "byte")}).`);
  return 0;
}
var export_default = verb((deps, flags, [ref]) => ({ ...deps, ref, lines: flags.lines === true, output: flags.output }), exportRun);
export {
  export_default as default,
  exportRun
};
