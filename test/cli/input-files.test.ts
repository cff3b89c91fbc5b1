/**
 * An input file the command cannot read (imports of policies, bank transactions and holidays):
 * VALIDATION_ERROR, exit 2, a message naming the file and why, no store made or changed, never
 * a crash. Permission is simulated (the suite may run as root, who reads every file): the open
 * of a file named `unreadable.csv` fails as it does for a user without read permission.
 */
import { copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers/cli.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof actual.open = (path, ...rest) =>
    String(path).endsWith('unreadable.csv')
      ? Promise.reject(Object.assign(new Error(`EACCES: permission denied, open '${String(path)}'`), { code: 'EACCES', errno: -13, syscall: 'open' }))
      : actual.open(path, ...rest);
  return { ...actual, default: { ...actual, open }, open };
});
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const { Readable } = await import('node:stream');
  // The stream opens the file itself: for `unreadable.csv` it fails as the open above does; a
  // file named `fails-midway.csv` gives its first 4000 bytes, then fails as a failing disk does.
  const createReadStream: typeof actual.createReadStream = (path, options) => {
    if (String(path).endsWith('fails-midway.csv')) {
      const head = actual.readFileSync(path).subarray(0, 4000);
      const eio = Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', errno: -5, syscall: 'read' });
      return Readable.from(
        (async function* () {
          yield head;
          throw eio;
        })(),
      ) as unknown as ReturnType<typeof actual.createReadStream>;
    }
    return actual.createReadStream(String(path).endsWith('unreadable.csv') ? join(String(path), 'no-such-file') : path, options);
  };
  return { ...actual, default: { ...actual, createReadStream }, createReadStream };
});

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-input-')));
afterEach(() => cleanup());

async function outcome(args: string[]): Promise<{ exit: number; stdout: string; error: unknown }> {
  const r = await runCli(['--json', '--db', join(dir, 'p.db'), ...args], { cwd: dir });
  return { exit: r.code, stdout: r.stdout, error: r.stderr === '' ? null : JSON.parse(r.stderr) };
}

const body = (message: string) => ({ error: { code: 'VALIDATION_ERROR', message, request_id: null } });

describe('an input file that cannot be read is exit 2 with the reason, and no store is made', () => {
  beforeEach(() => {
    copyFileSync(join(FIXTURES, 'policies.csv'), join(dir, 'policies.csv'));
    copyFileSync(join(FIXTURES, 'policies.csv'), join(dir, 'unreadable.csv'));
    symlinkSync('loop-b.csv', join(dir, 'loop-a.csv'));
    symlinkSync('loop-a.csv', join(dir, 'loop-b.csv'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'note.txt'), 'not a directory\n');
  });

  it.each<[string, string[], string]>([
    ['policies import, no read permission', ['policies', 'import', 'unreadable.csv'], 'Cannot read unreadable.csv: permission denied.'],
    ['bank import, no read permission', ['bank', 'import', 'unreadable.csv'], 'Cannot read unreadable.csv: permission denied.'],
    ['calendar import, no read permission', ['calendar', 'import', 'unreadable.csv'], 'Cannot read unreadable.csv: permission denied.'],
    [
      'a path through a file',
      ['policies', 'import', 'policies.csv/x.csv'],
      'Cannot read policies.csv/x.csv: a part of the path before the file name is not a directory.',
    ],
    ['a path through a file, deeper', ['bank', 'import', 'sub/note.txt/bank.csv'], 'Cannot read sub/note.txt/bank.csv: a part of the path before the file name is not a directory.'],
    ['a loop of symbolic links', ['policies', 'import', 'loop-a.csv'], 'Cannot read loop-a.csv: it is a loop of symbolic links.'],
    // A name over the system's limit failed "unexpectedly" (ENAMETOOLONG, exit 1), the whole path in the message.
    [
      'a file name too long',
      ['calendar', 'import', `${'a'.repeat(300)}.csv`],
      `Cannot read ${'a'.repeat(200)}…: the path is too long (a name of more than 255 bytes, or a path of more than 4096).`,
    ],
    [
      'a path too long',
      ['bank', 'import', `${'d/'.repeat(2100)}bank.csv`],
      `Cannot read ${'d/'.repeat(100)}…: the path is too long (a name of more than 255 bytes, or a path of more than 4096).`,
    ],
  ])('%s', async (_name, args, message) => {
    expect(await outcome(args)).toEqual({ exit: 2, stdout: '', error: body(message) });
    expect(existsSync(join(dir, 'p.db'))).toBe(false);
  });

  // A read that failed once the file was open was "premia failed unexpectedly: EIO: i/o error, read" (exit 1).
  it.each([
    ['policies', 'import'],
    ['bank', 'import'],
  ])('%s %s: a read that fails partway (a failing disk) is exit 2 naming the file, and nothing is stored', async (...command) => {
    copyFileSync(join(FIXTURES, command[0] === 'bank' ? 'bank-transactions.csv' : 'policies.csv'), join(dir, 'fails-midway.csv'));
    const message = 'Cannot read fails-midway.csv: reading it failed (EIO: i/o error, read). Nothing was imported.';
    expect(await outcome([...command, 'fails-midway.csv'])).toEqual({ exit: 2, stdout: '', error: body(message) });
    expect(existsSync(join(dir, 'p.db'))).toBe(false);
  });

  it.skipIf(!existsSync('/proc/self/mem'))('a file of the kernel whose read fails (/proc/self/mem: EIO) is exit 2 naming it', async () => {
    const message = 'Cannot read /proc/self/mem: reading it failed (EIO: i/o error, read). Nothing was imported.';
    expect(await outcome(['policies', 'import', '/proc/self/mem'])).toEqual({ exit: 2, stdout: '', error: body(message) });
    expect(existsSync(join(dir, 'p.db'))).toBe(false);
  });

  it('a readable file beside them still imports', async () => {
    expect(await outcome(['policies', 'import', 'policies.csv'])).toEqual({ exit: 0, stdout: '{"imported":520,"failed":0,"errors":[]}\n', error: null });
  });
});

