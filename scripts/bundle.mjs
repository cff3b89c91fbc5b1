#!/usr/bin/env node
/**
 * After `tsc`, bundles made with esbuild, so that a command loads a few files instead of
 * hundreds (every process pays for each file it loads: resolving, reading and compiling it):
 *
 * 1. dist/store/kysely.js (a plain `export * from 'kysely'`) becomes kysely bundled into one ES
 *    module: the CLI then loads one file instead of 279 (about 15 ms instead of 120–160 ms).
 * 2. dist/bundle/: premia's own modules (dist/) bundled from the launcher's entry and the worker
 *    threads' entries, split at every dynamic import (`--help` still loads no SQLite and no HTTP
 *    stack), with node_modules left as they are. bin/premia.js loads it when it is at least as
 *    new as dist/app/premia.js (a `tsc` alone leaves it stale: dist/ is used then). A one-day
 *    advance at 1M policies: about 50 ms less of its ~0.9 s (issue 13). The worker threads and
 *    the account helper start from it; the CLI from it only where the next one cannot be used.
 * 3. dist/bundle/premia.cjs: the CLI as one CommonJS file, and 4. its V8 code cache (below);
 *    3a. and 5. undici as one CommonJS file beside it, with a code cache of its own.
 *
 * The bundle's files sit two levels below the package, as every dist/ module that finds a file
 * of the package by a relative URL (package.json, fixtures/, openapi.yaml) does, and each worker
 * entry sits beside the chunks that start it, under the name dist/ gives it there.
 *
 * When esbuild is not installed (a production install without devDependencies) no bundle is
 * made and dist/ works as compiled, only slower to load.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheFileOf } from '../bin/load-bundle.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'store', 'kysely.js');
if (!existsSync(out)) {
  console.error(`bundle: ${out} is missing; run tsc first`);
  process.exit(1);
}
const require = createRequire(join(root, 'package.json'));
let esbuild;
try {
  esbuild = require('esbuild');
} catch {
  console.warn('bundle: esbuild is not installed; dist/ stays as compiled (kysely re-exported, no dist/bundle)');
  process.exit(0);
}
/**
 * The notice a bundle carries for package `name` (each bundled package is MIT-licensed): its name,
 * version and licence file, as a legal comment, found where require() finds the package from here
 * (node_modules, or hoisted above an install).
 */
function licenceNotice(name) {
  const dir = (require.resolve.paths(name) ?? []).map((base) => join(base, name)).find((d) => existsSync(join(d, 'package.json')));
  if (dir === undefined) throw new Error(`bundle: ${name} is not installed`);
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const file = readdirSync(dir).find((f) => /^licen[cs]e(\.md|\.txt)?$/i.test(f));
  if (file === undefined) throw new Error(`bundle: ${name} has no licence file to carry`);
  const text = readFileSync(join(dir, file), 'utf8').trim().replaceAll('*/', '* /');
  return `/*! ${name} ${version}, bundled for premia by scripts/bundle.mjs\n\n${text}\n*/`;
}
// kysely: the bundle carries its notice.
await esbuild.build({
  banner: { js: licenceNotice('kysely') },
  stdin: { contents: "export * from 'kysely';", resolveDir: root, sourcefile: 'kysely-bundle.js' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outfile: out,
  allowOverwrite: true,
  legalComments: 'inline',
  logLevel: 'warning',
});

// 2. premia's modules. The kysely bundle above is one of them (dist/store/kysely.js).
const bundleDir = join(root, 'dist', 'bundle');
rmSync(bundleDir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: {
    premia: join(root, 'dist', 'app', 'premia.js'),
    'account-helper-worker': join(root, 'dist', 'backend', 'local', 'account-helper-worker.js'),
    'policy-import-worker': join(root, 'dist', 'backend', 'local', 'policy-import-worker.js'),
    'job-worker': join(root, 'dist', 'server', 'job-worker.js'),
    'day-writer': join(root, 'dist', 'store', 'day-writer.js'),
    'report-reader': join(root, 'dist', 'store', 'report-reader.js'),
  },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  outdir: bundleDir,
  chunkNames: 'chunk-[hash]',
  legalComments: 'inline',
  logLevel: 'warning',
});

