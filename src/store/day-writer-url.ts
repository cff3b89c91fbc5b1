/**
 * Where the day writer's compiled module is: beside this module, in dist/store/ or in the
 * build's bundle (scripts/bundle.mjs), or from TypeScript sources in dist/store/, which
 * `npm test` builds first. Null when it is not there (or PREMIA_DAY_WRITER=0).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function dayWriterModule(): URL | null {
  if (process.env.PREMIA_DAY_WRITER === '0') return null;
  const here = import.meta.url;
  const url = here.endsWith('.ts') ? new URL('../../dist/store/day-writer.js', here) : new URL('./day-writer.js', here);
  return existsSync(fileURLToPath(url)) ? url : null;
}
