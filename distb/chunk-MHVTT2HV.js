import {
  centsFromJsonNumber,
  formatCents
} from "./chunk-JX2JAKWC.js";

// dist/domain/json.js
var MONEY_FIELDS = /* @__PURE__ */ new Set([
  // policies
  "collection_amount",
  "old_amount",
  "new_amount",
  // collections
  "collection_amount_due",
  "collection_amount_collected",
  "shortfall",
  "amount",
  "amount_due",
  "amount_collected",
  "amount_remaining",
  "expected_amount",
  // bank
  "balance",
  "credits",
  "debits",
  "typical_amount",
  // settlements
  "total_collections",
  "distribution_fee",
  "collections_fee",
  "total_fees",
  "vat",
  "net_amount",
  "previously_paid",
  // summaries
  "collected",
  "due",
  "failed_amount"
]);
function stringifyJson(value) {
  return write(value, false);
}
function write(value, money) {
  if (value === null || value === void 0)
    return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      if (money)
        return formatCents(value);
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "object": {
      if (Array.isArray(value)) {
        let out2 = "[";
        for (let i = 0; i < value.length; i++) {
          if (i > 0)
            out2 += ",";
          out2 += write(value[i], money);
        }
        return `${out2}]`;
      }
      if (value instanceof Date)
        return JSON.stringify(value.toISOString());
      let out = "{";
      let first = true;
      for (const key of Object.keys(value)) {
        const v = value[key];
        if (v === void 0 || typeof v === "function")
          continue;
        if (!first)
          out += ",";
        first = false;
        out += `${JSON.stringify(key)}:${write(v, MONEY_FIELDS.has(key))}`;
      }
      return `${out}}`;
    }
    default:
      return "null";
  }
}
function moneyToCents(value) {
  convert(value, void 0);
  return value;
}
function convert(value, key) {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      value[i] = convert(value[i], key);
    return value;
  }
  if (value !== null && typeof value === "object") {
    const obj = value;
    for (const k of Object.keys(obj))
      obj[k] = convert(obj[k], k);
    return obj;
  }
  if (key !== void 0 && MONEY_FIELDS.has(key) && (typeof value === "number" || typeof value === "string")) {
    return centsFromJsonNumber(value, key);
  }
  return value;
}

export {
  stringifyJson,
  moneyToCents
};
