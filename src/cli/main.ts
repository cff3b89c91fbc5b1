/**
 * The CLI entry: `run(argv, ctx)` parses the arguments, runs one command and returns its exit
 * code. This is the one place where errors become exit codes and error output. Command modules
 * are imported only when their command runs, so `--help` and `--version` load no database or
 * HTTP code.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { createRequire } from 'node:module';
import { ExitCode, PremiaError } from '../domain/errors.js';
import { stringifyJson } from '../domain/json.js';
import type { CliContext, GlobalOptions } from './context.js';
import { registerCommands } from './commands/index.js';
import { Ui } from './output/ui.js';

const require = createRequire(import.meta.url);
export const VERSION: string = (require('../../package.json') as { version: string }).version;

export interface RunState {
  exitCode: number;
  globals: GlobalOptions;
}

const EXIT_CODES_HELP = `
Exit codes:
  0  success                         4  authentication failed
  1  unexpected or remote failure    5  not found
  2  usage or validation error       6  conflict
  3  finished, some rows failed      130  cancelled by the user

Remote mode (every command against a premia service over HTTP):
  PREMIA_BASE_URL=http://host:8080/v1 PREMIA_API_KEY=pmk_… premia …
  or once: premia login --base-url URL   (saves the profile "default")
  premia whoami shows which mode, service, profile and key are in use.`;

export function buildProgram(ctx: CliContext, state: RunState): Command {
  const program = new Command('premia');
  program
    .description('Collect monthly insurance premiums and settle with the client.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--db <path>', 'store file for local mode (env PREMIA_DB; default ./premia.db)')
    .option('--json', 'print exactly the API JSON body on stdout')
    .option('-q, --quiet', 'no status messages on stderr')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('-y, --yes', 'assume yes for confirmations')
    .addOption(new Option('--seed <n>', 'simulation seed of a new store').argParser(parseSeedOption))
    .option('--debug', 'print diagnostics (requests, timings) on stderr')
    .option('--base-url <url>', 'remote mode: the service, including /v1 (env PREMIA_BASE_URL)')
    .option('--profile <name>', 'remote mode: a profile saved by premia login (env PREMIA_PROFILE; default: "default" if saved)')
    .option('--api-key <key>', 'remote mode: the API key; visible to others, prefer env PREMIA_API_KEY or premia login')
    .option('--idempotency-key <key>', 'reuse this key for the writes of this command (safe reruns of a cron job)')
    .option('--timeout <seconds>', 'remote mode: longest wait for one request, retries included (env PREMIA_TIMEOUT; default 600)')
    .option('--connect-timeout <seconds>', 'remote mode: longest wait to connect (env PREMIA_CONNECT_TIMEOUT; default 10)')
    .option('--as-client <name>', 'local mode: act for this client of the store (one made by premia keys create)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
    })
    .addHelpText('after', EXIT_CODES_HELP);
  registerCommands(program, ctx, state);
  // Every subcommand reports through the same output and exit override.
  const configure = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput({ writeOut: (s) => ctx.stdout.write(s), writeErr: (s) => ctx.stderr.write(s) });
      sub.showHelpAfterError('(run with --help for usage)');
      configure(sub);
    }
  };
  configure(program);
  return program;
}

function parseSeedOption(value: string): string {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('the seed is a whole number from 0 to 999999999.');
  return value;
}

export async function run(argv: string[], ctx: CliContext): Promise<number> {
  const state: RunState = { exitCode: ExitCode.OK, globals: {} };
  try {
    const program = buildProgram(ctx, state);
    await program.parseAsync(argv, { from: 'user' });
    return state.exitCode;
  } catch (e) {
    return reportError(ctx, state.globals, e);
  } finally {
    await ctx.dispose();
  }
}

/** Print an error on stderr and return its exit code. */
export function reportError(ctx: CliContext, globals: GlobalOptions, e: unknown): number {
  if (e instanceof CommanderError) {
    // commander has already printed its message (or the help / version text).
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return ExitCode.OK;
    if (e.code === 'commander.executeSubCommandAsync') return ExitCode.OK;
    return ExitCode.USAGE;
  }
  if (isUserCancel(e)) {
    ctx.stderr.write('Cancelled.\n');
    return ExitCode.CANCELLED;
  }
  const ui = new Ui(ctx, globals);
  if (e instanceof PremiaError) {
    if (globals.json) {
      ctx.stderr.write(`${stringifyJson(e.toBody(e.requestId ?? null))}\n`);
    } else {
      ctx.stderr.write(`${ui.err.red('error:')} ${e.message}\n`);
      if (Array.isArray(e.details) && e.details.length > 1) {
        for (const d of e.details as Array<Record<string, unknown>>) {
          if (typeof d.message === 'string') ctx.stderr.write(`  - ${d.row !== undefined ? `row ${String(d.row)}: ` : ''}${d.message}\n`);
        }
      }
      const tags = [`code ${e.code}`];
      if (e.requestId) tags.push(`request ${e.requestId}`);
      ctx.stderr.write(ui.err.dim(`  (${tags.join(', ')})\n`));
    }
    if (globals.debug && e.cause) ctx.stderr.write(`${String((e.cause as Error).stack ?? e.cause)}\n`);
    return e.exitCode;
  }
  const err = e as Error;
  ctx.stderr.write(`${ui.err.red('error:')} premia failed unexpectedly: ${err?.message ?? String(e)}\n`);
  if (globals.debug && err?.stack) ctx.stderr.write(`${err.stack}\n`);
  else ctx.stderr.write('  (run again with --debug for details)\n');
  return ExitCode.FAILURE;
}

function isUserCancel(e: unknown): boolean {
  const name = (e as Error)?.name;
  return name === 'ExitPromptError' || name === 'AbortPromptError';
}
