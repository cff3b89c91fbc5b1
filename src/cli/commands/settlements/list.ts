import type { SettlementListQuery, SettlementStatus } from '../../../backend/types.js';
import { verb, type CommandDeps } from '../../command.js';
import { listOutput, printList, type ListFlags, type ListOutput } from '../../output/list.js';
import { checkPeriodOption } from '../../../domain/requests.js';
import { SETTLEMENT_LIST } from '../list-fields.js';

interface Flags extends ListFlags {
  status?: SettlementStatus;
  period?: string;
}

export interface ListOptions extends CommandDeps {
  query: SettlementListQuery;
  output: ListOutput;
}

export function listOptions(deps: CommandDeps, flags: Flags): ListOptions {
  const period = flags.period === undefined ? undefined : checkPeriodOption(flags.period);
  return { ...deps, query: { status: flags.status, period_month: period }, output: listOutput(flags, deps.globals, SETTLEMENT_LIST) };
}

export async function listRun({ ui, backend, query, output }: ListOptions): Promise<number> {
  const page = await (await backend()).listSettlements(query);
  if (!ui.json && output.format === 'table' && page.data.length === 0) {
    ui.status('No settlements match.');
    return 0;
  }
  printList(ui, SETTLEMENT_LIST, output, page.data, page);
  return 0;
}

export default verb(listOptions, listRun);
