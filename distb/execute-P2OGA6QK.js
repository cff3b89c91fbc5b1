import {
  checkPeriodOption
} from "./chunk-HUXLOL7T.js";
import "./chunk-IVFONV4X.js";
import {
  DEFAULT_STRATEGY
} from "./chunk-F6XEBFEX.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import "./chunk-CXYRJJKB.js";
import "./chunk-JX2JAKWC.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import {
  plural
} from "./chunk-7BKCKV6J.js";
import "./chunk-U6UK7MPY.js";

// dist/cli/commands/collections/execute.js
function executeOptions(deps, flags) {
  const period = checkPeriodOption(flags.period);
  return { ...deps, input: { period_month: period, policy_ids: flags.policy, strategy: flags.strategy } };
}
async function executeRun({ ui, backend, input }) {
  const b = await backend();
  const accepted = await b.executeCollections(input);
  if (ui.json)
    ui.printJson(accepted);
  else {
    ui.status(`Queued ${plural(accepted.policies_queued, "policy", "policies")} for ${input.period_month} (${input.strategy ?? DEFAULT_STRATEGY}); the engine collects as the clock advances.`);
    ui.keyValues([
      ["execution_id", accepted.execution_id],
      ["status", accepted.status],
      ["policies_queued", accepted.policies_queued]
    ]);
  }
  return 0;
}
var execute_default = verb(executeOptions, executeRun);
export {
  execute_default as default,
  executeOptions,
  executeRun
};
