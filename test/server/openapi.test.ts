import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, OPENAPI, schemaErrors, startServer, type TestServer } from './helpers.js';
import { ACME_001 } from './fixture-period.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

/** Every endpoint the service offers (spec section 4 and premia's extensions). */
const ENDPOINTS = [
  'POST /policies',
  'GET /policies',
  'POST /policies/import',
  'GET /policies/{id}',
  'PATCH /policies/{id}',
  'GET /policies/{id}/cancel-preview',
  'POST /collections/execute',
  'GET /collections',
  'GET /collections/{id}',
  'GET /collections/{id}/explain',
  'GET /executions/{id}',
  'GET /reports/collections',
  'GET /reports/attempts',
  'POST /settlements',
  'GET /settlements',
  'GET /settlements/preview',
  'GET /settlements/{id}',
  'GET /settlements/{id}/export',
  'POST /settlements/{id}/mark-paid',
  'POST /settlements/{id}/dispute',
  'GET /whoami',
  'GET /operations/{id}',
  'GET /idempotency-keys',
  'GET /openapi.json',
  'GET /clock',
  'PUT /clock',
  'GET /clock/preview',
  'POST /clock/advance',
  'POST /bank/seed',
  'POST /bank/import',
  'GET /bank/accounts/{customer_id}',
];

describe('openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(OPENAPI);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(OPENAPI.openapi).toBe('3.1.0');
  });

  it('documents exactly the endpoints the server routes', () => {
    const documented = Object.entries(OPENAPI.paths).flatMap(([path, item]: [string, any]) =>
      Object.keys(item)
        .filter((k) => ['get', 'put', 'post', 'patch', 'delete'].includes(k))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual([...ENDPOINTS].sort());
    for (const endpoint of ENDPOINTS) {
      const [method, path] = endpoint.split(' ');
      const url = `/v1${path!.replace(/\{(\w+)\}/g, ':$1')}`;
      expect(s.app.hasRoute({ method: method as any, url }), endpoint).toBe(true);
    }
  });

  it('declares the key, the request id, idempotency and rate-limit headers', () => {
    expect(OPENAPI.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(OPENAPI.security).toEqual([{ ApiKey: [] }]);
    expect(OPENAPI.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
    expect(OPENAPI.components.responses.RateLimited.headers['Retry-After']).toBeDefined();
    for (const endpoint of ENDPOINTS) {
      const [method, path] = endpoint.split(' ');
      const operation = OPENAPI.paths[path!][method!.toLowerCase()];
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        const resolved = response.$ref ? OPENAPI.components.responses[response.$ref.split('/').pop()] : response;
        expect(resolved.headers?.['X-Request-Id'], `${endpoint} ${status} X-Request-Id`).toBeDefined();
      }
      if (method === 'POST' || method === 'PATCH') {
        expect(operation.parameters?.map((p: any) => p.$ref), `${endpoint} Idempotency-Key`).toContain('#/components/parameters/IdempotencyKey');
        expect(operation.responses['422'], `${endpoint} 422`).toBeDefined();
      }
      expect(operation.security, `${endpoint} needs the key`).toBeUndefined();
      expect(operation.responses['401'], `${endpoint} 401`).toBeDefined();
    }
  });

  it('is served as JSON at /v1/openapi.json, equal to the YAML', async () => {
    const res = await call(s.app, 'GET', '/v1/openapi.json', { key: s.keys.acme });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual(OPENAPI);
  });

  it('names first, as its server, the one that served it (a relative URL), not a fixed host and port', async () => {
    // A server on another --port: a client generated from the served document must call it, not 127.0.0.1:8080.
    const res = await call(s.app, 'GET', '/v1/openapi.json', { key: s.keys.acme });
    expect(res.json().servers).toEqual([
      { url: '/v1', description: 'the premia service that served this document' },
      { url: 'http://127.0.0.1:8080/v1', description: 'premia serve (default host and port)' },
    ]);
  });

  it('documents a 503 (STORE_BUSY) on every operation, and no 501 (every route works)', () => {
    for (const endpoint of ENDPOINTS) {
      const [method, path] = endpoint.split(' ');
      const operation = OPENAPI.paths[path!][method!.toLowerCase()];
      expect(operation.responses['503'], `${endpoint} 503`).toEqual({ $ref: '#/components/responses/ServiceUnavailable' });
      expect(operation.responses['501'], `${endpoint} 501`).toBeUndefined();
    }
  });

  it('has settlement and report schemas strict enough to catch a wrong response', () => {
    const settlement = { id: 'c99bc2da-8a16-8505-a83c-ada579862955', ...ACME_001 };
    const S = '#/components/schemas/Settlement';
    expect(schemaErrors(S, settlement)).toEqual([]);
    const { payment_reference: _ref, ...withoutReference } = settlement;
    expect(schemaErrors(S, withoutReference)).not.toEqual([]);
    expect(schemaErrors(S, { ...settlement, surprise: 1 })).not.toEqual([]);
    expect(schemaErrors(S, { ...settlement, total_collections: '199.51' })).not.toEqual([]);
    expect(schemaErrors(S, { ...settlement, status: 'open' })).not.toEqual([]);
    expect(schemaErrors(S, { ...settlement, settlement_number: 'SETTLE-2026-11' })).not.toEqual([]);
    expect(schemaErrors(S, { ...settlement, payment_reference: 'prm 1' })).not.toEqual([]);
    expect(schemaErrors(S, { ...settlement, payment_date: '2026-12-3' })).not.toEqual([]);

    const row = {
      id: '0b5c2c4e-4d1f-8a6b-9c2d-1e2f3a4b5c6d',
      period_month: '2026-11',
      customer_id: 'C100001',
      external_customer_ref: 'EXT-1',
      policy_number: 'POL-0001',
      product_code: 'FUNERAL_BASIC',
      collection_amount_due: 149.5,
      collection_amount_collected: 149.5,
      shortfall: 0,
      collection_status: 'PAID_FULL',
      first_attempt_date: '2026-11-03',
      last_attempt_date: '2026-11-05',
      number_of_attempts: 2,
      last_failure_reason: null,
    };
    const R = '#/components/schemas/CollectionsReport';
    expect(schemaErrors(R, { period_month: '2026-11', results: [row] })).toEqual([]);
    expect(schemaErrors(R, { period_month: '2026-11', results: [] })).toEqual([]);
    const { id: _id, ...withoutId } = row;
    expect(schemaErrors(R, { period_month: '2026-11', results: [withoutId] })).not.toEqual([]);
    const { last_failure_reason: _reason, ...without13th } = row;
    expect(schemaErrors(R, { period_month: '2026-11', results: [without13th] })).not.toEqual([]);
    expect(schemaErrors(R, { period_month: '2026-11', results: [{ ...row, extra: true }] })).not.toEqual([]);
    expect(schemaErrors(R, { period_month: '2026-11', results: [{ ...row, collection_status: 'PAID' }] })).not.toEqual([]);
    expect(schemaErrors(R, { period_month: '2026-11' })).not.toEqual([]);
  });
});
