/** Processes of this host, for telling an abandoned claim or file from one still in use. */

/** Whether a process with this id exists on this host (EPERM: it exists, under another user). */
export function processIsAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
