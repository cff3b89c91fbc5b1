/**
 * Key roles (issue 10): only operator keys drive the store-wide clock and the simulated bank; a
 * client key reads the clock but gets 403 FORBIDDEN on the rest. `--no-simulation` turns those
 * endpoints off for every key (404).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/cli.js';
import { call, multipart, startServer, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s.close();
});

const FORBIDDEN =
  'This needs an operator key: the virtual clock and the simulated bank belong to the whole store, so a client key may only read the clock. ' +
  "The operator makes one with 'premia keys create --operator'.";
const OFF = "This service runs without simulation (premia serve --no-simulation): it has no virtual clock to read or move and no simulated bank.";

const bank = () => multipart('file', 'bank.csv', readFileSync(join(FIXTURES, 'bank-transactions.csv')));

/** Every simulation endpoint but GET /clock, as [method, url, options]. */
const DRIVING = (): Array<[string, string, Record<string, unknown>]> => [
  ['POST', '/v1/clock/advance', { body: { days: 30 } }],
  ['PUT', '/v1/clock', { body: { date: '2026-12-01' } }],
  ['POST', '/v1/bank/seed', { body: { seed: 7 } }],
  ['POST', '/v1/bank/import', bank()],
  ['GET', '/v1/bank/accounts/C100011', {}],
];

