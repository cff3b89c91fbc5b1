import {
  showClock
} from "./chunk-CESH2GXY.js";
import {
  validateClockSetRequest
} from "./chunk-HUXLOL7T.js";
import "./chunk-IVFONV4X.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import "./chunk-CXYRJJKB.js";
import "./chunk-JX2JAKWC.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-U6UK7MPY.js";

// dist/cli/commands/clock/set.js
function setOptions(deps, _flags, [date]) {
  return { ...deps, date: validateClockSetRequest({ date }).date };
}
async function setRun({ ui, backend, date }) {
  const clock = await (await backend()).setClock(date);
  if (!ui.json)
    ui.status(`Clock set to ${clock.date}.`);
  showClock(ui, clock);
  return 0;
}
var set_default = verb(setOptions, setRun);
export {
  set_default as default,
  setOptions,
  setRun
};
