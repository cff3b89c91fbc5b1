import { Option, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';
import { fieldsOption, formatOption } from '../../output/list-options.js';
import { POLICY_FIELDS } from '../list-fields.js';

export function registerPolicies(program: Command, ctx: CliContext, state: RunState): void {
  const policies = program.command('policies').description('create, import, update and read policies');

  policies
    .command('create')
    .description('create one policy')
    .option('--policy-number <number>', "the client's policy identifier")
    .option('--customer-id <id>', 'customer identifier')
    .option('--external-ref <ref>', "the client's own customer reference")
    .option('--product-code <code>', 'product code (A-Z 0-9 _ -)')
    .option('--amount <amount>', 'monthly premium, e.g. 199.50')
    .action(lazyAction(ctx, state, () => import('./create.js'), { writes: true, createsStore: true }));

  policies
    .command('import')
    .description('bulk-import policies from a CSV file (- reads stdin)')
    .argument('<file>', 'CSV with header customer_id,external_customer_ref,policy_number,product_code,collection_amount')
    .action(lazyAction(ctx, state, () => import('./import.js'), { writes: true, createsStore: true }));

  policies
    .command('update')
    .description('change the premium (from next month) and/or the status of a policy')
    .argument('<policy>', 'policy id or policy number')
    .option('--amount <amount>', 'new monthly premium; applies from the next month')
    .addOption(new Option('--status <status>', 'new status').choices(['active', 'lapsed', 'cancelled']))
    .action(lazyAction(ctx, state, () => import('./update.js'), { writes: true }));

  policies
    .command('get')
    .description('show one policy with its history')
    .argument('<policy>', 'policy id or policy number')
    .action(lazyAction(ctx, state, () => import('./get.js')));

  policies
    .command('list')
    .description('list policies in policy-number order')
    .addOption(new Option('--status <status>', 'only this status').choices(['active', 'lapsed', 'cancelled']))
    .option('--limit <n>', 'at most this many (1-10000; default: a page of 100 in a table, every one with --format csv or json)')
    .option('--after <policy_number>', 'start after this policy number (next page)')
    .addOption(formatOption())
    .addOption(fieldsOption(POLICY_FIELDS))
    .action(lazyAction(ctx, state, () => import('./list.js')));
}
