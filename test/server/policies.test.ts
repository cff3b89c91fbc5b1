import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers/cli.js';
import { setClock } from '../helpers/seed-collections.js';
import { encodeId, IdKind } from '../../src/domain/ids.js';
import { openLocalBackend } from '../../src/backend/local/index.js';
import { createServer } from '../../src/server/app.js';
import { call, multipart, NOW, POLICY, startServer, type TestServer } from './helpers.js';

let s: TestServer;
beforeEach(async () => {
  s = await startServer();
});
afterEach(async () => {
  await s.close();
});

const create = (body: unknown, key = s.keys.acme) => call(s.app, 'POST', '/v1/policies', { key, body });

describe('POST /v1/policies', () => {
  it('creates an active policy (201) with money as a two-decimal number', async () => {
    const res = await create(POLICY);
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      policy_number: 'POL-0001',
      customer_id: 'C100001',
      external_customer_ref: 'EXT-1',
      product_code: 'LIFE_BASIC',
      collection_amount: 149.5,
      collection_amount_effective_period: null,
      status: 'active',
      created_at: '2026-11-21T09:30:00.000Z',
      updated_at: '2026-11-21T09:30:00.000Z',
    });
    expect(res.text).toContain('"collection_amount":149.50,');
    // The 201 names the policy it made (RFC 9110: without a Location it would name /v1/policies).
    expect(res.headers.location).toBe(`/v1/policies/${body.id}`);
    expect((await call(s.app, 'GET', res.headers.location as string, { key: s.keys.acme })).json().policy_number).toBe('POL-0001');
  });

  it('answers 400 with one detail per bad field, the problems local mode finds', async () => {
    const res = await create({ policy_number: 'bad number', customer_id: 'C1', external_customer_ref: 'E1', product_code: 'life', collection_amount: 10.001, colour: 'red' });
    expect(res.status).toBe(400);
    const error = res.json().error;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe('The policy is not valid: 4 problems (policy_number, product_code, collection_amount, colour); see details.');
    expect(error.details.map((d: any) => [d.field, d.code])).toEqual([
      ['policy_number', 'INVALID_FORMAT'],
      ['product_code', 'INVALID_FORMAT'],
      ['collection_amount', 'INVALID_AMOUNT'],
      ['colour', 'UNKNOWN_FIELD'],
    ]);
    // The CLI finds the same problems in the same input, each named by the option that gave it.
    const { dir, cleanup } = tempDir();
    try {
      const cli = await runCli(
        ['--db', join(dir, 'p.db'), '--json', 'policies', 'create', '--policy-number', 'bad number', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'life', '--amount', '10.001'],
        { cwd: dir, now: NOW },
      );
      expect(cli.code).toBe(2);
      const local = JSON.parse(cli.stderr).error;
      expect(local.details.map((d: any) => [d.field, d.code])).toEqual(error.details.slice(0, 3).map((d: any) => [d.field, d.code]));
      expect(local.details.map((d: any) => d.message)).toEqual([
        "--policy-number 'bad number' has a space at position 4; only letters, digits and - _ . / are allowed",
        "--product-code 'life' must be upper case (A-Z 0-9 _ -)",
        "--amount '10.001' has more than two decimals",
      ]);
    } finally {
      cleanup();
    }
  });

  it("takes the fields the service sets when they say nothing (a serialiser's whole policy type), and refuses them when they do", async () => {
    const whole = await create({ id: null, ...POLICY, status: 'active', created_at: null, updated_at: null });
    expect(whole.status).toBe(201);
    expect(whole.json()).toMatchObject({ policy_number: 'POL-0001', status: 'active', created_at: '2026-11-21T09:30:00.000Z' });
    expect(whole.json().id).toMatch(/^[0-9a-f]{8}-/);
    expect((await create({ ...POLICY, policy_number: 'POL-0002', status: null })).status).toBe(201);
    const said = await create({ ...POLICY, policy_number: 'POL-0003', id: 'mine', status: 'lapsed', created_at: '2026-01-01T00:00:00Z' });
    expect(said.status).toBe(400);
    expect(said.json().error.details).toEqual([
      { field: 'id', code: 'INVALID_VALUE', message: 'id is set by the service; leave it out (or null)' },
      { field: 'status', code: 'INVALID_VALUE', message: 'status of a new policy is active (the service sets it); got "lapsed"' },
      { field: 'created_at', code: 'INVALID_VALUE', message: 'created_at is set by the service; leave it out (or null)' },
    ]);
    // Nothing of the refused request was stored.
    expect((await call(s.app, 'GET', '/v1/policies/POL-0003', { key: s.keys.acme })).status).toBe(404);
  });

  it('refuses a missing body, an array body and an amount sent as a string', async () => {
    const empty = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme });
    expect(empty.status).toBe(400);
    expect(empty.json().error.details).toEqual([{ field: 'body', code: 'REQUIRED', message: 'a JSON object body is required' }]);
    const array = await create([POLICY]);
    expect(array.status).toBe(400);
    expect(array.json().error.message).toBe('The body must be a JSON object.');
    // The spec's collection_amount is a number: a string is refused however well it reads.
    for (const text of ['1,000.00', '149.50', ' 12.5 ']) {
      const amount = await create({ ...POLICY, collection_amount: text });
      expect(amount.status).toBe(400);
      expect(amount.json().error.details).toEqual([
        { field: 'collection_amount', code: 'INVALID_TYPE', message: `collection_amount must be a JSON number like 149.50, not a string (got ${JSON.stringify(text)})` },
      ]);
    }
    // Any other wrong JSON type is the same INVALID_TYPE (not INVALID_AMOUNT, which is for a number badly written).
    for (const [value, kind] of [
      [true, 'a boolean (got true)'],
      [[149.5], 'a list'],
      [{ amount: 149.5 }, 'an object'],
    ] as const) {
      const amount = await create({ ...POLICY, collection_amount: value });
      expect(amount.status).toBe(400);
      expect(amount.json().error.message).toBe(`The policy is not valid: collection_amount must be a JSON number like 149.50, not ${kind}.`);
      expect(amount.json().error.details).toEqual([{ field: 'collection_amount', code: 'INVALID_TYPE', message: `collection_amount must be a JSON number like 149.50, not ${kind}` }]);
    }
    const { id } = (await create(POLICY)).json();
    const patch = await call(s.app, 'PATCH', `/v1/policies/${id}`, { key: s.keys.acme, body: { collection_amount: '13.00' } });
    expect(patch.status).toBe(400);
    expect(patch.json().error.details[0].code).toBe('INVALID_TYPE');
    const patchBool = await call(s.app, 'PATCH', `/v1/policies/${id}`, { key: s.keys.acme, body: { collection_amount: false } });
    expect(patchBool.status).toBe(400);
    expect(patchBool.json().error.details).toEqual([
      { field: 'collection_amount', code: 'INVALID_TYPE', message: 'collection_amount must be a JSON number like 149.50, not a boolean (got false)' },
    ]);
    expect((await call(s.app, 'GET', `/v1/policies/${id}`, { key: s.keys.acme })).json().collection_amount).toBe(POLICY.collection_amount);
  });

  it('reads a JSON amount by its value: an exponent or trailing zeros are fine, a third decimal in value is not', async () => {
    const raw = (n: number, amount: string) =>
      call(s.app, 'POST', '/v1/policies', {
        key: s.keys.acme,
        headers: { 'content-type': 'application/json' },
        payload: `{"policy_number":"POL-${n}","customer_id":"C1","external_customer_ref":"E1","product_code":"LIFE","collection_amount":${amount}}`,
      });
    for (const [n, amount, stored] of [
      [1, '1E3', '1000.00'],
      [2, '1.5e-1', '0.15'],
      [3, '5.000', '5.00'],
      [4, '1e6', '1000000.00'],
      [5, '12.345e1', '123.45'],
    ] as const) {
      const res = await raw(n, amount);
      expect(res.status, amount).toBe(201);
      expect(res.text, amount).toContain(`"collection_amount":${stored},`);
    }
    for (const [n, amount, code, message] of [
      [11, '0.125', 'INVALID_AMOUNT', "collection_amount '0.125' has more than two decimals"],
      [12, '1e-3', 'INVALID_AMOUNT', "collection_amount '0.001' has more than two decimals"],
      [13, '1.0000001e6', 'AMOUNT_OUT_OF_RANGE', "collection_amount '1000000.1' is above the maximum premium of 1000000.00"],
      [14, '0', 'AMOUNT_OUT_OF_RANGE', "collection_amount '0' must be greater than 0.00"],
      // Numbers whose shortest text is an exponent form are judged by their value too, and named as it.
      [15, '1000000000000000000000', 'AMOUNT_OUT_OF_RANGE', "collection_amount '1000000000000000000000' is above the maximum premium of 1000000.00"],
      [16, '1e21', 'AMOUNT_OUT_OF_RANGE', "collection_amount '1000000000000000000000' is above the maximum premium of 1000000.00"],
      [17, '0.0000001', 'INVALID_AMOUNT', "collection_amount '0.0000001' has more than two decimals"],
      [18, '-1e21', 'AMOUNT_OUT_OF_RANGE', "collection_amount '-1000000000000000000000' is negative; it must be greater than 0.00"],
    ] as const) {
      const res = await raw(n, amount);
      expect(res.status, amount).toBe(400);
      expect(res.json().error.details, amount).toEqual([{ field: 'collection_amount', code, message }]);
    }
  });

  it('answers 409 DUPLICATE_POLICY for a policy number the client already has', async () => {
    const first = await create(POLICY);
    const again = await create({ ...POLICY, customer_id: 'C2' });
    expect(again.status).toBe(409);
    expect(again.json().error.code).toBe('DUPLICATE_POLICY');
    expect(again.json().error.details).toEqual([{ field: 'policy_number', policy_number: 'POL-0001', id: first.json().id }]);
  });
});

