/**
 * A progress display on stderr:
 * - an ora spinner when stderr is a terminal that reports its width (ora is loaded only then);
 * - plain status lines (the start, an update every few seconds, the outcome) on a terminal that
 *   reports no width (0 or undefined columns: `docker exec -t`, `script` from cron, some CI
 *   runners), where ora cannot work out how many lines to erase and would loop for ever;
 * - nothing otherwise, so logs and pipes stay clean.
 *
 * Every update redraws the spinner at once, at most every REDRAW_MS: long jobs such as
 * `clock advance` run each day synchronously and give ora's timer no chance to fire during a day.
 */
import type { Ui } from './ui.js';

export interface Progress {
  /** The text of the work in progress; `shown`: a line that must be seen at once (plain lines are otherwise a few seconds apart). */
  update(text: string, shown?: boolean): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  stop(): void;
}

/** No progress at all (off a terminal, or where a line drawn would erase what is being typed). */
export const SILENT: Progress = { update() {}, succeed() {}, fail() {}, stop() {} };

/** Shortest time between two spinner redraws caused by updates (ora's own frame interval). */
const REDRAW_MS = 80;
/** Shortest time between two plain status lines caused by updates. */
const PLAIN_UPDATE_MS = 5_000;

export async function startProgress(ui: Ui, text: string): Promise<Progress> {
  if (!ui.interactive) return SILENT;
  if (!ui.canAnimate) return plainProgress(ui, text);
  const { default: ora } = await import('ora');
  const spinner = ora({
    text,
    stream: ui.ctx.stderr,
    isEnabled: true,
    // Not ora's default: it puts stdin in raw mode, where Ctrl-C is a keystroke read only when
    // the event loop runs (never, during a day's synchronous work) instead of a SIGINT.
    discardStdin: false,
    // ora colours with its own chalk and its symbols with yoctocolors, which know neither
    // NO_COLOR (chalk) nor --no-color (yoctocolors): colour only where premia's own is on.
    color: ui.colour ? 'cyan' : false,
  }).start();
  // log-symbols' ✔ and ✖ (× and √ where it draws no Unicode: TERM=linux), uncoloured.
  const unicode = ui.ctx.env.TERM !== 'linux';
  const plain = { succeed: unicode ? '✔' : '√', fail: unicode ? '✖' : '×' };
  let drawn = 0; // the first update is drawn at once
  // One line, never wrapped: the text is cut to the terminal's width (the spinner and a space
  // before it), with two columns to spare for the `^C` the terminal echoes: a line that filled the
  // width was wrapped by it, and the stop then cleared the wrong line.
  const fit = (t: string) => {
    const columns = (ui.ctx.stderr as { columns?: number }).columns ?? 80;
    return t.length <= columns - 4 ? t : `${t.slice(0, Math.max(0, columns - 5))}…`;
  };
  return {
    update(t, shown = false) {
      spinner.text = fit(t);
      const now = Date.now();
      if (spinner.isSpinning && (shown || now - drawn >= REDRAW_MS)) {
        drawn = now;
        spinner.render();
      }
    },
    succeed(t) {
      if (ui.colour) spinner.succeed(t);
      else spinner.stopAndPersist({ symbol: plain.succeed, text: t });
    },
    fail(t) {
      if (ui.colour) spinner.fail(t);
      else spinner.stopAndPersist({ symbol: plain.fail, text: t });
    },
    stop() {
      spinner.stop();
    },
  };
}

/** Status lines without cursor movement, for a terminal of unknown width. */
function plainProgress(ui: Ui, text: string): Progress {
  const write = (line: string) => ui.ctx.stderr.write(`${line}\n`);
  write(text);
  let written = Date.now();
  let done = false;
  return {
    update(t, shown = false) {
      const now = Date.now();
      if (done || (!shown && now - written < PLAIN_UPDATE_MS)) return;
      written = now;
      write(t);
    },
    succeed(t) {
      if (!done && t) write(t);
      done = true;
    },
    fail(t) {
      if (!done && t) write(t);
      done = true;
    },
    stop() {
      done = true;
    },
  };
}
