/** Processes of this host, for telling an abandoned claim or file from one still in use. */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * This process's own token (16 hex digits): it tells this process from a later one given the same
 * id, and from a process of another container with the same host name and id, wherever a claim,
 * a lease, a worker's name or a file name records who made it.
 */
export const PROCESS_TOKEN = randomBytes(8).toString('hex');

/**
 * The PID namespace this process runs in ('pid:[4026531836]' on Linux, read from
 * /proc/self/ns/pid), or null where there is none to read. Process ids mean something only
 * within one: containers sharing the host's name (host networking) each have their own, and
 * each premia in them may be process 1.
 */
export const PID_NAMESPACE: string | null = (() => {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
})();

/** Where process ids mean something: a host, and on Linux a PID namespace of it. */
export interface ProcessPlace {
  host: string;
  pidNamespace: string | null;
}

/** This process's place. */
export const HERE: ProcessPlace = { host: hostname(), pidNamespace: PID_NAMESPACE };

/**
 * A place in a few characters (8 hex digits of a SHA-256 of its host name and PID namespace), for
 * the names of temporary files that record their process's id: a file's process is judged by its
 * id only by a process whose name of its place is the same. Containers that share a TMPDIR volume
 * (and the host's name) name theirs differently, so each leaves the others' files alone.
 */
export function placeTag(place: ProcessPlace): string {
  return createHash('sha256').update(`${place.host}\0${place.pidNamespace ?? ''}`).digest('hex').slice(0, 8);
}

/** This process's place in a few characters (placeTag). */
export const HERE_TAG = placeTag(HERE);

/**
 * Whether a process recorded with this host name and PID namespace can be probed by its id
 * from `here` (processIsAlive): the same host and the same namespace. A namespace not recorded
 * (undefined: written by a version that did not record it) is taken for ours, as it was then.
 * Any other process is as one on another machine: nothing here can tell whether it lives.
 */
export function probeableHere(host: string | null, pidNamespace: string | null | undefined, here: ProcessPlace = HERE): boolean {
  return host === here.host && (pidNamespace === undefined || pidNamespace === here.pidNamespace);
}

/** Whether a process recorded so ran on a host of this name but in another PID namespace (a container): its process id is that namespace's. */
export function inOtherPidNamespace(host: string | null, pidNamespace: string | null | undefined, here: ProcessPlace = HERE): boolean {
  return host === here.host && !probeableHere(host, pidNamespace, here);
}

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