describe("a policy number written as one of the store's policy ids", () => {
  it('is refused by create and by import (a lookup by it would be taken as that id); another UUID is taken', async () => {
    const { id } = (await create(POLICY)).json();
    const taken = await create({ ...POLICY, policy_number: id });
    expect(taken.status).toBe(400);
    const message = `policy_number '${id}' is written as a policy id of this store, so a lookup by it would be taken as that id and never find this policy by its number; choose a number that is not an id`;
    expect(taken.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: `P${message.slice(1)}.`,
      details: [{ field: 'policy_number', code: 'INVALID_FORMAT', message }],
    });
    const uuid = 'a9595df3-133b-47fc-a571-73b49312805b';
    expect((await create({ ...POLICY, policy_number: uuid })).status).toBe(201);
    const csv = `customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC9,E9,${id},LIFE,10.00\nC8,E8,POL-8,LIFE,10.00\n`;
    const imported = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...multipart('file', 'p.csv', csv) });
    expect(imported.json()).toEqual({ imported: 1, failed: 1, errors: [{ row: 2, policy_number: id, field: 'policy_number', code: 'INVALID_FORMAT', message }] });
    expect((await call(s.app, 'GET', `/v1/policies/${id}`, { key: s.keys.acme })).json().policy_number).toBe(POLICY.policy_number);
  });

  it("answers by the number's form alone: another client, and an id no policy has, get the same refusal", async () => {
    const { id } = (await create(POLICY)).json();
    const salt = Number((await s.backend.store.db.selectFrom('meta').select('value').where('key', '=', 'id_salt').executeTakeFirstOrThrow()).value);
    const unused = encodeId(IdKind.policy, salt, 987_654);
    expect((await call(s.app, 'GET', `/v1/policies/${unused}`, { key: s.keys.acme })).status).toBe(404);
    const refusal = (number: string) => ({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'policy_number', code: 'INVALID_FORMAT', message: `policy_number '${number}' is written as a policy id of this store, so a lookup by it would be taken as that id and never find this policy by its number; choose a number that is not an id` }],
    });
    for (const [number, key] of [[id, s.keys.other], [unused, s.keys.other], [unused, s.keys.acme]] as const) {
      const res = await create({ ...POLICY, policy_number: number }, key);
      expect(res.status).toBe(400);
      expect(res.json().error).toMatchObject(refusal(number));
    }
    // The other client reads nothing of Acme's policy.
    expect((await call(s.app, 'GET', `/v1/policies/${id}`, { key: s.keys.other })).status).toBe(404);
  });
});

