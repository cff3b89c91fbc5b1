/**
 * The process entry (bin/premia.js loads it): the composition root, the one module that sees
 * both the CLI and the server. It builds the CLI's context from `process` and gives it the HTTP
 * service for `premia serve`, loaded only when that command runs (so `--help` loads no fastify).
 */
import { createContext, type ServeFn } from '../cli/context.js';
import { run } from '../cli/main.js';
import { ExitCode } from '../domain/errors.js';
import { exitNow } from '../lib/exit-now.js';
import { workingDirectory } from '../lib/working-directory.js';
import { cliSignals } from './signals.js';

const serve: ServeFn = async (backend, options, io) => (await import('../server/serve.js')).serve(backend, options, io);

export async function main(): Promise<void> {
  const ctx = createContext({
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    env: process.env,
    cwd: workingDirectory(),
    // Process 1 of a PID namespace (a container without an init) ends on a signal only through
    // a handler of its own: see signals.ts. At once, as a signal's default action ends any other
    // process, past a read of stdin that waits in libuv's thread pool (see exitNow).
    signals: cliSignals(process, (code) => exitNow(code)),
    serve,
    whenIdle: (listener) => {
      process.on('beforeExit', listener);
      return () => process.off('beforeExit', listener);
    },
  });
  // A closed pipe (premia ... | head) is not an error worth a stack trace, nor a reason to
  // report success or failure the command did not have: nothing more is written, the command
  // finishes (an import's rows are in the store either way) and exits with its own code.
  let stdoutGone = false;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') return;
    stdoutGone = true;
    process.stdout.write = (() => true);
  });
  // So for stderr (premia … 2>&1 | head): its status lines and warnings are for a reader, and one
  // that left must neither stop the command before it acts nor turn what it did into exit 1 (a
  // cron job would run `clock advance --days 1` again). So too for a terminal that hung up (EIO:
  // `premia serve` goes on serving after SIGHUP). Any other failure to write it ends premia.
  process.stderr.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'EIO') throw e;
    process.stderr.write = (() => true);
  });
  const code = await run(process.argv.slice(2), ctx, (c) => (process.exitCode = c));
  process.exitCode = code;
  // Let stdout drain, then exit even if a library left a handle open. Work stopped by Ctrl-C
  // (exit 130) ends at once: the read it stopped waiting for may still wait in a thread of libuv's
  // pool (stdin from a device, `- < /dev/kmsg`), which process.exit() would wait for (see exitNow).
  const exit = () => (code === ExitCode.CANCELLED ? exitNow(code) : process.exit(code));
  if (process.stdout.writableNeedDrain && !stdoutGone) {
    process.stdout.once('drain', exit);
    process.stdout.once('close', exit); // the reader left while it drained
  } else setImmediate(exit);
}
