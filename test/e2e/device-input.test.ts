/**
 * Standard input and devices, through the built launcher (a process of its own, whose stdin the
 * test chooses). /dev/stdin and /dev/fd/0 are read when they are a pipe or a file, and refused
 * when they are a device (test/cli/input-devices.test.ts refuses devices named outright); `-`
 * reads stdin whatever it is. Node reads stdin from a device in a thread of libuv's pool, where a
 * read of /dev/kmsg waits for the next kernel message: Ctrl-C then said "Stopped by Ctrl-C" and the
 * process went on waiting for that thread in process.exit(), until a second Ctrl-C killed it (as
 * process 1 of a PID namespace, SIGTERM did not end it at all). Each signal comes once premia
 * listens for it and its read of stdin waits in the kernel (/proc shows both), so nothing depends
 * on timing.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, copyFileSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { BIN } from './spawn.js';

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir('premia-device-input-')));
afterAll(() => cleanup());

const children: ChildProcess[] = [];
afterEach(() => {
  while (children.length > 0) children.pop()!.kill('SIGKILL');
});

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Standard input from /dev/kmsg, from its end. */
const KMSG = Symbol('/dev/kmsg');

/** Python that runs its arguments as a command whose stdin is /dev/kmsg read from its end (Node has no lseek): its read waits for the next kernel message. */
const KMSG_FROM_ITS_END = 'import os, sys\nfd = os.open("/dev/kmsg", os.O_RDONLY)\nos.lseek(fd, 0, os.SEEK_END)\nos.dup2(fd, 0)\nos.execvp(sys.argv[1], sys.argv[1:])';

/**
 * `node BIN args` (through `unshare` as process 1 of a PID namespace, with `pid1`), its stdin
 * `stdin`: a descriptor, text through a pipe (cat's: what Node gives a child for stdin is a
 * socket, refused by name as one), or /dev/kmsg from its end (KMSG).
 */
function premia(args: string[], stdin: number | string | typeof KMSG, pid1 = false) {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  let command = [process.execPath, BIN, ...args];
  if (pid1) command = ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc', ...command];
  if (stdin === KMSG) command = ['python3', '-c', KMSG_FROM_ITS_END, ...command];
  else if (typeof stdin === 'string') command = ['sh', '-c', 'cat | "$@"', 'sh', ...command];
  const child = spawn(command[0]!, command.slice(1), { cwd: dir, env, stdio: [typeof stdin === 'number' ? stdin : 'pipe', 'pipe', 'pipe'] });
  children.push(child);
  if (typeof stdin === 'string') child.stdin!.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const ended = new Promise<Ended>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, ended };
}

/** The id of premia's node under `unshare` (its one child), or 0 before it is there. */
function underUnshare(child: ChildProcess): number {
  try {
    const ids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return ids.length === 1 ? Number(ids[0]) : 0;
  } catch {
    return 0; // unshare gone (the test then fails on how it ended)
  }
}

/** The read(2) system call's number on this machine, as /proc/PID/task/TID/syscall shows it. */
const READ = ({ x64: 0, arm64: 63 } as Record<string, number>)[process.arch];

/** Whether process `pid` listens for SIGINT and one of its threads waits in a read of its stdin. */
function listensAndReadsStdin(pid: number): boolean {
  try {
    const caught = BigInt(`0x${/^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]}`);
    if ((caught & 2n) === 0n) return false; // bit 1: signal 2, SIGINT
    return readdirSync(`/proc/${pid}/task`).some((tid) => readFileSync(`/proc/${pid}/task/${tid}/syscall`, 'utf8').startsWith(`${READ} 0x0 `));
  } catch {
    return false; // not started yet, or a thread gone meanwhile
  }
}

/** Wait until `pid()` listens for SIGINT and waits in a read of its stdin (or `child` ended: the test then fails on how). */
async function untilReadingStdin(child: ChildProcess, pid: () => number): Promise<void> {
  while (child.exitCode === null && child.signalCode === null && !listensAndReadsStdin(pid())) await new Promise((r) => setTimeout(r, 20));
}