describe('an API key pasted into a field that is stored', () => {
  it('is refused by create and by import, and never answered whole (premia keeps keys only as hashes)', async () => {
    const key = s.keys.other;
    const message = (field: string) => `${field} holds an API key (pmk_ and 40 letters and digits), a secret never stored as data; give the ${field} itself`;
    for (const [field, value] of [['policy_number', key], ['customer_id', `C-${key}`], ['external_customer_ref', `${key}.1`]] as const) {
      const res = await create({ ...POLICY, [field]: value });
      expect(res.status, field).toBe(400);
      expect(res.json().error, field).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: `The policy is not valid: ${message(field)}.`,
        details: [{ field, code: 'INVALID_FORMAT', message: message(field) }],
      });
    }
    const csv =
      'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n' +
      `C1,E1,${key},LIFE,10.00\nC2,${key},POL-2,LIFE,10.00\nC3,E3,"${key}",LIFE,10.00\nC4,E4,${key}!,LIFE,10.00\nC5,E5,POL-5,LIFE,10.00\n`;
    const imported = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...multipart('file', 'p.csv', csv) });
    const shown = `pmk_…${key.slice(-4)}`;
    expect(imported.json()).toEqual({
      imported: 1,
      failed: 4,
      errors: [
        { row: 2, policy_number: shown, field: 'policy_number', code: 'INVALID_FORMAT', message: message('policy_number') },
        { row: 3, policy_number: 'POL-2', field: 'external_customer_ref', code: 'INVALID_FORMAT', message: message('external_customer_ref') },
        { row: 4, policy_number: shown, field: 'policy_number', code: 'INVALID_FORMAT', message: message('policy_number') },
        { row: 5, policy_number: `${shown}!`, field: 'policy_number', code: 'INVALID_FORMAT', message: `policy_number '${shown}!' has '!' at position 45; only letters, digits and - _ . / are allowed` },
      ],
    });
    expect(imported.text).not.toContain(key.slice(4));
    const page = await call(s.app, 'GET', '/v1/policies', { key: s.keys.acme });
    expect(page.json().data.map((p: any) => p.policy_number)).toEqual(['POL-5']);
    // A policy number merely starting like a key is a policy number.
    expect((await create({ ...POLICY, policy_number: 'pmk_2026_0001' })).status).toBe(201);
  });
});

