import type { CollectionListQuery, CollectionStatus } from '../../../backend/types.js';
import { verb, type CommandDeps } from '../../command.js';
import { money } from '../../output/format.js';
import { checkPageLimitOption } from '../../../domain/requests.js';

interface Flags {
  period: string;
  status?: CollectionStatus;
  policy?: string;
  limit?: string;
  after?: string;
}

export interface ListOptions extends CommandDeps {
  query: CollectionListQuery;
}

export function listOptions(deps: CommandDeps, flags: Flags): ListOptions {
  const limit = checkPageLimitOption(flags.limit);
  return { ...deps, query: { period_month: flags.period, status: flags.status, policy: flags.policy, limit, after: flags.after } };
}

export async function listRun({ ui, backend, query }: ListOptions): Promise<number> {
  const page = await (await backend()).listCollections(query);
  if (ui.json) {
    ui.printJson(page);
    return 0;
  }
  ui.table(
    [
      { header: 'policy_number', value: (c) => c.policy_number },
      { header: 'customer_id', value: (c) => c.customer_id },
      { header: 'due', value: (c) => money(c.collection_amount_due), align: 'right' },
      { header: 'collected', value: (c) => money(c.collection_amount_collected), align: 'right' },
      { header: 'status', value: (c) => c.collection_status },
      { header: 'attempts', value: (c) => c.number_of_attempts, align: 'right' },
      { header: 'last_failure', value: (c) => c.last_failure_reason },
      { header: 'id', value: (c) => c.id },
    ],
    page.data,
  );
  if (page.next_after !== null) ui.status(`More collections follow: run again with --after ${page.next_after}`);
  return 0;
}

export default verb(listOptions, listRun);
