/** Human rendering of policies, shared by the policy commands. */
import type { Policy, PolicyDetail } from '../../../backend/types.js';
import type { Ui } from '../../output/ui.js';

export function showPolicy(ui: Ui, p: Policy | PolicyDetail): void {
  const amount =
    // == null: a server that implements only the spec may leave out premia's extra fields.
    p.collection_amount_effective_period == null
      ? ui.money(p.collection_amount)
      : `${ui.money(p.collection_amount)} (from ${p.collection_amount_effective_period})`;
  ui.keyValues([
    ['id', p.id],
    ['policy_number', p.policy_number],
    ['customer_id', p.customer_id],
    ['external_customer_ref', p.external_customer_ref],
    ['product_code', p.product_code],
    ['collection_amount', amount],
    ['status', p.status],
    ['created_at', p.created_at],
    ['updated_at', p.updated_at],
  ]);
  if ('amount_history' in p && p.amount_history.length > 0) {
    ui.line();
    ui.line('Amount changes:');
    ui.table(
      [
        { header: 'changed_on', value: (a) => a.changed_on },
        { header: 'effective_period', value: (a) => a.effective_period },
        { header: 'old_amount', value: (a) => a.old_amount, money: true },
        { header: 'new_amount', value: (a) => a.new_amount, money: true },
      ],
      p.amount_history,
    );
  }
  if ('status_history' in p && p.status_history.length > 0) {
    ui.line();
    ui.line('Status changes:');
    ui.table(
      [
        { header: 'changed_on', value: (s) => s.changed_on },
        { header: 'from', value: (s) => s.old_status },
        { header: 'to', value: (s) => s.new_status },
        { header: 'reason', value: (s) => s.reason },
      ],
      p.status_history,
    );
  }
}
