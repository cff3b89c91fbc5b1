import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { call, POLICY, startServer, type TestServer } from './helpers.js';

const UNAUTHORIZED = 'Invalid or missing API key: send a valid key in the X-API-Key header.';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

describe('authentication (spec 5)', () => {
  it.each([
    ['missing', null],
    ['unknown', 'pmk_0000000000000000000000000000000000000000'],
    ['empty', ''],
    ['a near miss', 'x'],
  ])('answers 401 UNAUTHORIZED with the spec body when the key is %s', async (_what, key) => {
    const res = await call(s.app, 'GET', '/v1/policies', { key });
    expect(res.status).toBe(401);
    expect(res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: UNAUTHORIZED, request_id: res.headers['x-request-id'] } });
  });

  it('checks the key before reading the body', async () => {
    const res = await call(s.app, 'POST', '/v1/policies', { key: null, payload: '{not json', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
  });

  it('refuses a key revoked by the CLI at once (nothing is cached)', async () => {
    const created = await runCli(['--db', s.dbPath, '--json', 'keys', 'create', '--client', 'Acme Life'], { cwd: s.dir });
    expect(created.code).toBe(0);
    const { id, key, client } = created.json();
    expect(client).toBe('Acme Life');
    expect((await call(s.app, 'GET', '/v1/whoami', { key })).status).toBe(200);
    const revoked = await runCli(['--db', s.dbPath, 'keys', 'revoke', id], { cwd: s.dir });
    expect(revoked.code).toBe(0);
    const res = await call(s.app, 'GET', '/v1/whoami', { key });
    expect(res.status).toBe(401);
    expect(res.json().error.message).toBe(UNAUTHORIZED);
    // The client's other key still works.
    expect((await call(s.app, 'GET', '/v1/whoami', { key: s.keys.acme })).status).toBe(200);
  });

  it('whoami names the client and the key, never the key itself', async () => {
    const res = await call(s.app, 'GET', '/v1/whoami', { key: s.keys.other });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toEqual({ client: 'Other Insure', key_id: expect.stringMatching(/^[0-9a-f-]{36}$/), role: 'client', simulation: true });
    expect(res.text).not.toContain(s.keys.other);
  });

  it('needs a key for the OpenAPI document too (spec 5: every endpoint)', async () => {
    for (const key of [null, 'pmk_0000000000000000000000000000000000000000']) {
      const res = await call(s.app, 'GET', '/v1/openapi.json', { key });
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: UNAUTHORIZED, request_id: res.headers['x-request-id'] } });
      expect(res.text).not.toContain('openapi');
    }
    const res = await call(s.app, 'GET', '/v1/openapi.json', { key: s.keys.other });
    expect(res.status).toBe(200);
    expect(res.json().openapi).toBe('3.1.0');
  });

  it('never writes the key into the access log', async () => {
    await call(s.app, 'GET', '/v1/whoami', { key: s.keys.acme });
    expect(s.logs.length).toBeGreaterThan(0);
    expect(s.logs.join('\n')).not.toContain(s.keys.acme);
    expect(s.logs.join('\n')).not.toContain(s.keys.other);
    expect(s.logs.at(-1)).toMatch(/^\d{4}-\d{2}-\d{2}T\S+Z GET \/v1\/whoami 200 \d+\.\dms [0-9a-f-]{36} key [0-9a-f-]{36}$/);
  });

  it('nor a key pasted as an id into a path: the log line shows it redacted', async () => {
    const res = await call(s.app, 'GET', `/v1/policies/${s.keys.other}`, { key: s.keys.acme });
    expect(res.status).toBe(404);
    expect(s.logs.join('\n')).not.toContain(s.keys.other);
    expect(s.logs.at(-1)).toContain(`GET /v1/policies/pmk_…${s.keys.other.slice(-4)} 404 `);
  });

  it('nor one percent-encoded in a path, in the log or in an error body, with or without a key of its own', async () => {
    const rest = s.keys.other.slice('pmk_'.length);
    const hex = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;
    const forms = [`pmk%5F${rest}`, `%70mk_${rest}`, `pmk_${rest.slice(0, -3)}${[...rest.slice(-3)].map(hex).join('')}`, `pmk%5f${rest}`];
    const tail = `pmk_…${s.keys.other.slice(-4)}`;
    for (const form of forms) {
      for (const [method, path, key, status] of [
        ['GET', `/v1/policies/${form}`, s.keys.acme, 404],
        ['DELETE', `/v1/policies/${form}`, s.keys.acme, 405],
        ['GET', `/v1/nowhere/${form}`, s.keys.acme, 404],
        ['GET', `/v1/policies/${form}`, undefined, 401],
      ] as const) {
        const res = await call(s.app, method, path, { key });
        expect(res.status, `${method} ${path}`).toBe(status);
        expect(res.text).not.toContain(rest.slice(0, -4));
        expect(s.logs.at(-1)).toContain(`${method} /v1/${path.split('/')[2]}/${tail} ${status} `);
      }
    }
    expect(s.logs.join('\n')).not.toContain(rest.slice(0, -4));
  });
});

