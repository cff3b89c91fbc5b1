/**
 * The files `premia simulate` wrote, recorded beside them (<out>/<period>/.premia-simulate.json:
 * each file's name with the SHA-256 of what was written), so that a rerun replaces its own files
 * and never one it did not write or that was changed since: a real month's report kept under the
 * same name in that folder stays as it is, and the simulation does not start.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { conflict } from '../../../domain/errors.js';

const MANIFEST = '.premia-simulate.json';

/** The names of the files simulate writes for a period (its report, attempts, statements and page). */
const OUTPUT_NAME = /^(?:(?:collections|attempts)-\d{4}-\d{2}\.csv|summary-\d{4}-\d{2}\.html|SETTLE-[\w-]+\.csv)$/;

type Manifest = Record<string, string>;

async function readManifest(dir: string): Promise<Manifest> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
    }
  } catch {
    // None yet (or unreadable): no file of the folder is known to be simulate's.
  }
  return {};
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Files in `dir` named as simulate's outputs that simulate did not write, or that changed since it did. */
async function foreignFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => !e.isDirectory() && OUTPUT_NAME.test(e.name)).map((e) => e.name);
  } catch {
    return []; // no folder yet: nothing to keep
  }
  if (names.length === 0) return [];
  const own = await readManifest(dir);
  const foreign: string[] = [];
  for (const name of names.sort()) {
    let bytes: Buffer | null = null;
    try {
      bytes = await readFile(join(dir, name));
    } catch {
      // unreadable: not known to be simulate's
    }
    if (bytes === null || own[name] !== sha256(bytes)) foreign.push(name);
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
    if (foreign.length === 0) continue;
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