/** Whether /dev/kmsg can be read here and its read then waits for the next message (not as a user barred from the kernel's log). */
function kmsgWaits(): boolean {
  let fd: number;
  try {
    fd = openSync('/dev/kmsg', constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const buffer = Buffer.alloc(16384);
    for (let i = 0; i < 1_000_000; i++) {
      try {
        readSync(fd, buffer);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EPIPE') continue; // messages overwritten meanwhile
        return (e as NodeJS.ErrnoException).code === 'EAGAIN';
      }
    }
    return false;
  } finally {
    closeSync(fd);
  }
}

const canWaitOnKmsg = process.platform === 'linux' && READ !== undefined && kmsgWaits() && spawnSync('python3', ['-c', '']).status === 0;
const ownPidNamespace =
  canWaitOnKmsg &&
  process.getuid?.() === 0 &&
  spawnSync('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', process.execPath, '-e', 'process.exit(process.pid === 1 ? 0 : 1)']).status === 0;

const BANK = readFileSync(join(FIXTURES, 'bank-transactions.csv'), 'utf8');
const IMPORTED_BANK = `Imported ${BANK.trim().split('\n').length - 1} transactions; 0 rows failed.\n`;

describe.runIf(process.platform === 'linux')('/dev/stdin and /dev/fd/0 given as the file', () => {
  it('a pipe is read', async () => {
    const { ended } = premia(['--db', join(dir, 'pipe.db'), 'bank', 'import', '/dev/stdin'], BANK);
    expect(await ended).toEqual({ code: 0, signal: null, stdout: IMPORTED_BANK, stderr: '' });
  });

  it('a file is read', async () => {
    copyFileSync(join(FIXTURES, 'bank-transactions.csv'), join(dir, 'bank.csv'));
    const fd = openSync(join(dir, 'bank.csv'), 'r');
    try {
      const { ended } = premia(['--db', join(dir, 'file.db'), 'bank', 'import', '/dev/fd/0'], fd);
      expect(await ended).toEqual({ code: 0, signal: null, stdout: IMPORTED_BANK, stderr: '' });
    } finally {
      closeSync(fd);
    }
  });

  it('a device (/dev/zero) is refused as one, nothing imported; `-` reads it (and refuses its bytes)', async () => {
    const fd = openSync('/dev/zero', 'r');
    try {
      const named = premia(['--db', join(dir, 'zero.db'), 'policies', 'import', '/dev/stdin'], fd);
      expect(await named.ended).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr: 'error: /dev/stdin is a device (character device), not a file: give a CSV file, a named pipe, or - for standard input.\n  (code VALIDATION_ERROR)\n',
      });
      const dash = premia(['--db', join(dir, 'zero.db'), 'policies', 'import', '-'], fd);
      expect(await dash.ended).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr: 'error: stdin is not a policy CSV file: line 1: the file contains NUL bytes; it is binary, not CSV text. Nothing was imported.\n  (code INVALID_FILE)\n',
      });
    } finally {
      closeSync(fd);
    }
  });
});

describe.skipIf(!canWaitOnKmsg)(`stdin from /dev/kmsg, a read that waits for the next kernel message${canWaitOnKmsg ? '' : ' (skipped: /dev/kmsg unreadable here)'}`, () => {
  const STOPPED = 'Stopped by Ctrl-C: nothing was imported (the import was rolled back whole).\n';

  it('`policies import -`: Ctrl-C ends it, its stop said, exit 130', async () => {
    const { child, ended } = premia(['--db', join(dir, 'kmsg.db'), 'policies', 'import', '-'], KMSG);
    await untilReadingStdin(child, () => child.pid!);
    child.kill('SIGINT');
    expect(await ended).toEqual({ code: 130, signal: null, stdout: '', stderr: STOPPED });
  });

  it.skipIf(!ownPidNamespace)('as process 1 of a PID namespace: SIGTERM ends it, exit 143', async () => {
    const { child, ended } = premia(['--db', join(dir, 'kmsg-pid1.db'), 'policies', 'import', '-'], KMSG, true);
    await untilReadingStdin(child, () => underUnshare(child));
    process.kill(underUnshare(child), 'SIGTERM');
    expect(await ended).toEqual({ code: 143, signal: null, stdout: '', stderr: '' });
  });
});
