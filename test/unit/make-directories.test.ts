/**
 * makeDirectories (`mkdir -p`, src/lib/make-directories.ts): what Node's recursive mkdir does,
 * without its endless loop where a file system refuses a new directory with ENOENT (/proc).
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isDirectoryThere, makeDirectories } from '../../src/lib/make-directories.js';
import { tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-mkdirs-')));
afterEach(() => cleanup());

const codeOf = async (p: Promise<unknown>) => p.then(() => 'made', (e: NodeJS.ErrnoException) => e.code);

describe('makeDirectories', () => {
  it('makes the directory and its missing parents, with the mode given; one already there is left as it is', async () => {
    mkdirSync(join(dir, 'a'), { mode: 0o755 });
    await makeDirectories(join(dir, 'a', 'b', 'c'), 0o700);
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual(['c']);
    expect([statSync(join(dir, 'a')).mode & 0o777, statSync(join(dir, 'a', 'b')).mode & 0o777, statSync(join(dir, 'a', 'b', 'c')).mode & 0o777]).toEqual([0o755, 0o700, 0o700]);
    await makeDirectories(join(dir, 'a', 'b', 'c'));
    await makeDirectories(`${dir}/a//b/./c/`);
    expect(readdirSync(join(dir, 'a', 'b', 'c'))).toEqual([]);
  });

  it('a file in the way: ENOTDIR for a parent, EEXIST for the directory itself, nothing made', async () => {
    writeFileSync(join(dir, 'f'), 'x');
    expect(await codeOf(makeDirectories(join(dir, 'f', 'sub', 'deeper')))).toBe('ENOTDIR');
    expect(await codeOf(makeDirectories(join(dir, 'f')))).toBe('EEXIST');
    expect(readdirSync(dir)).toEqual(['f']);
  });

  // Node 20's mkdir(…, { recursive: true }) never settles here.
  it.skipIf(!existsSync('/proc/self'))('under /proc, which makes no directories: ENOENT, once', async () => {
    expect(await codeOf(makeDirectories(`/proc/premia-${process.pid}/a/b`))).toBe('ENOENT');
  });

  it('isDirectoryThere: a directory, and nothing else (a file, a missing path, one too long to look at)', () => {
    writeFileSync(join(dir, 'f'), 'x');
    expect([isDirectoryThere(dir), isDirectoryThere(join(dir, 'f')), isDirectoryThere(join(dir, 'missing')), isDirectoryThere(join(dir, 'x'.repeat(300)))]).toEqual([true, false, false, false]);
  });
});
