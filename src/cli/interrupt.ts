/**
 * Ctrl-C during long work (an advance, an import, a simulation). The first SIGINT aborts the
 * work's AbortSignal, which the backend checks at its next safe point: after the day being
 * committed, or by rolling an import back whole; remote mode stops waiting for the service. The
 * command then says what was done and exits 130.
 *
 * From the first Ctrl-C on, SIGINT has its default effect again (every listener is removed,
 * including a spinner library's cursor restorer, which would otherwise swallow it), so a second
 * Ctrl-C ends the process at once, even in the middle of a day's synchronous work; the shell
 * sees 130 (128 + SIGINT). The store stays consistent: SQLite discards a transaction that did
 * not commit. Once the work is done (release), a first Ctrl-C is let pass: the command finishes
 * with its own exit code and message. (As process 1 of a PID namespace there is no default
 * effect: app/signals.ts ends the process, 130, once no listener is left.)
 */
import type { CliContext } from './context.js';

export interface CtrlC {
  readonly signal: AbortSignal;
  /** Stop listening: the work is over. */
  release(): void;
}

export function catchCtrlC(ctx: Pick<CliContext, 'signals'>, onFirst: () => void): CtrlC {
  const controller = new AbortController();
  const signals = ctx.signals;
  const handler = () => {
    signals.removeAllListeners('SIGINT');
    controller.abort();
    onFirst();
  };
  signals.on('SIGINT', handler);
  const release = () => {
    signals.removeListener('SIGINT', handler);
    // The work is done (an import committed, the days lived): a Ctrl-C now, while the command says
    // so and closes the store, would only hide that behind a bare exit 130. It is let pass once;
    // a second has its default effect.
    if (!controller.signal.aborted) signals.once('SIGINT', () => {});
  };
  return { signal: controller.signal, release };
}
