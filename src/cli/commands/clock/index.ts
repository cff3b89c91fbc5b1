import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';

export function registerClock(program: Command, ctx: CliContext, state: RunState): void {
  const clock = program
    .command('clock')
    .description('the virtual clock of local mode (or of a service on the simulated bank): the last day whose business has run')
    .action(lazyAction(ctx, state, () => import('./show.js')));

  clock
    .command('show')
    .description('the clock: its date, whether a run has locked it, the seed (the same as `premia clock`)')
    .action(lazyAction(ctx, state, () => import('./show.js')));

  clock
    .command('advance')
    .description('live through the following days (the engine collects; a month end closes its period)')
    .option('--days <n>', 'this many days')
    .option('--to <date>', 'up to and including this date (YYYY-MM-DD)')
    .option('--to-month-end', 'to the end of the month of the next day')
    .option('--dry-run', 'say what the advance would do (days, periods closed, collections open in them, debits planned) and change nothing')
    .addHelpText(
      'after',
      `
Once a collections run exists, an advance that closes a period asks first on a terminal (global
--yes skips the question); without a terminal it goes ahead, unless it would close more than one
period, or one with no collections queued: that needs --yes. Before the first run (clock set can
still move the clock back) it asks nothing.
Ctrl-C stops it after the day being committed (exit 130); a second Ctrl-C quits at once.`,
    )
    .action(lazyAction(ctx, state, () => import('./advance.js'), { writes: true }));

  clock
    .command('set')
    .description('set the clock (only before the first collections run)')
    .argument('<date>', 'YYYY-MM-DD')
    .addHelpText(
      'after',
      `
A move of more than a year ahead (a mistyped year: 2062-11-30 for 2026-11-30) asks first on
a terminal (global --yes skips the question); without a terminal it needs --yes. What is recorded
while the clock is there keeps that date: setting the clock back does not change it.`,
    )
    .action(lazyAction(ctx, state, () => import('./set.js'), { writes: true, createsStore: true }));
}
