import {
  printSettlement
} from "./chunk-4PJVVVLG.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";

// dist/cli/commands/settlements/get.js
async function getRun({ ui, backend, ref }) {
  printSettlement(ui, await (await backend()).getSettlement(ref));
  return 0;
}
var get_default = verb((deps, _flags, [ref]) => ({ ...deps, ref }), getRun);
export {
  get_default as default,
  getRun
};
