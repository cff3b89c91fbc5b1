/**
 * Failed authentications per source address (issue 10): after 20 in a minute (the test's limit;
 * 100 by default) an address gets 401 with Retry-After before any key lookup; keys that already
 * worked from it keep working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailedAuthLimiter, MAX_GOOD_KEYS } from '../../src/server/auth-limit.js';
import { NOW, startServer, checkResponse, type TestServer } from './helpers.js';

let s: TestServer;
let clock = NOW().getTime();
beforeAll(async () => {
  s = await startServer({ now: () => new Date(clock), authFailureLimit: 20, authFailureWindowMs: 60_000 });
});
afterAll(async () => {
  await s.close();
});

async function from(address: string, key: string | null, url = '/v1/whoami') {
  const headers: Record<string, string> = key === null ? {} : { 'x-api-key': key };
  const res = await s.app.inject({ method: 'GET', url, headers, remoteAddress: address });
  const reply = { status: res.statusCode, headers: res.headers, text: res.body, json: () => JSON.parse(res.body) };
  checkResponse('GET', url, reply);
  return reply;
}

describe('failed authentications per address', () => {
  it('answers 401 with Retry-After after 20 failures in a minute, before looking the key up; good keys and other addresses go on', async () => {
    // acme's key has worked from this address before the failures start.
    expect((await from('10.0.0.1', s.keys.acme)).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      const res = await from('10.0.0.1', i % 2 === 0 ? `pmk_wrong${i}` : null, i % 3 === 0 ? '/v1/nothing' : '/v1/whoami');
      expect(res.status, `failure ${i + 1}`).toBe(401);
    }
    const limited = await from('10.0.0.1', 'pmk_wrong-again');
    // 401 as for any missing or invalid key (the spec's answer), with how long the block lasts.
    expect(limited.status).toBe(401);
    expect(limited.json().error).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'Too many requests with a missing or invalid API key from this address: only keys that have worked from it before are accepted for 60 seconds more.',
    });
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.headers['www-authenticate']).toBe('ApiKey realm="premia", header="X-API-Key"');
    // A valid key never seen from this address is not even looked up: refused too.
    const fresh = await s.backend.admin.keys.create('Acme Life', 'client');
    const unseen = await from('10.0.0.1', fresh.key);
    expect(unseen.status).toBe(401);
    expect(unseen.headers['retry-after']).toBe('60');
    // A key that worked from this address still does (a good client behind the same NAT).
    expect((await from('10.0.0.1', s.keys.acme)).status).toBe(200);
    // Another address is not concerned.
    expect((await from('10.0.0.2', 'pmk_wrong')).status).toBe(401);
    expect((await from('10.0.0.2', fresh.key)).status).toBe(200);

    clock += 30_000;
    const later = await from('10.0.0.1', null);
    expect(later.status).toBe(401);
    expect(later.headers['retry-after']).toBe('30');
    // Once the minute has passed, the address starts afresh: a plain 401, no Retry-After.
    clock += 30_000;
    const afresh = await from('10.0.0.1', 'pmk_wrong');
    expect(afresh.status).toBe(401);
    expect(afresh.headers['retry-after']).toBeUndefined();
    expect((await from('10.0.0.1', fresh.key)).status).toBe(200);
  });
});

const digest = (k: number) => `digest-${k}`;

describe('FailedAuthLimiter', () => {
  it('blocks an address after its failures, but not the keys that authenticated from it, however many', () => {
    const now = 1_000_000;
    const limiter = new FailedAuthLimiter(20, 60_000, () => now);
    // A proxy in front of 50 clients: each authenticates once, the first ones long before a broken client fails.
    for (let k = 0; k < 50; k++) limiter.succeeded('10.0.0.1', digest(k));
    for (let i = 0; i < 19; i++) limiter.failed('10.0.0.1');
    expect(limiter.blocked('10.0.0.1', null)).toBeNull();
    limiter.failed('10.0.0.1');
    expect(limiter.blocked('10.0.0.1', null)).toBe(60);
    expect(limiter.blocked('10.0.0.1', 'digest-unknown')).toBe(60);
    for (let k = 0; k < 50; k++) expect(limiter.blocked('10.0.0.1', digest(k)), `key ${k}`).toBeNull();
    // Another address is not blocked, and does not know these keys (nor needs to).
    expect(limiter.blocked('10.0.0.2', null)).toBeNull();
  });

  it('forgets the least recently used key of an address first, once it holds MAX_GOOD_KEYS', () => {
    let now = 0;
    const limiter = new FailedAuthLimiter(1, 60_000, () => now);
    for (let k = 0; k < MAX_GOOD_KEYS; k++) limiter.succeeded('a', digest(k));
    limiter.succeeded('a', digest(0)); // used again: the most recent now
    limiter.succeeded('a', digest(MAX_GOOD_KEYS)); // one more: key 1, the least recently used, goes
    limiter.failed('a');
    expect(limiter.blocked('a', digest(0))).toBeNull();
    expect(limiter.blocked('a', digest(MAX_GOOD_KEYS))).toBeNull();
    expect(limiter.blocked('a', digest(2))).toBeNull();
    expect(limiter.blocked('a', digest(1))).toBe(60);
    // The window passes: nobody is blocked.
    now = 60_000;
    expect(limiter.blocked('a', digest(1))).toBeNull();
  });
});
