import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServer, type TestServer } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ rateLimit: 3, rateLimitWindowMs: 60_000 });
});
afterAll(async () => {
  await s.close();
});

describe('rate limiting per API key', () => {
  it('answers 429 RATE_LIMITED with Retry-After once a key is over its limit; other keys go on', async () => {
    // Requests without a valid key are refused before they count against anyone.
    for (let i = 0; i < 5; i++) expect((await call(s.app, 'GET', '/v1/whoami', { key: 'pmk_wrong' })).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await call(s.app, 'GET', '/v1/whoami', { key: s.keys.acme })).status).toBe(200);
    const over = await call(s.app, 'GET', '/v1/whoami', { key: s.keys.acme });
    expect(over.status).toBe(429);
    expect(over.json().error).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/^Too many requests for this API key; retry after \d+ seconds?\.$/),
    });
    const retryAfter = Number(over.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect((await call(s.app, 'GET', '/v1/whoami', { key: s.keys.other })).status).toBe(200);
  });

  it('counts requests to no endpoint (404) and with a method a path does not take (405) as any other', async () => {
    const key = s.keys.operator;
    expect((await call(s.app, 'GET', '/v1/no-such-endpoint', { key })).status).toBe(404);
    expect((await call(s.app, 'DELETE', '/v1/clock', { key })).status).toBe(405);
    expect((await call(s.app, 'GET', '/v1/policies/P1/nothing', { key })).status).toBe(404);
    for (const [method, path] of [['GET', '/v1/no-such-endpoint'], ['DELETE', '/v1/clock'], ['GET', '/v1/whoami']] as const) {
      const over = await call(s.app, method, path, { key });
      expect(over.status, `${method} ${path}`).toBe(429);
      expect(over.json().error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/^Too many requests for this API key; retry after \d+ seconds?\.$/) });
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });
});
