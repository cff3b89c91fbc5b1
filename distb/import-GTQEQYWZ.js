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

// dist/cli/commands/bank/import.js
async function importRun({ ctx, ui, backend, file }) {
  const upload = await openUpload(ctx, file);
  const b = await backend();
  const ctrlC = catchCtrlC(ctx, () => {
  });
  let result;
  try {
    result = await b.importBankTransactions(upload, { signal: ctrlC.signal });
  } finally {
    ctrlC.release();
  }
  if (ui.json)
    ui.printJson(result);
  else {
    ui.line(`Imported ${plural(result.imported, "transaction")}; ${plural(result.failed, "row")} failed.`);
    if (result.errors.length > 0) {
      ui.line();
      ui.table([
        { header: "row", value: (e) => e.row, align: "right" },
        { header: "customer_id", value: (e) => e.customer_id },
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
