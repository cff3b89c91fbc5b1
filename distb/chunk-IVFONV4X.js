import {
  checkIdentifier,
  checkProductCode,
  premiumFromInput
} from "./chunk-JX2JAKWC.js";
import {
  conflict,
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/domain/show.js
function showValue(v) {
  let s;
  if (typeof v === "string")
    s = JSON.stringify(v);
  else if (Array.isArray(v))
    s = "a list";
  else if (v !== null && typeof v === "object")
    s = "an object";
  else if (v === void 0)
    s = "nothing";
  else
    s = String(v);
  return s.length > 60 ? `${s.slice(0, 60)}\u2026` : s;
}

// dist/domain/policy.js
var POLICY_STATUSES = ["active", "lapsed", "cancelled"];
function isPolicyStatus(s) {
  return typeof s === "string" && POLICY_STATUSES.includes(s);
}
var ALLOWED = {
  active: ["lapsed", "cancelled"],
  lapsed: ["active", "cancelled"],
  // lapsed → active is a reinstatement
  cancelled: []
  // final
};
function checkTransition(from, to, policyNumber) {
  if (from === to)
    return "noop";
  if (ALLOWED[from].includes(to))
    return "change";
  throw invalidTransition(from, to, policyNumber);
}
function invalidTransition(from, to, policyNumber) {
  const why = from === "cancelled" ? "a cancelled policy is final; create a new policy instead" : `allowed from '${from}': ${ALLOWED[from].join(", ")}`;
  return conflict("INVALID_TRANSITION", `Policy ${policyNumber} cannot move from '${from}' to '${to}': ${why}.`, [
    { field: "status", from, to }
  ]);
}
var IDENTIFIER_FIELDS = ["policy_number", "customer_id", "external_customer_ref"];
function validatePolicyInput(raw) {
  const errors = [];
  const text = (field) => {
    const v = raw[field];
    if (v === void 0 || v === null)
      return "";
    if (typeof v !== "string") {
      errors.push({ field, code: "INVALID_TYPE", message: `${field} must be a string` });
      return "\0";
    }
    return v.trim();
  };
  const out = {};
  for (const field of IDENTIFIER_FIELDS) {
    const v = text(field);
    if (v === "\0")
      continue;
    const problem = checkIdentifier(v, field);
    if (problem)
      errors.push({ field, ...problem });
    else
      out[field] = v;
  }
  const product = text("product_code");
  if (product !== "\0") {
    const problem = checkProductCode(product);
    if (problem)
      errors.push({ field: "product_code", ...problem });
    else
      out.product_code = product;
  }
  const amount = premiumFromInput(raw.collection_amount);
  if (typeof amount === "number")
    out.collection_amount = amount;
  else
    errors.push({ field: "collection_amount", code: amount.code, message: `collection_amount ${amount.message}` });
  for (const key of Object.keys(raw)) {
    if (!IDENTIFIER_FIELDS.includes(key) && key !== "product_code" && key !== "collection_amount") {
      errors.push({ field: key, code: "UNKNOWN_FIELD", message: `${key} is not a field of a policy` });
    }
  }
  if (errors.length > 0)
    throw validationError(summarise("The policy is not valid", errors), errors);
  return out;
}
function validatePolicyPatch(raw) {
  const errors = [];
  const out = {};
  if (raw.collection_amount !== void 0) {
    const amount = premiumFromInput(raw.collection_amount);
    if (typeof amount === "number")
      out.collection_amount = amount;
    else
      errors.push({ field: "collection_amount", code: amount.code, message: `collection_amount ${amount.message}` });
  }
  if (raw.status !== void 0) {
    if (isPolicyStatus(raw.status))
      out.status = raw.status;
    else {
      errors.push({
        field: "status",
        code: "INVALID_VALUE",
        message: `status must be one of ${POLICY_STATUSES.join(", ")}; got ${showValue(raw.status)}`
      });
    }
  }
  for (const key of Object.keys(raw)) {
    if (key !== "collection_amount" && key !== "status") {
      errors.push({ field: key, code: "UNKNOWN_FIELD", message: `${key} cannot be updated; only collection_amount and status can` });
    }
  }
  if (errors.length === 0 && out.collection_amount === void 0 && out.status === void 0) {
    errors.push({ field: "body", code: "REQUIRED", message: "give collection_amount, status, or both" });
  }
  if (errors.length > 0)
    throw validationError(summarise("The update is not valid", errors), errors);
  return out;
}
function summarise(prefix, errors) {
  if (errors.length === 1)
    return `${prefix}: ${errors[0].message}.`;
  return `${prefix}: ${errors.length} problems (${[...new Set(errors.map((e) => e.field))].join(", ")}); see details.`;
}

export {
  showValue,
  POLICY_STATUSES,
  isPolicyStatus,
  checkTransition,
  validatePolicyInput,
  validatePolicyPatch,
  summarise
};
