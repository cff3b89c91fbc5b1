import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { LocalBackend, openLocalBackend } from '../../src/backend/local/index.js';
import { PremiaError } from '../../src/domain/errors.js';
import { openStore } from '../../src/store/store.js';
import { createServer } from '../../src/server/app.js';
import {
  ABANDONED_AFTER_MS,
  claimAbandoned,
  claimKey,
  completeKey,
  idempotencyRowKey,
  processOwner,
  releaseKey,
} from '../../src/backend/local/idempotency.js';
import type { IdempotencyOwner } from '../../src/backend/types.js';
import { requestHash } from '../../src/backend/wire.js';
import { keyCreationClaim } from '../../src/cli/local-idempotency.js';
import { processIsAlive } from '../../src/lib/process.js';
import { findIdempotencyKey, insertIdempotencyKey, ownerHostColumn } from '../../src/store/repos/idempotency.js';
import { FIXTURES, REPO, tempDir } from '../helpers/cli.js';
import { zombie } from '../helpers/process.js';
import { call, multipart, NOW, POLICY, startServer, type TestServer } from './helpers.js';

let s: TestServer;
beforeEach(async () => {
  s = await startServer();
});
afterEach(async () => {
  await s.close();
});

const withKey = (key: string) => ({ 'idempotency-key': key });
const ACME = 2; // the client id of s.keys.acme (the first client after the local one)
const POLICY_HASH = requestHash('POST', '/v1/policies', POLICY);

