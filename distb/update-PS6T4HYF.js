import {
  showPolicy
} from "./chunk-4CXCTQFD.js";
import {
  cancellationQuestion,
  plainCancellationQuestion
} from "./chunk-KWEFP6XG.js";
import {
  askOrCancel,
  confirmMode
} from "./chunk-ICH5SV3J.js";
import "./chunk-V3ZTTVYI.js";
import {
  validatePolicyPatch
} from "./chunk-IVFONV4X.js";
import "./chunk-CXYRJJKB.js";
import "./chunk-JX2JAKWC.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";
import {
  PremiaError,
  usageError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/policies/update.js
function updateOptions(deps, flags, [ref]) {
  if (flags.amount === void 0 && flags.status === void 0) {
    throw usageError("Nothing to update: give --amount, --status, or both.");
  }
  const raw = {};
  if (flags.amount !== void 0)
    raw.collection_amount = flags.amount;
  if (flags.status !== void 0)
    raw.status = flags.status;
  return { ...deps, ref, patch: validatePolicyPatch(raw) };
}
async function updateRun(opts) {
  const { ui, backend, ref, patch } = opts;
  const b = await backend();
  if (patch.status === "cancelled" && confirmMode(opts) === "ask") {
    const preview = await previewOf(b, ref);
    if (preview === null)
      await askOrCancel(opts, plainCancellationQuestion(ref));
    else if (preview.status !== "cancelled")
      await askOrCancel(opts, cancellationQuestion(preview));
  }
  const policy = await b.updatePolicy(ref, patch);
  if (ui.json)
    ui.printJson(policy);
  else {
    ui.status(`Updated policy ${policy.policy_number}.`);
    showPolicy(ui, policy);
  }
  return 0;
}
async function previewOf(b, ref) {
  try {
    return await b.previewCancellation(ref);
  } catch (e) {
    if (e instanceof PremiaError && e.code === "NOT_SUPPORTED")
      return null;
    throw e;
  }
}
var update_default = verb(updateOptions, updateRun);
export {
  update_default as default,
  updateOptions,
  updateRun
};
