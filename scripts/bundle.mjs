#!/usr/bin/env node
/**
 * After `tsc`, two bundles made with esbuild, so that a command loads a few files instead of
 * hundreds (every process pays for each file it loads: resolving, reading and compiling it):
 *
 * 1. dist/store/kysely.js (a plain `export * from 'kysely'`) becomes kysely bundled into one ES
 *    module: the CLI then loads one file instead of 279 (about 15 ms instead of 120–160 ms).
 * 2. dist/bundle/: premia's own modules (dist/) bundled from the launcher's entry and the worker
 *    threads' entries, split at every dynamic import (`--help` still loads no SQLite and no HTTP
 *    stack), with node_modules left as they are. bin/premia.js loads it when it is at least as
 *    new as dist/app/premia.js (a `tsc` alone leaves it stale: dist/ is used then). A one-day
 *    advance at 1M policies: about 50 ms less of its ~0.9 s (issue 13).
 *
 * The bundle's files sit two levels below the package, as every dist/ module that finds a file
 * of the package by a relative URL (package.json, fixtures/, openapi.yaml) does, and each worker
 * entry sits beside the chunks that start it, under the name dist/ gives it there.
 *
 * When esbuild is not installed (a production install without devDependencies) neither bundle
 * is made and dist/ works as compiled, only slower to load.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
// kysely is MIT-licensed: the bundle carries its notice.
const kyselyDir = join(root, 'node_modules', 'kysely');
const { version } = JSON.parse(readFileSync(join(kyselyDir, 'package.json'), 'utf8'));
const license = readFileSync(join(kyselyDir, 'LICENSE'), 'utf8').trim().replaceAll('*/', '* /');
await esbuild.build({
  banner: { js: `/*! kysely ${version}, bundled for premia by scripts/bundle.mjs\n\n${license}\n*/` },
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

