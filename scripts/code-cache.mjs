#!/usr/bin/env node
/**
 * The build's warm-up runs (scripts/bundle.mjs), each writing the V8 code cache of what it compiled
 * beside its bundle as it exits (bin/load-bundle.js):
 *
 *   node scripts/code-cache.mjs dist/bundle/premia.cjs
 *       runs `premia simulate` (a month of the shipped fixtures) from that bundle on a store file
 *       in a temporary folder, removed at the end;
 *   node scripts/code-cache.mjs --http dist/bundle/undici.cjs
 *       makes requests with that bundle's Pool, as remote mode does (src/backend/remote/http.ts:
 *       a GET, a POST with a JSON body, a 401), to an HTTP server of its own on 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cacheFileOf, loadBundle } from '../bin/load-bundle.js';

const http = process.argv[2] === '--http';
const given = process.argv[http ? 3 : 2];
const bundle = given && resolve(given);
if (!bundle) {
  console.error('usage: node scripts/code-cache.mjs <dist/bundle/premia.cjs> | --http <dist/bundle/undici.cjs>');
  process.exit(2);
}

if (http) {
  const { Pool } = loadBundle(bundle, cacheFileOf(bundle)).exports;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(req.headers.authorization ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, url: req.url }));
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const pool = new Pool(`http://127.0.0.1:${server.address().port}`, { connect: { timeout: 5000 }, keepAliveTimeout: 10_000, headersTimeout: 5000, bodyTimeout: 5000, connections: 4 });
  const calls = [
    { path: '/v1/clock', method: 'GET', headers: { authorization: 'Bearer warm-up', accept: 'application/json' } },
    { path: '/v1/policies', method: 'POST', headers: { authorization: 'Bearer warm-up', 'content-type': 'application/json' }, body: '{"policy_number":"P-1"}' },
    { path: '/v1/whoami', method: 'GET', headers: { accept: 'application/json' } },
  ];
  for (const call of calls) {
    const res = await pool.request({ ...call, signal: AbortSignal.timeout(5000) });
    JSON.parse(await res.body.text());
  }
  await pool.close();
  await new Promise((done) => server.close(done));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'premia-code-cache-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  process.argv = [process.argv[0], bundle, '--db', join(dir, 'warm.db'), 'simulate', '--out', join(dir, 'out')];
  loadBundle(bundle, cacheFileOf(bundle)).exports.main();
}
