/**
 * Against real sockets: the API on 127.0.0.1 (port 0) in-process, driven by undici; and the
 * `premia serve` binary spawned, stopped with SIGTERM while a request is in flight.
 */
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { existsSync, openAsBlob, readdirSync, readFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBackend, openLocalBackend } from '../../src/backend/local/index.js';
import { isLoopback } from '../../src/lib/loopback.js';
import { serve } from '../../src/server/serve.js';
import { uploadDirectory } from '../../src/server/upload.js';
import { FIXTURES, REPO, runCli, tempDir } from '../helpers/cli.js';
import { checkResponse, NOW } from './helpers.js';
import type { ServeFn } from '../../src/cli/context.js';

async function send(method: string, url: string, options: { key?: string; body?: any; headers?: Record<string, string> } = {}) {
  const res = await request(url, {
    method: method as any,
    headers: { ...(options.key ? { 'x-api-key': options.key } : {}), ...options.headers },
    body: options.body,
  });
  const text = await res.body.text();
  const reply = { status: res.statusCode, headers: res.headers as any, text, json: () => JSON.parse(text) };
  checkResponse(method, new URL(url).pathname, reply);
  return reply;
}

describe('a real listening socket (undici)', () => {
  let backend: LocalBackend;
  let key: string;
  let base: string;
  let served: Promise<number>;
  const signals = new EventEmitter();
  const stderr: string[] = [];
  let cleanup: () => void;

  beforeAll(async () => {
    const tmp = tempDir();
    cleanup = tmp.cleanup;
    backend = await openLocalBackend({ path: join(tmp.dir, 'premia.db'), now: NOW });
    key = (await backend.admin.keys.create('Acme Life', 'client')).key;
    const listening = new Promise<string>((resolve) => {
      served = serve(
        backend,
        { host: '127.0.0.1', port: 0 },
        { stderr: { write: (s: string) => stderr.push(s) } as any, signals, onListening: resolve },
      );
    });
    base = await listening;
  });
  afterAll(async () => {
    signals.emit('SIGTERM');
    expect(await served).toBe(0);
    await backend.close();
    cleanup();
  });

  it('knows which hosts are loopback (others get a warning)', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '::', '192.168.1.10', 'example.org'].some(isLoopback)).toBe(false);
  });

  it('listens on loopback and prints the URL', () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(stderr.join('')).toContain(`premia: serving ${base} (store `);
    expect(stderr.join('')).not.toContain('warning:');
  });

  it('imports fixtures/policies.csv sent as multipart/form-data', async () => {
    const form = new FormData();
    form.append('file', await openAsBlob(join(FIXTURES, 'policies.csv'), { type: 'text/csv' }), 'policies.csv');
    const res = await send('POST', `${base}/policies/import`, { key, body: form });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ imported: 520, failed: 0, errors: [] });
    const page = await send('GET', `${base}/policies?limit=3`, { key });
    expect(page.json().data.map((p: any) => p.policy_number)).toEqual(['POL-2026001', 'POL-2026002', 'POL-2026003']);
    expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  // Node joins a header sent twice into one value ("a, b"): the request was keyed by a third key,
  // neither of those sent, so a retry sending either one ran it again. Only a real socket shows it.
  it('refuses an Idempotency-Key sent twice (400 REPEATED) and creates nothing', async () => {
    const body = JSON.stringify({ policy_number: 'POL-TWICE', customer_id: 'C1', external_customer_ref: 'E1', product_code: 'LIFE', collection_amount: 149.5 });
    const res = await request(`${base}/policies`, {
      method: 'POST',
      headers: ['x-api-key', key, 'content-type', 'application/json', 'idempotency-key', 'first', 'idempotency-key', 'second'],
      body,
    });
    const reply = { status: res.statusCode, headers: res.headers as any, text: await res.body.text(), json: () => JSON.parse(reply.text) };
    checkResponse('POST', '/v1/policies', reply);
    expect(reply.status).toBe(400);
    expect(reply.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Send one Idempotency-Key header, not several.',
      details: [{ field: 'Idempotency-Key', code: 'REPEATED', message: 'Idempotency-Key was sent more than once' }],
    });
    expect((await send('GET', `${base}/policies/POL-TWICE`, { key })).status).toBe(404);
    // One header whose value holds ", " is one key, as sent.
    const one = await send('POST', `${base}/policies`, { key, body, headers: { 'content-type': 'application/json', 'idempotency-key': 'first, second' } });
    expect(one.status).toBe(201);
  });

  it('answers 401 with the spec body over the wire', async () => {
    const res = await send('GET', `${base}/policies`);
    expect(res.status).toBe(401);
    expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
  });
});

