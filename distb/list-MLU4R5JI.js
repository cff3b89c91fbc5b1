import {
  listOutput,
  printList
} from "./chunk-RCUI2NJJ.js";
import {
  SETTLEMENT_LIST
} from "./chunk-EDLGZEVV.js";
import "./chunk-QFVJLG6N.js";
import {
  checkPeriodOption
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

// dist/cli/commands/settlements/list.js
function listOptions(deps, flags) {
  const period = flags.period === void 0 ? void 0 : checkPeriodOption(flags.period);
  return { ...deps, query: { status: flags.status, period_month: period }, output: listOutput(flags, deps.globals, SETTLEMENT_LIST) };
}
async function listRun({ ui, backend, query, output }) {
  const page = await (await backend()).listSettlements(query);
  if (!ui.json && output.format === "table" && page.data.length === 0) {
    ui.status("No settlements match.");
    return 0;
  }
  printList(ui, SETTLEMENT_LIST, output, page.data, page);
  return 0;
}
var list_default = verb(listOptions, listRun);
export {
  list_default as default,
  listOptions,
  listRun
};
