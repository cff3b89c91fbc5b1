/**
 * A named pipe (FIFO) given as the file to import. Opened as a file, its open waited for a writer
 * in a thread of libuv's pool, which a process cannot exit past: Ctrl-C before any writer came
 * said "Stopped" and premia went on waiting, until a second Ctrl-C killed it. premia now opens it
 * without waiting and reads it as a socket: after Ctrl-C it holds the pipe no more, and a writer
 * that comes later is read as a file.
 */
import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { closeSync, constants, openSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-fifo-')));
afterEach(() => cleanup());

/** Whether some process has `fifo` open for reading, or waits to (a writer's open that does not wait then succeeds). */
function hasReader(fifo: string): boolean {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENXIO') return false;
    throw e;
  }
}

/** Whether this process (premia runs in it) holds `fifo` open: seen in /proc, without connecting to it as a writer would. */
function holding(fifo: string): boolean {
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === fifo;
    } catch {
      return false;
    }
  });
}

describe.runIf(process.platform === 'linux')('a named pipe as the file to import', () => {
  it('Ctrl-C before any writer came: exit 130, nothing stored, and the pipe is let go', async () => {
    const fifo = join(dir, 'book.csv');
    execFileSync('mkfifo', [fifo]);
    const signals = new EventEmitter();
    const run = runCli(['--db', join(dir, 'p.db'), 'policies', 'import', 'book.csv'], { cwd: dir, signals });
    // Once the import listens for Ctrl-C (the command's handler is on), press it.
    while (signals.listenerCount('SIGINT') === 0) await new Promise((r) => setTimeout(r, 10));
    signals.emit('SIGINT');
    expect(await run).toMatchObject({ code: 130, stdout: '', stderr: 'Stopped by Ctrl-C: nothing was imported (the import was rolled back whole).\n' });
    // No open left waiting for a writer (which the process could not exit past).
    expect(hasReader(fifo)).toBe(false);
  });

  it('a writer that comes after premia opened the pipe is read as a file', async () => {
    const fifo = join(dir, 'bank.csv');
    execFileSync('mkfifo', [fifo]);
    const run = runCli(['--json', '--db', join(dir, 'p.db'), 'bank', 'import', 'bank.csv'], { cwd: dir });
    // A writer's open and close to find out would end the pipe before the rows come: /proc says.
    while (!holding(fifo)) await new Promise((r) => setTimeout(r, 10));
    writeFileSync(fifo, 'customer_id,date,amount,description\nC1,2099-01-01,100.00,SALARY\n');
    expect(await run).toMatchObject({ code: 0, stdout: '{"imported":1,"failed":0,"errors":[]}\n', stderr: '' });
  });
});
