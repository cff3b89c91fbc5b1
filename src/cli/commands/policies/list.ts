import type { PolicyListQuery } from '../../../backend/types.js';
import type { PolicyStatus } from '../../../domain/policy.js';
import { verb, type CommandDeps } from '../../command.js';
import { money } from '../../output/format.js';
import { checkPageLimitOption } from '../../../domain/requests.js';

interface Flags {
  status?: PolicyStatus;
  limit?: string;
  after?: string;
}

export interface ListOptions extends CommandDeps {
  query: PolicyListQuery;
}

export function listOptions(deps: CommandDeps, flags: Flags): ListOptions {
  const limit = checkPageLimitOption(flags.limit);
  return { ...deps, query: { status: flags.status, limit, after: flags.after } };
}

export async function listRun({ ui, backend, query }: ListOptions): Promise<number> {
  const page = await (await backend()).listPolicies(query);
  if (ui.json) {
    ui.printJson(page);
    return 0;
  }
  ui.table(
    [
      { header: 'policy_number', value: (p) => p.policy_number },
      { header: 'customer_id', value: (p) => p.customer_id },
      { header: 'product_code', value: (p) => p.product_code },
      { header: 'collection_amount', value: (p) => money(p.collection_amount), align: 'right' },
      { header: 'status', value: (p) => p.status },
      { header: 'id', value: (p) => p.id },
    ],
    page.data,
  );
  if (page.next_after !== null) ui.status(`More policies follow: run again with --after ${page.next_after}`);
  return 0;
}

export default verb(listOptions, listRun);
