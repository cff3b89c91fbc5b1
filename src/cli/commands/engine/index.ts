import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';

export function registerEngine(program: Command, ctx: CliContext, state: RunState): void {
  const engine = program.command('engine').description('the collections engine on a shared PostgreSQL store: extra workers for its days');

  engine
    .command('work')
    .description('live the customer shards of the days clock advances open on this PostgreSQL store (engine.shards > 1), until stopped')
    .option('--until <date>', 'stop once the clock has reached this date (YYYY-MM-DD) and no shard is pending')
    .action(lazyAction(ctx, state, () => import('./work.js'), { localOnly: 'premia engine work' }));
}