describe('premia serve (spawned binary)', () => {
  let dir: string;
  let cleanup: () => void;
  beforeAll(() => {
    ({ dir, cleanup } = tempDir());
  });
  afterAll(() => cleanup());

  it('serves, finishes a request in flight on SIGTERM, closes the store and exits 0', async () => {
    const db = join(dir, 'premia.db');
    const created = await runCli(['--db', db, '--json', 'keys', 'create', '--client', 'Demo'], { cwd: dir });
    const { key } = created.json();
    const child = spawn(process.execPath, [join(REPO, 'bin', 'premia.js'), 'serve', '--port', '0', '--db', db], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const waiters: Array<() => void> = [];
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      for (const w of [...waiters]) w();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const waitFor = (re: RegExp) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const check = () => {
          const m = stderr.match(re);
          if (m) resolve(m);
        };
        waiters.push(check);
        child.on('exit', () => reject(new Error(`premia serve exited: ${stderr}`)));
        check();
      });
    const [, base] = await waitFor(/premia: serving (http:\/\/127\.0\.0\.1:\d+\/v1)/);

    // An upload whose body is held back until after SIGTERM: the request is in flight.
    const csv = readFileSync(join(FIXTURES, 'policies.csv'));
    const boundary = 'premia-test-boundary';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="policies.csv"\r\nContent-Type: text/csv\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let firstSent!: () => void;
    const sentFirst = new Promise<void>((resolve) => (firstSent = resolve));
    async function* body() {
      yield Buffer.concat([head, csv.subarray(0, 1000)]);
      firstSent();
      await released;
      yield Buffer.concat([csv.subarray(1000), tail]);
    }
    const inFlight = request(`${base}/policies/import`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Readable.from(body()),
    });
    await sentFirst;
    // The server has taken the request once it spools the upload: wait for the spool file (an
    // event, not a fixed sleep, which a busy machine would outrun).
    const spoolDir = uploadDirectory('/tmp', db); // the child's env has no TMPDIR
    while (!(existsSync(spoolDir) && readdirSync(spoolDir).some((f) => f.startsWith('upload-')))) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGTERM');
    await waitFor(/SIGTERM received/);
    release();
    const res = await inFlight;
    const text = await res.body.text();
    checkResponse('POST', '/v1/policies/import', { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(text)).toEqual({ imported: 520, failed: 0, errors: [] });
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/POST \/v1\/policies\/import 200 \d+\.\dms \S+ key \S+\n/);
    expect(stderr).toContain('premia: stopped.');
    expect(stderr).not.toContain(key);
    // The store was closed cleanly and holds the import, for the key's client.
    const raw = new Database(db, { readonly: true });
    try {
      expect(raw.prepare('select c.name, count(*) as n from policies p join clients c on c.id = p.client_id group by c.name').all()).toEqual([
        { name: 'Demo', n: 520 },
      ]);
    } finally {
      raw.close();
    }
  });
});

