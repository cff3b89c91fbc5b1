import { OPERATIONS } from '../../../backend/operations.js';
import type { PolicyInput } from '../../../backend/types.js';
import { usageError } from '../../../domain/errors.js';
import { validatePolicyInput } from '../../../domain/policy.js';
import { verb, type CommandDeps } from '../../command.js';
import { warnIfReplayed } from '../../keyed-write.js';
import { inOptionWords } from '../../option-errors.js';
import { showPolicy } from './show.js';
import { warnIfMonthQueued } from './queued-notice.js';

interface Flags {
  policyNumber?: string;
  customerId?: string;
  externalRef?: string;
  productCode?: string;
  amount?: string;
}

export interface CreateOptions extends CommandDeps {
  policy: PolicyInput;
}

const FLAGS: Array<[flag: string, option: keyof Flags, field: string]> = [
  ['--policy-number', 'policyNumber', 'policy_number'],
  ['--customer-id', 'customerId', 'customer_id'],
  ['--external-ref', 'externalRef', 'external_customer_ref'],
  ['--product-code', 'productCode', 'product_code'],
  ['--amount', 'amount', 'collection_amount'],
];

export function createOptions(deps: CommandDeps, flags: Flags): CreateOptions {
  const missing = FLAGS.filter(([, option]) => flags[option] === undefined).map(([flag]) => flag);
  if (missing.length > 0) throw usageError(`Missing ${missing.join(', ')}: a policy needs all five of ${FLAGS.map(([f]) => f).join(', ')}.`);
  const options = Object.fromEntries(FLAGS.map(([flag, , field]) => [field, flag]));
  return { ...deps, policy: inOptionWords(options, () => validatePolicyInput(Object.fromEntries(FLAGS.map(([, option, field]) => [field, flags[option]])))) };
}

export async function createRun(opts: CreateOptions): Promise<number> {
  const { ui, backend, policy: input } = opts;
  const b = await backend();
  const policy = await b.createPolicy(input);
  if (ui.json) ui.printJson(policy);
  else {
    ui.status(`Created policy ${policy.policy_number}.`);
    showPolicy(ui, policy);
  }
  // An earlier run's answer repeated by its --idempotency-key: said so. Then nothing about a month
  // queued before the policy was added: it was added by that run, perhaps before the month was queued.
  if (warnIfReplayed(opts, b, OPERATIONS.createPolicy, 'no policy was created now')) return 0;
  if (policy.status === 'active') await warnIfMonthQueued(ui, b, 1);
  return 0;
}

export default verb(createOptions, createRun);
