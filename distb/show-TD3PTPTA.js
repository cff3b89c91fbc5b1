import {
  verb
} from "./chunk-ZHXFIFOW.js";
import {
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/calendar/show.js
function showOptions(deps, flags) {
  if (flags.year === void 0)
    return { ...deps, year: null };
  if (!/^\d{4}$/.test(flags.year))
    throw validationError(`--year must be a year written YYYY; got '${flags.year.slice(0, 20)}'.`);
  return { ...deps, year: Number(flags.year) };
}
async function showRun({ ui, admin, backend, year }) {
  const y = year ?? Number((await (await backend()).getClock()).date.slice(0, 4));
  const view = await (await admin()).calendar.show(y);
  if (ui.json) {
    ui.printJson(view);
    return 0;
  }
  const base = view.calendar === "za" ? "za (South African public holidays)" : "none (weekends only)";
  ui.line(`calendar        ${base}${view.imported_dates > 0 ? ` + ${view.imported_dates} imported date${view.imported_dates === 1 ? "" : "s"}` : ""}`);
  ui.line(`fixed until     ${view.fixed_until ?? "- (no collections run yet: the calendar can change)"}`);
  ui.line(`holidays ${view.year}  ${view.holidays.length}`);
  if (view.holidays.length > 0) {
    ui.line();
    ui.table([
      { header: "date", value: (h) => h.date },
      { header: "weekday", value: (h) => h.weekday },
      { header: "name", value: (h) => h.name },
      { header: "source", value: (h) => h.source }
    ], view.holidays);
  }
  return 0;
}
var show_default = verb(showOptions, showRun);
export {
  show_default as default,
  showOptions,
  showRun
};