describe('a policy number that is the name of an endpoint under /policies', () => {
  it("'import' is refused by create and by import: GET and PATCH /policies/import could never reach it by its number", async () => {
    expect((await call(s.app, 'GET', '/v1/policies/import', { key: s.keys.acme })).status).toBe(405);
    const message =
      "policy_number 'import' is the name of an endpoint (POST /policies/import), so GET and PATCH /policies/import could never reach this policy by its number; choose another number";
    const res = await create({ ...POLICY, policy_number: 'import' });
    expect(res.status).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: `The policy is not valid: ${message}.`, details: [{ field: 'policy_number', code: 'INVALID_FORMAT', message }] });
    const csv = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,import,LIFE,10.00\nC2,E2,Import,LIFE,10.00\nC3,E3,POL-03,LIFE,10.00\n';
    const imported = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...multipart('file', 'p.csv', csv) });
    expect(imported.json()).toEqual({ imported: 2, failed: 1, errors: [{ row: 2, policy_number: 'import', field: 'policy_number', code: 'INVALID_FORMAT', message }] });
    // Another case is another path: found by its number.
    expect((await call(s.app, 'GET', '/v1/policies/Import', { key: s.keys.acme })).json().policy_number).toBe('Import');
  });

  it("'.' and '..' are refused by create and by import: clients remove dot segments from a path, so /policies/.. is /", async () => {
    const message = (n: string) =>
      `policy_number '${n}' is a dot segment, which HTTP clients remove from a URL path, so GET and PATCH /policies/${n} could never reach this policy by its number; choose another number`;
    for (const n of ['.', '..']) {
      const res = await create({ ...POLICY, policy_number: n });
      expect(res.status, n).toBe(400);
      expect(res.json().error.details, n).toEqual([{ field: 'policy_number', code: 'INVALID_FORMAT', message: message(n) }]);
    }
    const csv = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,..,LIFE,10.00\nC2,E2,.,LIFE,10.00\nC3,E3,...,LIFE,10.00\nC4,E4,.5,LIFE,10.00\n';
    const imported = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...multipart('file', 'p.csv', csv) });
    expect(imported.json()).toEqual({
      imported: 2,
      failed: 2,
      errors: [
        { row: 2, policy_number: '..', field: 'policy_number', code: 'INVALID_FORMAT', message: message('..') },
        { row: 3, policy_number: '.', field: 'policy_number', code: 'INVALID_FORMAT', message: message('.') },
      ],
    });
  });
});