// 3. The CLI as one CommonJS file (dist/bundle/premia.cjs), which bin/premia.js loads with a V8
//    code cache (bin/load-bundle.js): Node 20 caches no compiled ES modules, and a process spent
//    ~50 ms compiling premia again (issue 13: a light day of the 1M book lived alone 596 → 550 ms).
//    premia's own dynamic imports become lazily run parts of the file, its dependencies'
//    require()s (an ES module dependency is required: Node 20.19+). Its first line is the build's
//    id, which the cache carries too. The worker threads keep the ES module bundle above.
//
//    An ES module dependency is reached through a small ES module of the bundle that re-exports it
//    (esmPackages): esbuild gives a dist/ module (an ES module of a "type": "module" package) what
//    Node gives an ES module importing CommonJS, the whole of module.exports as `default`, and a
//    required ES module's exports object would be taken for that (ora's default export was the
//    namespace: `ora is not a function`). From a module outside the package, esbuild takes the
//    default export of an ES module as an ES module's.
//
//    The dependencies every command loads (INSIDE) are carried inside the file instead, under its
//    code cache: required from node_modules, commander, chalk and decimal.js took ~19 ms of each
//    process's start (resolved, read and compiled file by file; chalk as an ES module). Their
//    licence notices go to premia.cjs.LEGAL.txt with kysely's (below). The others stay in
//    node_modules: better-sqlite3 finds its native module from its own files' place, and what
//    only some commands load (csv, the prompts, the server, PostgreSQL's client) would only make
//    every command's file larger.
const INSIDE = ['commander', 'chalk', 'decimal.js'];
const esmPackages = {
  name: 'esm-packages',
  setup(build) {
    const isEsm = new Map();
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.namespace === 'esm-package') return { path: args.path, external: true };
      // A bundled package's own imports (chalk's `#ansi-styles`) are esbuild's to resolve.
      if (INSIDE.some((name) => args.importer.includes(`${sep}node_modules${sep}${name}${sep}`))) return undefined;
      const name = args.path.split('/').slice(0, args.path.startsWith('@') ? 2 : 1).join('/');
      if (name.startsWith('node:')) return undefined;
      if (INSIDE.includes(name)) return undefined;
      if (!isEsm.has(name)) isEsm.set(name, esmOnly(name));
      return isEsm.get(name) ? { path: args.path, namespace: 'esm-package' } : { path: args.path, external: true };
    });
    build.onLoad({ filter: /./, namespace: 'esm-package' }, (args) => {
      const spec = JSON.stringify(args.path);
      return { contents: `export * from ${spec};\nexport { default } from ${spec};\n`, loader: 'js' };
    });
  },
};
/**
 * Whether require() of package `name` loads an ES module: the file it resolves to is .mjs, or .js
 * under a package.json (the nearest) whose "type" is "module".
 */
function esmOnly(name) {
  let file;
  try {
    file = require.resolve(name);
  } catch {
    return false; // not installed or not for require(): esbuild leaves it to fail as it would
  }
  if (file.endsWith('.mjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).type === 'module';
    if (dirname(dir) === dir) return false;
  }
}
// 3a. undici, remote mode's HTTP client, as one CommonJS file beside the CLI's
//     (dist/bundle/undici.cjs), loaded only when a command talks to a service, with a code cache of
//     its own (5 below). From node_modules a remote command resolved, read and compiled undici's
//     ~110 files as it started: remote `clock` against a local service, median 0.615 → 0.54 s
//     (2026-12-02, eight runs each, alternated). Carried inside premia.cjs instead, every local
//     command read and parsed it too (0.25 → 0.28 s: tried and dropped). undici is MIT-licensed:
//     the bundle carries its notice.
const undiciBundle = join(bundleDir, 'undici.cjs');
await esbuild.build({
  stdin: { contents: "module.exports = require('undici');", resolveDir: root, sourcefile: 'undici-bundle.cjs', loader: 'js' },
  // The first line is the build's id, which its code cache carries too (bin/load-bundle.js).
  banner: { js: `// premia build ${randomBytes(12).toString('hex')} (undici)\n${licenceNotice('undici')}` },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outfile: undiciBundle,
  legalComments: 'inline',
  logLevel: 'warning',
});
/** In premia.cjs, `undici` is that file, loaded with its code cache by the launcher's loader. */
const undiciFromBundle = {
  name: 'undici-bundle',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', namespace: 'undici-bundle' }));
    build.onLoad({ filter: /./, namespace: 'undici-bundle' }, () => ({
      contents: "module.exports = require('../../bin/load-bundle.js').loadBundle(require('node:path').join(__dirname, 'undici.cjs')).exports;",
      loader: 'js',
    }));
    // The loader bin/premia.js already runs (an ES module, required: Node 20.19+), not a copy.
    build.onResolve({ filter: /^\.\.\/\.\.\/bin\/load-bundle\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};

const common = join(bundleDir, 'premia.cjs');
const buildId = `// premia build ${randomBytes(12).toString('hex')}`;
await esbuild.build({
  entryPoints: [join(root, 'dist', 'app', 'premia.js')],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__premiaBundleUrl' },
  banner: { js: `${buildId}\n'use strict';\nconst __premiaBundleUrl = require('node:url').pathToFileURL(__filename).href;` },
  plugins: [undiciFromBundle, esmPackages],
  outfile: common,
  // Without the whitespace and the comments esbuild keeps (some hold characters beyond ASCII,
  // which made V8 keep the whole 1.7 MB source as two-byte text), every command reads and takes
  // in a 1.2 MB ASCII file: `clock show` median 0.254 → 0.241 s (twenty runs each, alternated,
  // 2026-12-02). Names stay as written (no identifier minification). The licence notices of what
  // it bundles (kysely's) go to premia.cjs.LEGAL.txt beside it, shipped with dist/.
  minifyWhitespace: true,
  legalComments: 'external',
  logLevel: 'warning',
});
// The packages carried inside (INSIDE): their notices after kysely's.
for (const name of INSIDE) appendFileSync(`${common}.LEGAL.txt`, `\n${licenceNotice(name)}\n`);

// 4. Its code cache: what V8 compiled during a simulated month of the shipped fixtures on a file
//    store (import, collections run, the engine's days, reports, statement), written by that run
//    as it exits. A failed run leaves no cache (premia then compiles as it starts, as before).
// 5. undici's: what V8 compiled for requests to a service (a local HTTP server), as remote mode
//    makes them.
for (const [bundle, ...args] of [[common], [undiciBundle, '--http']]) {
  const warm = spawnSync(process.execPath, [join(root, 'scripts', 'code-cache.mjs'), ...args, bundle], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (warm.status !== 0) {
    rmSync(cacheFileOf(bundle), { force: true });
    console.warn(`bundle: no code cache for ${bundle} (the warm-up run failed: ${warm.stderr.trim().split('\n').slice(-3).join(' ') || `exit ${warm.status}`})`);
  }
}
