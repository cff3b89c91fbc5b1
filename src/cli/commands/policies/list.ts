import type { PolicyStatus } from '../../../domain/policy.js';
import { checkPageLimitOption } from '../../../domain/requests.js';
import { money } from '../../output/format.js';
import type { CommandEnv } from '../action.js';

export default async function list({ opts, ui, backend }: CommandEnv): Promise<number> {
  const limit = checkPageLimitOption(opts.limit);
  const page = await (await backend()).listPolicies({
    status: opts.status as PolicyStatus | undefined,
    limit,
    after: opts.after as string | undefined,
  });
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
