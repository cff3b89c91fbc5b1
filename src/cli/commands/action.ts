/**
 * Glue between commander and the verbs (cli/command.ts): a verb's module is imported only when
 * it runs; its options are parsed from what commander read, then it runs on them and its exit
 * code is kept.
 */
import { existsSync } from 'node:fs';
import { isStoreFile, redactDbUrl } from '../../lib/db-url.js';
import type { Command } from 'commander';
import { PremiaError } from '../../domain/errors.js';
import type { CommandDeps, RunState, Verb } from '../command.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { Ui } from '../output/ui.js';
import { commandWords } from './help.js';

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

export function lazyAction(ctx: CliContext, state: RunState, load: () => Promise<{ default: Verb }>, options: ActionOptions = {}) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received[received.length - 1] as Command;
    const globals = command.optsWithGlobals<GlobalOptions>();
    state.globals = globals;
    state.writes = options.writes === true && command.opts<{ dryRun?: boolean }>().dryRun !== true;
    const positional = received.slice(0, -2).flatMap((a): unknown[] => (Array.isArray(a) ? a : [a])) as string[];
    const ui = new Ui(ctx, globals);
    let announced = false;
    const deps: CommandDeps = {
      ctx,
      globals,
      ui,
      createsStore: options.createsStore === true,
      backend: async () => {
        const target = await ctx.target(globals);
        if (options.localOnly && target.mode === 'remote') throw localOnly(options.localOnly);
        // A store this command makes is said so, so a mistyped path is seen at once.
        const made = options.createsStore === true && makesNewStore(target);
        const backend = await ctx.backend(globals, { createStore: options.createsStore === true });
        if (options.writes && !announced && ui.interactive) {
          announced = true;
          ui.status(targetLine(target, made), ui.err.dim);
        }
        return backend;
      },
      admin: async () => {
        await deps.backend();
        return ctx.admin(globals, { createStore: options.createsStore === true });
      },
    };
    const { default: verb } = await load();
    const opts = verb.options(deps, command.opts(), positional);
    const code = ctx.runF ? await ctx.runF(commandWords(command), opts) : await verb.run(opts);
    state.exitCode = typeof code === 'number' ? code : 0;
  };
}

/** Whether opening `target` makes a new store file (none is there yet): said so, so a mistyped path is seen at once. */
export function makesNewStore(target: Awaited<ReturnType<CliContext['target']>>): boolean {
  return target.mode === 'local' && isStoreFile(target.db!) && !existsSync(target.db!);
}

/** The status line of a state-changing command on a terminal (`made`: the command created the store). */
export function targetLine(target: Awaited<ReturnType<CliContext['target']>>, made = false): string {
  if (target.mode === 'local') {
    return `Local mode: ${made ? 'new store (created now) ' : 'store '}${redactDbUrl(target.db!)}${target.asClient ? `, client ${target.asClient}` : ''}`;
  }
  const key = target.apiKey ? `, key …${target.apiKey.slice(-4)}` : '';
  return `Remote mode: ${target.baseUrl}${target.profile ? ` (profile ${target.profile}${key})` : key ? ` (${key.slice(2)})` : ''}`;
}

/** `what` asked of a service: why it is local-only and what to do instead (by default, a command on a store file). */
export function localOnly(
  what: string,
  why = 'it works on a store file, not through the service. Run it with --db on the machine that holds the store (without --base-url, --profile or PREMIA_BASE_URL).',
): PremiaError {
  return new PremiaError('NOT_SUPPORTED', `'${what}' is local-only: ${why}`);
}
