/** The resolve hook of record-loads.mjs: logs the URL of every ESM import. */
import { appendFileSync } from 'node:fs';

let log;

export async function initialize(data) {
  log = data.log;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(log, `import ${result.url}\n`);
  return result;
}
