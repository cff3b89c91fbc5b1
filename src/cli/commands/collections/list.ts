import type { CollectionListQuery, CollectionStatus } from '../../../backend/types.js';
import { verb, type CommandDeps } from '../../command.js';
import { listOutput, printPagedList, type ListFlags, type ListOutput } from '../../output/list.js';
import { checkPageLimitOption, checkPeriodOption } from '../../../domain/requests.js';
import { COLLECTION_LIST } from '../list-fields.js';

interface Flags extends ListFlags {
  period: string;
  status?: CollectionStatus;
  policy?: string;
  limit?: string;
  after?: string;
}

export interface ListOptions extends CommandDeps {
  query: CollectionListQuery;
  output: ListOutput;
}

export function listOptions(deps: CommandDeps, flags: Flags): ListOptions {
  // Worded as --period is everywhere else (not as the query parameter it fills).
  const period = checkPeriodOption(flags.period);
  const limit = checkPageLimitOption(flags.limit);
  return {
    ...deps,
    query: { period_month: period, status: flags.status, policy: flags.policy, limit, after: flags.after },
    output: listOutput(flags, deps.globals, COLLECTION_LIST),
  };
}

export async function listRun({ ui, backend, query, output }: ListOptions): Promise<number> {
  const b = await backend();
  await printPagedList(ui, COLLECTION_LIST, output, query, (q) => b.listCollections(q), 'collections');
  return 0;
}

export default verb(listOptions, listRun);
