import type { Backend, CancellationPreview } from '../../../backend/types.js';
import { validatePolicyPatch } from '../../../domain/policy.js';
import { PremiaError, usageError } from '../../../domain/errors.js';
import { askOrCancel, confirmMode } from '../../confirm.js';
import { cancellationQuestion, plainCancellationQuestion } from '../../questions.js';
import type { CommandEnv } from '../action.js';
import { showPolicy } from './show.js';

export default async function update(env: CommandEnv, ref: string): Promise<number> {
  const { opts, ui, backend } = env;
  if (opts.amount === undefined && opts.status === undefined) {
    throw usageError('Nothing to update: give --amount, --status, or both.');
  }
  const raw: Record<string, unknown> = {};
  if (opts.amount !== undefined) raw.collection_amount = opts.amount;
  if (opts.status !== undefined) raw.status = opts.status;
  const patch = validatePolicyPatch(raw);
  const b = await backend();
  if (patch.status === 'cancelled' && confirmMode(env) === 'ask') {
    const preview = await previewOf(b, ref);
    // Cancelling a cancelled policy changes nothing: nothing to ask.
    if (preview === null) await askOrCancel(env, plainCancellationQuestion(ref));
    else if (preview.status !== 'cancelled') await askOrCancel(env, cancellationQuestion(preview));
  }
  const policy = await b.updatePolicy(ref, patch);
  if (ui.json) ui.printJson(policy);
  else {
    ui.status(`Updated policy ${policy.policy_number}.`);
    showPolicy(ui, policy);
  }
  return 0;
}

/** What the cancellation withdraws; null from a server that cannot say. An unknown policy is reported at once. */
async function previewOf(b: Backend, ref: string): Promise<CancellationPreview | null> {
  try {
    return await b.previewCancellation(ref);
  } catch (e) {
    if (e instanceof PremiaError && e.code === 'NOT_SUPPORTED') return null;
    throw e;
  }
}
