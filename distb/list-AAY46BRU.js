import {
  listOutput,
  printList
} from "./chunk-RCUI2NJJ.js";
import {
  POLICY_LIST
} from "./chunk-EDLGZEVV.js";
import "./chunk-QFVJLG6N.js";
import {
  checkPageLimitOption
} from "./chunk-HUXLOL7T.js";
import "./chunk-IVFONV4X.js";
import "./chunk-MRLEVLPO.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import "./chunk-CXYRJJKB.js";
import "./chunk-JX2JAKWC.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";
import "./chunk-U6UK7MPY.js";

// dist/cli/commands/policies/list.js
function listOptions(deps, flags) {
  const limit = checkPageLimitOption(flags.limit);
  return { ...deps, query: { status: flags.status, limit, after: flags.after }, output: listOutput(flags, deps.globals, POLICY_LIST) };
}
async function listRun({ ui, backend, query, output }) {
  const page = await (await backend()).listPolicies(query);
  printList(ui, POLICY_LIST, output, page.data, page);
  if (!ui.json && page.next_after !== null)
    ui.status(`More policies follow: run again with --after ${page.next_after}`);
  return 0;
}
var list_default = verb(listOptions, listRun);
export {
  list_default as default,
  listOptions,
  listRun
};
