#!/usr/bin/env node
/**
 * After `tsc`: replace dist/store/kysely.js (a plain `export * from 'kysely'`) with kysely
 * bundled into one ES module by esbuild, so the CLI loads one file instead of 279 (about
 * 15 ms instead of 120–160 ms at every start). When esbuild is not installed (a production
 * install without devDependencies) the plain re-export stays and works, only slower to load.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'store', 'kysely.js');
if (!existsSync(out)) {
  console.error(`bundle-kysely: ${out} is missing; run tsc first`);
  process.exit(1);
}
const require = createRequire(join(root, 'package.json'));
let esbuild;
try {
  esbuild = require('esbuild');
} catch {
  console.warn('bundle-kysely: esbuild is not installed; dist/store/kysely.js stays a re-export of kysely');
  process.exit(0);
}
// kysely is MIT-licensed: the bundle carries its notice.
const kyselyDir = join(root, 'node_modules', 'kysely');
const { version } = JSON.parse(readFileSync(join(kyselyDir, 'package.json'), 'utf8'));
const license = readFileSync(join(kyselyDir, 'LICENSE'), 'utf8').trim().replaceAll('*/', '* /');
await esbuild.build({
  banner: { js: `/*! kysely ${version}, bundled for premia by scripts/bundle-kysely.mjs\n\n${license}\n*/` },
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
