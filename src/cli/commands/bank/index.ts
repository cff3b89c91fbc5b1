import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';

export function registerBank(program: Command, ctx: CliContext, state: RunState): void {
  const bank = program.command('bank').description('the simulated bank of local mode (or of a service running on it)');

  bank
    .command('import')
    .description('load bank transactions (CSV header customer_id,date,amount,description; - reads stdin)')
    .argument('<file>')
    .addHelpText(
      'after',
      '\nCustomer ids are compared exactly: rows for ids that no policy names but that\n' +
        "differ from a policy's customer id only in letter case (c100001 where a policy\n" +
        'says C100001) or leading zeros (123 where it says 00123) are refused, nothing\n' +
        'imported (exit 2), unless --yes is given; at a terminal premia asks.',
    )
    .action(lazyAction(ctx, state, () => import('./import.js'), { writes: true, createsStore: true }));

  bank
    .command('show')
    .description("a customer's balance, recent transactions and detected income pattern")
    .argument('<customer_id>')
    .action(lazyAction(ctx, state, () => import('./show.js')));

  bank
    .command('seed')
    .description('set the seed of generated accounts (only before the first collections run)')
    .argument('<seed>')
    .action(lazyAction(ctx, state, () => import('./seed.js'), { writes: true, createsStore: true }));
}