// A workbook or a compressed file given for its CSV was refused as "not UTF-8 text (a legacy
// encoding such as Windows-1252 ...); save it as UTF-8": an encoding to fix, which it is not.
describe('a workbook, archive or PDF given for a CSV is named as what it is (INVALID_FILE, exit 2)', () => {
  const files: Array<[string, number[], string]> = [
    ['book.xlsx', [0x50, 0x4b, 0x03, 0x04, 0x14, 0x00], 'a ZIP archive (such as an Excel .xlsx or OpenDocument .ods workbook), not CSV text; save the sheet as "CSV UTF-8" (comma-separated)'],
    ['book.xls', [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0x00], 'an old Excel workbook (.xls), not CSV text; save the sheet as "CSV UTF-8" (comma-separated)'],
    ['policies.csv.gz', [0x1f, 0x8b, 0x08, 0x00], 'compressed with gzip, not CSV text; decompress it first (gunzip)'],
    ['statement.pdf', [...Buffer.from('%PDF-1.7\n')], 'a PDF document, not CSV text'],
    ['premia.db', [...Buffer.from('SQLite format 3\0')], 'an SQLite database (such as a premia store), not CSV text; give the CSV file'],
    ['scan.png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG image, not CSV text'],
  ];
  it.each<[string[], string]>([
    [['policies', 'import'], 'a policy CSV file'],
    [['bank', 'import'], 'a bank transactions CSV file'],
    [['calendar', 'import'], 'a holiday CSV file'],
  ])('%j', async (command, what) => {
    expect((await outcome(['clock', 'set', '2026-10-31'])).exit).toBe(0); // calendar import needs a store
    for (const [name, bytes, is] of files) {
      writeFileSync(join(dir, name), Buffer.from([...bytes, ...Buffer.from('rest of the file\n')]));
      const reason = `line 1: the file is ${is}`;
      expect(await outcome([...command, name])).toEqual({
        exit: 2,
        stdout: '',
        error: { error: { code: 'INVALID_FILE', message: `${name} is not ${what}: ${reason}. Nothing was imported.`, request_id: null, details: [{ field: 'file', code: 'INVALID_FILE', message: reason }] } },
      });
    }
  });
});
