import { checkPeriodOption } from '../../../domain/requests.js';
import { plural } from '../../output/format.js';
import type { CommandEnv } from '../action.js';

export default async function execute({ opts, ui, backend }: CommandEnv): Promise<number> {
  const period = checkPeriodOption(opts.period);
  const b = await backend();
  const accepted = await b.executeCollections({
    period_month: period,
    policy_ids: opts.policy as string[] | undefined,
    // Sent only when given: a server that implements only the spec knows no strategies.
    strategy: opts.strategy as string | undefined,
  });
  if (ui.json) ui.printJson(accepted);
  else {
    ui.status(`Queued ${plural(accepted.policies_queued, 'policy', 'policies')} for ${period} (${(opts.strategy as string | undefined) ?? 'smart'}); the engine collects as the clock advances.`);
    ui.keyValues([
      ['execution_id', accepted.execution_id],
      ['status', accepted.status],
      ['policies_queued', accepted.policies_queued],
    ]);
  }
  return 0;
}
