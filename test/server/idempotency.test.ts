import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLocalBackend } from '../../src/backend/local/index.js';
import { createServer } from '../../src/server/app.js';
import { findIdempotencyKey, insertIdempotencyKey } from '../../src/store/repos/idempotency.js';
import { FIXTURES } from '../helpers/cli.js';
import { call, multipart, NOW, POLICY, startServer, type TestServer } from './helpers.js';

let s: TestServer;
beforeEach(async () => {
  s = await startServer();
});
afterEach(async () => {
  await s.close();
});

const withKey = (key: string) => ({ 'idempotency-key': key });
const count = async (apiKey = s.keys.acme) => (await call(s.app, 'GET', '/v1/policies?limit=10000', { key: apiKey })).json().data.length;

describe('Idempotency-Key', () => {
  it('replays the first response with Idempotent-Replayed: true and creates one policy', async () => {
    const first = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('create-1') });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body written differently (key order, spacing) is the same request.
    const payload = JSON.stringify({ collection_amount: 149.5, product_code: 'LIFE_BASIC', external_customer_ref: 'EXT-1', customer_id: 'C100001', policy_number: 'POL-0001' }, null, 2);
    const again = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, payload, headers: { ...withKey('create-1'), 'content-type': 'application/json' } });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await count()).toBe(1);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another request', async () => {
    await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('k') });
    const other = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: { ...POLICY, policy_number: 'POL-0002' }, headers: withKey('k') });
    expect(other.status).toBe(422);
    expect(other.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const otherPath = await call(s.app, 'PATCH', '/v1/policies/POL-0001', { key: s.keys.acme, body: { status: 'lapsed' }, headers: withKey('k') });
    expect(otherPath.status).toBe(422);
    expect(await count()).toBe(1);
  });

  it('keeps keys per client', async () => {
    await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('shared') });
    const theirs = await call(s.app, 'POST', '/v1/policies', { key: s.keys.other, body: POLICY, headers: withKey('shared') });
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(await count(s.keys.other)).toBe(1);
  });

  it('answers 409 IDEMPOTENCY_IN_PROGRESS while the first request still runs', async () => {
    const first = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('slow') });
    expect(first.status).toBe(201);
    // Another key whose first request is still running (claimed, no response yet).
    const stored = await findIdempotencyKey(s.backend.store.db, 2, 'slow');
    expect(stored?.status).toBe(201);
    await insertIdempotencyKey(s.backend.store.db, { ...stored!, key: 'running', created_at: Date.now(), expires_at: Date.now() + 60_000 });
    const retry = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('running') });
    expect(retry.status).toBe(409);
    expect(retry.json().error.code).toBe('IDEMPOTENCY_IN_PROGRESS');
  });

  it('replays a stored 4xx with the new request id, and does not store a 5xx', async () => {
    const missing = await call(s.app, 'PATCH', '/v1/policies/NOPE', { key: s.keys.acme, body: { status: 'lapsed' }, headers: withKey('p1') });
    expect(missing.status).toBe(404);
    const replay = await call(s.app, 'PATCH', '/v1/policies/NOPE', { key: s.keys.acme, body: { status: 'lapsed' }, headers: withKey('p1') });
    expect(replay.status).toBe(404);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().error.message).toBe(missing.json().error.message);
    expect(replay.json().error.request_id).toBe(replay.headers['x-request-id']);

    const notYet = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, body: { period_month: '2026-10' }, headers: withKey('s1') });
    expect(notYet.status).toBe(501);
    expect(await findIdempotencyKey(s.backend.store.db, 2, 's1')).toBeUndefined();
    const retried = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, body: { period_month: '2026-10' }, headers: withKey('s1') });
    expect(retried.status).toBe(501);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not record requests refused before they ran (invalid body)', async () => {
    const bad = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: { ...POLICY, collection_amount: 0 }, headers: withKey('v1') });
    expect(bad.status).toBe(400);
    const good = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('v1') });
    expect(good.status).toBe(201);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not printable ASCII', 'clé'],
  ])('answers 400 for a key that is %s', async (_what, key) => {
    const res = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey(key) });
    expect(res.status).toBe(400);
    expect(res.json().error.details[0]).toMatchObject({ field: 'Idempotency-Key' });
    expect(await count()).toBe(0);
  });

  it('accepts a key of 255 characters', async () => {
    const res = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('k'.repeat(255)) });
    expect(res.status).toBe(201);
  });

  it('holds across server processes on the same store, and expires after 24 hours', async () => {
    const first = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('x') });
    let clock = NOW().getTime();
    const backend = await openLocalBackend({ path: s.dbPath, now: NOW });
    const second = await createServer({ backend, now: () => new Date(clock) });
    try {
      const replay = await call(second, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('x') });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(first.text);
      clock += 24 * 60 * 60 * 1000 + 1;
      const later = await call(second, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('x') });
      expect(later.headers['idempotent-replayed']).toBeUndefined();
      expect(later.status).toBe(409); // it ran again: the policy exists
      expect(later.json().error.code).toBe('DUPLICATE_POLICY');
    } finally {
      await second.close();
      await backend.close();
    }
  });

  it('identifies an upload by the file: same file replays, another file is 422', async () => {
    const csv = readFileSync(join(FIXTURES, 'policies.csv'));
    const first = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...addKey(multipart('file', 'a.csv', csv), 'imp') });
    expect(first.json()).toEqual({ imported: 520, failed: 0, errors: [] });
    const again = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...addKey(multipart('file', 'renamed.csv', csv), 'imp') });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual({ imported: 520, failed: 0, errors: [] });
    const other = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...addKey(multipart('file', 'a.csv', csv.subarray(0, 200)), 'imp') });
    expect(other.status).toBe(422);
    expect(await count()).toBe(520);
  });
});

function addKey(form: { payload: Buffer; headers: Record<string, string> }, key: string) {
  return { payload: form.payload, headers: { ...form.headers, 'idempotency-key': key } };
}
