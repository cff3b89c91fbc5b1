import type { SettlementListQuery, SettlementStatus } from '../../../backend/types.js';
import { verb, type CommandDeps } from '../../command.js';
import { money } from '../../output/format.js';
import { checkPeriodOption } from '../../../domain/requests.js';

interface Flags {
  status?: SettlementStatus;
  period?: string;
}

export interface ListOptions extends CommandDeps {
  query: SettlementListQuery;
}

export function listOptions(deps: CommandDeps, flags: Flags): ListOptions {
  const period = flags.period === undefined ? undefined : checkPeriodOption(flags.period);
  return { ...deps, query: { status: flags.status, period_month: period } };
}

export async function listRun({ ui, backend, query }: ListOptions): Promise<number> {
  const page = await (await backend()).listSettlements(query);
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

export default verb(listOptions, listRun);
