/**
 * Keys typed before a question is shown wait in the terminal's input queue and would answer it:
 * `premia settlements create --period 2026-11`, then `y` and Enter at once, made the statement
 * before its figures were on the screen. POSIX's tcflush(fd, TCIFLUSH) discards them; Node has no
 * call for it (lib/libc.ts makes it). Linux and macOS; elsewhere nothing is discarded.
 */
import { cFunction } from './libc.js';

/** TCIFLUSH (termios.h): 0 on Linux, 1 on macOS. */
const TCIFLUSH = process.platform === 'darwin' ? 1 : 0;

type Tcflush = (fd: number, queue: number) => number;
let tcflush: Tcflush | null | undefined;

/** Discard what was typed at terminal `fd` and not read yet; whether it could be. */
export function discardTypedAhead(fd = 0): boolean {
  const flush = (tcflush ??= cFunction<Tcflush>('int tcflush(int fd, int queue_selector)'));
  if (flush === null) return false;
  try {
    return flush(fd, TCIFLUSH) === 0;
  } catch {
    return false;
  }
}
