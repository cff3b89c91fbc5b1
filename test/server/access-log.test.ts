/**
 * The access log has a line for every request, also one whose client left before its answer (an
 * operator audit found none for an import and an advance that had committed: onResponse runs
 * only for an answer delivered whole).
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type TestServer } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await s.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await s.close();
});

describe('the access log', () => {
  it('logs a request whose client left before the answer, with the status the work ended with', async () => {
    // getPolicy waits at a gate the test opens once the server has seen the client's connection close.
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const forClient = s.backend.forClient.bind(s.backend);
    s.backend.forClient = (clientId: number) => {
      const b = forClient(clientId);
      return new Proxy(b, {
        get(target, prop) {
          if (prop === 'getPolicy') {
            return async (id: string) => {
              entered();
              await gate;
              return target.getPolicy(id);
            };
          }
          const value: unknown = Reflect.get(target, prop);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    };
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    s.app.server.once('connection', (socket: Socket) => socket.once('close', closed));
    const port = (s.app.server.address() as AddressInfo).port;
    const req = request({ host: '127.0.0.1', port, path: '/v1/policies/POL-NONE', headers: { 'x-api-key': s.keys.acme } });
    req.on('error', () => undefined);
    req.end();
    await inHandler;
    req.destroy();
    await serverSawClose;
    const before = s.logs.length;
    open();
    await vi.waitFor(() => expect(s.logs.length).toBe(before + 1));
    expect(s.logs.at(-1)).toMatch(
      /^\d{4}-\d{2}-\d{2}T\S+Z GET \/v1\/policies\/POL-NONE 404 \d+\.\dms [0-9a-f-]{36} key [0-9a-f-]{36} \(the client had left: the answer was not delivered\)$/,
    );
    s.backend.forClient = forClient;
  });

  it('and a request answered whole, once, without a note', async () => {
    const before = s.logs.length;
    const port = (s.app.server.address() as AddressInfo).port;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/v1/whoami', headers: { 'x-api-key': s.keys.acme } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    await vi.waitFor(() => expect(s.logs.length).toBe(before + 1));
    expect(s.logs.at(-1)).toMatch(/^\d{4}-\d{2}-\d{2}T\S+Z GET \/v1\/whoami 200 \d+\.\dms [0-9a-f-]{36} key [0-9a-f-]{36}$/);
  });
});
