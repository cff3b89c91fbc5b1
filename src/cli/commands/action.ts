/**
 * Glue between commander and command modules: a command's module is imported only when it
 * runs; it receives its environment (context, global options, output, lazy backend) and
 * returns its exit code.
 */
import type { Command } from 'commander';
import type { Backend } from '../../backend/types.js';
import type { CliContext, GlobalOptions } from '../context.js';
import type { RunState } from '../main.js';
import { Ui } from '../output/ui.js';

export interface CommandEnv {
  ctx: CliContext;
  globals: GlobalOptions;
  ui: Ui;
  /** The command's own options. */
  opts: Record<string, unknown>;
  backend: () => Promise<Backend>;
}

export type CommandFn = (env: CommandEnv, ...args: string[]) => Promise<number | void>;

export function lazyAction(ctx: CliContext, state: RunState, load: () => Promise<{ default: CommandFn }>) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received[received.length - 1] as Command;
    const globals = command.optsWithGlobals() as GlobalOptions;
    state.globals = globals;
    const positional = received.slice(0, -2).flatMap((a) => (Array.isArray(a) ? a : [a])) as string[];
    const env: CommandEnv = {
      ctx,
      globals,
      ui: new Ui(ctx, globals),
      opts: command.opts(),
      backend: () => ctx.backend(globals),
    };
    const { default: fn } = await load();
    const code = await fn(env, ...positional);
    state.exitCode = typeof code === 'number' ? code : 0;
  };
}
