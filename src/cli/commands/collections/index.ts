import { Option, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { COLLECTION_STATUSES } from '../../../domain/collection.js';
import { DEFAULT_STRATEGY, STRATEGY_NAMES } from '../../../domain/strategy-names.js';
import { lazyAction } from '../action.js';
import { fieldsOption, formatOption } from '../../output/list-options.js';
import { ATTEMPT_FIELDS, COLLECTION_FIELDS } from '../list-fields.js';

export function registerCollections(program: Command, ctx: CliContext, state: RunState): void {
  const collections = program.command('collections').description('run the monthly collections and follow their results');

  collections
    .command('execute')
    .description('trigger the collections run of a period (the engine then collects through the month)')
    .requiredOption('--period <YYYY-MM>', 'the period to collect')
    .option('--policy <policy...>', 'only these policies (ids or policy numbers); default: every active policy')
    .addOption(new Option('--strategy <name>', `collection strategy (default: ${DEFAULT_STRATEGY})`).choices(STRATEGY_NAMES))
    .action(lazyAction(ctx, state, () => import('./execute.js'), { writes: true }));

  collections
    .command('get')
    .description('show one collection')
    .argument('<collection_id>')
    .action(lazyAction(ctx, state, () => import('./get.js')));

  collections
    .command('list')
    .description("list a period's collections in policy-number order")
    .requiredOption('--period <YYYY-MM>', 'the period')
    .addOption(new Option('--status <status>', 'only this status').choices(COLLECTION_STATUSES))
    .option('--policy <policy>', 'only this policy (id or policy number)')
    .option('--limit <n>', 'at most this many (1-10000; default: a page of 100 in a table, every one with --format csv or json)')
    .option('--after <policy_number>', 'start after this policy number (next page)')
    .addOption(formatOption())
    .addOption(fieldsOption(COLLECTION_FIELDS))
    .action(lazyAction(ctx, state, () => import('./list.js')));

  collections
    .command('attempts')
    .description("every debit attempt of a period, in date and policy-number order")
    .requiredOption('--period <YYYY-MM>', 'the period')
    .addOption(new Option('--format <format>', 'csv (the export, the default), json (the export) or table').choices(['csv', 'json', 'table'])) // no commander default: --json alone means json (attempts.ts)
    .addOption(fieldsOption(ATTEMPT_FIELDS))
    .option('-o, --output <file>', 'write the export (csv or json) to this file (or into this directory) atomically, instead of stdout')
    .option('--force', 'replace an existing --output file that is not an earlier export (never a database)')
    .action(lazyAction(ctx, state, () => import('./attempts.js')));

  collections
    .command('explain')
    .description('why each attempt of a collection was made when it was, and for how much')
    .argument('<collection_id>')
    .action(lazyAction(ctx, state, () => import('./explain.js')));

  collections
    .command('execution')
    .description("a collections run's status and counts by collection status")
    .argument('<execution_id>')
    .action(lazyAction(ctx, state, () => import('./execution.js')));
}
