import type { Backend, CancellationPreview, Policy, PolicyPatch } from '../../../backend/types.js';
import type { Ui } from '../../output/ui.js';
import { validatePolicyPatch, type PolicyStatus } from '../../../domain/policy.js';
import { usageError } from '../../../domain/errors.js';
import { verb, type CommandDeps } from '../../command.js';
import { inOptionWords } from '../../option-errors.js';
import { askOrCancel, confirmMode, unlessUnsupported } from '../../confirm.js';
import { keyedOnce, repeatedAnswerNote, replayedNow } from '../../keyed-write.js';
import { OPERATIONS } from '../../../backend/operations.js';
import { cancellationQuestion, plainCancellationQuestion, premiumChangeQuestion } from '../../questions.js';
import { warnIfReinstatedOutsideMonth } from './queued-notice.js';
import { showPolicy } from './show.js';

interface Flags {
  amount?: string;
  status?: PolicyStatus;
}

export interface UpdateOptions extends CommandDeps {
  /** A policy id or policy number. */
  ref: string;
  patch: PolicyPatch;
}

export function updateOptions(deps: CommandDeps, flags: Flags, [ref]: string[]): UpdateOptions {
  if (flags.amount === undefined && flags.status === undefined) {
    throw usageError('Nothing to update: give --amount, --status, or both.');
  }
  const raw: Record<string, unknown> = {};
  if (flags.amount !== undefined) raw.collection_amount = flags.amount;
  if (flags.status !== undefined) raw.status = flags.status;
  return { ...deps, ref: ref!, patch: inOptionWords({ collection_amount: '--amount', status: '--status' }, () => validatePolicyPatch(raw)) };
}

export async function updateRun(opts: UpdateOptions): Promise<number> {
  const { ui, backend, ref, patch } = opts;
  const b = await backend();
  // A rerun whose --idempotency-key repeats an earlier answer, or is refused (the key another
  // request's), updates nothing: neither question is asked, nor is a premium's move refused.
  const mode = confirmMode(opts);
  // (Read once: where a question or refusal would come, else just before the write.)
  const keyed = keyedOnce(b, opts.globals.idempotencyKey, 1, OPERATIONS.updatePolicy, [ref, patch]);
  if (patch.status === 'cancelled' && mode === 'ask' && (await keyed.outcome()) === null) {
    const preview = await previewOf(b, ref);
    // Cancelling a cancelled policy changes nothing: nothing to ask. Nor does a cancellation with
    // another premium, refused whole (INVALID_TRANSITION) as premia's service refuses it: asked
    // first, a yes only led to the refusal.
    const refused = preview !== null && patch.collection_amount !== undefined && patch.collection_amount !== preview.collection_amount;
    if (preview === null) await askOrCancel(opts, plainCancellationQuestion(ref));
    else if (preview.status !== 'cancelled' && !refused) await askOrCancel(opts, cancellationQuestion(preview));
  }
  // The policy as it was, to tell a no-op from a change (in both modes, so that the same command
  // says the same thing), and a reinstatement (which may leave the policy out of a month queued
  // while it was lapsed); null where the server cannot show it (a policy lookup is premia's
  // extension) or the lookup fails (the update then reports what is wrong).
  // (In remote mode only when something here uses it: --json prints the service's answer alone.)
  const wanted = b.mode === 'local' || !ui.json || (patch.collection_amount !== undefined && mode !== 'yes');
  const before = wanted ? await unlessUnsupported(() => b.getPolicy(ref)).catch(() => null) : null;
  // A premium moved tenfold or more (a slipped decimal point) is asked about on a terminal, and
  // without one needs --yes (a script's 94134 for 941.34 would debit it a hundred times), with the
  // premium it has where the server can say. A premium that can no longer be debited (given with a
  // cancellation, or of a cancelled policy: refused as INVALID_TRANSITION) has nothing to ask about.
  const debitable = patch.status !== 'cancelled' && before?.status !== 'cancelled';
  if (patch.collection_amount !== undefined && mode !== 'yes' && debitable) {
    const found = before && premiumChangeQuestion(before.policy_number, before.collection_amount, patch.collection_amount);
    const question = found && (await keyed.outcome()) === null ? found : null;
    if (question && mode === 'unattended') throw usageError(`${question.details.join(' ')} Without a terminal to ask on, premia moves a premium tenfold or more only when told to: add --yes. Nothing changed.`);
    if (question) await askOrCancel(opts, question);
  }
  // Whether a key given repeats an earlier answer, read before the write (after it, the record
  // is this run's too), whatever the mode: a cron job's rerun says so as one by hand does.
  const replayed = (await keyed.outcome())?.kind === 'replay';
  const policy = await b.updatePolicy(ref, patch);
  if (ui.json) ui.printJson(policy);
  else {
    // A change always moves updated_at on; the same values again change nothing, and say so.
    // Without the policy as it was, whether anything changed is not known: the answer is shown as it is.
    ui.status(
      before === null
        ? `Policy ${policy.policy_number} as the service has it now:`
        : before.updated_at === policy.updated_at
          ? unchanged(ui, policy, patch)
          : `Updated policy ${policy.policy_number}.`,
    );
    showPolicy(ui, policy);
  }
  if (replayed || replayedNow(b, OPERATIONS.updatePolicy)) ui.warn(repeatedAnswerNote(opts.globals.idempotencyKey!, 'the policy was not updated now'));
  if (before?.status === 'lapsed' && policy.status === 'active') await warnIfReinstatedOutsideMonth(ui, b, policy);
  return 0;
}

function unchanged(ui: Ui, policy: Policy, patch: PolicyPatch): string {
  const already: string[] = [];
  if (patch.status !== undefined) already.push(`already ${policy.status}`);
  if (patch.collection_amount !== undefined) already.push(`premium already ${ui.money(policy.collection_amount)}`);
  return `Policy ${policy.policy_number} unchanged: ${already.join('; ')}.`;
}

/** What the cancellation withdraws; null from a server that cannot say. An unknown policy is reported at once. */
const previewOf = (b: Backend, ref: string): Promise<CancellationPreview | null> => unlessUnsupported(() => b.previewCancellation(ref));

export default verb(updateOptions, updateRun);
