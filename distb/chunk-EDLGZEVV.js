import {
  ATTEMPT_COLUMNS,
  REPORT_COLUMNS
} from "./chunk-MRLEVLPO.js";

// dist/cli/commands/list-fields.js
function fields(names, kinds = {}) {
  return names.map((name) => ({
    name,
    value: (row) => row[name],
    money: kinds.money?.includes(name) === true,
    numeric: kinds.numeric?.includes(name) === true,
    header: kinds.headers?.[name]
  }));
}
var POLICY_FIELDS = [
  "id",
  "policy_number",
  "customer_id",
  "external_customer_ref",
  "product_code",
  "collection_amount",
  "collection_amount_effective_period",
  "status",
  "created_at",
  "updated_at"
];
var POLICY_LIST = {
  fields: fields(POLICY_FIELDS, { money: ["collection_amount"] }),
  table: ["policy_number", "customer_id", "product_code", "collection_amount", "status", "id"]
};
var COLLECTION_FIELDS = ["id", "period_month", "policy_id", "execution_id", ...REPORT_COLUMNS.slice(1)];
var COLLECTION_LIST = {
  fields: fields(COLLECTION_FIELDS, {
    money: ["collection_amount_due", "collection_amount_collected", "shortfall"],
    numeric: ["number_of_attempts"],
    headers: {
      collection_amount_due: "due",
      collection_amount_collected: "collected",
      collection_status: "status",
      number_of_attempts: "attempts",
      last_failure_reason: "last_failure"
    }
  }),
  table: ["policy_number", "customer_id", "collection_amount_due", "collection_amount_collected", "collection_status", "number_of_attempts", "last_failure_reason", "id"]
};
var ATTEMPT_FIELDS = ATTEMPT_COLUMNS;
var ATTEMPT_LIST = {
  fields: fields(ATTEMPT_FIELDS, { money: ["amount"] }),
  table: [...ATTEMPT_FIELDS]
};
var SETTLEMENT_FIELDS = [
  "id",
  "settlement_number",
  "period_month",
  "status",
  "total_collections",
  "distribution_fee",
  "collections_fee",
  "total_fees",
  "vat",
  "previously_paid",
  "net_amount",
  "collections_count",
  "payment_date",
  "payment_reference",
  "created_at",
  "paid_on",
  "paid_reference",
  "disputed_on",
  "dispute_reason",
  "supersedes",
  "superseded_by"
];
var SETTLEMENT_LIST = {
  fields: fields(SETTLEMENT_FIELDS, {
    money: ["total_collections", "distribution_fee", "collections_fee", "total_fees", "vat", "previously_paid", "net_amount"],
    numeric: ["collections_count"]
  }),
  // previously_paid: paid under earlier statements of the period (net_amount is what is due now);
  // paid_on and superseded_by: a disputed statement that had been paid, and by which it was replaced.
  table: ["settlement_number", "status", "total_collections", "previously_paid", "net_amount", "payment_date", "payment_reference", "paid_on", "superseded_by", "id"]
};
var KEY_FIELDS = ["id", "client", "role", "key", "created_at", "revoked_at"];
var KEY_LIST = {
  fields: fields(KEY_FIELDS, { headers: { created_at: "created", revoked_at: "revoked" } }),
  table: [...KEY_FIELDS]
};
var SETTING_FIELDS = ["key", "value", "default", "min", "max", "description"];
var SETTING_LIST = {
  fields: fields(SETTING_FIELDS, { headers: { description: "what it controls" } }),
  table: ["key", "value", "default", { name: "range", value: (s) => s.choices ? s.choices.join("|") : `${s.min}-${s.max}` }, "description"]
};
var PROFILE_FIELDS = ["name", "current", "base_url", "client", "api_key"];
var PROFILE_LIST = {
  fields: fields(PROFILE_FIELDS, { headers: { api_key: "key" } }),
  table: [{ name: "current", header: " ", value: (p) => p.current ? "*" : "" }, "name", "base_url", "client", "api_key"]
};

// dist/cli/output/list-options.js
import { Option } from "commander";
var LIST_FORMATS = ["table", "csv", "json"];
function formatOption() {
  return new Option("--format <format>", "table (default), csv or json").choices(LIST_FORMATS);
}
function fieldsOption(names) {
  const option = new Option("--fields <a,b,c>", `only these fields, in this order: ${names.join(", ")}`);
  option.fieldNames = names;
  return option;
}

export {
  formatOption,
  fieldsOption,
  POLICY_FIELDS,
  POLICY_LIST,
  COLLECTION_FIELDS,
  COLLECTION_LIST,
  ATTEMPT_FIELDS,
  ATTEMPT_LIST,
  SETTLEMENT_FIELDS,
  SETTLEMENT_LIST,
  KEY_FIELDS,
  KEY_LIST,
  SETTING_FIELDS,
  SETTING_LIST,
  PROFILE_FIELDS,
  PROFILE_LIST
};
