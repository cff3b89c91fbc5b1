/**
 * A proxy in front of the real server forwards a write, waits until the server has done it and
 * answered, then destroys the client's connection instead of passing the answer on. The CLI
 * cannot know whether the write happened. It asks GET /whoami whether the server honours
 * Idempotency-Key (premia's marker header says so), retries with the same key, the server
 * replays its stored answer, and the write exists exactly once.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { instantRetries, remoteEnv, runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';

interface Passed {
  method: string;
  path: string;
  key: string | undefined;
  status: number;
  replayed: boolean;
  dropped: boolean;
}

let server: LiveServer;
let proxy: Server;
let proxyUrl: string;
let passed: Passed[] = [];
/** Paths whose next POST is done by the server but never answered to the client. */
const dropNext = new Set<string>();
let dir: string;
let cleanup: () => void;

async function forward(req: IncomingMessage, body: Buffer) {
  const headers = { ...req.headers };
  delete headers.host;
  delete headers.connection;
  delete headers['transfer-encoding'];
  // Without `Prefer: respond-async, wait=1` (an import's): its answer then comes once the server
  // has done the work, however long that takes. With it, an import that took over a second (a
  // loaded machine) was answered 202 while still running, and the drop came before it was done.
  delete headers.prefer;
  const res = await request(`${new URL(server.url).origin}${req.url}`, { method: req.method as 'POST', headers, body: body.length > 0 ? body : undefined });
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

beforeAll(async () => {
  server = await startLiveServer();
  ({ dir, cleanup } = tempDir('premia-drop-'));
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a rejection here is unhandled and fails the run, as it should
    req.on('end', async () => {
      const answer = await forward(req, Buffer.concat(chunks));
      const path = req.url!.split('?')[0]!;
      const drop = req.method === 'POST' && dropNext.delete(path);
      passed.push({
        method: req.method!,
        path,
        key: req.headers['idempotency-key'] as string | undefined,
        status: answer.status,
        replayed: answer.headers['idempotent-replayed'] === 'true',
        dropped: drop,
      });
      if (drop) {
        req.socket.destroy(); // the server has acted; the client never hears of it
        return;
      }
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(answer.headers)) if (typeof v === 'string' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
      res.writeHead(answer.status, out).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await server.close();
  cleanup();
});

const premia = (args: string[]) => runPremia(args, { cwd: dir, env: remoteEnv(proxyUrl, server.keys.acme), tuning: instantRetries() });
const direct = (args: string[]) => runPremia(args, { cwd: dir, env: remoteEnv(server.url, server.keys.acme) });

describe('the server acts, then the connection drops before the answer', () => {
  it('policies create: retried with the same key, replayed, the policy exists once', async () => {
    passed = [];
    dropNext.add('/v1/policies');
    const r = await premia(['policies', 'create', '--policy-number', 'POL-DROP', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '149.50', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ policy_number: 'POL-DROP', collection_amount: 149.5, status: 'active' });
    expect(passed).toEqual([
      { method: 'POST', path: '/v1/policies', key: expect.stringMatching(/^premia-/), status: 201, replayed: false, dropped: true },
      { method: 'GET', path: '/v1/whoami', key: undefined, status: 200, replayed: false, dropped: false },
      { method: 'POST', path: '/v1/policies', key: passed[0]!.key, status: 201, replayed: true, dropped: false },
    ]);
    const list = await direct(['policies', 'list', '--json']);
    expect(list.json().data.map((p: { policy_number: string }) => p.policy_number)).toEqual(['POL-DROP']);
  });

  it('policies import: the file is sent again, the import is replayed, every policy exists once', async () => {
    passed = [];
    dropNext.add('/v1/policies/import');
    const r = await premia(['policies', 'import', join(FIXTURES, 'policies.csv'), '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ imported: 520, failed: 0, errors: [] });
    expect(passed.map((p) => [p.method, p.status, p.replayed, p.dropped])).toEqual([
      ['POST', 200, false, true],
      ['GET', 200, false, false],
      ['POST', 200, true, false],
    ]);
    expect(passed[2]!.key).toBe(passed[0]!.key);
    const page = await direct(['policies', 'list', '--limit', '10000', '--json']);
    expect(page.json().data).toHaveLength(521);
  });

  it('collections execute: one run, whatever the connection did', async () => {
    passed = [];
    await direct(['clock', 'set', '2026-10-31']);
    dropNext.add('/v1/collections/execute');
    const r = await premia(['collections', 'execute', '--period', '2026-11', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ status: 'processing', policies_queued: 521 });
    // Then, from a premia service, the execution (its strategy) and the clock (a late queue's
    // warning) are read as local mode reads them (24ce5bc).
    expect(passed.map((p) => [p.method, p.replayed])).toEqual([
      ['POST', false],
      ['GET', false],
      ['POST', true],
      ['GET', false],
      ['GET', false],
    ]);
    const again = await direct(['collections', 'execute', '--period', '2026-11', '--json']);
    expect(again.json().policies_queued).toBe(0); // everything was queued once, by the first request
  });
});
