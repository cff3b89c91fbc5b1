import {
  ImportProgressLine
} from "./chunk-4YPIQLG5.js";
import {
  startProgress
} from "./chunk-GIGWEC74.js";
import {
  openUpload
} from "./chunk-YHF3GLAW.js";
import {
  catchCtrlC
} from "./chunk-XJNWV2JP.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import {
  count,
  plural
} from "./chunk-7BKCKV6J.js";
import {
  ExitCode
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/policies/import.js
async function importRun({ ctx, ui, backend, file }) {
  const upload = await openUpload(ctx, file);
  const b = await backend();
  const progress = await startProgress(ui, `Importing ${upload.name}\u2026`);
  const live = new ImportProgressLine(upload.name, upload.size);
  const started = Date.now();
  const ctrlC = catchCtrlC(ctx, () => progress.stop());
  let result;
  try {
    result = await b.importPolicies(upload, {
      signal: ctrlC.signal,
      onProgress: ({ bytes, rows }) => progress.update(live.line(rows, bytes, Date.now() - started))
    });
  } catch (e) {
    if (!ctrlC.signal.aborted)
      progress.fail(`Import of ${upload.name} failed`);
    throw e;
  } finally {
    ctrlC.release();
  }
  progress.stop();
  if (ui.json)
    ui.printJson(result);
  else {
    ui.line(`Imported ${plural(result.imported, "policy", "policies")}; ${plural(result.failed, "row")} failed.`);
    const premiaShaped = result.errors.every((e) => e && typeof e === "object" && typeof e.row === "number" && typeof e.message === "string" && typeof e.code === "string");
    if (result.errors.length > 0 && !premiaShaped) {
      ui.line();
      for (const e of result.errors)
        ui.line(`  ${typeof e === "string" ? e : JSON.stringify(e)}`);
    } else if (result.errors.length > 0) {
      ui.line();
      ui.table([
        { header: "row", value: (e) => e.row, align: "right" },
        { header: "policy_number", value: (e) => e.policy_number },
        { header: "field", value: (e) => e.field },
        { header: "code", value: (e) => e.code },
        { header: "message", value: (e) => e.message }
      ], result.errors);
      if (result.errors_omitted)
        ui.line(`\u2026 and ${plural(result.errors_omitted, "more error")} not shown (the first ${count(result.errors.length)} by row are listed).`);
    }
  }
  return result.failed > 0 ? ExitCode.PARTIAL : ExitCode.OK;
}
var import_default = verb((deps, _flags, [file]) => ({ ...deps, file }), importRun);
export {
  import_default as default,
  importRun
};