describe('roles', () => {
  it('a client key reads the clock but gets 403 FORBIDDEN on the rest, and nothing moves', async () => {
    s = await startServer();
    for (const [method, url, options] of DRIVING()) {
      const res = await call(s.app, method, url, { key: s.keys.other, headers: { 'idempotency-key': `c-${url}` }, ...options });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.json().error).toEqual({ code: 'FORBIDDEN', message: FORBIDDEN, request_id: res.headers['x-request-id'] });
    }
    const clock = await call(s.app, 'GET', '/v1/clock', { key: s.keys.other });
    expect(clock.status).toBe(200);
    expect(clock.json()).toEqual({ date: '2026-11-21', locked: false, seed: 1 });
    const imported = await s.backend.store.db.selectFrom('bank_transactions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(imported.n).toBe(0);
    // Refusals are not kept under their Idempotency-Key.
    const kept = await s.backend.store.db.selectFrom('idempotency_keys').selectAll().execute();
    expect(kept).toEqual([]);
  });

  it("a client key gets 403 before any of its request's headers or body is judged: a bad Idempotency-Key, a Content-Encoding, a Content-Type, no JSON", async () => {
    s = await startServer();
    const sent: Array<[string, Record<string, unknown>]> = [
      ['an Idempotency-Key over 255 characters', { headers: { 'idempotency-key': 'k'.repeat(300) } }],
      ['an Idempotency-Key holding an API key', { headers: { 'idempotency-key': s.keys.acme } }],
      ['a compressed body', { headers: { 'content-encoding': 'gzip' } }],
      ['a text/plain body', { headers: { 'content-type': 'text/plain' }, payload: '{"days":1}' }],
      ['a body that is not JSON', { headers: { 'content-type': 'application/json' }, payload: '{"days":' }],
    ];
    for (const [method, url, options] of DRIVING()) {
      for (const [what, extra] of sent) {
        const res = await call(s.app, method, url, { key: s.keys.other, ...options, ...extra, headers: { ...(options.headers as object), ...(extra.headers as object) } });
        expect(res.status, `${method} ${url} with ${what}`).toBe(403);
        expect(res.json().error).toEqual({ code: 'FORBIDDEN', message: FORBIDDEN, request_id: res.headers['x-request-id'] });
      }
    }
    expect((await call(s.app, 'GET', '/v1/clock', { key: s.keys.other })).json().date).toBe('2026-11-21');
  });

  it('an operator key drives them, for the client it belongs to', async () => {
    s = await startServer();
    const advanced = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { days: 3 } });
    expect(advanced.status).toBe(200);
    expect([advanced.json().from, advanced.json().to]).toEqual(['2026-11-21', '2026-11-24']);
    expect((await call(s.app, 'GET', '/v1/clock', { key: s.keys.acme })).json().date).toBe('2026-11-24');
    const imported = await call(s.app, 'POST', '/v1/bank/import', { key: s.keys.operator, ...bank() });
    expect(imported.json()).toEqual({ imported: 473, failed: 0, errors: [] });
    // The operator key acts for Acme Life: its customers' accounts, and its policies.
    const rows = await s.backend.store.db.selectFrom('bank_transactions').select('client_id').distinct().execute();
    expect(rows).toEqual([{ client_id: 2 }]);
    expect((await call(s.app, 'GET', '/v1/bank/accounts/C100011', { key: s.keys.operator })).json().source).toBe('imported');
  });

  it('a bank row holding an API key is refused, and its error never shows the key whole', async () => {
    s = await startServer();
    const key = s.keys.acme;
    const csv = `customer_id,date,amount,description\nC1,2026-11-02,100.00,SALARY ${key}\n${key},2026-11-02,100.00,SALARY\n`;
    const imported = await call(s.app, 'POST', '/v1/bank/import', { key: s.keys.operator, ...multipart('file', 'bank.csv', csv) });
    expect(imported.status).toBe(200);
    expect(imported.json()).toEqual({
      imported: 0,
      failed: 2,
      errors: [
        { row: 2, customer_id: 'C1', field: 'description', code: 'INVALID_FORMAT', message: 'description holds an API key (pmk_ and 40 letters and digits), a secret never stored as data; write the description without it' },
        { row: 3, customer_id: `pmk_…${key.slice(-4)}`, field: 'customer_id', code: 'INVALID_FORMAT', message: 'customer_id holds an API key (pmk_ and 40 letters and digits), a secret never stored as data; give the customer_id itself' },
      ],
    });
    expect(imported.text).not.toContain(key.slice(4));
  });

  it("bank rows whose customer ids differ from a policy's only in letter case are stored, and the answer lists them", async () => {
    s = await startServer();
    const policies = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nCASE-1,R1,POL-CASE-1,LIFE,100.00\n';
    const p = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...multipart('file', 'policies.csv', policies) });
    expect([p.status, p.json().imported]).toEqual([200, 1]);
    const csv = 'customer_id,date,amount,description\ncase-1,2026-11-25,100.00,SALARY\n';
    const imported = await call(s.app, 'POST', '/v1/bank/import', { key: s.keys.operator, ...multipart('file', 'bank.csv', csv) });
    expect(imported.status).toBe(200);
    expect(imported.json()).toEqual({
      imported: 1,
      failed: 0,
      errors: [],
      case_mismatches: { total: 1, first: [{ row: 2, customer_id: 'case-1', policy_customer_id: 'CASE-1' }] },
    });
    expect((await call(s.app, 'GET', '/v1/bank/accounts/case-1', { key: s.keys.operator })).json().source).toBe('imported');
  });

  it("an advance's Idempotency-Key is the store's: a retry through another client's operator key replays it, once", async () => {
    s = await startServer();
    const local = await s.backend.admin.keys.create(null, 'operator');
    const headers = { 'idempotency-key': 'cron-advance-1' };
    const first = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { days: 1 }, headers });
    expect([first.status, first.json().from, first.json().to]).toEqual([200, '2026-11-21', '2026-11-22']);
    const retry = await call(s.app, 'POST', '/v1/clock/advance', { key: local.key, body: { days: 1 }, headers });
    expect([retry.status, retry.headers['idempotent-replayed'], retry.text]).toEqual([200, 'true', first.text]);
    expect((await call(s.app, 'GET', '/v1/clock', { key: s.keys.acme })).json().date).toBe('2026-11-22');
    // Another request under that key, from either client, is refused; a client's own keys stay its own.
    expect((await call(s.app, 'POST', '/v1/clock/advance', { key: local.key, body: { days: 2 }, headers })).status).toBe(422);
    const policy = { customer_id: 'C9', external_customer_ref: 'R9', policy_number: 'P-9', product_code: 'LIFE_STANDARD', collection_amount: 100 };
    expect((await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: policy, headers })).status).toBe(201);
  });

  it('whoami names the role', async () => {
    s = await startServer();
    expect((await call(s.app, 'GET', '/v1/whoami', { key: s.keys.acme })).json()).toMatchObject({ client: 'Acme Life', role: 'client' });
    expect((await call(s.app, 'GET', '/v1/whoami', { key: s.keys.operator })).json()).toMatchObject({ client: 'Acme Life', role: 'operator' });
  });

  it('--no-simulation: 404 NOT_FOUND for every key on every clock and bank endpoint (401 without a key)', async () => {
    s = await startServer({ simulation: false });
    for (const [method, url, options] of [...DRIVING(), ['GET', '/v1/clock', {}] as [string, string, Record<string, unknown>], ['DELETE', '/v1/clock', {}] as [string, string, Record<string, unknown>]]) {
      for (const key of [s.keys.acme, s.keys.operator]) {
        const res = await call(s.app, method, url, { key, ...options });
        expect(res.status, `${method} ${url}`).toBe(404);
        expect(res.json().error).toEqual({ code: 'NOT_FOUND', message: OFF, request_id: res.headers['x-request-id'] });
      }
      expect((await call(s.app, method, url, { key: null, ...options })).status).toBe(401);
    }
    // Nor are its headers or body judged first: the path is no endpoint.
    for (const extra of <Array<{ headers: Record<string, string>; payload?: string }>>[
      { headers: { 'idempotency-key': 'k'.repeat(300) } },
      { headers: { 'content-encoding': 'gzip' } },
      { headers: { 'content-type': 'text/plain' }, payload: '{"days":1}' },
      { headers: { 'content-type': 'application/json' }, payload: '{"days":' },
    ]) {
      for (const [method, url] of [['POST', '/v1/clock/advance'], ['PUT', '/v1/clock'], ['POST', '/v1/bank/seed'], ['POST', '/v1/bank/import']]) {
        const res = await call(s.app, method!, url!, { key: s.keys.operator, ...extra });
        expect(res.status, `${method} ${url} with ${JSON.stringify(extra.headers)}`).toBe(404);
        expect(res.json().error).toEqual({ code: 'NOT_FOUND', message: OFF, request_id: res.headers['x-request-id'] });
      }
    }
    expect((await call(s.app, 'GET', '/v1/whoami', { key: s.keys.acme })).json()).toMatchObject({ simulation: false });
    const other = await s.backend.admin.keys.create('Other Insure', 'operator');
    expect((await call(s.app, 'POST', '/v1/clock/advance', { key: other.key, body: { days: 1 } })).status).toBe(404);
    expect((await call(s.app, 'GET', '/v1/policies', { key: other.key })).status).toBe(200);
  });
});
