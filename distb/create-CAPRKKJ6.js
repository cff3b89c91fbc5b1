import {
  showPolicy
} from "./chunk-4CXCTQFD.js";
import {
  validatePolicyInput
} from "./chunk-IVFONV4X.js";
import "./chunk-JX2JAKWC.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";
import {
  usageError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/policies/create.js
var FLAGS = [
  ["--policy-number", "policyNumber", "policy_number"],
  ["--customer-id", "customerId", "customer_id"],
  ["--external-ref", "externalRef", "external_customer_ref"],
  ["--product-code", "productCode", "product_code"],
  ["--amount", "amount", "collection_amount"]
];
function createOptions(deps, flags) {
  const missing = FLAGS.filter(([, option]) => flags[option] === void 0).map(([flag]) => flag);
  if (missing.length > 0)
    throw usageError(`Missing ${missing.join(", ")}: a policy needs all five of ${FLAGS.map(([f]) => f).join(", ")}.`);
  return { ...deps, policy: validatePolicyInput(Object.fromEntries(FLAGS.map(([, option, field]) => [field, flags[option]]))) };
}
async function createRun({ ui, backend, policy: input }) {
  const policy = await (await backend()).createPolicy(input);
  if (ui.json)
    ui.printJson(policy);
  else {
    ui.status(`Created policy ${policy.policy_number}.`);
    showPolicy(ui, policy);
  }
  return 0;
}
var create_default = verb(createOptions, createRun);
export {
  createOptions,
  createRun,
  create_default as default
};
