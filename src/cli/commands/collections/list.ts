import type { CollectionListQuery, CollectionStatus } from '../../../backend/types.js';
import { verb, type CommandDeps } from '../../command.js';
import { allPages, listOutput, printList, printListPages, wholeList, type ListFlags, type ListOutput } from '../../output/list.js';
import { checkPageLimitOption, MAX_PAGE_LIMIT } from '../../../domain/requests.js';
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
  const limit = checkPageLimitOption(flags.limit);
  return {
    ...deps,
    query: { period_month: flags.period, status: flags.status, policy: flags.policy, limit, after: flags.after },
    output: listOutput(flags, deps.globals, COLLECTION_LIST),
  };
}

export async function listRun({ ui, backend, query, output }: ListOptions): Promise<number> {
  const b = await backend();
  if (wholeList(ui, output, query.limit)) {
    await printListPages(ui, COLLECTION_LIST, output, allPages((after) => b.listCollections({ ...query, limit: MAX_PAGE_LIMIT, after }), query.after));
    return 0;
  }
  const page = await b.listCollections(query);
  printList(ui, COLLECTION_LIST, output, page.data, page);
  if (!ui.json && page.next_after !== null) ui.status(`More collections follow: run again with --after ${page.next_after}`);
  return 0;
}

export default verb(listOptions, listRun);
