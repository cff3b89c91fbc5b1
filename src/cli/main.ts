/**
 * The CLI entry: `run(argv, ctx)` parses the arguments, runs one command and returns its exit
 * code. This is the one place where errors become exit codes and error output. Command modules
 * are imported only when their command runs, so `--help` and `--version` load no database or
 * HTTP code.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { editDistance } from '../domain/words.js';
import { sqliteDiskFullError } from '../domain/disk-full.js';
import { ExitCode, PremiaError, usageError } from '../domain/errors.js';
import { stringifyJson } from '../domain/json.js';
import { escapeUnseen } from '../domain/identifiers.js';
import type { RunState } from './command.js';
import { terminalText, type CliContext, type GlobalOptions } from './context.js';
import { registerCommands } from './commands/index.js';
import { applyHelpConventions, commandWords } from './commands/help.js';
import { streamError } from './output/download.js';
import { Ui } from './output/ui.js';
import { VERSION } from '../lib/version.js';


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

/**
 * The code of a mistake commander finds: a bad option value or choice is VALIDATION_ERROR, as
 * every wrong value is; how the command line is put together (an unknown option or command, a
 * missing argument, option or option value, too many arguments) is USAGE_ERROR.
 */
function commanderCode(e: CommanderError): 'VALIDATION_ERROR' | 'USAGE_ERROR' {
  return e.code === 'commander.invalidArgument' ? 'VALIDATION_ERROR' : 'USAGE_ERROR';
}

/**
 * Where commander writes: help and version to stdout; its own error line ("error: unknown
 * option ...") to stderr, followed by reportError's "(code …; run with --help for usage)", except
 * with --json, where reportError writes the API error body instead and commander's text is dropped.
 */
function commanderOutput(ctx: CliContext, json: boolean) {
  return {
    writeOut: (s: string) => ctx.stdout.write(s),
    writeErr: (s: string) => ctx.stderr.write(terminalText(ctx, s)),
    outputError: (s: string, write: (s: string) => void) => {
      if (!json) write(terminalText(ctx, s));
    },
  };
}

/** The values given to --api-key (before a `--`). */
function apiKeysIn(argv: string[]): string[] {
  const keys: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--api-key' && i + 1 < argv.length) keys.push(argv[++i]!);
    else if (a.startsWith('--api-key=')) keys.push(a.slice('--api-key='.length));
  }
  return keys;
}

/** Whether `--json` is among the arguments (before a `--`), wherever it is given. */
export function wantsJson(argv: string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--json') return true;
  }
  return false;
}

export function buildProgram(ctx: CliContext, state: RunState, json = false): Command {
  const program = new Command('premia');
  const output = commanderOutput(ctx, json);
  program
    .description('Collect monthly insurance premiums and settle with the client.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--db <path>', 'store for local mode: a file, or postgres://user@host:port/db (env PREMIA_DB; default ./premia.db)')
    .option('--json', 'print exactly the API JSON body on stdout')
    .option('-q, --quiet', 'no status messages on stderr')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('-y, --yes', 'assume yes for confirmations')
    .addOption(new Option('--seed <n>', 'simulation seed of a new store').argParser(parseSeedOption))
    .option('--debug', 'print diagnostics (requests, timings) on stderr')
    .option('--base-url <url>', 'remote mode: the service, including /v1 (env PREMIA_BASE_URL)')
    .option('--profile <name>', 'remote mode: a profile saved by premia login (env PREMIA_PROFILE; default: "default" if saved)')
    .option('--api-key <key>', 'remote mode: the API key; visible to others, prefer env PREMIA_API_KEY or premia login')
    .option('--idempotency-key <key>', 'reuse this key for the writes of this command (safe reruns of a cron job; keys create: no second key, the first not shown again)')
    .option('--timeout <seconds>', 'remote mode: longest wait for one request, retries included (env PREMIA_TIMEOUT; default 600)')
    .option('--connect-timeout <seconds>', 'remote mode: longest wait to connect (env PREMIA_CONNECT_TIMEOUT; default 10)')
    .option('--as-client <name>', 'local mode: act for this client of the store (one made by premia keys create)')
    .exitOverride()
    .configureOutput(output)
    .addHelpText('after', EXIT_CODES_HELP);
  registerCommands(program, ctx, state);
  applyHelpConventions(program);
  if (json) {
    // A group without its command (`premia policies`): commander shows the group's help on stderr
    // and exits. With --json stderr holds only the error body, so the mistake is reported as one
    // (thrown before the help is written; reportError prints it). Help asked for is not an error.
    program.on('beforeAllHelp', ({ error, command }: { error: boolean; command: Command }) => {
      if (error) throw missingCommand(command);
    });
  }
  // Every subcommand reports through the same output and exit override.
  const configure = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput(output);
      unknownBeforeMissing(sub);
      suggestWithoutValue(sub);
      configure(sub);
    }
  };
  suggestWithoutValue(program);
  configure(program);
  return program;
}

