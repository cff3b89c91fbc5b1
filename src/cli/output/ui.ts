/**
 * Output for commands: data to stdout, status and errors to stderr; colour only on a terminal
 * and never with NO_COLOR or --no-color; `--json` writes the API's JSON answer as docs/cli.md
 * says (a download's as it was sent).
 */
import { Chalk, type ChalkInstance } from 'chalk';
import { stringifyJson } from '../../domain/json.js';
import { terminalText, type CliContext, type GlobalOptions } from '../context.js';
import { count, noun } from '../../domain/words.js';
import { moneyText, renderTable, type Column } from './table.js';

export class Ui {
  readonly json: boolean;
  readonly quiet: boolean;
  /** Colours for stdout and stderr (level 0 when not a colour terminal). */
  readonly out: ChalkInstance;
  readonly err: ChalkInstance;

  constructor(
    readonly ctx: CliContext,
    globals: GlobalOptions,
  ) {
    this.json = globals.json === true;
    this.quiet = globals.quiet === true;
    // FORCE_COLOR=0 (or false) is the other common way to say no colour; a FORCE_COLOR that
    // forces colour is not followed: colour stays on terminals only.
    const forcedOff = ctx.env.FORCE_COLOR === '0' || ctx.env.FORCE_COLOR === 'false';
    const allowed = globals.color !== false && !('NO_COLOR' in ctx.env && ctx.env.NO_COLOR !== '') && !forcedOff && ctx.env.TERM !== 'dumb';
    this.out = new Chalk({ level: allowed && ctx.stdoutIsTTY ? 1 : 0 });
    this.err = new Chalk({ level: allowed && ctx.stderrIsTTY ? 1 : 0 });
  }

  /** Whether stderr (where questions are asked) is drawn in colour. */
  get colour(): boolean {
    return this.err.level > 0;
  }

  /** Write data to stdout. */
  write(text: string): void {
    this.ctx.stdout.write(text);
  }

  /**
   * Write data to stdout and wait until a reader slower than premia (a pipe to a slow consumer)
   * has taken it, so that an output written piece by piece (a whole list, page after page)
   * holds at most one piece in memory. A stdout gone (the reader left, an error) does not wait.
   */
  async writeDrained(text: string): Promise<void> {
    const out = this.ctx.stdout;
    if (out.write(text) || out.destroyed || out.writableEnded) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done);
        out.off('close', done);
        out.off('error', done);
        resolve();
      };
      out.on('drain', done);
      out.on('close', done);
      out.on('error', done);
    });
  }

  line(text = ''): void {
    this.ctx.stdout.write(`${text}\n`);
  }

  printJson(value: unknown): void {
    this.ctx.stdout.write(`${stringifyJson(value)}\n`);
  }

  /**
   * A status message on stderr (suppressed by --quiet), drawn in `style` (`ui.err.dim`) when one is
   * given. Written as error messages are (terminalText): a status names files and values the user
   * gave (`--output`, a store, a file to import), whose keys are redacted (one typed in the wrong
   * place) and whose control characters are escaped: `--output $'r\e[2J.csv'` cleared the screen
   * when the line said where the report was written.
   */
  status(text: string, style?: (text: string) => string): void {
    if (this.quiet) return;
    const shown = terminalText(this.ctx, text);
    this.ctx.stderr.write(`${style ? style(shown) : shown}\n`);
  }

  /** A note on stderr (suppressed by --quiet), after a yellow `note:`, written as a status is. */
  note(text: string): void {
    if (!this.quiet) this.ctx.stderr.write(`${this.err.yellow('note:')} ${terminalText(this.ctx, text)}\n`);
  }

  /** A warning on stderr (even under --quiet), after a yellow `warning:`, written as a status is. */
  warn(text: string): void {
    this.ctx.stderr.write(`${this.err.yellow('warning:')} ${terminalText(this.ctx, text)}\n`);
  }

  /**
   * Whether figures on stdout are grouped by thousands (12,345.67): on a terminal only. Off a
   * terminal (a pipe, a file) they are written plain (12345.67), so the output can be read back
   * by a program. The one rule for tables, key/value blocks and lines on stdout alike.
   */
  get group(): boolean {
    return this.ctx.stdoutIsTTY;
  }

  /** Money (integer cents) for stdout: grouped by thousands on a terminal only (see `group`); '-' for none. */
  money(cents: number | null | undefined): string {
    return cents === null || cents === undefined ? '-' : moneyText(cents, this.group);
  }

  /** A count for stdout: grouped by thousands on a terminal only (see `group`). */
  count(n: number): string {
    return this.group ? count(n) : String(n);
  }

  /** A count and its noun for a line on stdout (`Imported 1000 policies`): the count as `count` writes it. */
  plural(n: number, one: string, many = `${one}s`): string {
    return `${this.count(n)} ${noun(n, one, many)}`;
  }

  /** A table on stdout: cut to the terminal's width and money grouped by thousands on a terminal (see `group`, table.ts). */
  table<T>(columns: Column<T>[], rows: T[]): void {
    this.write(renderTable(columns, rows, { colour: this.out, width: this.width, group: this.group }));
  }

  /**
   * The width of the terminal stdout is, or undefined when stdout is not a terminal (nothing is
   * cut for a pipe or a file). A terminal that reports no width: COLUMNS, else 80.
   */
  get width(): number | undefined {
    if (!this.ctx.stdoutIsTTY) return undefined;
    const columns = (this.ctx.stdout as { columns?: unknown }).columns;
    if (typeof columns === 'number' && columns > 0) return columns;
    const env = Number(this.ctx.env.COLUMNS);
    return Number.isInteger(env) && env > 0 ? env : 80;
  }

  /** A key/value block, keys aligned. Money and counts in it are written with `money` and `count` (grouped on a terminal only). */
  keyValues(pairs: Array<[string, string | number | null | undefined]>): void {
    const width = Math.max(...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs) this.line(`${this.out.dim(k.padEnd(width))}  ${v === null || v === undefined ? '-' : v}`);
  }

  /** Whether a live progress display may be drawn. */
  get interactive(): boolean {
    return this.ctx.stderrIsTTY && !this.quiet;
  }

  /**
   * Whether a spinner may be animated: an interactive stderr that reports a width, and a
   * terminal that can move its cursor. A terminal reporting 0 (or no) columns, or TERM=dumb
   * (which has no cursor movement: the erase sequences would be printed as they are), gets
   * plain status lines instead (see progress.ts).
   */
  get canAnimate(): boolean {
    const columns = (this.ctx.stderr as { columns?: unknown }).columns;
    return this.interactive && typeof columns === 'number' && columns > 0 && this.ctx.env.TERM !== 'dumb';
  }
}
