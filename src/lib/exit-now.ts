/**
 * Ending the process with a code, without waiting for libuv's thread pool. process.exit() runs
 * the 'exit' listeners, then Node, shutting down, joins every thread of that pool: one blocked in
 * a read that never returns (standard input from a device such as /dev/kmsg, which Node reads in
 * the pool: `premia policies import - < /dev/kmsg`) held the process for ever after Ctrl-C, its
 * work stopped and "Stopped by Ctrl-C" said, until a second Ctrl-C killed it. Here the 'exit'
 * listeners run as they do for process.exit(), then the C library's _exit() ends the process, its
 * threads with it, as the kernel ends one killed by a signal.
 */
import { cFunction } from './libc.js';

/** End the process with `code` at once (after its 'exit' listeners); process.exit() where the C library cannot be called. */
export function exitNow(code: number): void {
  const end = cFunction<(status: number) => void>('void _exit(int status)');
  // Added last, so it runs after every other 'exit' listener (a spinner's cursor restorer).
  if (end !== null) process.once('exit', () => end(code));
  process.exit(code);
}
