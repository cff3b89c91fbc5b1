import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';

export function registerLogin(program: Command, ctx: CliContext, state: RunState): void {
  program
    .command('login')
    .description('save a remote profile: asks for the API key (masked), checks it with the service, keeps it in a private config file')
    .addHelpText(
      'after',
      `
Uses the global --profile NAME (default "default") and --base-url URL (the service, with /v1).
On a terminal the key is asked for; without one it is read from PREMIA_API_KEY.
The profile is saved in $XDG_CONFIG_HOME/premia/config.json (else ~/.config/premia/config.json), mode 0600.`,
    )
    .action(lazyAction(ctx, state, () => import('./login.js')));
}
