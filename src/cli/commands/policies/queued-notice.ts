/**
 * After policies were added: when the month under way was queued before they existed, they are
 * not in it (a run queues the policies of its moment; rerunning it queues only those not yet
 * queued). Said on stderr in local mode (also under --quiet and --json), so that a policy added
 * mid-month is not left out of its month without notice.
 */
import type { Backend, Policy } from '../../../backend/types.js';
import { firstOpenPeriod, lastDay, type Period } from '../../../domain/period.js';
import type { Ui } from '../../output/ui.js';

export async function warnIfMonthQueued(ui: Ui, backend: Backend, added: number): Promise<void> {
  // Local mode only: in remote mode it would be two more requests after every write, to a
  // service that may not offer them (the advance's preview and question say it there).
  if (added === 0 || backend.mode !== 'local') return;
  let period: Period;
  try {
    period = firstOpenPeriod((await backend.getClock()).date);
    if ((await backend.listCollections({ period_month: period, limit: 1 })).data.length === 0) return;
  } catch {
    return; // the store's own reads failing here is not this command's failure: nothing to say
  }
  const these = added === 1 ? 'this policy was' : 'these policies were';
  ui.warn(
    `${period} was queued before ${these} added, so ${added === 1 ? 'it is' : 'they are'} not in it. ` +
      `To collect ${added === 1 ? 'it' : 'them'} this month, run 'premia collections execute --period ${period}' before ${lastDay(period)} closes it ` +
      '(it queues only the policies not yet queued).',
  );
}

/**
 * After a lapsed policy was reinstated: when the month under way was queued while it was lapsed,
 * it is not in it (a run skips lapsed policies), and nothing queues it by itself. Said as
 * warnIfMonthQueued says it, so that a reinstated policy is not left out of its month without notice.
 */
export async function warnIfReinstatedOutsideMonth(ui: Ui, backend: Backend, policy: Policy): Promise<void> {
  if (backend.mode !== 'local') return;
  let period: Period;
  try {
    period = firstOpenPeriod((await backend.getClock()).date);
    if ((await backend.listCollections({ period_month: period, limit: 1 })).data.length === 0) return;
    if ((await backend.listCollections({ period_month: period, policy: policy.id, limit: 1 })).data.length > 0) return;
  } catch {
    return; // as above: nothing to say
  }
  ui.warn(
    `${period} was queued while policy ${policy.policy_number} was lapsed, so it is not in it. ` +
      `To collect it this month, run 'premia collections execute --period ${period}' before ${lastDay(period)} closes it ` +
      '(it queues only the policies not yet queued).',
  );
}
