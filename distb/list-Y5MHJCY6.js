import {
  listOutput,
  printList
} from "./chunk-RCUI2NJJ.js";
import {
  KEY_LIST
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

// dist/cli/commands/keys/list.js
async function listRun({ ui, admin, output }) {
  const keys = await (await admin()).keys.list();
  if (!ui.json && output.format === "table" && keys.length === 0) {
    ui.status("No API keys yet; create one with 'premia keys create --client NAME'.");
    return 0;
  }
  printList(ui, KEY_LIST, output, keys, keys);
  return 0;
}
var list_default = verb((deps, flags) => ({ ...deps, output: listOutput(flags, deps.globals, KEY_LIST) }), listRun);
export {
  list_default as default,
  listRun
};