/**
 * A required option missing because it was mistyped (`--perod 2026-11` in a cron line): commander
 * checks required options before unknown ones, so it said "required option '--period <YYYY-MM>'
 * not specified", which hides the typo. The unknown option is reported instead, as commander
 * reports it anywhere else (with its "Did you mean --period?"). Both are USAGE_ERROR, exit 2.
 */
function unknownBeforeMissing(cmd: Command): void {
  // Neither method is in commander's typings; both are on every Command (commander 12+).
  const c = cmd as Command & { missingMandatoryOptionValue(option: Option): void; unknownOption(flag: string): void };
  const missing = c.missingMandatoryOptionValue.bind(c);
  c.missingMandatoryOptionValue = (option: Option) => {
    // What commander could not parse: the operands, then the first unknown option and all after it.
    const unknown = c.args.find((word) => word.length > 1 && word.startsWith('-'));
    if (unknown !== undefined) c.unknownOption(unknown);
    missing(option);
  };
}

/**
 * An unknown option given with its value (`--perod=2026-11`): commander looks for a close option
 * name to the whole word, value and all, and finds none; the name alone is what was mistyped. It
 * is looked up alone, and the message still names the word as given.
 */
function suggestWithoutValue(cmd: Command): void {
  // unknownOption is not in commander's typings; it is on every Command (commander 12+).
  const c = cmd as Command & { unknownOption(flag: string): void };
  const unknown = c.unknownOption.bind(c);
  c.unknownOption = (flag: string) => {
    const eq = flag.indexOf('=');
    if (flag.startsWith('--')) sayWhoseOption(c, flag, eq < 0 ? flag : flag.slice(0, eq));
    if (!flag.startsWith('--') || eq < 0) return unknown(flag);
    const error = c.error.bind(c);
    c.error = (message, config) => error(message.replace(`'${flag.slice(0, eq)}'`, `'${flag}'`), config);
    try {
      unknown(flag.slice(0, eq));
    } finally {
      c.error = error;
    }
  };
}

/**
 * An option of other commands given to one that has none such (`collections explain <id>
 * --period 2026-11`): commander looked for a close name among this command's options and the
 * global ones and offered "Did you mean --version?". Said as it is instead: which commands take
 * it. Nothing is said here of a name no command has (a typo: commander's suggestion stands).
 */
function sayWhoseOption(cmd: Command, flag: string, name: string): void {
  let root = cmd;
  while (root.parent) root = root.parent;
  const fullName = (c: Command): string => (c.parent ? `${fullName(c.parent)} ${c.name()}` : 'premia');
  const owners: string[] = [];
  const visit = (c: Command) => {
    if (c !== cmd && c.options.some((o) => o.long === name)) owners.push(fullName(c));
    c.commands.forEach(visit);
  };
  visit(root);
  if (owners.length === 0) return;
  const shown = owners.length > 4 ? `${owners.slice(0, 3).join(', ')} and ${owners.length - 3} more` : owners.join(', ').replace(/, ([^,]*)$/, ' and $1');
  cmd.error(`error: unknown option '${flag}': ${fullName(cmd)} takes no ${name}; it is an option of ${shown}.`, { code: 'commander.unknownOption', exitCode: 1 });
}

function parseSeedOption(value: string): string {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('the seed is a whole number from 0 to 999999999.');
  return value;
}

/**
 * Run one command line; its exit code. `onExitCode` hears the code before the store or the
 * service connection is closed: the process entry sets it as the process's exit code there, so
 * that a close that leaves nothing for the event loop (the process then ends without returning
 * here) still ends with it, not 0.
 */
