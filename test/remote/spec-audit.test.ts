/**
 * premia against servers written from the spec alone that decide differently where it says
 * "not shown" — each answer scripted by a small node:http server per test, with no premia
 * extension and no X-Premia-Version marker. Each test fails without the fix it names.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { instantRetries, remoteEnv, runPremia } from '../helpers/remote.js';

const KEY = 'spec-audit-key-0123456789';

/** One route's answer: `METHOD /path` below /v1 (a regular expression), and what it sends. */
type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Scripted {
  url: string;
  seen: Array<{ method: string; path: string; body: string }>;
  close: () => Promise<void>;
}

/** A server that checks X-API-Key as spec section 5 says, answers its routes as scripted, and 404s the rest with the spec's error body. */
async function scripted(routes: Record<string, Handler>): Promise<Scripted> {
  const seen: Scripted['seen'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/v1/, '');
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', path, body });
      const error = (status: number, code: string, message: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code, message, request_id: 'req-1' } }));
      };
      if (req.headers['x-api-key'] !== KEY) return error(401, 'UNAUTHORIZED', 'Invalid or missing API key.');
      const route = `${req.method} ${path}`;
      const handler = Object.entries(routes).find(([pattern]) => new RegExp(`^${pattern}$`).test(route))?.[1];
      if (!handler) return error(404, 'NOT_FOUND', `No route ${route}.`);
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An answer: JSON (an object) or text, with a content type (null: none) and headers. */
const answer =
  (status: number, body: unknown, type: string | null = 'application/json', headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { ...(type === null ? {} : { 'content-type': type }), ...headers });
    res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
  };

let dir: string;
let cleanup: () => void;
const servers: Scripted[] = [];

beforeAll(() => {
  ({ dir, cleanup } = tempDir('premia-audit-'));
});
afterAll(() => cleanup());
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function serve(routes: Record<string, Handler>): Promise<Scripted> {
  const s = await scripted(routes);
  servers.push(s);
  return s;
}

const premia = (s: Scripted, args: string[]) => runPremia(args, { cwd: dir, env: remoteEnv(s.url, KEY), tuning: instantRetries() });

describe('import errors of a shape of their own that echo an amount', () => {
  it('are shown with the amount in two decimals (1000000.50, 12.50), never in cents (100000050, 1250)', async () => {
    const file = join(dir, 'two.csv');
    writeFileSync(file, 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,LIFE,10.00\nC2,E2,P2,LIFE,1000000.50\n');
    const s = await serve({
      'POST /policies/import': answer(200, {
        imported: 1,
        failed: 2,
        errors: [
          { row: 3, collection_amount: 1000000.5, message: 'over the limit' },
          { row: 4, collection_amount: '12.50', message: 'duplicate' },
          { row: 5, collection_amount: '12,50' },
        ],
      }),
    });
    const r = await premia(s, ['policies', 'import', file]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      'Imported 1 policy; 2 rows failed.\n\n' +
        '  {"row":3,"collection_amount":1000000.50,"message":"over the limit"}\n' +
        '  {"row":4,"collection_amount":12.50,"message":"duplicate"}\n' +
        '  {"row":5,"collection_amount":"12,50"}\n',
    );
    expect(r.code).toBe(3);
  });

  it('an answer that is not an import result quotes its amounts as sent too', async () => {
    const file = join(dir, 'one.csv');
    writeFileSync(file, 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,LIFE,10.00\n');
    const s = await serve({ 'POST /policies/import': answer(202, { job_id: 'j1', collection_amount: 10.5 }) });
    const r = await premia(s, ['policies', 'import', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The service answered the import with {"job_id":"j1","collection_amount":10.50}, which is not an import result');
  });
});
