import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBackend } from '../../src/backend/local/index.js';
import { call, startServer, type TestServer } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ jsonLimit: 2000 });
});
afterAll(async () => {
  await s.close();
});

describe('errors common to every endpoint', () => {
  it('answers 400 VALIDATION_ERROR for malformed JSON', async () => {
    const res = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, payload: '{"policy_number": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details[0]).toMatchObject({ field: 'body', code: 'INVALID_JSON' });
  });

  it('says what is wrong with malformed JSON and where, without quoting the body', async () => {
    const key = 'pmk_' + 'A'.repeat(40);
    const cases: Array<[string, string]> = [
      ['{"period_month":"2026-11",}', 'expected double-quoted property name at line 1, column 27'],
      ["{'period_month':'2026-11'}", "expected property name or '}' at line 1, column 2"],
      ['{\n  "period_month": "2026-11"\n  "x": 1\n}', "expected ',' or '}' after property value at line 3, column 3"],
      ['{"period_month":"2026-11"} x', 'unexpected non-whitespace character after the JSON value at line 1, column 28'],
      ['{"period_month":NaN}', "unexpected 'N' (NaN, Infinity, comments, single quotes and unquoted names are not JSON)"],
      [`[${key}]`, "unexpected 'p' (NaN, Infinity, comments, single quotes and unquoted names are not JSON)"],
      ['{"period_month":"2026-11', 'unterminated string at line 1, column 25'],
    ];
    for (const [payload, what] of cases) {
      const res = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, payload, headers: { 'content-type': 'application/json' } });
      expect(res.status, payload).toBe(400);
      expect(res.json().error, payload).toEqual({
        code: 'VALIDATION_ERROR',
        message: `The body is not valid JSON: ${what}.`,
        request_id: res.headers['x-request-id'],
        details: [{ field: 'body', code: 'INVALID_JSON', message: what }],
      });
      expect(res.text).not.toContain(key.slice(4));
    }
  });

  it('answers 400 for an empty JSON body and for a body with a forbidden __proto__ key', async () => {
    const empty = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, payload: '', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    const proto = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, payload: '{"__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } });
    expect(proto.status).toBe(400);
    expect(proto.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('answers 400 INVALID_TYPE naming what came for a JSON body that is not an object (null included), REQUIRED for none', async () => {
    const body = (payload: string) => call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, payload, headers: { 'content-type': 'application/json' } });
    for (const [payload, got] of [['null', 'null'], ['[]', 'an array'], ['"2026-11"', 'string'], ['202611', 'number']] as const) {
      const res = await body(payload);
      expect(res.status, payload).toBe(400);
      expect(res.json().error, payload).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'The body must be a JSON object.',
        details: [{ field: 'body', code: 'INVALID_TYPE', message: `expected a JSON object, got ${got}` }],
      });
    }
    const none = await body('');
    expect(none.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'body', code: 'REQUIRED', message: 'a JSON object body is required' }] });
  });

  it('shows an invisible character of a refused value escaped, so the value does not read as a valid one', async () => {
    const res = await call(s.app, 'GET', '/v1/reports/collections?period_month=2026-11&format=%E2%80%8Bcsv', { key: s.keys.acme });
    expect(res.status).toBe(400);
    const what = 'format must be one of csv, json; got "\\u200bcsv"';
    expect(res.json().error).toMatchObject({ message: `The report request is not valid: ${what}.`, details: [{ field: 'format', code: 'INVALID_VALUE', message: what }] });
    const status = await call(s.app, 'PATCH', '/v1/policies/POL-1', { key: s.keys.acme, body: { status: 'cancelled\u202e' } });
    expect(status.json().error.details[0].message).toBe('status must be one of active, lapsed, cancelled; got "cancelled\\u202e"');
  });

  it('answers 413 PAYLOAD_TOO_LARGE for JSON over the configured limit', async () => {
    const res = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, body: { period_month: '2026-11', padding: 'x'.repeat(3000) } });
    expect(res.status).toBe(413);
    expect(res.json().error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: 'The JSON body is larger than the limit of 2000 bytes.' });
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, payload: 'period_month=2026-11', headers: { 'content-type': type } });
      expect(res.status, type).toBe(415);
      // What the endpoint takes, not "files as multipart/form-data" to an endpoint that takes none.
      expect(res.json().error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'This endpoint takes a JSON body: send Content-Type: application/json.' });
    }
    const form = await call(s.app, 'POST', '/v1/settlements', {
      key: s.keys.acme,
      payload: '--b\r\nContent-Disposition: form-data; name="period_month"\r\n\r\n2026-11\r\n--b--\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    expect(form.status).toBe(415);
  });

  it('answers 404 NOT_FOUND for unknown routes (under /v1 only with a valid key; a known path with another method is 405: hardening.test.ts)', async () => {
    for (const [method, url, keyless] of [
      ['GET', '/v1/nothing', 401],
      ['DELETE', '/v1/policies/POL-1/history', 401],
      ['GET', '/v1', 401],
      ['GET', '/v2/policies', 404],
      ['GET', '/', 404],
    ] as const) {
      const res = await call(s.app, method, url, { key: s.keys.acme });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.json().error.message).toBe(`There is no endpoint ${method} ${url}; see GET /v1/openapi.json for the endpoints.`);
      // Under /v1 the key is checked first: without one, a path that exists and one that does not look alike.
      const anonymous = await call(s.app, method, url, { key: null });
      expect(anonymous.status, `${method} ${url} without a key`).toBe(keyless);
      expect(anonymous.json().error.code).toBe(keyless === 401 ? 'UNAUTHORIZED' : 'NOT_FOUND');
    }
  });

  it('checks the key of a request no route takes before its body (401, then 404 or 405 whatever the body)', async () => {
    const malformed = { payload: '{"period_month": ', headers: { 'content-type': 'application/json' } };
    const tooLarge = { payload: JSON.stringify({ padding: 'x'.repeat(3000) }), headers: { 'content-type': 'application/json' } };
    for (const [method, url, body, withKey] of [
      ['POST', '/v1/nothing', malformed, 404],
      ['POST', '/v1/nothing', tooLarge, 404],
      ['PUT', '/v1/policies', malformed, 405],
      ['DELETE', '/v1/settlements/SETTLE-2026-11-001', tooLarge, 405],
      ['QUERY', '/v1/policies', { payload: '{}', headers: {} }, 405],
    ] as const) {
      const anonymous = await call(s.app, method, url, { key: null, ...body });
      expect(anonymous.status, `${method} ${url} without a key`).toBe(401);
      expect(anonymous.json().error.code).toBe('UNAUTHORIZED');
      const res = await call(s.app, method, url, { key: s.keys.acme, ...body });
      expect(res.status, `${method} ${url}`).toBe(withKey);
      expect(res.json().error.code).toBe(withKey === 404 ? 'NOT_FOUND' : 'METHOD_NOT_ALLOWED');
    }
  });

  it('takes a path joined to a base URL written with a trailing slash (/v1//policies, //v1/policies) as the path it names', async () => {
    // app.inject directly: call() checks each answer against the documented path, which these spell otherwise.
    const inject = (method: 'GET' | 'POST', url: string, key: string | null, body?: unknown) =>
      s.app.inject({ method, url, headers: { ...(key ? { 'x-api-key': key } : {}), ...(body ? { 'content-type': 'application/json' } : {}) }, payload: body ? JSON.stringify(body) : undefined });
    const created = await inject('POST', '/v1//policies', s.keys.acme, {
      policy_number: 'POL-SLASH-1', customer_id: 'C1', external_customer_ref: 'E1', product_code: 'LIFE', collection_amount: 10,
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    expect(created.headers.location).toBe(`/v1/policies/${id}`);
    for (const url of [`/v1//policies/${id}`, `//v1/policies/${id}`, `///v1///policies/${id}`]) {
      const res = await inject('GET', url, s.keys.acme);
      expect(res.statusCode, url).toBe(200);
      expect(res.json(), url).toMatchObject({ id, policy_number: 'POL-SLASH-1' });
    }
    const anonymous = await inject('GET', `/v1//policies/${id}`, null);
    expect(anonymous.statusCode).toBe(401);
  });

  it('answers a path whose id is empty (a trailing slash, a double slash) as one that does not exist', async () => {
    for (const [method, url] of [
      ['GET', '/v1/policies/'],
      ['PATCH', '/v1/policies/'],
      ['GET', '/v1/collections/'],
      ['GET', '/v1/settlements/'],
      ['GET', '/v1/settlements//export'],
      ['POST', '/v1/settlements//mark-paid'],
    ] as const) {
      const res = await call(s.app, method, url, { key: s.keys.acme, body: { status: 'cancelled' } });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.json().error.message).toBe(`There is no endpoint ${method} ${url}; see GET /v1/openapi.json for the endpoints.`);
      const anonymous = await call(s.app, method, url, { key: null });
      expect(anonymous.status, `${method} ${url} without a key`).toBe(401);
    }
  });

  /** A server whose GET /clock fails with `message`, and the lines it logs. */
  async function failingClock(message: string) {
    class Broken extends LocalBackend {
      override forClient(clientId: number): LocalBackend {
        const b = super.forClient(clientId);
        b.getClock = async () => {
          throw new Error(message);
        };
        return b;
      }
    }
    const { createServer } = await import('../../src/server/app.js');
    const logs: string[] = [];
    const app = await createServer({ backend: new Broken(s.backend.ctx, false), log: (l) => logs.push(l) });
    return { app, logs };
  }

  it('answers 500 INTERNAL without internals and logs the stack with the request id', async () => {
    const { app, logs } = await failingClock('secret detail at /var/lib/premia.db');
    const res = await call(app, 'GET', '/v1/clock', { key: s.keys.acme });
    expect(res.status).toBe(500);
    const id = res.headers['x-request-id'];
    expect(res.json()).toEqual({
      error: { code: 'INTERNAL', message: 'The service failed unexpectedly; the error was logged with this request id.', request_id: id },
    });
    expect(res.text).not.toContain('secret');
    const logged = logs.find((l) => l.includes(' error '));
    expect(logged).toContain(`error ${String(id)}: Error: secret detail at /var/lib/premia.db`);
    expect(logged).toContain('at ');
    await app.close();
  });

  it('logs an internal error whose message quotes a key with the key redacted, stack and all', async () => {
    const key = `pmk_${'Q'.repeat(36)}Wxyz`;
    const { app, logs } = await failingClock(`cannot open /srv/${key}/premia.db`);
    const res = await call(app, 'GET', '/v1/clock', { key: s.keys.acme });
    expect(res.status).toBe(500);
    const logged = logs.find((l) => l.includes(' error '))!;
    expect(logged).toContain(`error ${String(res.headers['x-request-id'])}: Error: cannot open /srv/pmk_…Wxyz/premia.db\n    at `);
    expect(logs.join('\n')).not.toContain(key);
    await app.close();
  });
});

