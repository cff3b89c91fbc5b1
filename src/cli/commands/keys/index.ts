import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';
import { fieldsOption, formatOption } from '../../output/list-options.js';
import { KEY_FIELDS } from '../list-fields.js';

export function registerKeys(program: Command, ctx: CliContext, state: RunState): void {
  const keys = program.command('keys').description("API keys of 'premia serve' (operator commands on the local store)");

  keys
    .command('create')
    .description('create a key for a client (created if new); the key is printed once')
    .option('--client <name>', 'the client (organisation) the key acts for')
    .option('--operator', 'an operator key: may also move the virtual clock and drive the simulated bank (acts for --client, else for the Local client)')
    .addHelpText(
      'after',
      `
The key is printed once, on stdout; the store keeps only its hash, prefix and last 4 characters.
With the global --idempotency-key KEY, a rerun of the same command (a cron job's, or one whose
output was lost) makes no second key and cannot print the first again: it says on stderr which
key the earlier run made (id, client, role, pmk_… and its last 4; with --json also on stdout, as
keys list shows it, with "replayed": true), exit 0. A lost key is revoked
(premia keys revoke ID) and replaced with a new idempotency key. The same KEY with another
--client or role is refused (IDEMPOTENCY_KEY_REUSED, exit 6).`,
    )
    .action(lazyAction(ctx, state, () => import('./create.js'), { writes: true, createsStore: true, localOnly: 'premia keys create' }));

  keys
    .command('list')
    .description('list keys, redacted to their prefix and last 4 characters')
    .addOption(formatOption())
    .addOption(fieldsOption(KEY_FIELDS))
    .action(lazyAction(ctx, state, () => import('./list.js'), { localOnly: 'premia keys list' }));

  keys
    .command('revoke')
    .description('revoke a key: requests with it are refused at once')
    .argument('<key_id>', 'the key id (from keys list)')
    .action(lazyAction(ctx, state, () => import('./revoke.js'), { writes: true, localOnly: 'premia keys revoke' }));
}