describe('premia serve --no-simulation (spawned binary)', () => {
  it('serves without the clock and bank endpoints (404) and says so when it starts', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'premia.db');
      const { key } = (await runCli(['--db', db, '--json', 'keys', 'create', '--operator'], { cwd: dir })).json();
      const child = spawn(process.execPath, [join(REPO, 'bin', 'premia.js'), 'serve', '--port', '0', '--db', db, '--no-simulation'], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const base = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
          const m = stderr.match(/premia: serving (http:\/\/127\.0\.0\.1:\d+\/v1) \(store [^;]+; no simulation: no clock or bank endpoints;/);
          if (m) resolve(m[1]!);
        });
        child.on('exit', () => reject(new Error(`premia serve exited: ${stderr}`)));
      });
      const clock = await send('GET', `${base}/clock`, { key });
      expect(clock.status).toBe(404);
      expect(clock.json().error.message).toBe('This service runs without simulation (premia serve --no-simulation): it has no virtual clock to read or move and no simulated bank.');
      expect((await send('GET', `${base}/whoami`, { key })).json()).toMatchObject({ client: 'Local', role: 'operator', simulation: false });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      cleanup();
    }
  });
});

describe('closing while a request is in flight (in-process, real socket)', () => {
  it('answers it with Connection: close and reads no further request from that connection', async () => {
    const { dir, cleanup } = tempDir();
    // A backend whose policy list waits until released: the first request is in flight.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inFlight = new Promise<void>((resolve) => (entered = resolve));
    const backend = await openLocalBackend({ path: join(dir, 'premia.db'), now: NOW });
    const key = (await backend.admin.keys.create('Acme Life', 'client')).key;
    class Held extends LocalBackend {
      override forClient(clientId: number): LocalBackend {
        const b = super.forClient(clientId);
        const real = b.listPolicies.bind(b);
        b.listPolicies = async (q) => {
          entered();
          await released;
          return real(q);
        };
        return b;
      }
    }
    const { createServer } = await import('../../src/server/app.js');
    const app = await createServer({ backend: new Held(backend.ctx, false) });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as AddressInfo;
      // Two requests pipelined on one connection: the second is read only after the first is answered.
      const socket = connect(port, '127.0.0.1');
      let raw = '';
      socket.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      const head = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\n\r\n`;
      socket.write(head('/v1/policies') + head('/v1/whoami'));
      await inFlight;
      const closed = app.close();
      // Once the server has stopped listening it is closing; then let the first request finish.
      while (app.server.listening) await new Promise((resolve) => setImmediate(resolve));
      release();
      await closed;
      await ended;
      // One answer: the pipelined request is left unread (HTTP/1.1: after Connection: close the
      // client sends it again on a new connection), never half-served or answered without the
      // spec's headers.
      const responses = raw.split(/(?=HTTP\/1\.1 )/);
      expect(responses).toHaveLength(1);
      const parse = (r: string) => {
        const [headText, body] = r.split('\r\n\r\n', 2) as [string, string];
        const [statusLine, ...lines] = headText.split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        return { status: Number(statusLine!.split(' ')[1]), headers, text: body, json: () => JSON.parse(body) };
      };
      const first = parse(responses[0]!);
      checkResponse('GET', '/v1/policies', first);
      expect(first.status).toBe(200);
      expect(first.json()).toEqual({ data: [], next_after: null });
      expect(first.headers.connection).toBe('close');
      expect(first.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      release();
      await app.close();
      await backend.close();
      cleanup();
    }
  });
});

describe('premia serve on a store it makes', () => {
  it('says so on its start line (a mistyped --db is seen at once); an existing store is just "store"', async () => {
    const tmp = tempDir();
    try {
      const seen: Array<boolean | undefined> = [];
      const fake: ServeFn = async (backend, options, io) => {
        seen.push(options.newStore);
        io.stderr.write('served\n');
        await backend.close?.();
        return 0;
      };
      const db = join(tmp.dir, 'typo.db');
      expect((await runCli(['--db', db, 'serve', '--port', '0'], { cwd: tmp.dir, prepare: (ctx) => (ctx.serve = fake) })).code).toBe(0);
      expect((await runCli(['--db', db, 'serve', '--port', '0'], { cwd: tmp.dir, prepare: (ctx) => (ctx.serve = fake) })).code).toBe(0);
      expect(seen).toEqual([true, false]);
      // The server's own line with it.
      const backend = await openLocalBackend({ path: join(tmp.dir, 'other.db'), now: NOW });
      const signals = new EventEmitter();
      const lines: string[] = [];
      const done = serve(backend, { host: '127.0.0.1', port: 0, newStore: true }, {
        stderr: { write: (s: string) => lines.push(s) } as never,
        signals,
        onListening: () => signals.emit('SIGTERM'),
      });
      expect(await done).toBe(0);
      await backend.close();
      expect(lines.join('')).toContain(`(new store, created now: ${join(tmp.dir, 'other.db')}; simulated bank;`);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('premia serve stopping while clients are still sending', () => {
  it('cuts off a request still arriving (headers at once, a body after the grace) instead of waiting for it', async () => {
    const tmp = tempDir();
    const backend = await openLocalBackend({ path: join(tmp.dir, 'stop.db'), now: NOW });
    const key = (await backend.admin.keys.create('Acme Life', 'client')).key;
    const signals = new EventEmitter();
    let done: Promise<number> = Promise.resolve(1);
    const url = await new Promise<string>((resolve) => {
      done = serve(backend, { host: '127.0.0.1', port: 0, shutdownGraceMs: 300 }, { stderr: { write: () => true } as never, signals, onListening: resolve });
    });
    const port = Number(new URL(url).port);
    const open = (text: string) =>
      new Promise<{ closed: Promise<void>; received: () => string }>((resolve) => {
        let received = '';
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(text);
          resolve({ closed: new Promise<void>((r) => socket.once('close', () => r())), received: () => received });
        });
        socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
        socket.on('error', () => {});
      });
    // Headers a line at a time (no request yet), and a body that will never all arrive.
    const headers = await open('GET /v1/whoami HTTP/1.1\r\nHost: x\r\n');
    const body = await open(
      `POST /v1/policies/import HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=BB\r\nContent-Length: 100000\r\n` +
        'Expect: 100-continue\r\n\r\n--BB\r\n',
    );
    // The server has taken both before the stop: the upload's request is accepted and its body
    // being read once it says 100 Continue (an event, not a sleep a busy machine could outrun), and
    // the connection opened before it had been accepted by then (connections are accepted in order).
    while (!body.received().startsWith('HTTP/1.1 100 Continue\r\n\r\n')) await new Promise((r) => setTimeout(r, 5));
    signals.emit('SIGTERM');
    expect(await done).toBe(0);
    await headers.closed;
    await body.closed;
    // Cut off, not answered: neither heard more than the 100 Continue.
    expect([headers.received(), body.received()]).toEqual(['', 'HTTP/1.1 100 Continue\r\n\r\n']);
    await backend.close();
    tmp.cleanup();
  });

  it('removes the spooled part of an upload it cuts off, and its upload directory, before it returns', async () => {
    const tmp = tempDir();
    const db = join(tmp.dir, 'cut.db');
    const backend = await openLocalBackend({ path: db, now: NOW });
    const key = (await backend.admin.keys.create('Acme Life', 'client')).key;
    const signals = new EventEmitter();
    let done: Promise<number> = Promise.resolve(1);
    const url = await new Promise<string>((resolve) => {
      done = serve(backend, { host: '127.0.0.1', port: 0, shutdownGraceMs: 0 }, { stderr: { write: () => true } as never, signals, onListening: resolve });
    });
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.write(
      `POST /v1/policies/import HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=BB\r\nContent-Length: 1000000\r\n\r\n` +
        '--BB\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\nContent-Type: text/csv\r\n\r\n' +
        'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,LIFE,10.00\n',
    );
    // The server has begun spooling the file part: its file is there (an event, not a sleep).
    const spoolDir = uploadDirectory(tmpdir(), db);
    const spooled = () => existsSync(spoolDir) && readdirSync(spoolDir).some((f) => f.startsWith('upload-'));
    while (!spooled()) await new Promise((r) => setTimeout(r, 5));
    signals.emit('SIGTERM');
    expect(await done).toBe(0);
    // Cut off after the grace, the half-received file is gone with the directory, not left for
    // the next server to find as one a killed server left behind.
    expect(existsSync(spoolDir)).toBe(false);
    await closed;
    expect((await backend.listPolicies({ limit: 10 })).data).toEqual([]);
    await backend.close();
    tmp.cleanup();
  });
});
