#!/usr/bin/env node
/**
 * The build's warm-up run (scripts/bundle.mjs): `node scripts/code-cache.mjs dist/bundle/premia.cjs`
 * runs `premia simulate` (a month of the shipped fixtures) from that bundle on a store file in a
 * temporary folder, and writes the V8 code cache of what it compiled beside the bundle as it
 * exits (bin/load-bundle.js). The folder is removed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cacheFileOf, loadBundle } from '../bin/load-bundle.js';

const bundle = process.argv[2] && resolve(process.argv[2]);
if (!bundle) {
  console.error('usage: node scripts/code-cache.mjs <dist/bundle/premia.cjs>');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'premia-code-cache-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
process.argv = [process.argv[0], bundle, '--db', join(dir, 'warm.db'), 'simulate', '--out', join(dir, 'out')];
loadBundle(bundle, cacheFileOf(bundle)).exports.main();
