import {
  listOutput,
  printList
} from "./chunk-RCUI2NJJ.js";
import {
  SETTING_LIST
} from "./chunk-EDLGZEVV.js";
import "./chunk-QFVJLG6N.js";
import "./chunk-MRLEVLPO.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import "./chunk-CXYRJJKB.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";
import "./chunk-U6UK7MPY.js";

// dist/cli/commands/settings/list.js
async function listRun({ ui, admin, output }) {
  const settings = await (await admin()).settings.list();
  printList(ui, SETTING_LIST, output, settings, settings);
  return 0;
}
var list_default = verb((deps, flags) => ({ ...deps, output: listOutput(flags, deps.globals, SETTING_LIST) }), listRun);
export {
  list_default as default,
  listRun
};
