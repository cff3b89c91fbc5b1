import type { Backend, CancellationPreview, PolicyPatch } from '../../../backend/types.js';
import { validatePolicyPatch, type PolicyStatus } from '../../../domain/policy.js';
import { usageError } from '../../../domain/errors.js';
import { verb, type CommandDeps } from '../../command.js';
import { askOrCancel, confirmMode, unlessUnsupported } from '../../confirm.js';
import { cancellationQuestion, plainCancellationQuestion } from '../../questions.js';
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
  return { ...deps, ref: ref!, patch: validatePolicyPatch(raw) };
}

export async function updateRun(opts: UpdateOptions): Promise<number> {
  const { ui, backend, ref, patch } = opts;
  const b = await backend();
  if (patch.status === 'cancelled' && confirmMode(opts) === 'ask') {
    const preview = await previewOf(b, ref);
    // Cancelling a cancelled policy changes nothing: nothing to ask.
    if (preview === null) await askOrCancel(opts, plainCancellationQuestion(ref));
    else if (preview.status !== 'cancelled') await askOrCancel(opts, cancellationQuestion(preview));
  }
  // A reinstatement may leave the policy out of a month queued while it was lapsed (local mode).
  const wasLapsed = patch.status === 'active' && b.mode === 'local' && (await statusOf(b, ref)) === 'lapsed';
  const policy = await b.updatePolicy(ref, patch);
  if (ui.json) ui.printJson(policy);
  else {
    ui.status(`Updated policy ${policy.policy_number}.`);
    showPolicy(ui, policy);
  }
  if (wasLapsed && policy.status === 'active') await warnIfReinstatedOutsideMonth(ui, b, policy);
  return 0;
}

/** The policy's status before the update; null when it cannot be read (the update then says why). */
const statusOf = (b: Backend, ref: string): Promise<PolicyStatus | null> =>
  b.getPolicy(ref).then(
    (p) => p.status,
    () => null,
  );

/** What the cancellation withdraws; null from a server that cannot say. An unknown policy is reported at once. */
const previewOf = (b: Backend, ref: string): Promise<CancellationPreview | null> => unlessUnsupported(() => b.previewCancellation(ref));

export default verb(updateOptions, updateRun);
