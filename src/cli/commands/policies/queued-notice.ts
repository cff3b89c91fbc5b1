/**
 * After policies were added: when the month under way was queued before they existed, they are
 * not in it (a run queues the policies of its moment; rerunning it queues only those not yet
 * queued). Said on stderr in local mode (also under --quiet and --json), so that a policy added
 * mid-month is not left out of its month without notice.
 */
import type { Backend, Policy } from '../../../backend/types.js';
import { firstOpenPeriod, lastDay, type Period } from '../../../domain/period.js';
import type { Ui } from '../../output/ui.js';

/**
 * The month under way when a run has queued it and `policyId` (when given) is not in it; null
 * otherwise, in remote mode, or when the store cannot say. Local mode only: in remote mode it
 * would be more requests after every write, to a service that may not offer them (the advance's
 * preview and question say it there).
 */
async function queuedWithout(backend: Backend, policyId?: string): Promise<Period | null> {
  if (backend.mode !== 'local') return null;
  try {
    const period = firstOpenPeriod((await backend.getClock()).date);
    if ((await backend.listCollections({ period_month: period, limit: 1 })).data.length === 0) return null;
    if (policyId !== undefined && (await backend.listCollections({ period_month: period, policy: policyId, limit: 1 })).data.length > 0) return null;
    return period;
  } catch {
    return null; // the store's own reads failing here is not this command's failure: nothing to say
  }
}

/** What to run to collect them this month anyway. */
const executeAgain = (period: Period, them: string) =>
  `To collect ${them} this month, run 'premia collections execute --period ${period}' before ${lastDay(period)} closes it (it queues only the policies not yet queued).`;

export async function warnIfMonthQueued(ui: Ui, backend: Backend, added: number): Promise<void> {
  const period = added === 0 ? null : await queuedWithout(backend);
  if (period === null) return;
  const these = added === 1 ? 'this policy was' : 'these policies were';
  ui.warn(`${period} was queued before ${these} added, so ${added === 1 ? 'it is' : 'they are'} not in it. ${executeAgain(period, added === 1 ? 'it' : 'them')}`);
}

/**
 * After a lapsed policy was reinstated: when the month under way was queued while it was lapsed,
 * it is not in it (a run skips lapsed policies), and nothing queues it by itself.
 */
export async function warnIfReinstatedOutsideMonth(ui: Ui, backend: Backend, policy: Policy): Promise<void> {
  const period = await queuedWithout(backend, policy.id);
  if (period === null) return;
  ui.warn(`${period} was queued while policy ${policy.policy_number} was lapsed, so it is not in it. ${executeAgain(period, 'it')}`);
}
