import {
  openUpload
} from "./chunk-YHF3GLAW.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-U6UK7MPY.js";

// dist/cli/commands/calendar/import.js
async function importRun({ ctx, ui, admin, file, replace }) {
  const upload = await openUpload(ctx, file);
  const result = await (await admin()).calendar.import(upload, { replace });
  if (ui.json)
    ui.printJson(result);
  else {
    const s = (n) => n === 1 ? "" : "s";
    ui.status(`Calendar ${result.calendar}: ${result.added} date${s(result.added)} added${result.removed > 0 ? `, ${result.removed} removed` : ""}; ${result.imported_dates} imported date${s(result.imported_dates)} in all.`);
  }
  return 0;
}
var import_default = verb((deps, flags, [file]) => ({ ...deps, file, replace: flags.replace === true }), importRun);
export {
  import_default as default,
  importRun
};
