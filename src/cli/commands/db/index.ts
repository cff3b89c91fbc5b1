import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';

export function registerDb(program: Command, ctx: CliContext, state: RunState): void {
  const db = program.command('db').description('whole stores: copy a store file to PostgreSQL (or back) and verify the copy');

  db.command('copy')
    .description('copy every table of one store into another in one transaction, then verify row counts and money totals')
    .requiredOption('--from <store>', 'the store to copy: a file (premia.db) or a postgres:// URL')
    .requiredOption('--to <store>', 'the store to copy into (empty; --yes replaces what it holds): a postgres:// URL or a file')
    .action(lazyAction(ctx, state, () => import('./copy.js')));
}
