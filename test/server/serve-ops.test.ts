/**
 * Operating `premia serve`: what a service operator meets (a signal from a closed terminal, the
 * store moved while serving, a slow client), with the server listening on a real socket.
 */
import { EventEmitter } from 'node:events';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { openLocalBackend } from '../../src/backend/local/index.js';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, createServer } from '../../src/server/app.js';
import { serve } from '../../src/server/serve.js';
import { tempDir } from '../helpers/cli.js';
import { NOW } from './helpers.js';

async function started(dbPath: string) {
  const backend = await openLocalBackend({ path: dbPath, now: NOW });
  const key = (await backend.admin.keys.create('Acme Life', 'client')).key;
  const signals = new EventEmitter();
  const stderr: string[] = [];
  let served!: Promise<number>;
  const base = await new Promise<string>((resolve) => {
    served = serve(backend, { host: '127.0.0.1', port: 0 }, { stderr: { write: (s: string) => stderr.push(s) } as any, signals, onListening: resolve });
  });
  return { backend, key, signals, stderr, served, base };
}

describe('premia serve, operated', () => {
  it('goes on serving on SIGHUP (a closed terminal), saying so, rather than dying without a word', async () => {
    const tmp = tempDir();
    const s = await started(join(tmp.dir, 'premia.db'));
    try {
      expect(s.signals.listenerCount('SIGHUP')).toBe(1);
      s.signals.emit('SIGHUP');
      expect(s.stderr.join('')).toContain(
        'premia: SIGHUP received (a closed terminal, or a reload asked for): premia has nothing to reload and goes on serving; SIGTERM or Ctrl-C stops it.\n',
      );
      const res = await request(`${s.base}/whoami`, { headers: { 'x-api-key': s.key } });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
    } finally {
      s.signals.emit('SIGTERM');
      expect(await s.served).toBe(0);
      expect(s.stderr.join('')).toContain('premia: SIGTERM received; finishing requests in flight…\npremia: stopped.\n');
      expect(s.signals.listenerCount('SIGHUP')).toBe(0);
      await s.backend.close();
      tmp.cleanup();
    }
  });

  it('answers a write 503 STORE_UNAVAILABLE, its path only in the log, once the store was moved away', async () => {
    const tmp = tempDir();
    const dbPath = join(tmp.dir, 'premia.db');
    const s = await started(dbPath);
    try {
      renameSync(dbPath, join(tmp.dir, 'moved.db'));
      const res = await request(`${s.base}/policies`, {
        method: 'POST',
        headers: { 'x-api-key': s.key, 'content-type': 'application/json' },
        body: JSON.stringify({ policy_number: 'POL-1', customer_id: 'C1', external_customer_ref: 'E1', product_code: 'LIFE', collection_amount: 149.5 }),
      });
      const text = await res.body.text();
      expect(res.statusCode).toBe(503);
      const body = JSON.parse(text);
      expect(body.error.code).toBe('STORE_UNAVAILABLE');
      expect(body.error.message).toContain("a problem of the service's set-up, not of this request");
      expect(text).not.toContain(tmp.dir);
      const log = s.stderr.join('');
      expect(log).toContain(`error ${body.error.request_id}: `);
      expect(log).toContain(`There is no store at ${dbPath}`);
      expect(log).toMatch(new RegExp(`POST /v1/policies 503 \\S+ms ${body.error.request_id} key `));
    } finally {
      s.signals.emit('SIGTERM');
      expect(await s.served).toBe(0);
      await s.backend.close();
      tmp.cleanup();
    }
  });

  it('bounds how long a request may take to arrive (a body trickled a byte at a time)', async () => {
    const tmp = tempDir();
    const backend = await openLocalBackend({ path: join(tmp.dir, 'premia.db'), now: NOW });
    const app = await createServer({ backend, tmpDir: tmp.dir });
    try {
      expect(REQUEST_TIMEOUT_MS).toBe(600_000);
      expect(HEADERS_TIMEOUT_MS).toBe(60_000);
      expect(app.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
      expect(app.server.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
      expect(app.server.headersTimeout).toBeLessThanOrEqual(app.server.requestTimeout);
      expect(app.server.keepAliveTimeout).toBeGreaterThan(0);
    } finally {
      await app.close();
      await backend.close();
      tmp.cleanup();
    }
  });
});

describe('the health check a load balancer polls', () => {
  it('answers GET and HEAD /healthz without a key (200, logged), touching no store', async () => {
    const tmp = tempDir();
    const s = await started(join(tmp.dir, 'premia.db'));
    const origin = s.base.replace(/\/v1$/, '');
    const agent = new Agent({ connections: 1, pipelining: 1 });
    try {
      const ok = await request(`${origin}/healthz`, { dispatcher: agent });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(ok.headers['cache-control']).toBe('no-store');
      expect(await ok.body.json()).toEqual({ status: 'ok' });
      const head = await request(`${origin}/healthz`, { method: 'HEAD', dispatcher: agent });
      expect(head.statusCode).toBe(200);
      await head.body.dump();
      expect(s.stderr.join('')).toMatch(/ GET \/healthz 200 \S+ms \S+\n/);
    } finally {
      s.signals.emit('SIGTERM');
      expect(await s.served).toBe(0);
      await agent.close();
      await s.backend.close();
      tmp.cleanup();
    }
  });
});
