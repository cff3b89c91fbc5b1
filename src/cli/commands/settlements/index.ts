import { Option, type Command } from 'commander';
import { SETTLEMENT_STATUSES } from '../../../backend/types.js';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';
import { fieldsOption, formatOption } from '../../output/list-options.js';
import { SETTLEMENT_FIELDS } from '../list-fields.js';

export function registerSettlements(program: Command, ctx: CliContext, state: RunState): void {
  const settlements = program.command('settlements').description('monthly settlement statements: create, read, export, pay, dispute');

  settlements
    .command('create')
    .description('generate the statement of a closed period (total collected, fees, VAT, net)')
    .requiredOption('--period <YYYY-MM>', 'the period to settle')
    .action(lazyAction(ctx, state, () => import('./create.js'), { writes: true }));

  settlements
    .command('get')
    .description('show one statement')
    .argument('<settlement>', 'settlement id or settlement number (SETTLE-YYYY-MM-NNN)')
    .action(lazyAction(ctx, state, () => import('./get.js')));

  settlements
    .command('export')
    .description('the statement as CSV (header and one row), or with --lines one row per collection')
    .argument('<settlement>', 'settlement id or settlement number')
    .option('-o, --output <file>', 'write to this file (or into this directory) atomically, instead of stdout')
    .option('--lines', 'one row per collection with its share of each fee; columns sum to the statement')
    .option('--force', 'replace an existing --output file that is not an earlier export (never a database)')
    .option('--require-pending', 'for a payment run: write it only while the statement is pending; paid or disputed is exit 6, nothing written')
    .action(lazyAction(ctx, state, () => import('./export.js')));

  settlements
    .command('list')
    .description('list statements, newest first')
    .addOption(new Option('--status <status>', 'only this status').choices([...SETTLEMENT_STATUSES]))
    .option('--period <YYYY-MM>', 'only this period')
    .addOption(formatOption())
    .addOption(fieldsOption(SETTLEMENT_FIELDS))
    .action(lazyAction(ctx, state, () => import('./list.js')));

  settlements
    .command('mark-paid')
    .description('record that the net amount was paid (pending → paid), on the clock date')
    .argument('<settlement>', 'settlement id or settlement number')
    .option('--reference <ref>', "the EFT's reference, 1-35 of A-Z 0-9 - / (default: the statement's payment reference)")
    .action(lazyAction(ctx, state, () => import('./mark-paid.js'), { writes: true }));

  settlements
    .command('dispute')
    .description('dispute a statement (pending or paid → disputed) within 30 days of its payment date, or of the day it was made when later')
    .argument('<settlement>', 'settlement id or settlement number')
    .requiredOption('--reason <text>', 'what is disputed (1-500 characters)')
    .action(lazyAction(ctx, state, () => import('./dispute.js'), { writes: true }));
}
