/** The OpenAPI document (openapi.yaml at the package root), served as JSON at /v1/openapi.json. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** openapi.yaml sits two levels above this module both in src/server and in dist/server. */
export const OPENAPI_PATH = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

let cached: Promise<unknown> | undefined;

/** The parsed document. It ships with the package and never changes while premia runs. */
export function openApiDocument(): Promise<unknown> {
  cached ??= (async () => {
    const { parse } = await import('yaml');
    return parse(await readFile(OPENAPI_PATH, 'utf8')) as unknown;
  })();
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}
