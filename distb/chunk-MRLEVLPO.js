// dist/backend/types.js
var REPORT_COLUMNS = [
  "period_month",
  "customer_id",
  "external_customer_ref",
  "policy_number",
  "product_code",
  "collection_amount_due",
  "collection_amount_collected",
  "shortfall",
  "collection_status",
  "first_attempt_date",
  "last_attempt_date",
  "number_of_attempts",
  "last_failure_reason"
];
var ATTEMPT_COLUMNS = [
  "collection_id",
  "policy_number",
  "customer_id",
  "date",
  "amount",
  "outcome",
  "failure_reason"
];
var SETTLEMENT_EXPORT_COLUMNS = [
  "settlement_number",
  "period_month",
  "total_collections",
  "distribution_fee",
  "collections_fee",
  "total_fees",
  "vat",
  "net_amount",
  "payment_date",
  "payment_reference"
];

export {
  REPORT_COLUMNS,
  ATTEMPT_COLUMNS,
  SETTLEMENT_EXPORT_COLUMNS
};
