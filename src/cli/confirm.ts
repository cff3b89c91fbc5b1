/**
 * Confirmations before what cannot be undone (closing periods, creating a settlement statement,
 * marking one paid, cancelling a policy, disputing a statement, revoking a key, making a client
 * whose name is one typo from another's).
 *
 * - `--yes`: nothing is asked.
 * - A terminal (stdin and stderr both): what will happen is printed on stderr, with the
 *   store's own figures, and a yes/no question follows (default no). No is the user cancelling:
 *   "Nothing changed.", exit 130, as Ctrl-C at a prompt. `--json` asks the same way: the JSON
 *   stays on stdout.
 * - No terminal (cron, pipes): nothing is asked and the command acts, except an advance that
 *   would close more than one period, or one nobody queued collections for, which is refused
 *   (USAGE_ERROR, exit 2) before anything changes unless `--yes` is given: checked here for the
 *   client acted for, and by the store for every client once the advance's turn has come
 *   (safe_close: commands/clock/advance.ts).
 */
import { ExitCode, PremiaError, usageError } from '../domain/errors.js';
import type { IsoDate, Period } from '../domain/period.js';
import type { CommandDeps } from './command.js';
import { terminalText } from './context.js';
import { plural } from './output/format.js';

export type ConfirmMode = 'yes' | 'ask' | 'unattended';

export function confirmMode(env: Pick<CommandDeps, 'ctx' | 'globals'>): ConfirmMode {
  if (env.globals.yes === true) return 'yes';
  return env.ctx.stdinIsTTY && env.ctx.stderrIsTTY ? 'ask' : 'unattended';
}

export interface Question {
  /** What will happen, one line each, printed before the question. */
  details: string[];
  /** The yes/no question itself (one line). */
  question: string;
}

/** Print what will happen and ask; anything but yes ends the command with nothing changed (exit 130). */
export async function askOrCancel(env: Pick<CommandDeps, 'ctx' | 'ui'>, q: Question): Promise<void> {
  // Written as a status is (terminalText): a name or reference given may hold a control character.
  for (const line of q.details) env.ctx.stderr.write(`${terminalText(env.ctx, line)}\n`);
  if (!(await env.ctx.prompter.confirm(terminalText(env.ctx, q.question), { colour: env.ui.colour }))) throw declined();
}

/** A declined confirmation: the user cancelled (exit 130); main.ts prints the message plainly, not as an error. */
export function declined(): PremiaError {
  return new PremiaError('CANCELLED', 'Nothing changed.', { exitCode: ExitCode.CANCELLED });
}

/** Work stopped by Ctrl-C (exit 130), with what was done. */
export function stopped(message: string): PremiaError {
  return new PremiaError('CANCELLED', message, { exitCode: ExitCode.CANCELLED });
}

/** An unattended advance that would close more than one period, refused before anything changes. */
export function needsYes(periods: Period[]): PremiaError {
  return usageError(
    `This advance would close ${plural(periods.length, 'period')} for good (${periodList(periods)}). ` +
      'Without a terminal to ask on, premia closes more than one period at a time only when told to: add --yes. Nothing changed.',
  );
}

/** An unattended `clock set` more than a year ahead of the clock's date (a mistyped year?), refused before anything changes. */
export function clockJumpNeedsYes(from: IsoDate, to: IsoDate, jump: string): PremiaError {
  return usageError(
    `Setting the clock from ${from} to ${to} would move it ${jump} (a mistyped year?), and what is recorded while it is there keeps that date for good. ` +
      'Without a terminal to ask on, premia moves the clock more than a year at once only when told to: add --yes. Nothing changed.',
  );
}

/** An unattended advance would close a period nobody queued collections for (more than one is needsYes). */
export function neverRunNeedsYes(period: Period): PremiaError {
  return usageError(
    `This advance would close ${period} with no collections queued: once closed, its premiums can never be collected. ` +
      `Queue them first ('premia collections execute --period ${period}'), or add --yes to close it anyway. Nothing changed.`,
  );
}

/** An unattended advance would close `period` for other clients of the store that never queued it. */
export function othersNeverRunNeedsYes(period: Period, clients: readonly string[]): PremiaError {
  return usageError(
    `This advance would close ${period} for the whole store, and ${nameList(clients)} ${clients.length === 1 ? 'has' : 'have'} active policies ` +
      `and no collections queued for it: once closed, ${clients.length === 1 ? 'its' : 'their'} premiums for it can never be collected. ` +
      `Have ${clients.length === 1 ? 'it' : 'them'} queued first ('premia collections execute --period ${period}' with ${clients.length === 1 ? 'its' : 'each one\'s'} key), ` +
      `or add --yes to close it anyway. Nothing changed.`,
  );
}

/** Client names in a sentence: A · A and B · A, B and C · A, B, C and 2 more. */
export function nameList(names: readonly string[]): string {
  const shown = names.length > 4 ? [...names.slice(0, 3), `${names.length - 3} more`] : [...names];
  return shown.length <= 1 ? shown.join('') : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

/**
 * What `call` answers, or null from a server that does not offer it (NOT_SUPPORTED): the
 * previews and checks a question is made of, which it then does without.
 */
export async function unlessUnsupported<T>(call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof PremiaError && e.code === 'NOT_SUPPORTED') return null;
    throw e;
  }
}

/** 2026-11 · 2026-11 and 2026-12 · 2026-11, 2026-12 and 2027-01 · 2026-11, 2026-12, …, 2027-08 */
export function periodList(periods: readonly string[]): string {
  if (periods.length <= 1) return periods.join('');
  if (periods.length <= 3) return `${periods.slice(0, -1).join(', ')} and ${periods[periods.length - 1]}`;
  return `${periods[0]}, ${periods[1]}, …, ${periods[periods.length - 1]}`;
}
