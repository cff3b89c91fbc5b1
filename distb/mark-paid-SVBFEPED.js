import {
  printSettlement
} from "./chunk-4PJVVVLG.js";
import {
  validateMarkPaidRequest
} from "./chunk-HUXLOL7T.js";
import "./chunk-IVFONV4X.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import "./chunk-CXYRJJKB.js";
import "./chunk-JX2JAKWC.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";
import "./chunk-U6UK7MPY.js";

// dist/cli/commands/settlements/mark-paid.js
function markPaidOptions(deps, flags, [ref]) {
  return { ...deps, ref, input: validateMarkPaidRequest(flags.reference === void 0 ? {} : { reference: flags.reference }) };
}
async function markPaidRun({ ui, backend, ref, input }) {
  const s = await (await backend()).markSettlementPaid(ref, input);
  if (!ui.json)
    ui.status(`${s.settlement_number} is paid (on ${s.paid_on}, reference ${s.paid_reference}).`);
  printSettlement(ui, s);
  return 0;
}
var mark_paid_default = verb(markPaidOptions, markPaidRun);
export {
  mark_paid_default as default,
  markPaidOptions,
  markPaidRun
};
