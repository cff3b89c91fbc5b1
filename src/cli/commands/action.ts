/**
 * Glue between commander and command modules: a command's module is imported only when it
 * runs; it receives its environment (context, global options, output, lazy backend) and
 * returns its exit code.
 */
import type { Command } from 'commander';
import type { Admin, Backend } from '../../backend/types.js';
import { PremiaError } from '../../domain/errors.js';
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
  /** The operator's functions on the local store (local-only commands: keys, settings). */
  admin: () => Promise<Admin>;
  /** Whether this command may create a missing store (ActionOptions.createsStore). */
  createsStore: boolean;
}

export type CommandFn = (env: CommandEnv, ...args: string[]) => Promise<number | void>;

export interface ActionOptions {
  /** The command changes state: on a terminal, say which store or service it acts on. */
  writes?: boolean;
  /** The command exists only in local mode (`premia keys …`): refuse it in remote mode. */
  localOnly?: string;
  /**
   * Local mode: the command may create the store file when it does not exist (imports, policies
   * create, clock set, bank import/seed, keys create, serve, simulate). Every other command on a
   * missing store fails with VALIDATION_ERROR and creates nothing.
   */
  createsStore?: boolean;
}

export function lazyAction(ctx: CliContext, state: RunState, load: () => Promise<{ default: CommandFn }>, options: ActionOptions = {}) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received[received.length - 1] as Command;
    const globals = command.optsWithGlobals() as GlobalOptions;
    state.globals = globals;
    const positional = received.slice(0, -2).flatMap((a) => (Array.isArray(a) ? a : [a])) as string[];
    const ui = new Ui(ctx, globals);
    let announced = false;
    const env: CommandEnv = {
      ctx,
      globals,
      ui,
      opts: command.opts(),
      createsStore: options.createsStore === true,
      backend: async () => {
        const target = await ctx.target(globals);
        if (options.localOnly && target.mode === 'remote') throw localOnly(options.localOnly);
        const backend = await ctx.backend(globals, { createStore: options.createsStore === true });
        if (options.writes && !announced && ui.interactive) {
          announced = true;
          ui.status(ui.err.dim(targetLine(target)));
        }
        return backend;
      },
      admin: async () => {
        await env.backend();
        return ctx.admin(globals, { createStore: options.createsStore === true });
      },
    };
    const { default: fn } = await load();
    const code = await fn(env, ...positional);
    state.exitCode = typeof code === 'number' ? code : 0;
  };
}

/** The status line of a state-changing command on a terminal. */
export function targetLine(target: Awaited<ReturnType<CliContext['target']>>): string {
  if (target.mode === 'local') {
    return `Local mode: store ${target.db}${target.asClient ? `, client ${target.asClient}` : ''}`;
  }
  const key = target.apiKey ? `, key …${target.apiKey.slice(-4)}` : '';
  return `Remote mode: ${target.baseUrl}${target.profile ? ` (profile ${target.profile}${key})` : key ? ` (${key.slice(2)})` : ''}`;
}

export function localOnly(what: string): PremiaError {
  return new PremiaError(
    'NOT_SUPPORTED',
    `'${what}' is local-only: it works on a store file, not through the service. Run it with --db on the machine that holds the store (without --base-url, --profile or PREMIA_BASE_URL).`,
  );
}
