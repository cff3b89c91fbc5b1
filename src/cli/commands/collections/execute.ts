import { OPERATIONS } from '../../../backend/operations.js';
import type { Backend, ExecuteInput } from '../../../backend/types.js';
import { daysBetween } from '../../../domain/advance.js';
import { lastDay, type Period } from '../../../domain/period.js';
import type { Ui } from '../../output/ui.js';
import { verb, type CommandDeps } from '../../command.js';
import { replayedNow, warnIfReplayed } from '../../keyed-write.js';
import { plural } from '../../output/format.js';
import { checkPeriodOption } from '../../../domain/requests.js';
import { DEFAULT_STRATEGY } from '../../../domain/strategy-names.js';

interface Flags {
  period: string;
  policy?: string[];
  strategy?: string;
}

export interface ExecuteOptions extends CommandDeps {
  input: ExecuteInput;
}

export function executeOptions(deps: CommandDeps, flags: Flags): ExecuteOptions {
  const period = checkPeriodOption(flags.period);
  // The strategy is sent only when given: a server that implements only the spec knows no strategies.
  return { ...deps, input: { period_month: period, policy_ids: flags.policy, strategy: flags.strategy } };
}

export async function executeRun(opts: ExecuteOptions): Promise<number> {
  const { ui, backend, input } = opts;
  const b = await backend();
  const accepted = await b.executeCollections(input);
  // A rerun its --idempotency-key answered with an earlier run's answer: that answer is shown, and
  // said to be one (below); what is true now of the clock and the book is not that run's to say.
  const replayed = replayedNow(b, OPERATIONS.executeCollections);
  // A period already queued keeps its execution, and the execution its strategy: name the one in
  // effect, and say so when --strategy asked for another. Locally and from a premia service (its
  // answer to the execute showed it to be one) this reads the same: the execution, the book, the
  // clock. A server that implements only the spec has no executions to read (nor strategies),
  // and is sent nothing it was not asked for; what was asked is then all there is to say.
  const full = b.servedByPremia();
  const asked = input.strategy ?? DEFAULT_STRATEGY;
  const strategy =
    full || input.strategy !== undefined
      ? await b.getExecution(accepted.execution_id).then(
          (e) => e.strategy,
          () => asked,
        )
      : asked;
  if (strategy !== asked && input.strategy !== undefined) {
    ui.warn(`--strategy ${asked} was not applied: ${input.period_month} is already queued with ${strategy} (execution ${accepted.execution_id}), and an execution keeps its strategy.`);
  }
  // A service without the simulated bank has no clock to read: no warning then, the run is queued.
  if (full && !replayed && accepted.policies_queued > 0) await warnIfLate(ui, b, input.period_month).catch(() => undefined);
  // Queued 0 on a store with no active policy (execute before import): exit 0 and "Queued 0
  // policies" read as done, while the run now recorded locks the clock.
  const noBook =
    full &&
    !replayed &&
    accepted.policies_queued === 0 &&
    (await b.listPolicies({ status: 'active', limit: 1 }).then(
      (page) => page.data.length === 0,
      () => false,
    ));
  if (noBook) {
    ui.warn(
      `Nothing was queued for ${input.period_month}: there is no active policy to queue. Add the policies ('premia policies import FILE' or 'policies create'), then run this again; ` +
        `the run is recorded (execution ${accepted.execution_id}), so the clock can no longer be set, only advanced.`,
    );
  }
  // Another server matches the policies given as it chooses (the spec does not say whether by id
  // or by number) and may queue fewer than asked without an error: policies left out of the run
  // go uncollected for the month, so it is said (premia refuses such a request locally).
  const given = input.policy_ids === undefined ? undefined : new Set(input.policy_ids).size;
  if (!full && (accepted.policies_queued === 0 || (given !== undefined && accepted.policies_queued < given))) {
    ui.warn(
      given === undefined
        ? `The server queued no policy for ${input.period_month}: it may hold no active policy, or have queued them before. Check with 'premia reports collections --period ${input.period_month}'.`
        : `The server queued ${accepted.policies_queued} of the ${plural(given, 'policy', 'policies')} given for ${input.period_month}: it may not know ${accepted.policies_queued === 0 ? 'them' : 'the others'} ` +
            `(it may match the service's policy ids only, not policy numbers), hold them as not active, or have queued them before. Check with 'premia reports collections --period ${input.period_month}'.`,
    );
  }
  if (ui.json) ui.printJson(accepted);
  else {
    const queued =
      accepted.policies_queued === 0 && full && !noBook && !replayed
        ? `Nothing new to queue for ${input.period_month}: ${input.policy_ids === undefined ? 'every active policy is' : 'the policies given are'} already queued`
        : `Queued ${plural(accepted.policies_queued, 'policy', 'policies')} for ${input.period_month}`;
    // A spec-only server with no --strategy: which engine runs there, and when, is its to say.
    if (!noBook) {
      ui.status(
        full || input.strategy !== undefined
          ? `${queued} (${strategy}); the engine collects as the clock advances.`
          : `${queued}; the server collects them.`,
      );
    }
    ui.keyValues([
      ['execution_id', accepted.execution_id],
      ['status', accepted.status],
      ['policies_queued', accepted.policies_queued],
    ]);
  }
  // Its count of policies queued is that run's: never read as a second run that queued them again.
  warnIfReplayed(opts, b, OPERATIONS.executeCollections, 'nothing was queued now');
  return 0;
}

/**
 * A month queued with most of it already lived (a new store's clock starts on the day before
 * today's date: a forgotten `clock set`) leaves the engine a few days to collect in: said, so
 * that the UNPAID results at its close are no surprise.
 */
async function warnIfLate(ui: Ui, b: Backend, period: Period): Promise<void> {
  const today = (await b.getClock()).date;
  const first = `${period}-01`;
  if (today < first) return;
  const left = daysBetween(today, lastDay(period));
  if (left > LATE_DAYS_LEFT) return;
  ui.warn(
    `${period} was queued with the clock at ${today}: ${plural(left, 'day')} of it ${left === 1 ? 'is' : 'are'} left to collect in, ` +
      'so many of its collections may end unpaid. A month is queued before it starts (the clock on the last day of the month before).',
  );
}

/** Days left in the month at most, for the warning above (a week: a payday may not come). */
const LATE_DAYS_LEFT = 7;

export default verb(executeOptions, executeRun);
