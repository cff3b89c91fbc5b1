import { usageError } from '../../../domain/errors.js';
import { validatePolicyInput } from '../../../domain/policy.js';
import type { CommandEnv } from '../action.js';
import { showPolicy } from './show.js';

const FLAGS: Array<[flag: string, option: string, field: string]> = [
  ['--policy-number', 'policyNumber', 'policy_number'],
  ['--customer-id', 'customerId', 'customer_id'],
  ['--external-ref', 'externalRef', 'external_customer_ref'],
  ['--product-code', 'productCode', 'product_code'],
  ['--amount', 'amount', 'collection_amount'],
];

export default async function create({ opts, ui, backend }: CommandEnv): Promise<number> {
  const missing = FLAGS.filter(([, option]) => opts[option] === undefined).map(([flag]) => flag);
  if (missing.length > 0) throw usageError(`Missing ${missing.join(', ')}: a policy needs all five of ${FLAGS.map(([f]) => f).join(', ')}.`);
  const input = validatePolicyInput(Object.fromEntries(FLAGS.map(([, option, field]) => [field, opts[option]])));
  const policy = await (await backend()).createPolicy(input);
  if (ui.json) ui.printJson(policy);
  else {
    ui.status(`Created policy ${policy.policy_number}.`);
    showPolicy(ui, policy);
  }
  return 0;
}
