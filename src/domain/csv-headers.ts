/**
 * The headers of the CSV files premia imports, in their order (a file's names are compared
 * without case or surrounding spaces). Here rather than beside each import so that a copy of
 * stdin kept for --idempotency-key can stop at a first line that is none of them.
 */
export const POLICY_CSV_HEADER = ['customer_id', 'external_customer_ref', 'policy_number', 'product_code', 'collection_amount'] as const;

export const BANK_CSV_HEADER = ['customer_id', 'date', 'amount', 'description'] as const;