describe('isolation between clients', () => {
  let acmePolicy: { id: string; policy_number: string };
  beforeAll(async () => {
    const res = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: { ...POLICY, policy_number: 'ISO-1' } });
    expect(res.status).toBe(201);
    acmePolicy = res.json();
  });

  it("answers 404 for another client's policy, by id and by number, exactly as for a missing one", async () => {
    for (const ref of [acmePolicy.id, acmePolicy.policy_number]) {
      const theirs = await call(s.app, 'GET', `/v1/policies/${ref}`, { key: s.keys.other });
      expect(theirs.status).toBe(404);
      expect(theirs.json().error.code).toBe('NOT_FOUND');
      expect(theirs.json().error.message).toBe(`Policy '${ref}' was not found. Check the id or number and try again.`);
      const patch = await call(s.app, 'PATCH', `/v1/policies/${ref}`, { key: s.keys.other, body: { status: 'cancelled' } });
      expect(patch.status).toBe(404);
    }
    const mine = await call(s.app, 'GET', `/v1/policies/${acmePolicy.id}`, { key: s.keys.acme });
    expect(mine.status).toBe(200);
    expect(mine.json().status).toBe('active');
  });

  it('lists only the caller\'s own policies, and policy numbers are per client', async () => {
    const created = await call(s.app, 'POST', '/v1/policies', { key: s.keys.other, body: { ...POLICY, policy_number: 'ISO-1' } });
    expect(created.status).toBe(201);
    expect(created.json().id).not.toBe(acmePolicy.id);
    const acme = (await call(s.app, 'GET', '/v1/policies?limit=1000', { key: s.keys.acme })).json();
    const other = (await call(s.app, 'GET', '/v1/policies?limit=1000', { key: s.keys.other })).json();
    expect(acme.data.map((p: any) => p.id)).toContain(acmePolicy.id);
    expect(other.data.map((p: any) => p.id)).not.toContain(acmePolicy.id);
    expect(other.data.map((p: any) => p.policy_number)).toEqual(['ISO-1']);
  });
});

describe('request ids', () => {
  it('reuses a sane X-Request-Id sent by the caller and makes one otherwise', async () => {
    const mine = await call(s.app, 'GET', '/v1/nope', { key: s.keys.acme, headers: { 'x-request-id': 'trace-123.abc' } });
    expect(mine.headers['x-request-id']).toBe('trace-123.abc');
    expect(mine.json().error.request_id).toBe('trace-123.abc');
    const odd = await call(s.app, 'GET', '/v1/whoami', { key: s.keys.acme, headers: { 'x-request-id': 'has space' } });
    expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('never takes one holding an API key: it would be echoed in X-Request-Id and written to the log', async () => {
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const before = s.logs.length;
    // A tracing header filled from the wrong variable: the caller's own key, with and without a valid X-API-Key.
    const ok = await call(s.app, 'GET', '/v1/whoami', { key: s.keys.acme, headers: { 'x-request-id': s.keys.acme } });
    expect(ok.status).toBe(200);
    expect(ok.headers['x-request-id']).toMatch(UUID);
    const refused = await call(s.app, 'GET', '/v1/whoami', { key: null, headers: { 'x-request-id': `trace-${s.keys.other}` } });
    expect(refused.status).toBe(401);
    expect(refused.headers['x-request-id']).toMatch(UUID);
    expect(refused.json().error.request_id).toBe(refused.headers['x-request-id']);
    const lines = s.logs.slice(before).join('\n');
    expect(lines).not.toContain(s.keys.acme);
    expect(lines).not.toContain(s.keys.other);
    expect(lines).toContain(String(ok.headers['x-request-id']));
  });
});
