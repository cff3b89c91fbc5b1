import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, OPENAPI, startServer, type TestServer } from './helpers.js';

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
  'POST /collections/execute',
  'GET /collections',
  'GET /collections/{id}',
  'GET /collections/{id}/explain',
  'GET /executions/{id}',
  'GET /reports/collections',
  'GET /reports/attempts',
  'POST /settlements',
  'GET /settlements',
  'GET /settlements/{id}',
  'GET /settlements/{id}/export',
  'POST /settlements/{id}/mark-paid',
  'POST /settlements/{id}/dispute',
  'GET /whoami',
  'GET /openapi.json',
  'GET /clock',
  'PUT /clock',
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
      for (const [status, response] of Object.entries(operation.responses) as [string, any][]) {
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
});
