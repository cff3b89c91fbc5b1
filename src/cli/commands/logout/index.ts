import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';

export function registerLogout(program: Command, ctx: CliContext, state: RunState): void {
  program
    .command('logout')
    .description('remove a saved remote profile and its key (the global --profile NAME; default "default")')
    .action(lazyAction(ctx, state, () => import('./logout.js')));
}
