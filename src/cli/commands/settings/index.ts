import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';
import { fieldsOption, formatOption } from '../../output/list-options.js';
import { SETTING_FIELDS } from '../list-fields.js';

export function registerSettings(program: Command, ctx: CliContext, state: RunState): void {
  const settings = program
    .command('settings')
    .description('the engine settings of the local store (max failed attempts, lapse rule, calendar): list them, with their defaults')
    .addOption(formatOption())
    .addOption(fieldsOption(SETTING_FIELDS))
    .action(lazyAction(ctx, state, () => import('./list.js'), { localOnly: 'premia settings' }));

  settings
    .command('set')
    .description('change a setting of the local store (takes effect from the next day the clock lives through)')
    .argument('<key>', 'the setting (premia settings lists them)')
    .argument('<value>', 'a whole number within the setting\'s range, or for calendar: za or none')
    .action(lazyAction(ctx, state, () => import('./set.js'), { writes: true, localOnly: 'premia settings set' }));
}