export async function run(argv: string[], ctx: CliContext, onExitCode?: (code: number) => void): Promise<number> {
  const json = wantsJson(argv);
  const state: RunState = { exitCode: ExitCode.OK, globals: json ? { json } : {} };
  // A failed write to stdout other than its reader leaving (a full disk under `> file`) leaves
  // the output incomplete: a command that succeeded otherwise exits 1 with the reason, so a cron
  // job does not take a cut file for done. So does an import some of whose rows failed (exit 3):
  // the list of them is what was lost.
  let outputFailed: unknown = null;
  const onOutputError = (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') outputFailed ??= e;
  };
  ctx.stdout.on('error', onOutputError);
  // A key given with --api-key is never shown whole, whatever else it was given to (--base-url …).
  for (const key of apiKeysIn(argv)) ctx.secrets.add(key);
  let code: number;
  // Nothing left to wait for while the command runs: it waits for what can no longer come (a
  // thread that ended unheard). Ended as a failure, said: left alone the process ended with exit
  // code 0 and nothing printed, and a cron job took an advance that never happened for done.
  let stopWatching = () => {};
  const stalled = new Promise<never>((_, reject) => {
    if (ctx.whenIdle) stopWatching = ctx.whenIdle(() => reject(commandStalled()));
  });
  stalled.catch(() => {});
  try {
    const program = buildProgram(ctx, state, json);
    checkCommandWords(program, argv);
    checkRepeatedOptions(program, argv);
    await Promise.race([program.parseAsync(argv, { from: 'user' }), stalled]);
    await new Promise((r) => setImmediate(r)); // a last write's error is emitted on the next tick
    if (outputFailed !== null && (state.exitCode === ExitCode.OK || state.exitCode === ExitCode.PARTIAL)) throw outputLost(outputFailed, state.writes === true);
    code = state.exitCode;
  } catch (e) {
    code = reportError(ctx, state.globals, e);
  } finally {
    stopWatching();
  }
  onExitCode?.(code);
  ctx.stdout.off('error', onOutputError);
  await ctx.dispose(code !== ExitCode.OK);
  return code;
}

/** The command was left waiting for something that can no longer come (see `run`). */
function commandStalled(): PremiaError {
  return new PremiaError(
    'INTERNAL',
    'premia stopped before the command finished: it was left waiting for work that can no longer come (a fault in premia, not in the command). ' +
      'What it had committed is kept and nothing after that was done: check where things stand (premia clock show, the reports) before running it again.',
  );
}

/**
 * stdout failed under a command that succeeded. One that changes state has done so all the same
 * (the clock advanced, the key created): exit 1 alone read as "nothing happened", and a cron job
 * rerunning `clock advance --days 1` advanced a second day; a key shown once was lost unsaid.
 */
function outputLost(e: unknown, writes: boolean): PremiaError {
  const lost = streamError(e, 'standard output');
  if (!writes) return lost;
  return new PremiaError(
    'INTERNAL',
    `${lost.message} The command itself finished: what it changed is kept (a clock advanced, a settlement marked paid; a key it created is valid: revoke it if the key was not seen). ` +
      'Check the result before running it again.',
    { cause: lost.cause },
  );
}

/**
 * A word after a command group (`clock`, `calendar`, `settings`: groups that also act alone) that
 * names none of its commands is an unknown command, said so with a suggestion. Left to commander,
 * `clock advanc --days 1` was "unknown option '--days'" and `settings sett x` "too many
 * arguments". Options and their values are skipped on the way (`--db FILE` before the words).
 */
function checkCommandWords(program: Command, argv: string[]): void {
  let cmd = program;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return;
    if (word.startsWith('-')) {
      if (word.includes('=')) continue;
      const option = [...cmd.options, ...program.options].find((o) => o.long === word || o.short === word);
      // An option unknown here is commander's to name: the word after it may be its value
      // (`calendar --format json` was "unknown command 'json'").
      if (!option) return;
      if (option.required || option.optional) i++; // its value
      continue;
    }
    if (cmd.commands.length === 0) return; // a leaf: its own arguments from here
    const next = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (next) {
      cmd = next;
      continue;
    }
    if (cmd === program || cmd.registeredArguments.length > 0) return; // commander's own "unknown command"; or the group's own argument
    const names = commandNames(cmd);
    const close = names.filter((n) => editDistance(n, word) <= Math.max(1, Math.floor(n.length / 3)) || (word.length >= 3 && n.startsWith(word)));
    const path = commandWords(cmd);
    cmd.error(`error: unknown command '${word}' for 'premia ${path}'; its commands are: ${names.join(', ')}.${close.length > 0 ? `\n(Did you mean ${close.join(' or ')}?)` : ''}`, {
      code: 'commander.unknownCommand',
    });
  }
}

