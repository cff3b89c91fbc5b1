import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';
import { fieldsOption, formatOption } from '../../output/list-options.js';
import { PROFILE_FIELDS } from '../list-fields.js';

export function registerProfiles(program: Command, ctx: CliContext, state: RunState): void {
  program
    .command('profiles')
    .description('list the saved remote profiles (keys redacted to their last 4 characters) and mark the one in use')
    .addOption(formatOption())
    .addOption(fieldsOption(PROFILE_FIELDS))
    .action(lazyAction(ctx, state, () => import('./profiles.js')));
}
