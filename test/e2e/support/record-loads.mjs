/**
 * Test-only start-up probe, loaded with `node --import`: appends every module the process loads
 * to the file named by PREMIA_LOAD_LOG, one per line. ESM imports are seen by a resolve hook
 * (module.register, run on the hooks thread); CommonJS requires (better-sqlite3 is loaded with
 * createRequire) by wrapping Module._load on the main thread.
 */
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const log = process.env.PREMIA_LOAD_LOG;
if (!log) throw new Error('record-loads.mjs needs PREMIA_LOAD_LOG');

register('./record-loads-hooks.mjs', import.meta.url, { data: { log } });

const load = Module._load;
Module._load = function recordLoad(request, parent, isMain) {
  appendFileSync(log, `require ${request} from ${parent?.filename ?? '-'}\n`);
  return load.call(this, request, parent, isMain);
};
