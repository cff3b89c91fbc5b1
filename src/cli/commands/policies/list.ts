import type { PolicyStatus } from '../../../domain/policy.js';
import { validationError } from '../../../domain/errors.js';
import { money } from '../../output/format.js';
import type { CommandEnv } from '../action.js';

export default async function list({ opts, ui, backend }: CommandEnv): Promise<number> {
  let limit: number | undefined;
  if (opts.limit !== undefined) {
    limit = Number(opts.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw validationError('--limit must be a whole number from 1 to 10000.');
  }
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
