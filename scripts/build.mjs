#!/usr/bin/env node
/**
 * `npm run build`: `tsc`, then the bundles and their code caches (scripts/bundle.mjs), then a
 * stamp (dist/.build-inputs) naming what was built from: a digest of every file under src/,
 * bin/ and scripts/, of tsconfig.json, package.json and package-lock.json (the bundles take
 * kysely and undici from node_modules), and of the Node version (the code caches are V8's).
 *
 * `--if-stale` (what `npm test` and the other scripts that need a build run) builds only when the
 * stamp differs from those inputs now, or a file the build makes is missing: `npm ci` builds
 * premia (`prepare`) and CI's `npm test` then built it again, ~8 s of the suite's 150 s. A
 * stamp is written only after a build that succeeded, so a failed or interrupted build is made
 * again next time.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join('dist', '.build-inputs');
const INPUT_DIRS = ['src', 'bin', 'scripts'];
const INPUT_FILES = ['tsconfig.json', 'package.json', 'package-lock.json'];
/** Files every build makes (bin/premia.js runs from dist/app, or from the bundle beside it). */
const OUTPUTS = [join('dist', 'app', 'premia.js'), join('dist', 'store', 'kysely.js')];

function filesUnder(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** The digest of what a build of `root` is made from (its paths and their bytes, and Node's version). */
export function inputsDigest(root) {
  const hash = createHash('sha256').update(`node ${process.version} ${process.arch}\0`);
  const files = [];
  for (const dir of INPUT_DIRS) if (existsSync(join(root, dir))) files.push(...filesUnder(join(root, dir)));
  for (const file of INPUT_FILES) if (existsSync(join(root, file))) files.push(join(root, file));
  for (const path of files.map((f) => relative(root, f)).sort()) {
    const bytes = readFileSync(join(root, path));
    hash.update(`${path}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest('hex');
}

/** Whether `root` needs a build: no stamp, a stamp of other inputs, or a file the build makes missing. */
export function isStale(root) {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp) || OUTPUTS.some((f) => !existsSync(join(root, f)))) return true;
  return readFileSync(stamp, 'utf8').trim() !== inputsDigest(root);
}

function run(args) {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  if (!ifStale || isStale(ROOT)) {
    const digest = inputsDigest(ROOT);
    rmSync(join(ROOT, STAMP), { force: true });
    const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
    run([tsc, '-p', 'tsconfig.json']);
    run([join(ROOT, 'scripts', 'bundle.mjs')]);
    writeFileSync(join(ROOT, STAMP), `${digest}\n`);
  }
}
