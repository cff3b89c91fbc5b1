/**
 * Where the CLI hears SIGTERM, SIGINT and SIGHUP (its context's `signals`).
 *
 * Any other process: the process itself, unchanged; a signal premia has no handler for ends it
 * (the kernel's default action).
 *
 * Process 1 of a PID namespace (a container started without an init: `docker run image premia
 * …`): the kernel gives it no default action, so a signal it has no handler for is ignored.
 * `docker stop` then waited its 10 s and killed a command that would have ended at once, and the
 * second Ctrl-C after catchCtrlC (interrupt.ts) did nothing. So there the process gets one
 * listener per signal, for its whole life, that passes the signal on to an emitter of premia's
 * own (what the CLI listens on and removes its listeners from); when no handler of premia's is
 * there to take it, the process ends as the default action would end it elsewhere: exit 128 +
 * the signal's number. A signal a command emits itself (engine work turns SIGTERM into SIGINT)
 * stays on that emitter and ends nothing.
 */
import { EventEmitter } from 'node:events';
import { constants } from 'node:os';

const ENDING = ['SIGHUP', 'SIGINT', 'SIGTERM'] as const;

/** The process, as far as this needs it (a test gives an emitter with a pid). */
export interface SignalledProcess extends EventEmitter {
  readonly pid: number;
}

export function cliSignals(proc: SignalledProcess, exit: (code: number) => void): EventEmitter {
  if (proc.pid !== 1) return proc;
  const signals = new EventEmitter();
  for (const name of ENDING) {
    proc.on(name, () => {
      if (!signals.emit(name, name)) exit(128 + constants.signals[name]);
    });
  }
  return signals;
}
