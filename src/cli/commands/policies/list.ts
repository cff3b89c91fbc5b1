import type { PolicyListQuery } from '../../../backend/types.js';
import type { PolicyStatus } from '../../../domain/policy.js';
import { verb, type CommandDeps } from '../../command.js';
import { listOutput, printPagedList, type ListFlags, type ListOutput } from '../../output/list.js';
import { checkPageLimitOption } from '../../../domain/requests.js';
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
  await printPagedList(ui, POLICY_LIST, output, query, (q) => b.listPolicies(q), 'policies');
  return 0;
}

export default verb(listOptions, listRun);