describe('PATCH /v1/policies/{id}', () => {
  it('changes the premium from the next month and cancels, by id or by number', async () => {
    const { id } = (await create(POLICY)).json();
    const amount = await call(s.app, 'PATCH', `/v1/policies/${id}`, { key: s.keys.acme, body: { collection_amount: 199 } });
    expect(amount.status).toBe(200);
    expect(amount.json()).toMatchObject({ id, policy_number: 'POL-0001', collection_amount: 199, collection_amount_effective_period: '2026-12', status: 'active' });
    expect(amount.text).toContain('"collection_amount":199.00');
    const cancel = await call(s.app, 'PATCH', '/v1/policies/POL-0001', { key: s.keys.acme, body: { status: 'cancelled' } });
    expect(cancel.status).toBe(200);
    expect(cancel.json().status).toBe('cancelled');
    const back = await call(s.app, 'PATCH', `/v1/policies/${id}`, { key: s.keys.acme, body: { status: 'active' } });
    expect(back.status).toBe(409);
    expect(back.json().error.code).toBe('INVALID_TRANSITION');
  });

  it('takes a field given as null as not given (clients whose serialisers write every field)', async () => {
    const { id } = (await create(POLICY)).json();
    const lapse = await call(s.app, 'PATCH', `/v1/policies/${id}`, { key: s.keys.acme, body: { collection_amount: null, status: 'lapsed' } });
    expect(lapse.status).toBe(200);
    expect(lapse.json()).toMatchObject({ id, collection_amount: POLICY.collection_amount, collection_amount_effective_period: null, status: 'lapsed' });
    const amount = await call(s.app, 'PATCH', `/v1/policies/${id}`, { key: s.keys.acme, body: { collection_amount: 20, status: null } });
    expect(amount.status).toBe(200);
    expect(amount.json()).toMatchObject({ id, collection_amount: 20, collection_amount_effective_period: '2026-12', status: 'lapsed' });
    const nothing = await call(s.app, 'PATCH', `/v1/policies/${id}`, { key: s.keys.acme, body: { collection_amount: null, status: null } });
    expect(nothing.status).toBe(400);
    expect(nothing.json().error.details).toEqual([{ field: 'body', code: 'REQUIRED', message: 'give collection_amount, status, or both' }]);
  });

  it('answers 400 for an empty or unknown update and 404 for an unknown policy', async () => {
    await create(POLICY);
    const empty = await call(s.app, 'PATCH', '/v1/policies/POL-0001', { key: s.keys.acme, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.json().error.details).toEqual([{ field: 'body', code: 'REQUIRED', message: 'give collection_amount, status, or both' }]);
    const unknown = await call(s.app, 'PATCH', '/v1/policies/POL-0001', { key: s.keys.acme, body: { product_code: 'X' } });
    expect(unknown.status).toBe(400);
    expect(unknown.json().error.details[0]).toEqual({ field: 'product_code', code: 'UNKNOWN_FIELD', message: 'product_code cannot be updated; only collection_amount and status can' });
    const missing = await call(s.app, 'PATCH', '/v1/policies/NOPE-1', { key: s.keys.acme, body: { status: 'lapsed' } });
    expect(missing.status).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
  });
});

describe('GET /v1/policies and /v1/policies/{id}', () => {
  it('pages in policy_number order with next_after, and filters by status', async () => {
    for (const n of ['P-3', 'P-1', 'P-2']) await create({ ...POLICY, policy_number: n });
    await call(s.app, 'PATCH', '/v1/policies/P-2', { key: s.keys.acme, body: { status: 'lapsed' } });
    const first = await call(s.app, 'GET', '/v1/policies?limit=2', { key: s.keys.acme });
    expect(first.status).toBe(200);
    expect(first.json().data.map((p: any) => p.policy_number)).toEqual(['P-1', 'P-2']);
    expect(first.json().next_after).toBe('P-2');
    const second = await call(s.app, 'GET', '/v1/policies?limit=2&after=P-2', { key: s.keys.acme });
    expect(second.json()).toMatchObject({ data: [{ policy_number: 'P-3' }], next_after: null });
    const lapsed = await call(s.app, 'GET', '/v1/policies?status=lapsed', { key: s.keys.acme });
    expect(lapsed.json().data.map((p: any) => p.policy_number)).toEqual(['P-2']);
  });

  it('returns one policy with its history', async () => {
    await create(POLICY);
    await call(s.app, 'PATCH', '/v1/policies/POL-0001', { key: s.keys.acme, body: { collection_amount: 160.25 } });
    const res = await call(s.app, 'GET', '/v1/policies/POL-0001', { key: s.keys.acme });
    expect(res.status).toBe(200);
    expect(res.json().amount_history).toEqual([{ effective_period: '2026-12', old_amount: 149.5, new_amount: 160.25, changed_on: '2026-11-21' }]);
    expect(res.json().status_history).toEqual([]);
  });

  it.each([
    ['limit=0', 'limit', 'INVALID_VALUE'],
    ['limit=ten', 'limit', 'INVALID_VALUE'],
    ['status=gone', 'status', 'INVALID_VALUE'],
    ['colour=red', 'colour', 'UNKNOWN_FIELD'],
    ['status=active&status=lapsed', 'status', 'REPEATED'],
  ])('answers 400 for the query %s', async (query, field, code) => {
    const res = await call(s.app, 'GET', `/v1/policies?${query}`, { key: s.keys.acme });
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details[0]).toMatchObject({ field, code });
  });

  it('passes a policy number with a slash through as it is', async () => {
    await create({ ...POLICY, policy_number: 'POL/77' });
    const res = await call(s.app, 'GET', '/v1/policies/POL%2F77', { key: s.keys.acme });
    expect(res.status).toBe(200);
    expect(res.json().policy_number).toBe('POL/77');
  });
});

