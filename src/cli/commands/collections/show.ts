import type { Collection } from '../../../backend/types.js';
import type { Ui } from '../../output/ui.js';

export function showCollection(ui: Ui, c: Collection): void {
  ui.keyValues([
    ['id', c.id],
    ['period_month', c.period_month],
    ['policy_number', c.policy_number],
    ['customer_id', c.customer_id],
    ['external_customer_ref', c.external_customer_ref],
    ['product_code', c.product_code],
    ['collection_amount_due', ui.money(c.collection_amount_due)],
    ['collection_amount_collected', ui.money(c.collection_amount_collected)],
    ['shortfall', ui.money(c.shortfall)],
    ['collection_status', c.collection_status],
    // None is null in the spec's JSON and an empty cell in its CSV: another server may send "" for it.
    ['first_attempt_date', c.first_attempt_date || null],
    ['last_attempt_date', c.last_attempt_date || null],
    ['number_of_attempts', c.number_of_attempts],
    ['last_failure_reason', c.last_failure_reason || null],
  ]);
}
