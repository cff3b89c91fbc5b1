import {
  printSettlement
} from "./chunk-4PJVVVLG.js";
import {
  plainSettlementQuestion,
  settlementQuestion
} from "./chunk-KWEFP6XG.js";
import {
  askOrCancel,
  confirmMode
} from "./chunk-ICH5SV3J.js";
import "./chunk-V3ZTTVYI.js";
import {
  checkPeriodOption
} from "./chunk-HUXLOL7T.js";
import "./chunk-IVFONV4X.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import "./chunk-CXYRJJKB.js";
import "./chunk-JX2JAKWC.js";
import {
  money
} from "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";
import {
  PremiaError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/settlements/create.js
function createOptions(deps, flags) {
  const period = checkPeriodOption(flags.period);
  return { ...deps, period };
}
async function createRun(opts) {
  const { ui, backend, period } = opts;
  const b = await backend();
  if (confirmMode(opts) === "ask") {
    const preview = await previewOf(b, period);
    await askOrCancel(opts, preview ? settlementQuestion(preview) : plainSettlementQuestion(period));
  }
  const s = await b.createSettlement(period);
  if (!ui.json) {
    const replaces = s.supersedes ? ` (supersedes ${s.supersedes}; ${money(s.previously_paid ?? 0)} already paid for ${s.period_month})` : "";
    if (s.net_amount < 0) {
      const reference = s.payment_reference ? `, reference ${s.payment_reference}` : "";
      ui.status(`Created ${s.settlement_number}${replaces}: net ${money(s.net_amount)}: the client owes ${money(-s.net_amount)} back by ${s.payment_date}${reference}.`);
    } else {
      const reference = s.payment_reference ? ` with reference ${s.payment_reference}` : "";
      ui.status(`Created ${s.settlement_number}${replaces}: net ${money(s.net_amount)} to pay by ${s.payment_date}${reference}.`);
    }
  }
  printSettlement(ui, s);
  return 0;
}
async function previewOf(b, period) {
  try {
    return await b.previewSettlement(period);
  } catch (e) {
    if (e instanceof PremiaError && e.code === "NOT_SUPPORTED")
      return null;
    throw e;
  }
}
var create_default = verb(createOptions, createRun);
export {
  createOptions,
  createRun,
  create_default as default
};
