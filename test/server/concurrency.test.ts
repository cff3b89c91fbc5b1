/**
 * The engine and bulk imports run off the thread that answers requests (issue 10): while one
 * client's clock advance runs, other requests are answered; a client may ask for a 202 and follow
 * the operation. Orders of events are asserted, never durations (the measured read latency is
 * printed for information only).
 *
 * The advance is held at its start by a write lock the test takes on the store from a connection
 * of its own (as a CLI beside the server would), so the reads are known to happen while it is
 * still running, however fast or slow this machine is; once the reads are done the lock is let
 * go and the advance lives its days (more reads are sent meanwhile, and timed).
 */
import Database from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { createServer } from '../../src/server/app.js';
import { setMeta } from '../../src/store/repos/meta.js';
import { tempDir } from '../helpers/cli.js';
import { call, NOW } from './helpers.js';

const POLICIES = 10_000;
const READS = 20;

let dir: string;
let cleanup: () => void;
let backend: LocalBackend;
let app: Awaited<ReturnType<typeof createServer>>;
let operator: string;
let client: string;
let other: string;
let arrived: () => void;
const advanceArrived = new Promise<void>((resolve) => (arrived = resolve));

/** A book of POLICIES policies for one client, its November run queued, the clock on October 31. */
beforeAll(async () => {
  ({ dir, cleanup } = tempDir('premia-concurrency-'));
  backend = await openLocalBackend({ path: join(dir, 'premia.db'), now: NOW, seed: 1 });
  operator = (await backend.admin.keys.create('Acme Life', 'operator')).key;
  client = (await backend.admin.keys.create('Acme Life', 'client')).key;
  other = (await backend.admin.keys.create('Other Insure', 'client')).key;
  const acme = backend.forClient(2);
  await setMeta(backend.store.db, 'clock_date', '2026-10-31');
  const rows = ['customer_id,external_customer_ref,policy_number,product_code,collection_amount'];
  for (let i = 0; i < POLICIES; i++) rows.push(`C${200000 + Math.floor(i / 2)},EXT-${i},POL-${String(i).padStart(6, '0')},LIFE_BASIC,${100 + (i % 900)}.50`);
  const csv = `${rows.join('\n')}\n`;
  expect((await acme.importPolicies({ name: 'book.csv', size: csv.length, stream: Readable.from([Buffer.from(csv)]) })).imported).toBe(POLICIES);
  expect((await acme.executeCollections({ period_month: '2026-11' })).policies_queued).toBe(POLICIES);
  // No per-key rate limit: the test sends reads as fast as they are answered.
  app = await createServer({ backend, now: NOW, rateLimit: 0 });
  app.addHook('preHandler', async (req) => {
    if (req.url === '/v1/clock/advance') arrived();
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
}, 300_000);
afterAll(async () => {
  await app?.close();
  await backend?.close();
  cleanup?.();
});

/** Hold the store's write lock from another connection until released. */
function holdWriteLock(): { release: () => void } {
  const raw = new Database(join(dir, 'premia.db'));
  raw.exec('begin immediate');
  return {
    release: () => {
      raw.exec('rollback');
      raw.close();
    },
  };
}

function p99(ms: number[]): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}

describe('requests during a clock advance', () => {
  it('are answered while the advance is still running, and the advance completes', async () => {
    // Over real sockets (inject would run the requests in an order of its own).
    const { port } = app.server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    const get = async (path: string, key: string) => {
      const res = await request(`${base}${path}`, { headers: { 'x-api-key': key } });
      await res.body.text();
      return res.statusCode;
    };
    const events: string[] = [];
    const lock = holdWriteLock();
    let advanced: { status: number; body: any } | undefined;
    const advance = request(`${base}/v1/clock/advance`, {
      method: 'POST',
      headers: { 'x-api-key': operator, 'content-type': 'application/json' },
      body: JSON.stringify({ to: '2026-11-30' }),
    }).then(async (res) => {
      advanced = { status: res.statusCode, body: await res.body.json() };
      events.push('advance');
    });
    // The advance has reached its handler (and one turn of the event loop later, has started).
    await advanceArrived;
    await new Promise((resolve) => setImmediate(resolve));
    const whileHeld: number[] = [];
    for (let i = 0; i < READS; i++) {
      const started = performance.now();
      const status = await get(i % 2 === 0 ? '/v1/whoami' : '/v1/policies?limit=5', i % 4 === 1 ? other : client);
      whileHeld.push(performance.now() - started);
      expect(status).toBe(200);
      events.push('read');
    }
    // Every read was answered before the advance (which cannot have finished: it waits for the lock).
    expect(events).toEqual(Array.from({ length: READS }, () => 'read'));
    lock.release();
    // While the advance lives its days: more reads, timed (for information).
    const duringDays: number[] = [];
    while (advanced === undefined) {
      const started = performance.now();
      expect(await get('/v1/whoami', other)).toBe(200);
      duringDays.push(performance.now() - started);
    }
    await advance;
    expect(advanced.status).toBe(200);
    expect(advanced.body.days).toHaveLength(30);
    // The advance did the month's work: 9,964 attempts for the 10,000 policies (smart collects most
    // from the balance at once, so few are retried).
    expect(advanced.body.days.reduce((n: number, d: any) => n + d.attempts, 0)).toBe(9_964);
    expect(events.at(-1)).toBe('advance');
    console.log(
      `reads during an advance of ${POLICIES} policies through November: ${READS} while it waited (p99 ${p99(whileHeld).toFixed(1)} ms), ` +
        `${duringDays.length} while it lived its days (p99 ${p99(duringDays).toFixed(1)} ms)`,
    );
  });
});

describe('Prefer: respond-async (202 and an operation to follow)', () => {
  async function follow(location: string, key: string): Promise<any> {
    for (;;) {
      const res = await call(app, 'GET', location, { key });
      expect(res.status).toBe(200);
      if (res.json().result !== null) return res.json();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('answers 202 with a Location; the operation tells its progress, then the response the request would have had', async () => {
    const lock = holdWriteLock();
    const accepted = await call(app, 'POST', '/v1/clock/advance', { key: operator, body: { days: 2 }, headers: { prefer: 'respond-async', 'idempotency-key': 'async-1' } });
    expect(accepted.status).toBe(202);
    expect(accepted.headers['preference-applied']).toBe('respond-async');
    expect(accepted.headers['retry-after']).toBe('1');
    const location = String(accepted.headers.location);
    expect(location).toMatch(/^\/v1\/operations\/[0-9a-f-]{36}$/);
    expect(accepted.json()).toMatchObject({ id: location.split('/').pop(), status: expect.stringMatching(/^(queued|running)$/), request: { method: 'POST', path: '/v1/clock/advance' }, completed_at: null, result: null });
    // Another client does not see it; without a key nobody does.
    expect((await call(app, 'GET', location, { key: other })).status).toBe(404);
    expect((await call(app, 'GET', location, { key: null })).status).toBe(401);
    const pending = await call(app, 'GET', location, { key: operator });
    expect(pending.json().result).toBeNull();
    expect(pending.headers['retry-after']).toBe('1');
    lock.release();
    const done = await follow(location, operator);
    expect(done.status).toBe('succeeded');
    expect(done.progress).toEqual({ unit: 'days', done: 2, total: 2 });
    expect(done.days.map((d: any) => d.date)).toEqual(['2026-12-01', '2026-12-02']);
    expect(done.result).toMatchObject({ status: 200, replayed: false, body: { from: '2026-11-30', to: '2026-12-02' } });
    expect(done.result.body.days).toEqual(done.days);
    // The response was kept under its Idempotency-Key: a retry (synchronous) gets it again.
    const retry = await call(app, 'POST', '/v1/clock/advance', { key: operator, body: { days: 2 }, headers: { 'idempotency-key': 'async-1' } });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(done.result.body);
  });

  it('a refusal is the operation\'s result (status and error body); wait=N answers at once what is done in time', async () => {
    // The refusal comes before the advance writes anything: it waits in the queue behind an
    // advance held by the lock, so that it is still to run when answered.
    const lock = holdWriteLock();
    const held = await call(app, 'POST', '/v1/clock/advance', { key: operator, body: { days: 1 }, headers: { prefer: 'respond-async' } });
    expect(held.status).toBe(202);
    const accepted = await call(app, 'POST', '/v1/clock/advance', { key: operator, body: { to: '2026-11-01' }, headers: { prefer: 'respond-async' } });
    expect(accepted.status).toBe(202);
    expect(accepted.json().status).toBe('queued');
    lock.release();
    expect((await follow(String(held.headers.location), operator)).result).toMatchObject({ status: 200, body: { from: '2026-12-02', to: '2026-12-03' } });
    const done = await follow(String(accepted.headers.location), operator);
    expect(done.status).toBe('failed');
    expect(done.result.status).toBe(409);
    expect(done.result.body.error).toMatchObject({ code: 'CLOCK_BACKWARDS', request_id: accepted.headers['x-request-id'] });
    const quick = await call(app, 'POST', '/v1/clock/advance', { key: operator, body: { days: 0 }, headers: { prefer: 'respond-async, wait=60' } });
    expect(quick.status).toBe(200);
    expect(quick.headers['preference-applied']).toBeUndefined();
    expect(quick.json()).toMatchObject({ days: [] });
  });
});
