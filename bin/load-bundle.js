// Loads the build's CommonJS bundle of premia (dist/bundle/premia.cjs, scripts/bundle.mjs) with
// the V8 code cache the build made for it (issue 13). Node 20 keeps no compile cache of its own:
// every process parsed and compiled premia's ~1.5 MB of modules again, ~50 ms of each command's
// start (a cron job's one-day advance, every test that runs the CLI). Read from the cache, V8
// skips that work for every function the build's warm-up run compiled.
//
// The cache is used only when it was made from this very bundle: V8 itself checks its own version
// and flags but, of the source, only its length, so the build writes a random build id on the
// bundle's first line and the same id at the head of the cache, and a cache whose id differs (a
// bundle rebuilt, a cache left from another build) is ignored. So is one V8 rejects (another
// Node): premia then compiles as it would without one. Nothing here writes a file unless asked
// to (`cacheOut`, the build's warm-up).
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** The code cache's file for `bundle` (dist/bundle/premia.cjs: dist/bundle/premia.cjs.cache). */
export const cacheFileOf = (bundle) => `${bundle}.cache`;

/**
 * The bundle run in this context as `require` would run it: its exports, and whether V8 took its
 * code cache ('used'), refused it ('rejected') or had none of this build ('none'). `cacheOut`:
 * write the cache of what this process compiled there when it exits (written whole or not at all).
 */
export function loadBundle(bundle, cacheOut) {
  const source = readFileSync(bundle, 'utf8');
  const id = Buffer.from(`${source.slice(0, source.indexOf('\n'))}\n`);
  const cachedData = cacheOut === undefined ? cacheOf(bundle, id) : undefined;
  const script = new Script(Module.wrap(source), { filename: bundle, cachedData });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  if (cacheOut !== undefined) {
    process.once('exit', () => {
      writeFileSync(`${cacheOut}.tmp`, Buffer.concat([id, script.createCachedData()]));
      renameSync(`${cacheOut}.tmp`, cacheOut);
    });
  }
  return { exports: module.exports, cache: cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used' };
}

/** The V8 data of the bundle's cache when it is there and made from this build; else undefined. */
function cacheOf(bundle, id) {
  let data;
  try {
    data = readFileSync(cacheFileOf(bundle));
  } catch {
    return undefined;
  }
  return data.length > id.length && data.subarray(0, id.length).equals(id) ? data.subarray(id.length) : undefined;
}
