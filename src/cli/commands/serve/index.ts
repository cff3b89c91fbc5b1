import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RunState } from '../../command.js';
import { lazyAction } from '../action.js';

export function registerServe(program: Command, ctx: CliContext, state: RunState): void {
  program
    .command('serve')
    .description('serve the /v1 HTTP API over the local store (keys: premia keys create)')
    .option('--host <host>', 'address to listen on (loopback unless told otherwise)', '127.0.0.1')
    .option('--port <port>', 'TCP port (0 picks a free one)', '8080')
    .option('--json-limit <bytes>', 'largest JSON body (default 1048576)')
    .option('--upload-limit <bytes>', 'largest uploaded file (default 104857600)')
    .option('--rate-limit <n>', 'requests per API key per minute, 0 for no limit (default 600)')
    .option('--no-simulation', 'no virtual clock and no simulated bank: their endpoints answer 404 (a real deployment)')
    .action(lazyAction(ctx, state, () => import('./serve.js'), { createsStore: true, localOnly: 'premia serve' }));
}
