/**
 * `mkdir -p`: `dir` and its missing parents made one level at a time. Node 20's own
 * `mkdir(dir, { recursive: true })` never returns where a file system answers ENOENT for a new
 * directory under one that exists (/proc: it makes the parent again, and again, for ever), so
 * `simulate --out /proc/sim` or a config directory under /proc spun a core until killed. Here each
 * level is made once, and such a refusal is thrown as the ENOENT it is.
 *
 * As the recursive mkdir: a directory already there is left as it is (and `mode` is not applied
 * to it); a file in the way fails with ENOTDIR (a parent) or EEXIST (`dir` itself).
 */
import { statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

export async function makeDirectories(dir: string, mode?: number): Promise<void> {
  const missing: string[] = [];
  for (let at = resolve(dir); ; ) {
    try {
      const found = await stat(at);
      if (!found.isDirectory()) throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${at}'`), { code: 'EEXIST', path: at });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      missing.push(at);
      const parent = dirname(at);
      if (parent === at) break;
      at = parent;
    }
  }
  for (const at of missing.reverse()) {
    try {
      await mkdir(at, mode === undefined ? undefined : { mode });
    } catch (e) {
      // Made meanwhile by another process: fine when it is a directory.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(at)).isDirectory()) throw e;
    }
  }
}

/**
 * Whether `path` is a directory that is there (false for anything else, or a path that cannot be
 * looked at). Beside an ENOENT for a new file or directory in it, it tells a file system that makes
 * none (/proc: "takes no new files") from a directory that is missing.
 */
export function isDirectoryThere(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
