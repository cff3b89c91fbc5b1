/** The process entry: build a context from `process` and exit with the command's code. */
import { createContext } from './context.js';
import { run } from './main.js';

export async function main(): Promise<void> {
  const ctx = createContext({
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
    signals: process,
  });
  // A closed pipe (premia ... | head) is not an error worth a stack trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
  });
  const code = await run(process.argv.slice(2), ctx);
  process.exitCode = code;
  // Let stdout drain, then exit even if a library left a handle open.
  const exit = () => process.exit(code);
  if (process.stdout.writableNeedDrain) process.stdout.once('drain', exit);
  else setImmediate(exit);
}
