import { Option, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';

export function registerReports(program: Command, ctx: CliContext, state: RunState): void {
  const reports = program.command('reports').description('export the results of a period');

  reports
    .command('collections')
    .description('the collection results of a period, one row per collection, on stdout')
    .requiredOption('--period <YYYY-MM>', 'the period to report')
    .addOption(new Option('--format <format>', 'csv (default) or json').choices(['csv', 'json']))
    .option('-o, --output <file>', 'write to this file (or into this directory) atomically, instead of stdout')
    .option('--require-closed', 'refuse (exit 6, nothing written) unless the period has closed: for cron')
    .option('--force', 'replace an existing --output file that is not an earlier report (never a database)')
    .action(lazyAction(ctx, state, () => import('./collections.js')));

  reports
    .command('summary')
    .description('the month in pictures: collected vs due, collected by day, by income pattern, failures by reason, the settlement')
    .requiredOption('--period <YYYY-MM>', 'the period to summarise')
    .option('--html <file>', 'write the month as one self-contained HTML page (charts, and the unpaid and partly paid policies) to this file or into this directory, instead of the text')
    .option('--force', 'replace an existing --html file that is not an earlier page (never a database)')
    .addHelpText(
      'after',
      `
Plain ASCII when stdout is not a terminal or under NO_COLOR; --json gives the same figures.`,
    )
    .action(lazyAction(ctx, state, () => import('./summary.js')));
}
