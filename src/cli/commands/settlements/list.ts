import type { SettlementStatus } from '../../../backend/types.js';
import { checkPeriodOption } from '../../../domain/requests.js';
import { money } from '../../output/format.js';
import type { CommandEnv } from '../action.js';

export default async function list({ opts, ui, backend }: CommandEnv): Promise<number> {
  const period = opts.period === undefined ? undefined : checkPeriodOption(opts.period);
  const page = await (await backend()).listSettlements({ status: opts.status as SettlementStatus | undefined, period_month: period });
  if (ui.json) {
    ui.printJson(page);
    return 0;
  }
  if (page.data.length === 0) {
    ui.status('No settlements match.');
    return 0;
  }
  ui.table(
    [
      { header: 'settlement_number', value: (s) => s.settlement_number },
      { header: 'status', value: (s) => s.status },
      { header: 'total_collections', value: (s) => money(s.total_collections), align: 'right' },
      // What was paid under earlier statements of the period; net_amount is what is due now.
      { header: 'previously_paid', value: (s) => money(s.previously_paid), align: 'right' },
      { header: 'net_amount', value: (s) => money(s.net_amount), align: 'right' },
      { header: 'payment_date', value: (s) => s.payment_date },
      { header: 'payment_reference', value: (s) => s.payment_reference },
      // A disputed statement that had been paid shows when; a replaced one, by which statement.
      { header: 'paid_on', value: (s) => s.paid_on ?? '-' },
      { header: 'superseded_by', value: (s) => s.superseded_by ?? '-' },
      { header: 'id', value: (s) => s.id },
    ],
    page.data,
  );
  return 0;
}