/**
 * Request validation and error shapes of the collections, reports and settlements routes. Their
 * success paths are in collections.test.ts, reports.test.ts, settlements.test.ts and cycle.test.ts.
 */
describe('deeply nested JSON (issue 10)', () => {
  // The default 1 MiB JSON limit (this file's server takes only 2,000 bytes).
  let d: TestServer;
  beforeAll(async () => {
    d = await startServer();
  });
  afterAll(async () => {
    await d.close();
  });
  const lists = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  const TOO_DEEP = {
    code: 'VALIDATION_ERROR',
    message: 'The JSON body nests objects and lists 5001 levels deep; at most 32 are accepted (no request needs more than 3).',
    details: [{ field: 'body', code: 'TOO_DEEP', message: 'the JSON body nests deeper than 32 levels' }],
  };

  it.each([
    ['POST', '/v1/collections/execute', `{"period_month":"2026-11","policy_ids":${lists(5000)}}`],
    ['POST', '/v1/settlements', `{"period_month":${objects(5000)}}`],
    ['PATCH', '/v1/policies/POL-1', `{"status":${objects(5000)}}`],
    ['POST', '/v1/policies', `{"policy_number":${lists(5000)}}`],
    ['POST', '/v1/clock/advance', `{"days":${objects(5000)}}`],
  ])('%s %s with a value 5,000 levels deep: 400 VALIDATION_ERROR, nothing logged as internal', async (method, url, payload) => {
    for (const headers of [{}, { 'idempotency-key': `deep-${url}` }] as Record<string, string>[]) {
      const res = await call(d.app, method, url, { key: d.keys.operator, payload, headers: { 'content-type': 'application/json', ...headers } });
      expect(res.status, res.text).toBe(400);
      expect(res.json().error).toEqual({ ...TOO_DEEP, request_id: res.headers['x-request-id'] });
    }
    expect(d.logs.filter((l) => / error /.test(l))).toEqual([]);
  });

  it('takes 32 levels (then the field is checked as usual) and refuses 33', async () => {
    const ok = await call(d.app, 'POST', '/v1/settlements', { key: d.keys.operator, payload: `{"period_month":${objects(31)}}`, headers: { 'content-type': 'application/json' } });
    expect(ok.status).toBe(400);
    expect(ok.json().error.details).toEqual([
      { field: 'period_month', code: 'INVALID_FORMAT', message: 'period_month must be a month written YYYY-MM, like 2026-11; got an object' },
    ]);
    const over = await call(d.app, 'POST', '/v1/settlements', { key: d.keys.operator, payload: `{"period_month":${objects(32)}}`, headers: { 'content-type': 'application/json' } });
    expect(over.status).toBe(400);
    expect(over.json().error.details[0].code).toBe('TOO_DEEP');
    expect(over.json().error.message).toContain('33 levels deep');
  });
});