/**
 * An option of one value given twice with different values (`collections execute --period
 * 2026-12 --period 2027-01`, a cron line whose variables both hold `--days`): commander kept the
 * last one without a word, so one period was queued where two were meant, or an advance lived
 * another number of days. Refused, as a usage error, naming both values. Options that take a
 * list (`--policy P...`) and flags without a value repeat freely; so does the same value.
 */
function checkRepeatedOptions(program: Command, argv: string[]): void {
  const end = argv.indexOf('--');
  if (argv.slice(0, end < 0 ? argv.length : end).some((w) => w === '--help' || w === '-h')) return; // help is shown whatever else is there
  let cmd = program;
  const seen = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return;
    if (!word.startsWith('-')) {
      const next = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
      if (next) cmd = next;
      continue;
    }
    const eq = word.indexOf('=');
    const name = eq > 0 ? word.slice(0, eq) : word;
    const option = [...cmd.options, ...program.options].find((o) => o.long === name || o.short === name);
    if (!option || !(option.required || option.optional)) continue;
    let value: string | undefined;
    if (eq > 0) value = word.slice(eq + 1);
    else if (option.required || (i + 1 < argv.length && !argv[i + 1]!.startsWith('-'))) value = argv[++i];
    if (value === undefined || option.variadic) continue;
    const key = option.long ?? name;
    const before = seen.get(key);
    if (before !== undefined && before !== value) {
      const shown = key === '--api-key' ? '' : ` ('${before}', then '${value}')`;
      cmd.error(`error: ${key} is given twice${shown}; it takes one value, so premia would use only the last. Give it once.`, { code: 'commander.repeatedOption' });
    }
    seen.set(key, value);
  }
}

/** The names of a group's commands, as its error messages list them. */
function commandNames(cmd: Command): string[] {
  return cmd.commands.map((c) => c.name());
}

/** A group run without one of its commands, as a USAGE_ERROR naming them (the text of --json's error body). */
function missingCommand(cmd: Command): PremiaError {
  return usageError(`missing command for '${`premia ${commandWords(cmd)}`.trim()}'; its commands are: ${commandNames(cmd).join(', ')}.`);
}

/**
 * Print an error on stderr and return its exit code. With --json every error is the API's error
 * body on one line: a PremiaError as it is, a command-line mistake found by commander as
 * VALIDATION_ERROR or USAGE_ERROR (exit 2, see commanderCode), anything unexpected as INTERNAL (exit 1).
 */