describe('POST /v1/policies/import', () => {
  const fixture = (name: string) => readFileSync(join(FIXTURES, name));

  it('imports the fixture from a multipart file part', async () => {
    const form = multipart('file', 'policies.csv', fixture('policies.csv'));
    const res = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...form });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ imported: 520, failed: 0, errors: [] });
    const page = await call(s.app, 'GET', '/v1/policies?limit=10000', { key: s.keys.acme });
    expect(page.json().data).toHaveLength(520);
    // Nothing is left in the spool directory.
    expect(readdir(s.uploads)).toEqual([]);
  });

  it('reports bad rows exactly as the CLI does in local mode', async () => {
    const form = multipart('file', 'policies-invalid.csv', fixture('policies-invalid.csv'));
    const res = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...form });
    expect(res.status).toBe(200);
    const { dir, cleanup } = tempDir();
    try {
      const cli = await runCli(['--db', join(dir, 'p.db'), '--json', 'policies', 'import', join(FIXTURES, 'policies-invalid.csv')], { cwd: dir, now: NOW });
      expect(cli.code).toBe(3);
      expect(res.text + '\n').toBe(cli.stdout);
    } finally {
      cleanup();
    }
    expect(res.json()).toMatchObject({ imported: 4, failed: 24 });
  });

  it('refuses a file that is not CSV text whole (400 INVALID_FILE, nothing imported)', async () => {
    const form = multipart('file', 'blob.bin', Buffer.from([0x63, 0x75, 0x00, 0xff, 0xfe]));
    const res = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...form });
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('INVALID_FILE');
  });

  it('answers 413 for a file over the upload limit and imports nothing', async () => {
    await s.close();
    s = await startServer({ uploadLimit: 1000 });
    const form = multipart('file', 'policies.csv', fixture('policies.csv'));
    const res = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...form });
    expect(res.status).toBe(413);
    expect(res.json().error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'The file is larger than the upload limit of 1000 bytes; nothing was imported.',
    });
    const page = await call(s.app, 'GET', '/v1/policies', { key: s.keys.acme });
    expect(page.json().data).toEqual([]);
    expect(readdir(s.uploads)).toEqual([]);
    // A file within the limit still goes through.
    const small = multipart('file', 'small.csv', readFileSync(join(FIXTURES, 'policies.csv'), 'utf8').split('\n').slice(0, 3).join('\n') + '\n');
    const ok = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...small });
    expect(ok.json()).toEqual({ imported: 2, failed: 0, errors: [] });
  });

  it('answers 415 for a body that is not multipart, and 400 for a form without a part named file', async () => {
    const json = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, body: { file: 'x' } });
    expect(json.status).toBe(415);
    const send = 'Send the file as multipart/form-data, in a part named file (curl -F file=@policies.csv).';
    expect(json.json().error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: send });
    // The CSV sent as it is (curl --data-binary @policies.csv), with a CSV type or none: told how to send it, not to send JSON.
    for (const type of ['text/csv', 'text/plain', 'application/octet-stream']) {
      const csv = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, payload: 'a,b\n', headers: { 'content-type': type } });
      expect(csv.status, type).toBe(415);
      expect(csv.json().error, type).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: send });
    }
    const wrongName = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...multipart('upload', 'p.csv', 'a\n') });
    expect(wrongName.status).toBe(400);
    expect(wrongName.json().error.message).toBe("The file part must be named file; got 'upload'.");
  });

  it('imports a part named file sent without a filename (FormData.append(\'file\', text)) as the file it holds', async () => {
    // RFC 7578 makes the filename a SHOULD; a client's FormData of a string, curl -F 'file=<p.csv' and
    // requests' (None, text) send none, and the part is still the file.
    const boundary = 'b0undary';
    const form = (parts: string[]) => ({
      payload: parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('') + `--${boundary}--\r\n`,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    const csv = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\r\nC-PLAIN,E-PLAIN,POL-PLAIN-1,LIFE,12.50\r\n';
    const field = await call(s.app, 'POST', '/v1/policies/import', {
      key: s.keys.acme,
      ...form([`Content-Disposition: form-data; name="file"\r\nContent-Type: text/csv\r\n\r\n${csv}`]),
    });
    expect(field.status).toBe(200);
    expect(field.json()).toEqual({ imported: 1, failed: 0, errors: [] });
    const stored = await call(s.app, 'GET', '/v1/policies/POL-PLAIN-1', { key: s.keys.acme });
    expect(stored.json()).toMatchObject({ policy_number: 'POL-PLAIN-1', customer_id: 'C-PLAIN', collection_amount: 12.5, status: 'active' });

    // Two such parts are two files: refused, nothing imported.
    const two = await call(s.app, 'POST', '/v1/policies/import', {
      key: s.keys.acme,
      ...form([`Content-Disposition: form-data; name="file"\r\n\r\n${csv}`, `Content-Disposition: form-data; name="file"\r\n\r\n${csv}`]),
    });
    expect(two.status).toBe(400);
    expect(two.json().error.details).toEqual([{ field: 'file', code: 'TOO_MANY_PARTS', message: 'the form has more than one file or too many parts' }]);

    // Bytes that are not UTF-8 are refused as a file's are, never imported as U+FFFD.
    const latin1 = await call(s.app, 'POST', '/v1/policies/import', {
      key: s.keys.acme,
      payload: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"\r\n\r\ncustomer_id,external_customer_ref,policy_number,product_code,collection_amount\r\nC-M`),
        Buffer.from([0xfc]),
        Buffer.from(`LLER,E1,POL-PLAIN-2,LIFE,1.00\r\n\r\n--${boundary}--\r\n`),
      ]),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(latin1.status).toBe(400);
    expect(latin1.json().error.details).toEqual([{ field: 'file', code: 'INVALID_ENCODING', message: 'the part named file is not UTF-8 text' }]);

    // Over the 1 MiB such a part may hold (the parser keeps it in memory): told to send a file part.
    const big = await call(s.app, 'POST', '/v1/policies/import', {
      key: s.keys.acme,
      ...form([`Content-Disposition: form-data; name="file"\r\n\r\n${csv}${'x'.repeat(1024 * 1024)}`]),
    });
    expect(big.status).toBe(400);
    expect(big.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message:
        "The form's part named file has no filename and is over 1048576 bytes: send the file as a file part " +
        "(curl -F file=@policies.csv, or FormData.append('file', blob, 'policies.csv')); nothing was imported.",
      details: [{ field: 'file', code: 'TOO_LARGE', message: 'the part named file has no filename, and such a part holds at most 1048576 bytes' }],
    });
    const after = await call(s.app, 'GET', '/v1/policies/POL-PLAIN-2', { key: s.keys.acme });
    expect(after.status).toBe(404);
  });
});

