import type { CollectionStatus } from '../../../backend/types.js';
import { checkPageLimitOption } from '../../../domain/requests.js';
import { money } from '../../output/format.js';
import type { CommandEnv } from '../action.js';

export default async function list({ opts, ui, backend }: CommandEnv): Promise<number> {
  const limit = checkPageLimitOption(opts.limit);
  const page = await (await backend()).listCollections({
    period_month: opts.period as string,
    status: opts.status as CollectionStatus | undefined,
    policy: opts.policy as string | undefined,
    limit,
    after: opts.after as string | undefined,
  });
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
