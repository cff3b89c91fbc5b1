#!/usr/bin/env node
// The premia launcher: loads the compiled entry (src/app/premia.ts) and runs it on this process's
// streams. It takes the build's bundle of it (scripts/bundle.mjs) when the bundle is there and at
// least as new as the compiled entry: the CommonJS bundle with its code cache (load-bundle.js)
// where this Node can require ES modules (premia's dependencies chalk and ora are ES modules), else
// the ES module bundle (a few files to load instead of about 160).
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadBundle } from './load-bundle.js';

const compiled = new URL('../dist/app/premia.js', import.meta.url);
const bundled = new URL('../dist/bundle/premia.js', import.meta.url);
const common = new URL('../dist/bundle/premia.cjs', import.meta.url);
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? -1;

let main;
if (process.features.require_module === true && mtime(common) >= mtime(compiled)) {
  ({ main } = loadBundle(fileURLToPath(common)).exports);
} else {
  ({ main } = await import(mtime(bundled) >= mtime(compiled) ? bundled.href : compiled.href));
}

main();
