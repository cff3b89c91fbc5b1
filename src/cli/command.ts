/**
 * How a verb is written (after the GitHub CLI's per-command options struct, pkg/cmd/<noun>/<verb>):
 * each verb module exports a `Verb`, that is
 *   - `options(deps, flags, args)`: the command line parsed into a typed options object (its
 *     flags checked and converted, beside the code that uses them), carrying the dependencies
 *     every verb gets (`CommandDeps`: IO streams, the global options, and the backend and the
 *     admin object as lazy functions, so that nothing is opened before it is needed);
 *   - `run(opts)`: the code that runs on them.
 * The glue to commander is commands/action.ts; a test may replace `run` (the context's `runF`)
 * to check what a command line parses into without running it.
 *
 * This module imports no command, so the commands, main.ts and action.ts all depend on it and
 * not on each other (no import circle through cli/main.ts).
 */
import type { Admin, Backend } from '../backend/types.js';
import type { CliContext, GlobalOptions } from './context.js';
import type { Ui } from './output/ui.js';

/** What every verb gets injected. */
export interface CommandDeps {
  ctx: CliContext;
  globals: GlobalOptions;
  ui: Ui;
  /** The backend, opened on first use (a local store, or a service). */
  backend: () => Promise<Backend>;
  /** The operator's functions on the local store (keys, settings): local-only commands. */
  admin: () => Promise<Admin>;
  /** Whether this command may create a missing store (ActionOptions.createsStore). */
  createsStore: boolean;
}

/** A verb: its typed options from the command line, and the code that runs on them. */
export interface Verb<O extends CommandDeps = CommandDeps> {
  options(deps: CommandDeps, flags: Record<string, unknown>, args: string[]): O;
  run(opts: O): Promise<number | void>;
}

/**
 * A verb from its options parser (commander's parsed flags as the verb declares them, and the
 * positional arguments) and its run function.
 */
export function verb<F, O extends CommandDeps>(options: (deps: CommandDeps, flags: F, args: string[]) => O, run: (opts: O) => Promise<number | void>): Verb<O> {
  return { options: (deps, flags, args) => options(deps, flags as F, args), run };
}

/** What one run of the CLI ends with: its exit code, and the global options (for reporting an error). */
export interface RunState {
  exitCode: number;
  globals: GlobalOptions;
  /** The command that ran changes state (ActionOptions.writes, not a --dry-run). */
  writes?: boolean;
}
