import {
  verb
} from "./chunk-ZHXFIFOW.js";

// dist/cli/commands/clock/show.js
function showClock(ui, clock) {
  if (ui.json)
    ui.printJson(clock);
  else
    ui.keyValues([["date", clock.date], ["seed", clock.seed], ["locked", clock.locked ? "yes (a collections run exists)" : "no"]]);
}
async function showRun({ ui, backend }) {
  showClock(ui, await (await backend()).getClock());
  return 0;
}
var show_default = verb((deps) => deps, showRun);

export {
  showClock,
  showRun,
  show_default
};