describe('collections, reports and settlements: validation and errors', () => {
  const invalid = async (method: string, url: string, body: unknown, details: Array<[string, string]>) => {
    const res = await call(s.app, method, url, { key: s.keys.acme, body });
    expect(res.status, `${method} ${url}`).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: any) => [d.field, d.code])).toEqual(details);
  };
  const notFound = async (url: string, message: string) => {
    const res = await call(s.app, 'GET', url, { key: s.keys.acme });
    expect(res.status, url).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'NOT_FOUND', message });
  };

  it('POST /v1/collections/execute', async () => {
    // Unknown policies are refused and nothing is queued (the success path is in collections.test.ts).
    const unknown = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, body: { period_month: '2026-12', policy_ids: ['POL-1'], strategy: 'smart' } });
    expect(unknown.status).toBe(400);
    expect(unknown.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Nothing was queued: unknown policies: POL-1.' });
    expect(unknown.json().error.details.map((d: any) => [d.field, d.code])).toEqual([['policy_ids', 'UNKNOWN_POLICY']]);
    const unknownStrategy = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, body: { period_month: '2026-12', strategy: 'greedy' } });
    expect(unknownStrategy.status).toBe(400);
    expect(unknownStrategy.json().error.details.map((d: any) => [d.field, d.code])).toEqual([['strategy', 'INVALID_VALUE']]);
    await invalid('POST', '/v1/collections/execute', {}, [['period_month', 'REQUIRED']]);
    await invalid('POST', '/v1/collections/execute', { period_month: '2026-13', policy_ids: [], extra: 1 }, [
      ['extra', 'UNKNOWN_FIELD'],
      ['period_month', 'INVALID_FORMAT'],
      ['policy_ids', 'REQUIRED'],
    ]);
    await invalid('POST', '/v1/collections/execute', { period_month: '2026-11', policy_ids: ['ok', 7] }, [['policy_ids[1]', 'INVALID_VALUE']]);
    await invalid('POST', '/v1/collections/execute', { period_month: '2026-11', strategy: 'Bad Name' }, [['strategy', 'INVALID_FORMAT']]);
    const msg = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, body: { period_month: 'Nov' } });
    expect(msg.json().error.message).toBe('The collections run is not valid: period_month must be a month written YYYY-MM, like 2026-11; got "Nov".');
    // None of the refused requests ran: the clock can still be set.
    expect((await call(s.app, 'GET', '/v1/clock', { key: s.keys.acme })).json().locked).toBe(false);
  });

  it('GET /v1/collections, /v1/collections/{id}, /explain and /v1/executions/{id}', async () => {
    const id = '0b5c2c4e-4d1f-8a6b-9c2d-1e2f3a4b5c6d';
    const empty = await call(s.app, 'GET', '/v1/collections?period_month=2026-11&status=UNPAID&limit=5', { key: s.keys.acme });
    expect(empty.status).toBe(200);
    expect(empty.json()).toEqual({ data: [], next_after: null });
    await notFound('/v1/collections?period_month=2026-11&policy=POL-404', "Policy 'POL-404' was not found. Check the id or number and try again.");
    await notFound(`/v1/collections/${id}`, `Collection '${id}' was not found. Check the id or number and try again.`);
    await notFound(`/v1/collections/${id}/explain`, `Collection '${id}' was not found. Check the id or number and try again.`);
    // An execution and an operation have only an id: their message does not ask for a number.
    await notFound(`/v1/executions/${id}`, `Execution '${id}' was not found. Check the id and try again.`);
    await notFound(`/v1/operations/${id}`, `Operation '${id}' was not found. Check the id and try again.`);
    await notFound('/v1/collections/not-an-id', "Collection 'not-an-id' was not found. Check the id or number and try again.");
    await invalid('GET', '/v1/collections', undefined, [['period_month', 'REQUIRED']]);
    await invalid('GET', '/v1/collections?period_month=2026-11&status=PAID', undefined, [['status', 'INVALID_VALUE']]);
    await invalid('GET', '/v1/collections/abc/explain?verbose=1', undefined, [['verbose', 'UNKNOWN_FIELD']]);
  });

  it('GET /v1/reports/collections and /v1/reports/attempts', async () => {
    // A period without collections: the header row only (CSV), no results (JSON).
    const report = await call(s.app, 'GET', '/v1/reports/collections?period_month=2026-11', { key: s.keys.acme });
    expect(report.status).toBe(200);
    expect(report.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(report.headers['content-disposition']).toBe('attachment; filename="collections-2026-11.csv"');
    expect(report.text).toBe(
      'period_month,customer_id,external_customer_ref,policy_number,product_code,collection_amount_due,collection_amount_collected,' +
        'shortfall,collection_status,first_attempt_date,last_attempt_date,number_of_attempts,last_failure_reason\n',
    );
    const reportJson = await call(s.app, 'GET', '/v1/reports/collections?period_month=2026-11&format=json', { key: s.keys.acme });
    expect(reportJson.text).toBe('{"period_month":"2026-11","period_state":{"state":"not_run","as_of":"2026-11-21","closes_on":"2026-11-30","open_collections":0},"results":[]}\n');
    await invalid('GET', '/v1/reports/collections?period_month=2026-13', undefined, [['period_month', 'INVALID_FORMAT']]);
    // A period without attempts: the header row only (CSV), no results (JSON).
    const csv = await call(s.app, 'GET', '/v1/reports/attempts?period_month=2026-11&format=csv', { key: s.keys.acme });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.text).toBe('collection_id,policy_number,customer_id,date,amount,outcome,failure_reason\n');
    const json = await call(s.app, 'GET', '/v1/reports/attempts?period_month=2026-11&format=json', { key: s.keys.acme });
    expect(json.json()).toEqual({ period_month: '2026-11', attempts: [] });
    await invalid('GET', '/v1/reports/collections', undefined, [['period_month', 'REQUIRED']]);
    await invalid('GET', '/v1/reports/collections?period_month=2026-11&format=xml', undefined, [['format', 'INVALID_VALUE']]);
    await invalid('GET', '/v1/reports/attempts?period_month=11-2026', undefined, [['period_month', 'INVALID_FORMAT']]);
    await invalid('GET', '/v1/reports/attempts?period_month=2026-11&format=xml', undefined, [['format', 'INVALID_VALUE']]);
  });

  it('settlements', async () => {
    // Nothing was ever executed on this store: no statement can be made, none exists.
    const none = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, body: { period_month: '2026-10' } });
    expect(none.status).toBe(409);
    expect(none.json().error.code).toBe('NO_COLLECTIONS');
    const list = await call(s.app, 'GET', '/v1/settlements?status=pending&period_month=2026-11', { key: s.keys.acme });
    expect(list.status).toBe(200);
    expect(list.json()).toEqual({ data: [], next_after: null });
    for (const [method, url, body] of [
      ['GET', '/v1/settlements/SETTLE-2026-11-001', undefined],
      ['GET', '/v1/settlements/SETTLE-2026-11-001/export', undefined],
      ['GET', '/v1/settlements/SETTLE-2026-11-001/export?lines=true', undefined],
      ['POST', '/v1/settlements/SETTLE-2026-11-001/mark-paid', undefined],
      ['POST', '/v1/settlements/SETTLE-2026-11-001/mark-paid', { reference: 'EFT-2026/12-0001' }],
      ['POST', '/v1/settlements/SETTLE-2026-11-001/dispute', { reason: 'Totals differ from our ledger.' }],
    ] as const) {
      const res = await call(s.app, method, url, { key: s.keys.acme, body });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.json().error).toMatchObject({ code: 'NOT_FOUND', message: "Settlement 'SETTLE-2026-11-001' was not found. Check the id or number and try again." });
    }
    await invalid('POST', '/v1/settlements', { period: '2026-11' }, [['period', 'UNKNOWN_FIELD'], ['period_month', 'REQUIRED']]);
    await invalid('GET', '/v1/settlements?status=open', undefined, [['status', 'INVALID_VALUE']]);
    await invalid('GET', '/v1/settlements/x/export?lines=maybe', undefined, [['lines', 'INVALID_VALUE']]);
    await invalid('POST', '/v1/settlements/x/mark-paid', { reference: 'lower case' }, [['reference', 'INVALID_FORMAT']]);
    await invalid('POST', '/v1/settlements/x/dispute', {}, [['reason', 'REQUIRED']]);
    await invalid('POST', '/v1/settlements/x/dispute', { reason: 'r'.repeat(501) }, [['reason', 'TOO_LONG']]);
  });

  it('needs a key on every one of them', async () => {
    for (const [method, url] of [
      ['POST', '/v1/collections/execute'],
      ['GET', '/v1/collections/x'],
      ['GET', '/v1/reports/collections?period_month=2026-11'],
      ['POST', '/v1/settlements'],
      ['GET', '/v1/settlements/x'],
      ['GET', '/v1/settlements/x/export'],
    ] as const) {
      const res = await call(s.app, method, url, { key: null });
      expect(res.status, `${method} ${url}`).toBe(401);
    }
  });
});