export function reportError(ctx: CliContext, globals: GlobalOptions, given: unknown): number {
  // A full disk the store did not map itself (a statement of its own outside the store's
  // transactions, a report's read-only connection): said as the store says it.
  const e = sqliteDiskFullError(given) ?? given;
  if (e instanceof CommanderError) {
    // Without --json commander has already printed its message (or the help / version text).
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return ExitCode.OK;
    // No subcommand (`premia`, `premia policies`): the help on stderr, and exit 2, so a cron line
    // built from an empty variable does not pass for a job done. (With --json it never gets here:
    // buildProgram makes it an error body.)
    if (e.code === 'commander.help') return ExitCode.USAGE;
    if (e.code === 'commander.executeSubCommandAsync') return ExitCode.OK;
    if (globals.json) writeJsonError(ctx, new PremiaError(commanderCode(e), commanderMessage(e), { exitCode: ExitCode.USAGE }));
    else ctx.stderr.write(`  (code ${commanderCode(e)}; run with --help for usage)\n`);
    return ExitCode.USAGE;
  }
  // Ctrl-C or Ctrl-D at a question: every question comes before its action, so, as a "no",
  // nothing changed, and it is said (a bare "Cancelled." left "was it marked paid?" open).
  if (isUserCancel(e)) {
    if (globals.json) writeJsonError(ctx, new PremiaError('CANCELLED', 'Cancelled by the user; nothing changed.', { exitCode: ExitCode.CANCELLED }));
    else ctx.stderr.write('Cancelled: nothing changed.\n');
    return ExitCode.CANCELLED;
  }
  // A confirmation answered no, or work stopped by Ctrl-C: the user's choice, said plainly (not as an error).
  if (e instanceof PremiaError && e.code === 'CANCELLED') {
    if (globals.json) writeJsonError(ctx, e);
    else ctx.stderr.write(`${terminalText(ctx, e.message)}\n`);
    return ExitCode.CANCELLED;
  }
  const ui = new Ui(ctx, globals);
  if (e instanceof PremiaError) {
    if (globals.json) {
      writeJsonError(ctx, e);
    } else {
      ctx.stderr.write(`${ui.err.red('error:')} ${terminalText(ctx, e.message)}\n`);
      // Each detail's message (premia's own error says a lone one in its message). Another server's
      // may not ("Validation failed"): a lone detail it does not say is shown too, and each is
      // named by its field when its message does not name it; one without a message (its reason
      // under a name of its own: `reason`, `msg`) is shown as the server sent it.
      const details = Array.isArray(e.details) ? (e.details as Array<Record<string, unknown>>) : [];
      const foreign = e.foreignDetails === true;
      const lone = foreign && details.length === 1 && (typeof details[0]!.message !== 'string' || !e.message.includes(details[0]!.message));
      if (details.length > 1 || lone) {
        for (const d of details) {
          if (typeof d.message !== 'string') {
            if (foreign) ctx.stderr.write(terminalText(ctx, `  - ${stringifyJson(d)}\n`));
            continue;
          }
          const field = foreign && typeof d.field === 'string' && d.field !== '' && !namesWord(d.message, d.field) ? `${d.field}: ` : '';
          // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a row is a number or a string as received
          ctx.stderr.write(terminalText(ctx, `  - ${d.row !== undefined ? `row ${String(d.row)}: ` : ''}${field}${d.message}\n`));
        }
      }
      const tags = [`code ${e.code}`];
      if (e.requestId) tags.push(`request ${e.requestId}`);
      // The request id is the server's text (its X-Request-Id header): redacted like its messages.
      ctx.stderr.write(ui.err.dim(terminalText(ctx, `  (${tags.join(', ')})\n`)));
    }
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- --debug shows whatever the cause is
    if (globals.debug && e.cause) ctx.stderr.write(ctx.redact(`${String((e.cause as Error).stack ?? e.cause)}\n`));
    return e.exitCode;
  }
  const err = e as Error;
  const message = ctx.redact(`premia failed unexpectedly: ${err?.message ?? String(e)}`);
  if (globals.json) {
    writeJsonError(ctx, new PremiaError('INTERNAL', `${message} (run again with --debug for details)`));
    if (globals.debug && err?.stack) ctx.stderr.write(ctx.redact(`${err.stack}\n`));
    return ExitCode.FAILURE;
  }
  ctx.stderr.write(`${ui.err.red('error:')} ${escapeUnseen(message, true)}\n`);
  // The stack starts with the message, redacted above: so is the stack.
  if (globals.debug && err?.stack) ctx.stderr.write(ctx.redact(`${err.stack}\n`));
  else ctx.stderr.write('  (run again with --debug for details)\n');
  return ExitCode.FAILURE;
}

/** Whether `text` holds `word` as a word of its own (`bad x` names x; `max` does not). */
function namesWord(text: string, word: string): boolean {
  const at = (i: number) => i < 0 || i >= text.length || !/[A-Za-z0-9_]/.test(text[i]!);
  for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) if (at(i - 1) && at(i + word.length)) return true;
  return false;
}

function writeJsonError(ctx: CliContext, e: PremiaError): void {
  ctx.stderr.write(`${ctx.redact(stringifyJson(e.toBody(e.requestId ?? null)))}\n`);
}

/** commander's message without its "error: " prefix. */
function commanderMessage(e: CommanderError): string {
  return e.message.replace(/^error: /, '').trim();
}

function isUserCancel(e: unknown): boolean {
  const name = (e as Error)?.name;
  return name === 'ExitPromptError' || name === 'AbortPromptError';
}
