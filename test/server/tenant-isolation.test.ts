/**
 * One client's work must not disturb another's on a shared `premia serve` (audit of the
 * isolation between clients). Each case is an attack or a collision with client A's key while
 * client B (or the store) is busy or holds data of its own.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../src/store/store.js';
import { setClock } from '../helpers/seed-collections.js';
import { PERIOD, seedPeriod } from './fixture-period.js';
import { requestHash } from '../../src/backend/wire.js';
import { call, NOW, POLICY, startServer, type TestServer } from './helpers.js';

let s: TestServer;

beforeAll(async () => {
  s = await startServer();
  await seedPeriod(s.backend.store);
  await setClock(s.backend.store, '2026-12-02');
});
afterAll(async () => {
  await s.close();
});

describe('a settlement preview while another connection writes', () => {
  it('is answered from a read: it never waits for the write lock that another client\'s import or advance holds', async () => {
    // The server's own connection gives up on a held lock quickly (its default is 30 s, during
    // which the thread that answers every client's requests would be stuck in SQLite's busy wait).
    const raw = (s.backend.store as SqliteStore).raw;
    const before = raw.pragma('busy_timeout', { simple: true }) as number;
    raw.pragma('busy_timeout = 50');
    // Another writer (the job thread running B's import, a CLI beside the server) holds the lock.
    const writer = new Database(s.dbPath, { timeout: 0 });
    writer.exec('begin immediate');
    try {
      const preview = await call(s.app, 'GET', `/v1/settlements/preview?period_month=${PERIOD}`, { key: s.keys.acme });
      expect(preview.status).toBe(200);
      expect(preview.json()).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', total_collections: 199.51, net_amount: 134.12, status: 'pending' });
    } finally {
      writer.exec('rollback');
      writer.close();
      raw.pragma(`busy_timeout = ${before}`);
    }
    // Nothing was stored by the preview: the statement is made by the POST, numbered 001.
    const made = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, body: { period_month: PERIOD } });
    expect(made.status).toBe(201);
    expect(made.json().settlement_number).toBe('SETTLE-2026-11-001');
  });
});

describe("Idempotency-Key: the store's keys are not the client Local's", () => {
  // Local is the store's own client (local mode acts for it, `keys create --operator` alone makes
  // its operator key): a client like the others, whose keys are its own. The keys of the
  // store-wide operations (POST /clock/advance, POST /bank/seed) are shared by every operator.
  it("another client's operator advancing with a key Local used gets its own answer, and learns nothing of Local's request", async () => {
    const local = (await s.backend.admin.keys.create('Local', 'client')).key;
    const otherOperator = (await s.backend.admin.keys.create('Other Insure', 'operator')).key;
    const key = { 'idempotency-key': 'nightly-2026-12-02' };
    const created = await call(s.app, 'POST', '/v1/policies', { key: local, body: { ...POLICY, policy_number: 'LOCAL-1' }, headers: key });
    expect(created.status).toBe(201);
    const advance = await call(s.app, 'POST', '/v1/clock/advance', { key: otherOperator, body: { days: 1 }, headers: key });
    expect(advance.status).toBe(200);
    expect(advance.json()).toMatchObject({ from: '2026-12-02', to: '2026-12-03' });
    // And the other way round: a key an operator used for the store does not refuse Local's own request.
    const seedKey = { 'idempotency-key': 'seed-key' };
    const seed = await call(s.app, 'POST', '/v1/bank/seed', { key: otherOperator, body: { seed: 5 }, headers: seedKey });
    expect([200, 409]).toContain(seed.status); // SEED_LOCKED once runs exist: a refusal keeps no key
    const advanced = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { days: 1 }, headers: { 'idempotency-key': 'advance-key' } });
    expect(advanced.status).toBe(200);
    const mine = await call(s.app, 'POST', '/v1/policies', { key: local, body: { ...POLICY, policy_number: 'LOCAL-2' }, headers: { 'idempotency-key': 'advance-key' } });
    expect(mine.status).toBe(201);
    expect(mine.headers['idempotent-replayed']).toBeUndefined();
    expect(mine.json().policy_number).toBe('LOCAL-2');
    // The store's key is still the store's: another operator's retry of the advance replays it.
    const retry = await call(s.app, 'POST', '/v1/clock/advance', { key: otherOperator, body: { days: 1 }, headers: { 'idempotency-key': 'advance-key' } });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it("still replays a response of the store's scope stored by an earlier version under Local's id until it expires", async () => {
    const body = '{"date":"2026-12-02","locked":true,"seed":1}';
    await s.backend.store.db
      .insertInto('idempotency_keys')
      .values({
        client_id: 1,
        key: 'seed-before-upgrade',
        request_hash: requestHash('POST', '/v1/bank/seed', { seed: 9 }),
        method: 'POST',
        path: '/v1/bank/seed',
        status: 200,
        content_type: 'application/json; charset=utf-8',
        body,
        created_at: NOW().getTime(),
        expires_at: NOW().getTime() + 60_000,
        owner_host: null,
        owner_pid: null,
        owner_token: null,
        started_at: null,
      })
      .execute();
    const retry = await call(s.app, 'POST', '/v1/bank/seed', { key: s.keys.operator, body: { seed: 9 }, headers: { 'idempotency-key': 'seed-before-upgrade' } });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(body);
  });
});

describe('the access log with request ids chosen by the callers', () => {
  it("says which key made each line: two clients sending the same X-Request-Id are told apart", async () => {
    const trace = { 'x-request-id': 'trace-0001' };
    const before = s.logs.length;
    const acme = await call(s.app, 'GET', '/v1/whoami', { key: s.keys.acme, headers: trace });
    const other = await call(s.app, 'GET', `/v1/settlements/SETTLE-2026-11-009`, { key: s.keys.other, headers: trace });
    expect(acme.headers['x-request-id']).toBe('trace-0001');
    expect(other.headers['x-request-id']).toBe('trace-0001');
    expect(other.status).toBe(404);
    const acmeKeyId = acme.json().key_id;
    const otherKeyId = (await call(s.app, 'GET', '/v1/whoami', { key: s.keys.other })).json().key_id;
    const lines = s.logs.slice(before, before + 2);
    expect(lines[0]).toMatch(new RegExp(`^\\S+Z GET /v1/whoami 200 \\d+\\.\\dms trace-0001 key ${acmeKeyId}$`));
    expect(lines[1]).toMatch(new RegExp(`^\\S+Z GET /v1/settlements/SETTLE-2026-11-009 404 \\d+\\.\\dms trace-0001 key ${otherKeyId}$`));
    // Never the key itself; a request without a valid key has no key id to name.
    const refused = await call(s.app, 'GET', '/v1/whoami', { key: null, headers: trace });
    expect(refused.status).toBe(401);
    expect(s.logs.at(-1)).toMatch(/^\S+Z GET \/v1\/whoami 401 \d+\.\dms trace-0001$/);
    expect(s.logs.slice(before).join('\n')).not.toContain(s.keys.acme);
  });
});