describe('every endpoint refuses what it must', () => {
  const JSON_WRITES: Array<[string, string]> = [
    ['POST', '/v1/policies'],
    ['PATCH', '/v1/policies/POL-1'],
    ['POST', '/v1/collections/execute'],
    ['POST', '/v1/settlements'],
    ['POST', '/v1/settlements/SETTLE-2026-11-001/mark-paid'],
    ['POST', '/v1/settlements/SETTLE-2026-11-001/dispute'],
    ['PUT', '/v1/clock'],
    ['POST', '/v1/clock/advance'],
    ['POST', '/v1/bank/seed'],
  ];
  const READS = [
    '/v1/policies',
    '/v1/policies/POL-1',
    '/v1/collections?period_month=2026-11',
    '/v1/collections/x',
    '/v1/collections/x/explain',
    '/v1/executions/x',
    '/v1/reports/collections?period_month=2026-11',
    '/v1/reports/attempts?period_month=2026-11',
    '/v1/settlements',
    '/v1/settlements/x',
    '/v1/settlements/x/export',
    '/v1/whoami',
    '/v1/openapi.json',
    '/v1/clock',
    '/v1/bank/accounts/C1',
  ];

  it.each(JSON_WRITES)('%s %s: 401 without a key, 400 malformed JSON, 413 too large, 415 not JSON', async (method, url) => {
    expect((await call(s.app, method, url, { key: null, body: {} })).status).toBe(401);
    // The clock and the bank take an operator key (a client key's 403: roles.test.ts).
    const key = /\/(clock|bank)\b/.test(url) ? s.keys.operator : s.keys.acme;
    const malformed = await call(s.app, method, url, { key, payload: '{', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.json().error.details[0].code).toBe('INVALID_JSON');
    const large = await call(s.app, method, url, { key, body: { x: 'y'.repeat(3000) } });
    expect(large.status).toBe(413);
    const text = await call(s.app, method, url, { key, payload: '{}', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    const unknown = await call(s.app, method, url, { key, body: { surprise: true } });
    expect(unknown.status).toBe(400);
    expect(unknown.json().error.details.map((d: any) => [d.field, d.code])).toContainEqual(['surprise', 'UNKNOWN_FIELD']);
    if (method !== 'PUT') {
      const badKey = await call(s.app, method, url, { key, body: {}, headers: { 'idempotency-key': 'x'.repeat(256) } });
      expect(badKey.status).toBe(400);
      expect(badKey.json().error.details[0].field).toBe('Idempotency-Key');
    }
  });

  // The spec's own GETs ignore a query parameter they do not define (a spec-only client may add a
  // cache-buster); premia's extensions refuse it, so a mistyped filter is not silently dropped.
  const SPEC_READS = new Set(['/v1/collections/x', '/v1/reports/collections?period_month=2026-11', '/v1/settlements/x', '/v1/settlements/x/export']);

  it.each(READS)('GET %s: 401 without a key; an unknown query parameter: 400 on extensions, ignored on the spec\'s endpoints', async (url) => {
    expect((await call(s.app, 'GET', url, { key: null })).status).toBe(401);
    const key = url.startsWith('/v1/bank/') ? s.keys.operator : s.keys.acme;
    const plain = await call(s.app, 'GET', url, { key });
    const res = await call(s.app, 'GET', `${url}${url.includes('?') ? '&' : '?'}bogus=1`, { key });
    if (SPEC_READS.has(url)) {
      expect(res.status).toBe(plain.status);
      expect(res.status).not.toBe(400);
      return;
    }
    expect(res.status).toBe(400);
    expect(res.json().error.details.map((d: any) => [d.field, d.code])).toContainEqual(['bogus', 'UNKNOWN_FIELD']);
  });
});
