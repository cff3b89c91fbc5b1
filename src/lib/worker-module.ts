/**
 * Where a worker thread's compiled module is, for the module that starts it (`here`, its
 * import.meta.url, in the worker's own directory): `file` beside it, in dist/ or in the build's
 * bundle (scripts/bundle.mjs puts each worker beside the chunks that start it); from TypeScript
 * sources (vitest), dist/`dir`/`file`, which `npm test` builds first. Null when it is not there,
 * or when the environment variable `off` is '0': the caller then does the work on its own thread.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function workerModule(here: string, dir: string, file: string, off: string): URL | null {
  if (process.env[off] === '0') return null;
  const url = here.endsWith('.ts') ? new URL(`${'../'.repeat(dir.split('/').length + 1)}dist/${dir}/${file}`, here) : new URL(`./${file}`, here);
  return existsSync(fileURLToPath(url)) ? url : null;
}