/** Record that `owner` has claimed `key` for POST /v1/policies with POLICY and not finished. */
async function claimRunning(key: string, owner: IdempotencyOwner | null, startedAt = Date.now()): Promise<void> {
  await insertIdempotencyKey(
    s.backend.store.db,
    { client_id: ACME, key, request_hash: POLICY_HASH, method: 'POST', path: '/v1/policies', created_at: startedAt, expires_at: startedAt + 24 * 3600_000 },
    owner,
    owner === null ? null : startedAt,
  );
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  expect(child.status).toBe(0);
  return child.pid;
}
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
    // The replayed 201 names the policy it made, as the first did.
    expect(first.headers.location).toBe(`/v1/policies/${first.json().id}`);
    expect(again.headers.location).toBe(first.headers.location);
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
    // The stored response records which process ran it: this one.
    const stored = await findIdempotencyKey(s.backend.store.db, 2, 'slow');
    expect(stored).toMatchObject({ status: 201, owner_host: ownerHostColumn(processOwner()), owner_pid: process.pid, owner_token: processOwner().token });
    // Another key whose first request is still running in this very process (claimed, no response yet).
    const claim = { clientId: ACME, key: 'running', hash: POLICY_HASH, method: 'POST', path: '/v1/policies', now: Date.now() };
    expect(await claimKey(s.backend.store, claim)).toEqual({ kind: 'claimed' });
    const retry = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('running') });
    expect(retry.status).toBe(409);
    expect(retry.json().error.code).toBe('IDEMPOTENCY_IN_PROGRESS');
  });

  it('a claim this process gave up on but could not release (the database gone meanwhile) is taken over by the retry at once', async () => {
    const claim = { clientId: ACME, key: 'outage', hash: POLICY_HASH, method: 'POST', path: '/v1/policies', now: Date.now() };
    expect(await claimKey(s.backend.store, claim)).toEqual({ kind: 'claimed' });
    const down = { ...s.backend.store, transaction: () => Promise.reject(new Error('connection terminated')) } as unknown as typeof s.backend.store;
    await expect(releaseKey(down, ACME, 'outage')).rejects.toThrow('connection terminated');
    expect(await findIdempotencyKey(s.backend.store.db, ACME, 'outage')).toMatchObject({ status: null, owner_token: processOwner().token });
    const retry = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('outage') });
    expect(retry.status).toBe(201);
    expect(await findIdempotencyKey(s.backend.store.db, ACME, 'outage')).toMatchObject({ status: 201 });
    // Not an advance's (it commits in parts): cut off part way, run again at once its days would count from a later clock.
    const advance = { clientId: ACME, key: 'advance-outage', hash: 'h', method: 'POST', path: '/v1/clock/advance', now: Date.now(), inParts: true };
    expect(await claimKey(s.backend.store, advance)).toEqual({ kind: 'claimed' });
    await expect(releaseKey(down, ACME, 'advance-outage')).rejects.toThrow('connection terminated');
    await expect(claimKey(s.backend.store, { ...advance, now: Date.now() })).rejects.toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
  });

  it('does not store a 4xx refusal: the retry runs again (see hardening.test.ts G9)', async () => {
    const missing = await call(s.app, 'PATCH', '/v1/policies/NOPE', { key: s.keys.acme, body: { status: 'lapsed' }, headers: withKey('p1') });
    expect(missing.status).toBe(404);
    expect(await findIdempotencyKey(s.backend.store.db, ACME, 'p1')).toBeUndefined();
    const again = await call(s.app, 'PATCH', '/v1/policies/NOPE', { key: s.keys.acme, body: { status: 'lapsed' }, headers: withKey('p1') });
    expect(again.status).toBe(404);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });

  it('replays a 4xx stored by an earlier premia (which kept refusals) with the new request id', async () => {
    const hash = requestHash('PATCH', '/v1/policies/NOPE', { status: 'lapsed' });
    await claimKey(s.backend.store, { clientId: ACME, key: 'old', hash, method: 'PATCH', path: '/v1/policies/NOPE', now: Date.now() });
    const body = '{"error":{"code":"NOT_FOUND","message":"Policy \'NOPE\' was not found.","request_id":"first-request"}}';
    await completeKey(s.backend.store, ACME, 'old', { status: 404, contentType: 'application/json; charset=utf-8', body });
    const replay = await call(s.app, 'PATCH', '/v1/policies/NOPE', { key: s.keys.acme, body: { status: 'lapsed' }, headers: withKey('old') });
    expect(replay.status).toBe(404);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().error.message).toBe("Policy 'NOPE' was not found.");
    expect(replay.json().error.request_id).toBe(replay.headers['x-request-id']);

  });

  it.each([
    ['500 INTERNAL (an unexpected error)', () => new Error('disk I/O error'), 500, 'INTERNAL'],
    ['503 STORE_BUSY', () => new PremiaError('STORE_BUSY', 'The store is busy.'), 503, 'STORE_BUSY'],
  ])('does not store a %s: the retry with the same key runs again', async (_what, failure, status, code) => {
    // A backend whose first createPolicy fails, as a full disk or a held lock would; later ones work.
    let calls = 0;
    class FailsOnce extends LocalBackend {
      override forClient(clientId: number): LocalBackend {
        const b = super.forClient(clientId);
        const real = b.createPolicy.bind(b);
        b.createPolicy = async (input) => {
          calls++;
          if (calls === 1) throw failure();
          return real(input);
        };
        return b;
      }
    }
    const logs: string[] = [];
    // offload: false: the substituted method runs on this thread (a job thread would use its own backend).
    const app = await createServer({ backend: new FailsOnce(s.backend.ctx, false), log: (l) => logs.push(l), offload: false });
    try {
      const failed = await call(app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('k5') });
      expect(failed.status).toBe(status);
      expect(failed.json().error.code).toBe(code);
      expect(failed.headers['idempotent-replayed']).toBeUndefined();
      expect(await findIdempotencyKey(s.backend.store.db, ACME, 'k5')).toBeUndefined();
      expect(await count()).toBe(0);
      const retried = await call(app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('k5') });
      expect(retried.status).toBe(201);
      expect(retried.headers['idempotent-replayed']).toBeUndefined();
      expect(calls).toBe(2);
      expect(await findIdempotencyKey(s.backend.store.db, ACME, 'k5')).toMatchObject({ status: 201 });
      const replay = await call(app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('k5') });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(retried.text);
      expect(calls).toBe(2);
      expect(await count()).toBe(1);
    } finally {
      await app.close();
    }
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

  it('answers 400 for an Idempotency-Key holding an API key: it would be stored in clear for 24 hours', async () => {
    const res = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey(s.keys.acme) });
    expect(res.status).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'The Idempotency-Key header holds an API key; send the key in X-API-Key and a value of your own (a UUID) as the Idempotency-Key.',
      details: [{ field: 'Idempotency-Key', code: 'INVALID_FORMAT', message: 'Idempotency-Key holds an API key (pmk_ and 40 letters and digits), a secret never stored as data' }],
    });
    expect(await count()).toBe(0);
    const stored = await s.backend.store.db.selectFrom('idempotency_keys').select('key').execute();
    expect(stored).toEqual([]);
  });

  it('makes no API key over HTTP: keys are issued on the store (premia keys create), so POST /v1/keys is no endpoint, key or not', async () => {
    const before = await s.backend.admin.keys.list();
    for (let i = 0; i < 2; i++) {
      const r = await call(s.app, 'POST', '/v1/keys', { key: s.keys.operator, body: { client: 'Acme Life' }, headers: withKey('make-key') });
      expect(r.status).toBe(404);
      expect(r.text).not.toMatch(/pmk_/);
    }
    expect(await s.backend.admin.keys.list()).toEqual(before);
    expect(await findIdempotencyKey(s.backend.store.db, 1, 'make-key')).toBeUndefined();
  });

  it("keys create under an idempotency key: one key, a repeat described without its secret, the store's record shared with the server", async () => {
    const { idempotency, keys } = s.backend.admin;
    const claim = () => keyCreationClaim('nightly-keys', idempotency, 'Acme Life', 'client', NOW);
    const first = await keys.createOnce('Acme Life', 'client', claim());
    if (!('created' in first)) throw new Error('the first run makes the key');
    const secret = first.created.key;
    expect(secret).toMatch(/^pmk_[0-9A-Za-z]{40}$/);
    const again = await keys.createOnce('Acme Life', 'client', claim());
    expect(again).toEqual({
      replayed: { id: first.created.id, client: 'Acme Life', new_client: false, role: 'client', key: `pmk_…${secret.slice(-4)}`, created_at: '2026-11-21T09:30:00.000Z', revoked_at: null },
    });
    expect(JSON.stringify(again)).not.toContain(secret.slice(4, -4));
    expect((await keys.list()).filter((k) => k.client === 'Acme Life' && k.role === 'client')).toHaveLength(2); // startServer's and this one
    // The record is the store's (a store-wide operation's scope): an operator's clock advance under the same key is another request.
    const advance = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { days: 1 }, headers: withKey('nightly-keys') });
    expect(advance.status).toBe(422);
    expect(advance.json().error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: "This Idempotency-Key was first used for another request ('premia keys create' with other options); use a new key for a new request.",
    });
    expect(advance.text).not.toContain(secret.slice(4, -4));
    // Nothing of the secret in the record, nor anywhere in the store's bytes.
    const at = idempotencyRowKey(idempotency.storeScope, 'nightly-keys');
    const row = await findIdempotencyKey(s.backend.store.db, at.clientId, at.key);
    expect(row).toMatchObject({ method: 'CLI', path: 'premia keys create', status: 201 });
    expect(JSON.stringify(row)).not.toContain(secret.slice(4, -4));
    const bytes = Buffer.concat([s.dbPath, `${s.dbPath}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
    expect(bytes.includes(secret.slice(4, -4))).toBe(false);
  });

  it('accepts a key of 255 characters', async () => {
    const res = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('k'.repeat(255)) });
    expect(res.status).toBe(201);
  });

  it('holds across server processes on the same store, and expires after 24 hours', async () => {
    const first = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('x') });
    // Both servers keep time by the tests' fixed NOW (startServer passes it), so the 24 hours count from it.
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

describe('GET /v1/idempotency-keys: what is on record for a key of the client', () => {
  const lookUp = (key: string, apiKey = s.keys.acme) => call(s.app, 'GET', `/v1/idempotency-keys?key=${encodeURIComponent(key)}`, { key: apiKey });

  it("shows the request a key was used for, its hash and whether it was answered; nothing for an unused key or another client's", async () => {
    const key = 'nightly/2026-11 #1?&';
    expect((await lookUp(key)).json()).toEqual({ data: [] });
    expect((await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey(key) })).status).toBe(201);
    const found = await lookUp(key);
    expect(found.status).toBe(200);
    expect(found.json()).toEqual({
      data: [
        {
          key,
          method: 'POST',
          path: '/v1/policies',
          request_hash: POLICY_HASH,
          state: 'answered',
          status: 201,
          created_at: '2026-11-22T09:30:00.000Z',
          expires_at: '2026-11-23T09:30:00.000Z',
        },
      ],
    });
    expect((await lookUp(key, s.keys.other)).json()).toEqual({ data: [] });
    // A first request not answered (yet): running, no status.
    await claimKey(s.backend.store, { clientId: ACME, key: 'running', hash: POLICY_HASH, method: 'POST', path: '/v1/policies', now: NOW().getTime() });
    expect((await lookUp('running')).json().data).toMatchObject([{ key: 'running', state: 'running', status: null }]);
    // A refusal keeps nothing: nothing on record.
    await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('dup') });
    expect((await lookUp('dup')).json()).toEqual({ data: [] });
  });

  it('shows nothing once the record has expired (24 hours)', async () => {
    await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('old') });
    for (const [after, found] of [[24 * 3600_000 - 1, true], [24 * 3600_000, false]] as const) {
      const later = await openLocalBackend({ path: s.dbPath, now: () => new Date(NOW().getTime() + after) });
      try {
        expect((await later.forClient(ACME).idempotencyRecord('old'))?.key ?? null).toBe(found ? 'old' : null);
      } finally {
        await later.close();
      }
    }
  });

  // An advance's key is the store's: a terminal's rerun of `clock advance --idempotency-key K` was
  // asked about the advance it would make now, then repeated the earlier one.
  it("with operation=advanceClock, shows the store's key to an operator key (any client's), never to a client key, nor a client's own key as the store's", async () => {
    const advance = (apiKey: string) => call(s.app, 'POST', '/v1/clock/advance', { key: apiKey, body: { days: 1 }, headers: withKey('nightly') });
    const lookUpFor = (key: string, apiKey: string, operation = 'advanceClock') =>
      call(s.app, 'GET', `/v1/idempotency-keys?key=${encodeURIComponent(key)}&operation=${operation}`, { key: apiKey });
    expect((await advance(s.keys.operator)).status).toBe(200);
    const found = await lookUpFor('nightly', s.keys.operator);
    expect(found.status).toBe(200);
    expect(found.json().data).toMatchObject([
      { key: 'nightly', method: 'POST', path: '/v1/clock/advance', request_hash: requestHash('POST', '/v1/clock/advance', { days: 1 }), state: 'answered', status: 200 },
    ]);
    // Not the operator's own client's key, nor another operation's: the store's, for that operation alone.
    expect((await lookUp('nightly', s.keys.operator)).json()).toEqual({ data: [] });
    expect((await lookUpFor('nightly', s.keys.operator, 'createPolicy')).json()).toEqual({ data: [] });
    // A client key may not send an advance: nor may it look up the store's keys.
    const refused = await lookUpFor('nightly', s.keys.acme);
    expect([refused.status, refused.json().error.code]).toEqual([403, 'FORBIDDEN']);
    // A client's own key of the same name is its own, not the store's.
    expect((await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('mine') })).status).toBe(201);
    expect((await lookUpFor('mine', s.keys.operator)).json()).toEqual({ data: [] });
    expect((await lookUpFor('mine', s.keys.acme, 'createPolicy')).json().data).toMatchObject([{ key: 'mine', path: '/v1/policies' }]);
  });

  // The hash of `premia keys create`'s request is of the client's name and role: shown to any
  // operator key, of any client, it let one confirm another client's name offline (sha256 of
  // guesses), where an advance under the key tells only that the command used it (a 422).
  it("shows an operator of another client a keys create's record without its hash, which would confirm the client's name", async () => {
    const { idempotency, keys } = s.backend.admin;
    const made = await keys.createOnce('Secret Mutual', 'client', keyCreationClaim('onboarding', idempotency, 'Secret Mutual', 'client', NOW));
    expect('created' in made).toBe(true);
    const otherOperator = (await keys.create('Other Insure', 'operator')).key;
    for (const operation of ['advanceClock', 'seedBank']) {
      const found = await call(s.app, 'GET', `/v1/idempotency-keys?key=onboarding&operation=${operation}`, { key: otherOperator });
      expect(found.status).toBe(200);
      expect(found.json()).toEqual({
        data: [
          {
            key: 'onboarding',
            method: 'CLI',
            path: 'premia keys create',
            request_hash: null,
            state: 'answered',
            status: 201,
            created_at: '2026-11-22T09:30:00.000Z',
            expires_at: '2026-11-23T09:30:00.000Z',
          },
        ],
      });
    }
  });

  it('refuses a lookup without a key, with two, with another parameter or of a key holding an API key', async () => {
    for (const [query, code, message] of [
      ['', 'REQUIRED', 'key is required: the Idempotency-Key to look up'],
      ['?key=', 'REQUIRED', 'key is required: the Idempotency-Key to look up'],
      ['?key=a&key=b', 'REPEATED', undefined],
      ['?key=a&client=2', 'UNKNOWN_FIELD', 'client is not a field of an idempotency key lookup; known: key, operation'],
      ['?key=a&operation=getClock', 'INVALID_VALUE', undefined],
      ['?key=a&operation=advanceClock&operation=seedBank', 'REPEATED', undefined],
      [`?key=${s.keys.acme}`, 'INVALID_FORMAT', 'key holds an API key (pmk_ and 40 letters and digits), a secret never stored as data'],
      [`?key=${'k'.repeat(256)}`, 'INVALID_FORMAT', 'key must be 1–255 printable ASCII characters, as an Idempotency-Key'],
    ] as const) {
      const res = await call(s.app, 'GET', `/v1/idempotency-keys${query}`, { key: s.keys.acme });
      expect(res.status, query).toBe(400);
      expect(res.json().error.details[0], query).toMatchObject({ code, ...(message === undefined ? {} : { message }) });
    }
  });
});

function addKey(form: { payload: Buffer; headers: Record<string, string> }, key: string) {
  return { payload: form.payload, headers: { ...form.headers, 'idempotency-key': key } };
}

describe('abandoned Idempotency-Keys (the process of the first request died)', () => {
  const self = processOwner();
  const row = (owner: Partial<IdempotencyOwner> | null, startedAt: number) => ({
    owner_host: owner === null ? null : (owner.host ?? self.host),
    owner_pid: owner === null ? null : (owner.pid ?? self.pid),
    owner_token: owner === null ? null : (owner.token ?? self.token),
    started_at: owner === null ? null : startedAt,
    created_at: startedAt,
  });

  it('judges an owner gone by its process on this host, or by the age of its claim', () => {
    const now = 1_800_000_000_000;
    const alive = (pid: number) => pid === 4242;
    const fresh = now - 1000;
    expect(claimAbandoned(row({ pid: 4242, token: 't' }, fresh), self, now, alive)).toBe(false); // alive elsewhere on this host
    expect(claimAbandoned(row({ pid: 4243, token: 't' }, fresh), self, now, alive)).toBe(true); // its process is gone
    expect(claimAbandoned(row({}, fresh), self, now, alive)).toBe(false); // this very process is running it
    expect(claimAbandoned(row({ token: 'earlier process with our pid' }, fresh), self, now, alive)).toBe(true);
    expect(claimAbandoned(row({ host: 'another-host', pid: 4243, token: 't' }, fresh), self, now, alive)).toBe(false); // cannot check
    expect(claimAbandoned(row(null, fresh), self, now, alive)).toBe(false); // written before owners were recorded
    // Whoever holds it, a claim older than 10 minutes is abandoned.
    for (const owner of [{ pid: 4242, token: 't' }, {}, { host: 'another-host' }, null]) {
      expect(claimAbandoned(row(owner, now - ABANDONED_AFTER_MS), self, now, alive), JSON.stringify(owner)).toBe(false);
      expect(claimAbandoned(row(owner, now - ABANDONED_AFTER_MS - 1), self, now, alive), JSON.stringify(owner)).toBe(true);
    }
    expect(ABANDONED_AFTER_MS).toBe(600_000);
  });

  it('judges an owner by its process only when it ran in this PID namespace of this host (or did not record one)', () => {
    const now = 1_800_000_000_000;
    const fresh = now - 1000;
    const dead = () => false;
    const me: IdempotencyOwner = { ...self, pidNamespace: 'pid:[4026531836]' };
    const at = (ns: string | null, owner: Partial<IdempotencyOwner>) => row({ ...owner, host: ns === null ? self.host : `${self.host} ${ns}` }, fresh);
    // Of this namespace, or recorded without one (an earlier version): judged by its process.
    expect(claimAbandoned(at('pid:[4026531836]', { pid: 4243, token: 't' }), me, now, dead)).toBe(true);
    expect(claimAbandoned(at('pid:[4026531836]', { token: 'earlier process with our pid' }), me, now, dead)).toBe(true);
    expect(claimAbandoned(at(null, { pid: 4243, token: 't' }), me, now, dead)).toBe(true);
    // Another namespace of this host name (a container with host networking): its pid names no
    // process here, or another one, even this one; as on another host, only the age tells.
    expect(claimAbandoned(at('pid:[4026532178]', { pid: 4243, token: 't' }), me, now, dead)).toBe(false);
    expect(claimAbandoned(at('pid:[4026532178]', { token: 'another container, process 1 too' }), me, now, dead)).toBe(false);
    expect(claimAbandoned(row({ host: `${self.host} pid:[4026532178]`, pid: 4243, token: 't' }, now - ABANDONED_AFTER_MS - 1), me, now, dead)).toBe(true);
  });

  it('probes processes of this host', () => {
    expect(processIsAlive(process.pid)).toBe(true);
    expect(processIsAlive(deadPid())).toBe(false);
    expect(processIsAlive(0)).toBe(false);
    expect(processIsAlive(-1)).toBe(false);
  });

  it.runIf(existsSync('/proc/self/stat'))('takes a zombie (exited, not reaped yet) for gone', async () => {
    const z = await zombie();
    try {
      expect(processIsAlive(z.pid)).toBe(false);
      const fresh = 1_800_000_000_000;
      expect(claimAbandoned(row({ pid: z.pid, token: 't' }, fresh - 1000), self, fresh)).toBe(true);
    } finally {
      z.stop();
    }
  });

  it('lets a retry take over a key claimed by a process that died mid-request', async () => {
    // A real process claims the key through the same code (the built dist/) and is killed
    // before it can answer, as a server killed mid-request would be.
    const script = `
      const { openStore } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist', 'store', 'store.js')).href)});
      const { claimKey } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist', 'backend', 'local', 'idempotency.js')).href)});
      const { requestHash } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist', 'backend', 'wire.js')).href)});
      const store = await openStore({ path: ${JSON.stringify(s.dbPath)} });
      const body = ${JSON.stringify(POLICY)};
      const claim = await claimKey(store, { clientId: ${ACME}, key: 'crashed', hash: requestHash('POST', '/v1/policies', body), method: 'POST', path: '/v1/policies', now: Date.now() });
      process.stdout.write(JSON.stringify(claim));
      process.kill(process.pid, 'SIGKILL');
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    expect(JSON.parse(child.stdout)).toEqual({ kind: 'claimed' });
    const left = await findIdempotencyKey(s.backend.store.db, ACME, 'crashed');
    expect(left).toMatchObject({ status: null, owner_pid: child.pid, owner_host: ownerHostColumn({ ...processOwner(), host: hostname() }) });
    expect(left!.owner_token).not.toBe(processOwner().token);

    const retry = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('crashed') });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await findIdempotencyKey(s.backend.store.db, ACME, 'crashed')).toMatchObject({ status: 201, owner_pid: process.pid, owner_token: processOwner().token });
    const replay = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('crashed') });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(retry.text);
    expect(await count()).toBe(1);
  });

  it('answers 409 while the owner lives, and takes over once its claim is older than 10 minutes', async () => {
    const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    let clock = Date.now();
    const second = await createServer({ backend: s.backend, now: () => new Date(clock) });
    try {
      await claimRunning('held', { host: hostname(), pid: sleeper.pid!, token: 'another server' }, clock);
      await claimRunning('elsewhere', { host: 'another-host', pid: deadPid(), token: 'another machine' }, clock);
      await claimRunning('legacy', null, clock);
      for (const key of ['held', 'elsewhere', 'legacy']) {
        const busy = await call(second, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey(key) });
        expect(busy.status, key).toBe(409);
        expect(busy.json().error.code).toBe('IDEMPOTENCY_IN_PROGRESS');
      }
      clock += ABANDONED_AFTER_MS;
      expect((await call(second, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('held') })).status).toBe(409);
      clock += 1;
      const taken = await call(second, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('held') });
      expect(taken.status).toBe(201);
      // The retry became the owner, with a fresh start and 24 hours from now.
      expect(await findIdempotencyKey(s.backend.store.db, ACME, 'held')).toMatchObject({
        status: 201,
        owner_pid: process.pid,
        started_at: clock,
        created_at: clock,
        expires_at: clock + 24 * 3600_000,
      });
      // The two other keys are old too now; they name the same request, so they run it again: the policy exists.
      const elsewhere = await call(second, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('elsewhere') });
      expect(elsewhere.status).toBe(409);
      expect(elsewhere.json().error.code).toBe('DUPLICATE_POLICY');
      expect(await count()).toBe(1);
    } finally {
      sleeper.kill('SIGKILL');
      await second.close();
    }
  });

  it('keeps the new owner\'s outcome when the old owner finishes after a takeover', async () => {
    const store = s.backend.store;
    // Two live processes of this host: the old owner is merely slow.
    const old: IdempotencyOwner = { host: hostname(), pid: 4242, token: 'old' };
    const fresh: IdempotencyOwner = { host: hostname(), pid: 4343, token: 'new' };
    const input = { clientId: ACME, key: 'slow', hash: POLICY_HASH, method: 'POST', path: '/v1/policies', isAlive: () => true };
    const t0 = Date.now();
    expect(await claimKey(store, { ...input, now: t0, owner: old })).toEqual({ kind: 'claimed' });
    await expect(claimKey(store, { ...input, now: t0 + ABANDONED_AFTER_MS, owner: fresh })).rejects.toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
    expect(await claimKey(store, { ...input, now: t0 + ABANDONED_AFTER_MS + 1, owner: fresh })).toEqual({ kind: 'claimed' });
    // The old owner can neither release nor complete the key any more.
    expect(await releaseKey(store, ACME, 'slow', old)).toBe(false);
    expect(await completeKey(store, ACME, 'slow', { status: 201, contentType: 'application/json; charset=utf-8', body: '{"old":true}' }, old)).toBe(false);
    expect(await completeKey(store, ACME, 'slow', { status: 201, contentType: 'application/json; charset=utf-8', body: '{"new":true}' }, fresh)).toBe(true);
    const replay = await claimKey(store, { ...input, now: t0 + ABANDONED_AFTER_MS + 2, owner: old });
    expect(replay).toEqual({ kind: 'replay', response: { status: 201, contentType: 'application/json; charset=utf-8', body: '{"new":true}' } });
    // A completed key is never taken over, however old (until it expires after 24 hours).
    const later = await claimKey(store, { ...input, now: t0 + 23 * 3600_000, owner: old });
    expect(later.kind).toBe('replay');
  });

  it('a request taken over while it still ran answers, but the retry\'s response is the one kept (and logged)', async () => {
    // The first createPolicy waits at a gate; the retry's runs at once.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let calls = 0;
    class Slow extends LocalBackend {
      override forClient(clientId: number): LocalBackend {
        const b = super.forClient(clientId);
        const create = b.createPolicy.bind(b);
        b.createPolicy = async (input) => {
          calls++;
          if (calls === 1) {
            await gate;
            return { ...(await create({ ...input, policy_number: 'POL-SLOW' })) };
          }
          return create(input);
        };
        return b;
      }
    }
    let clock = Date.now();
    const logs: string[] = [];
    const app = await createServer({ backend: new Slow(s.backend.ctx, false), now: () => new Date(clock), log: (l) => logs.push(l), offload: false });
    try {
      const first = call(app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('long') });
      // Wait until the first request has claimed the key (ordering, not timing).
      while ((await findIdempotencyKey(s.backend.store.db, ACME, 'long')) === undefined) await new Promise((r) => setTimeout(r, 5));
      clock += ABANDONED_AFTER_MS + 1;
      const retry = await call(app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('long') });
      expect(retry.status).toBe(201);
      expect(retry.json().policy_number).toBe('POL-0001');
      open();
      const late = await first;
      expect(late.status).toBe(201);
      expect(late.json().policy_number).toBe('POL-SLOW');
      const warning = logs.find((l) => l.includes(' warn '));
      expect(warning).toBe(
        `${warning!.split(' ', 1)[0]} warn ${String(late.headers['x-request-id'])}: its Idempotency-Key was taken over by a retry while it ran; the retry's response is the one kept`,
      );
      const replay = await call(app, 'POST', '/v1/policies', { key: s.keys.acme, body: POLICY, headers: withKey('long') });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(retry.text);
    } finally {
      open();
      await app.close();
    }
  });

  it('upgrades a store written before owners were recorded (migration 0005_idempotency_owner)', async () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'old.db');
    try {
      // A store as premia wrote it before 0005: without the owner columns, one key in progress.
      const first = await openStore({ path });
      await first.close();
      const raw = new Database(path);
      for (const column of ['owner_host', 'owner_pid', 'owner_token', 'started_at']) raw.exec(`alter table idempotency_keys drop column ${column}`);
      raw.prepare("delete from schema_migrations where name = '0005_idempotency_owner'").run();
      raw.exec("insert into clients (id, name, created_at) values (2, 'Acme Life', 0)");
      raw.prepare('insert into idempotency_keys (client_id, key, request_hash, method, path, created_at, expires_at) values (2, ?, ?, ?, ?, ?, ?)').run(
        'old', POLICY_HASH, 'POST', '/v1/policies', 1000, 1000 + 24 * 3600_000,
      );
      raw.close();
      const upgraded = await openStore({ path });
      try {
        const row = await findIdempotencyKey(upgraded.db, 2, 'old');
        expect(row).toMatchObject({ status: null, owner_host: null, owner_pid: null, owner_token: null, started_at: null, created_at: 1000 });
        const input = { clientId: 2, key: 'old', hash: POLICY_HASH, method: 'POST', path: '/v1/policies' };
        await expect(claimKey(upgraded, { ...input, now: 1000 + ABANDONED_AFTER_MS })).rejects.toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
        expect(await claimKey(upgraded, { ...input, now: 1001 + ABANDONED_AFTER_MS })).toEqual({ kind: 'claimed' });
        expect(await findIdempotencyKey(upgraded.db, 2, 'old')).toMatchObject({ owner_pid: process.pid, started_at: 1001 + ABANDONED_AFTER_MS });
      } finally {
        await upgraded.close();
      }
    } finally {
      cleanup();
    }
  });
});
