#!/usr/bin/env node
// The premia launcher: loads the compiled entry (src/app/premia.ts) and runs it on this process's
// streams. It takes the build's bundle of it (scripts/bundle.mjs: a few files to load instead of
// about 160) when the bundle is there and at least as new as the compiled entry.
import { statSync } from 'node:fs';

const compiled = new URL('../dist/app/premia.js', import.meta.url);
const bundled = new URL('../dist/bundle/premia.js', import.meta.url);
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? -1;
const { main } = await import(mtime(bundled) >= mtime(compiled) ? bundled.href : compiled.href);

main();
