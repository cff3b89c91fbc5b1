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

  it('counts requests whose URL the router cannot take (a malformed percent-escape, a segment over 100 characters) as any other', async () => {
    const { key } = await s.backend.admin.keys.create('Other Insure', 'client');
    const badUrls = ['/v1/policies/%E0%A4%A', `/v1/policies/${'x'.repeat(101)}`, '/v1/policies/%E0%A4%A'];
    for (const url of badUrls) expect((await call(s.app, 'GET', url, { key })).status, url).toBe(400);
    // Three requests made: the key is over its limit, for these URLs as for any other.
    for (const url of ['/v1/whoami', ...badUrls]) {
      const over = await call(s.app, 'GET', url, { key });
      expect(over.status, url).toBe(429);
      expect(over.json().error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/^Too many requests for this API key; retry after \d+ seconds?\.$/) });
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });
});
