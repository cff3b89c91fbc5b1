import type { PolicyListQuery } from '../../../backend/types.js';
import type { PolicyStatus } from '../../../domain/policy.js';
import { verb, type CommandDeps } from '../../command.js';
import { allPages, listOutput, printList, printListPages, wholeList, type ListFlags, type ListOutput } from '../../output/list.js';
import { checkPageLimitOption, MAX_PAGE_LIMIT } from '../../../domain/requests.js';
import { POLICY_LIST } from '../list-fields.js';

interface Flags extends ListFlags {
  status?: PolicyStatus;
  limit?: string;
  after?: string;
}

export interface ListOptions extends CommandDeps {
  query: PolicyListQuery;
  output: ListOutput;
}

export function listOptions(deps: CommandDeps, flags: Flags): ListOptions {
  const limit = checkPageLimitOption(flags.limit);
  return { ...deps, query: { status: flags.status, limit, after: flags.after }, output: listOutput(flags, deps.globals, POLICY_LIST) };
}

export async function listRun({ ui, backend, query, output }: ListOptions): Promise<number> {
  const b = await backend();
  if (wholeList(ui, output, query.limit)) {
    await printListPages(ui, POLICY_LIST, output, allPages((after) => b.listPolicies({ ...query, limit: MAX_PAGE_LIMIT, after }), query.after));
    return 0;
  }
  const page = await b.listPolicies(query);
  printList(ui, POLICY_LIST, output, page.data, page);
  if (!ui.json && page.next_after !== null) ui.status(`More policies follow: run again with --after ${page.next_after}`);
  return 0;
}

export default verb(listOptions, listRun);
