/**
 * The files `premia simulate` wrote, recorded beside them (<out>/<period>/.premia-simulate.json:
 * each file's name with the SHA-256 of what was written), so that a rerun replaces its own files
 * and never one it did not write or that was changed since: a real month's report kept under the
 * same name in that folder stays as it is, and the simulation does not start.
 */
import { createHash } from 'node:crypto';
import { createReadStream, type Dirent } from 'node:fs';
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { conflict } from '../../../domain/errors.js';
import { isWriteProtected } from '../../../lib/write-protected.js';
import { readSmallFile } from '../../../lib/small-file.js';

const MANIFEST = '.premia-simulate.json';

/** The names of the files simulate writes for a period (its report, attempts, statements and page). */
const OUTPUT_NAME = /^(?:(?:collections|attempts)-\d{4}-\d{2}\.csv|summary-\d{4}-\d{2}\.html|SETTLE-[\w-]+\.csv)$/;

type Manifest = Record<string, string>;

/** The most the manifest may hold: a few names and hashes take a few hundred bytes. */
const MAX_MANIFEST_BYTES = 1 << 20;

/**
 * The manifest's text, when it is a regular file of at most MAX_MANIFEST_BYTES, else null. A
 * FIFO of its name held simulate, silent, waiting for a writer (opened non-blocking now), and a
 * link to /dev/zero was read until memory ran out.
 */
async function readManifestText(path: string): Promise<string | null> {
  const read = await readSmallFile(path, MAX_MANIFEST_BYTES);
  return 'text' in read ? read.text : null;
}

async function readManifest(dir: string): Promise<Manifest> {
  try {
    const text = await readManifestText(join(dir, MANIFEST));
    if (text === null) return {};
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
    }
  } catch {
    // None yet (or unreadable): no file of the folder is known to be simulate's.
  }
  return {};
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The SHA-256 of a file, read as a stream (a file of any size in bounded memory). */
async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Files in `dir` named as simulate's outputs that simulate did not write, or that changed since it did. */
async function foreignFiles(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = (await readdir(dir, { withFileTypes: true })).filter((e) => !e.isDirectory() && OUTPUT_NAME.test(e.name));
  } catch {
    return []; // no folder yet: nothing to keep
  }
  if (entries.length === 0) return [];
  const own = await readManifest(dir);
  const foreign: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    // Simulate writes regular files only: anything else of an output's name (a link, a FIFO, a
    // device) is not its own, and is not read (a link to /dev/zero was read until memory ran
    // out, a FIFO waited for a writer).
    let hash: string | null = null;
    if (entry.isFile()) {
      try {
        hash = await sha256OfFile(join(dir, entry.name));
      } catch {
        // unreadable: not known to be simulate's
      }
    }
    if (hash === null || own[entry.name] !== hash) foreign.push(entry.name);
  }
  return foreign;
}

/**
 * Refuse (CONFLICT, exit 6) before anything runs when one of the period folders under `outDir`
 * holds a file of an output's name that simulate did not write there.
 */
export async function refuseForeignOutputs(outDir: string, periods: readonly string[], cwd: string): Promise<void> {
  for (const period of periods) {
    const dir = join(outDir, period);
    const foreign = await foreignFiles(dir);
    if (foreign.length === 0) {
      await refuseWriteProtected(dir, period, cwd);
      continue;
    }
    const shown = foreign.slice(0, 3).map((n) => relative(cwd, join(dir, n)) || join(dir, n));
    const more = foreign.length > 3 ? ` and ${foreign.length - 3} more` : '';
    const [them, they, are] = foreign.length === 1 ? ['it', 'it', 'is'] : ['them', 'they', 'are'];
    throw conflict(
      'CONFLICT',
      `premia simulate writes ${period}'s files into ${relative(cwd, dir) || dir}, which holds ${shown.join(', ')}${more}: premia simulate did not write ${them} ` +
        `there (or ${they} changed since), so ${they} ${are} left as ${they} ${are} and nothing was run. Move ${them} away, or give another --out.`,
    );
  }
}

/** Record `name` in `dir` as written by simulate (its bytes as they are now). */
export async function recordOwnFile(dir: string, name: string): Promise<void> {
  const own = await readManifest(dir);
  own[name] = sha256(await readFile(join(dir, name)));
  const temp = join(dir, `${MANIFEST}.${process.pid}.tmp`);
  await writeFile(temp, `${JSON.stringify(own, null, 2)}\n`);
  await rename(temp, join(dir, MANIFEST));
}

/**
 * Refuse (CONFLICT, exit 6) before anything runs when one of simulate's own files in `dir` is
 * write-protected (`chmod a-w` to keep it): an output is never written over such a file, and
 * found only once the months had been lived, the run would stop halfway.
 */
async function refuseWriteProtected(dir: string, period: string, cwd: string): Promise<void> {
  let entries: Dirent[];
  try {
    entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile() && OUTPUT_NAME.test(e.name));
  } catch {
    return;
  }
  const shut: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (await isWriteProtected(path, (await stat(path)).mode)) shut.push(relative(cwd, path) || path);
  }
  if (shut.length === 0) return;
  const [them, is] = shut.length === 1 ? ['it', 'is'] : ['them', 'are'];
  throw conflict(
    'CONFLICT',
    `premia simulate writes ${period}'s files into ${relative(cwd, dir) || dir}, where ${shut.join(', ')} ${is} write-protected: simulate does not replace ${them}, ` +
      `so nothing was run. Make ${them} writable (chmod u+w), move ${them} away, or give another --out.`,
  );
}
