import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';

export function registerWhoami(program: Command, ctx: CliContext, state: RunState): void {
  program
    .command('whoami')
    .description('which mode, store or service, profile, client and key (redacted) the commands use')
    .action(lazyAction(ctx, state, () => import('./whoami.js')));
}
