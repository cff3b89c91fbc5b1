/**
 * Failed authentications per source address (issue 10): after 20 in a minute an address gets 429
 * with Retry-After before any key lookup; keys that already worked from it keep working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  it('answers 429 after 20 failures in a minute, before looking the key up; good keys and other addresses go on', async () => {
    // acme's key has worked from this address before the failures start.
    expect((await from('10.0.0.1', s.keys.acme)).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      const res = await from('10.0.0.1', i % 2 === 0 ? `pmk_wrong${i}` : null, i % 3 === 0 ? '/v1/nothing' : '/v1/whoami');
      expect(res.status, `failure ${i + 1}`).toBe(401);
    }
    const limited = await from('10.0.0.1', 'pmk_wrong-again');
    expect(limited.status).toBe(429);
    expect(limited.json().error).toMatchObject({
      code: 'RATE_LIMITED',
      message: 'Too many requests with a missing or invalid API key from this address; retry after 60 seconds.',
    });
    expect(limited.headers['retry-after']).toBe('60');
    // A valid key never seen from this address is not even looked up: 429 too.
    const fresh = await s.backend.admin.keys.create('Acme Life', 'client');
    expect((await from('10.0.0.1', fresh.key)).status).toBe(429);
    // A key that worked from this address still does (a good client behind the same NAT).
    expect((await from('10.0.0.1', s.keys.acme)).status).toBe(200);
    // Another address is not concerned.
    expect((await from('10.0.0.2', 'pmk_wrong')).status).toBe(401);
    expect((await from('10.0.0.2', fresh.key)).status).toBe(200);

    clock += 30_000;
    const later = await from('10.0.0.1', null);
    expect(later.status).toBe(429);
    expect(later.headers['retry-after']).toBe('30');
    // Once the minute has passed, the address starts afresh.
    clock += 30_000;
    expect((await from('10.0.0.1', 'pmk_wrong')).status).toBe(401);
    expect((await from('10.0.0.1', fresh.key)).status).toBe(200);
  });
});
