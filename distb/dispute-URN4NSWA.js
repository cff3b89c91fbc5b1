import {
  printSettlement
} from "./chunk-4PJVVVLG.js";
import {
  disputeQuestion
} from "./chunk-KWEFP6XG.js";
import {
  askOrCancel,
  confirmMode
} from "./chunk-ICH5SV3J.js";
import "./chunk-V3ZTTVYI.js";
import {
  validateDisputeRequest
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

// dist/cli/commands/settlements/dispute.js
function disputeOptions(deps, flags, [ref]) {
  return { ...deps, ref, reason: validateDisputeRequest({ reason: flags.reason }).reason };
}
async function disputeRun(opts) {
  const { ui, backend, ref, reason } = opts;
  const b = await backend();
  if (confirmMode(opts) === "ask") {
    const current = await b.getSettlement(ref);
    if (current.status !== "disputed")
      await askOrCancel(opts, disputeQuestion(current, reason));
  }
  const s = await b.disputeSettlement(ref, reason);
  if (!ui.json) {
    ui.status(`${s.settlement_number} is disputed. 'premia settlements create --period ${s.period_month}' generates a new statement for the period.`);
  }
  printSettlement(ui, s);
  return 0;
}
var dispute_default = verb(disputeOptions, disputeRun);
export {
  dispute_default as default,
  disputeOptions,
  disputeRun
};
