import { validatePolicyPatch } from '../../../domain/policy.js';
import { usageError } from '../../../domain/errors.js';
import type { CommandEnv } from '../action.js';
import { showPolicy } from './show.js';

export default async function update({ opts, ui, backend }: CommandEnv, ref: string): Promise<number> {
  if (opts.amount === undefined && opts.status === undefined) {
    throw usageError('Nothing to update: give --amount, --status, or both.');
  }
  const raw: Record<string, unknown> = {};
  if (opts.amount !== undefined) raw.collection_amount = opts.amount;
  if (opts.status !== undefined) raw.status = opts.status;
  const patch = validatePolicyPatch(raw);
  const policy = await (await backend()).updatePolicy(ref, patch);
  if (ui.json) ui.printJson(policy);
  else {
    ui.status(`Updated policy ${policy.policy_number}.`);
    showPolicy(ui, policy);
  }
  return 0;
}
