/** Processes of this host, for telling an abandoned claim or file from one still in use. */
import { readFileSync } from 'node:fs';

/**
 * Whether a process with this id exists on this host (EPERM: it exists, under another user) and
 * can still run. A zombie (a process that has exited, kept only until its parent reaps it: one
 * killed under a wrapper that has not waited for it yet, or a `timeout` killed with its child)
 * answers a signal probe but will never finish or renew anything: it counts as gone. Where
 * `/proc` does not show the process (another system, another pid namespace), the probe decides.
 */
export function processIsAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** Whether `/proc` shows this process as exited and not yet reaped (state Z, or X while going). */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false;
  }
  // "pid (comm) S …": the command may hold spaces and parentheses, so the state follows the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}