describe('PATCH /v1/policies/{id}: updated_at never goes back', () => {
  it('a change after midnight (wall clock) on the same clock date is stamped after the policy was created', async () => {
    const { dir, cleanup } = tempDir('premia-server-');
    // The wall clock moves; the store's clock stays at 2026-11-21 (nobody advances it).
    let wall = new Date('2026-11-21T23:59:00.000Z');
    const backend = await openLocalBackend({ path: join(dir, 'premia.db'), now: () => wall, seed: 1 });
    await setClock(backend.store, '2026-11-21'); // a new store's starts the day before
    const app = await createServer({ backend, tmpDir: dir, now: () => wall, authFailureLimit: 0, offload: false });
    try {
      const key = (await backend.admin.keys.create('Acme Life', 'client')).key;
      const created = await call(app, 'POST', '/v1/policies', { key, body: POLICY });
      expect(created.json()).toMatchObject({ created_at: '2026-11-21T23:59:00.000Z', updated_at: '2026-11-21T23:59:00.000Z' });
      wall = new Date('2026-11-22T00:01:00.000Z');
      const amount = await call(app, 'PATCH', '/v1/policies/POL-0001', { key, body: { collection_amount: 160 } });
      expect(amount.status, amount.text).toBe(200);
      expect(amount.json()).toMatchObject({ collection_amount: 160, updated_at: '2026-11-21T23:59:00.001Z' });
      const lapsed = await call(app, 'PATCH', '/v1/policies/POL-0001', { key, body: { status: 'lapsed' } });
      expect(lapsed.json()).toMatchObject({ status: 'lapsed', created_at: '2026-11-21T23:59:00.000Z', updated_at: '2026-11-21T23:59:00.002Z' });
      // The next clock day stamps as ever.
      await setClock(backend.store, '2026-11-22');
      wall = new Date('2026-11-22T08:00:00.000Z');
      const active = await call(app, 'PATCH', '/v1/policies/POL-0001', { key, body: { status: 'active' } });
      expect(active.json()).toMatchObject({ status: 'active', updated_at: '2026-11-22T08:00:00.000Z' });
    } finally {
      await app.close();
      await backend.close();
      cleanup();
    }
  });
});

function readdir(dir: string): string[] {
  return readdirSync(dir);
}
