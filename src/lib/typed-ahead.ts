/**
 * Keys typed before a question is shown wait in the terminal's input queue and would answer it:
 * `premia settlements create --period 2026-11`, then `y` and Enter at once, made the statement
 * before its figures were on the screen. POSIX's tcflush(fd, TCIFLUSH) discards them; Node has no
 * call for it, so it is made through koffi (as lib/memory.ts makes malloc_trim).
 *
 * Linux (glibc) and macOS only; elsewhere, or when koffi cannot load, nothing is discarded.
 */
import { createRequire } from 'node:module';

type Flush = (fd: number, queue: number) => number;
let flush: { call: Flush; input: number } | null | undefined;

/** Discard what was typed at terminal `fd` and not read yet; whether it could be. */
export function discardTypedAhead(fd = 0): boolean {
  flush ??= loadTcflush();
  if (flush === null) return false;
  try {
    return flush.call(fd, flush.input) === 0;
  } catch {
    return false;
  }
}

function loadTcflush(): { call: Flush; input: number } | null {
  // TCIFLUSH: 0 on Linux, 1 on macOS (termios.h).
  const where = process.platform === 'linux' ? { lib: 'libc.so.6', input: 0 } : process.platform === 'darwin' ? { lib: '/usr/lib/libSystem.B.dylib', input: 1 } : null;
  if (where === null) return null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    return { call: koffi.load(where.lib).func('int tcflush(int fd, int queue_selector)') as Flush, input: where.input };
  } catch {
    return null;
  }
}
