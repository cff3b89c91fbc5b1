/**
 * A device given as the file to import (or to simulate from) is refused, VALIDATION_ERROR, exit
 * 2, naming it. It was read: /dev/kmsg (or a terminal, /dev/tty) in a read that waits for input
 * that may never come, in a thread of libuv's pool: premia hung, and Ctrl-C said "Stopped" and
 * went on waiting, the process unable to exit past that thread; /dev/zero and /dev/urandom were
 * read as an endless file. Standard input is read with `-` (test/e2e/device-input.test.ts).
 */
import { copyFileSync, existsSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-devices-')));
afterEach(() => cleanup());

const refused = (shown: string, kind = 'character device') =>
  `error: ${shown} is a device (${kind}), not a file: give a CSV file, a named pipe, or - for standard input.\n  (code VALIDATION_ERROR)\n`;

async function outcome(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await runCli(['--db', join(dir, 'p.db'), ...args], { cwd: dir });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** A block device of this machine (a disk, a loop device), or null when /dev shows none. */
function blockDevice(): string | null {
  if (!existsSync('/dev')) return null;
  for (const name of readdirSync('/dev').sort()) {
    try {
      if (statSync(join('/dev', name)).isBlockDevice()) return join('/dev', name);
    } catch {
      // gone, or not ours to look at
    }
  }
  return null;
}

describe.runIf(existsSync('/dev/zero'))('a device given for the file is refused (VALIDATION_ERROR, exit 2), and no store is made', () => {
  it.each([
    ['policies import /dev/zero', ['policies', 'import', '/dev/zero'], '/dev/zero'],
    ['policies import /dev/urandom', ['policies', 'import', '/dev/urandom'], '/dev/urandom'],
    ['bank import /dev/zero', ['bank', 'import', '/dev/zero'], '/dev/zero'],
    ['calendar import /dev/urandom', ['calendar', 'import', '/dev/urandom'], '/dev/urandom'],
    ['policies import /dev/tty', ['policies', 'import', '/dev/tty'], '/dev/tty'],
    ['bank import /dev/null', ['bank', 'import', '/dev/null'], '/dev/null'],
  ])('%s', async (_name, args, shown) => {
    expect(await outcome(args)).toEqual({ code: 2, stdout: '', stderr: refused(shown) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a link to /dev/zero named as a CSV file is named as given', async () => {
    symlinkSync('/dev/zero', join(dir, 'book.csv'));
    expect(await outcome(['policies', 'import', 'book.csv'])).toEqual({ code: 2, stdout: '', stderr: refused('book.csv') });
    expect(readdirSync(dir)).toEqual(['book.csv']);
  });

  it.skipIf(!existsSync('/dev/kmsg'))('/dev/kmsg (whose read waits for the next kernel message)', async () => {
    expect(await outcome(['policies', 'import', '/dev/kmsg'])).toEqual({ code: 2, stdout: '', stderr: refused('/dev/kmsg') });
    expect(readdirSync(dir)).toEqual([]);
  });

  it.skipIf(blockDevice() === null)('a block device (a disk)', async () => {
    const device = blockDevice()!;
    expect(await outcome(['bank', 'import', device])).toEqual({ code: 2, stdout: '', stderr: refused(device, 'block device') });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('simulate --policies and --bank', async () => {
    copyFileSync(join(FIXTURES, 'policies.csv'), join(dir, 'policies.csv'));
    const policies = await runCli(['simulate', '--policies', '/dev/urandom', '--bank', 'none', '--out', 'out'], { cwd: dir });
    expect({ code: policies.code, stderr: policies.stderr }).toEqual({ code: 2, stderr: refused('/dev/urandom') });
    const bank = await runCli(['simulate', '--policies', 'policies.csv', '--bank', '/dev/zero', '--out', 'out'], { cwd: dir });
    expect({ code: bank.code, stderr: bank.stderr }).toEqual({ code: 2, stderr: refused('/dev/zero') });
  });
});
