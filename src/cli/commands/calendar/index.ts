import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';

export function registerCalendar(program: Command, ctx: CliContext, state: RunState): void {
  const calendar = program
    .command('calendar')
    .description("the business-day calendar of the local store: its base (premia settings set calendar za|none) and the holidays of a year")
    .option('--year <yyyy>', "the year whose holidays to list (default: the clock's year)")
    .action(lazyAction(ctx, state, () => import('./show.js'), { localOnly: 'premia calendar' }));

  calendar
    .command('import')
    .description('add holidays (days without debits or pay) from a CSV file with the header date,name, on top of the base calendar')
    .argument('<file>', 'the CSV file (date as YYYY-MM-DD, name optional), or - for stdin')
    .option('--replace', 'replace the dates imported before instead of adding to them')
    .action(lazyAction(ctx, state, () => import('./import.js'), { writes: true, localOnly: 'premia calendar import' }));
}
