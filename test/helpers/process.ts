/** Processes for the tests of abandoned claims. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';

/** The state letter of a process in /proc ('' when it is not listed). */
function stateOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return '';
  }
}

/**
 * Resolve once `ok()` holds, checking every few milliseconds; fail after a minute (it normally
 * takes milliseconds: a minute is for a machine however busy, not a time the wait is meant to take).
 */
async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after 60 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * A zombie: a child that has exited and that its parent (a shell replaced by `sleep`) never reaps,
 * as a premia killed under a wrapper that has not waited for it yet. The child exits only once
 * the shell is `sleep` (told through fd 3), so the shell cannot reap it first. `stop` ends the
 * parent, and with it the zombie.
 */
export async function zombie(): Promise<{ pid: number; stop: () => void }> {
  const parent = spawn('sh', ['-c', '(read x <&3; exit 0) & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore', 'pipe'] });
  const stop = () => void parent.kill('SIGKILL');
  try {
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      parent.once('error', reject);
    });
    await until('the shell to become sleep', () => readFileSync(`/proc/${parent.pid}/comm`, 'latin1').trim() === 'sleep');
    (parent.stdio[3] as Writable).write('\n');
    await until(`process ${pid} to become a zombie`, () => stateOf(pid) === 'Z');
    return { pid, stop };
  } catch (e) {
    stop();
    throw e;
  }
}
