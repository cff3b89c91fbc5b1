import { Option, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { DEFAULT_STRATEGY, STRATEGY_NAMES } from '../../../domain/strategy-names.js';
import { lazyAction } from '../action.js';

export function registerSimulate(program: Command, ctx: CliContext, state: RunState): void {
  program
    .command('simulate')
    .description("run the monthly cycle day by day on a local store (the shipped fixtures by default) and summarise it")
    .option('--period <YYYY-MM>', 'first period to collect', '2026-11')
    .option('--months <n>', 'consecutive months to run', '1')
    .option('--policies <file>', 'policy CSV (default: fixtures/policies.csv)')
    .option('--bank <file>', "bank transactions CSV (default: fixtures/bank-transactions.csv; 'none' for generated accounts only)")
    .addOption(new Option('--strategy <name>', 'collection strategy').choices(STRATEGY_NAMES).default(DEFAULT_STRATEGY))
    .option('--out <dir>', "where to write each period's files (in <dir>/<period>/)", 'premia-out')
    .addHelpText(
      'after',
      `
Global options simulate uses (before or after 'simulate'):
  --seed <n>   seed of the simulation (default: 1); the same seed and files give the same output
  --db <path>  run in this store file instead of a fresh temporary one; it must hold no
               policies and no collections run yet (PREMIA_DB is ignored: only --db
               chooses a store)
  --json       print the summary as JSON on stdout`,
    )
    .action(lazyAction(ctx, state, () => import('./simulate.js'), { createsStore: true }));
}
