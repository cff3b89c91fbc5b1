/**
 * The server registers its routes from the operations table: it does not start when a row has
 * no handler, when a handler has no row (or is of the wrong kind), or when a plugin registers a
 * route under /v1 that no row declares.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_LIST } from '../../src/backend/operations.js';
import { createServer } from '../../src/server/app.js';
import { checkRoutes, read, write, type ResourceRoutes } from '../../src/server/dispatch.js';
import { RESOURCE_ROUTES } from '../../src/server/routes/index.js';
import { call, startServer, type TestServer } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

const without = (resource: string) => RESOURCE_ROUTES.filter((r) => r.resource !== resource);
const replaced = (resource: string, change: (r: ResourceRoutes) => ResourceRoutes) => RESOURCE_ROUTES.map((r) => (r.resource === resource ? change(r) : r));

describe('the server starts only on routes that cover the operations table', () => {
  it('the shipped routes cover every row once, and are what it serves', async () => {
    expect(() => checkRoutes(RESOURCE_ROUTES)).not.toThrow();
    const handled = RESOURCE_ROUTES.flatMap((r) => Object.keys(r.handlers)).sort();
    expect(handled).toEqual(OPERATION_LIST.map((row) => row.name).sort());
    for (const row of OPERATION_LIST) {
      expect(s.app.hasRoute({ method: row.method, url: `/v1${row.path.replace(/\{(\w+)\}/g, ':$1')}` }), row.name).toBe(true);
    }
  });

  it('refuses to start when rows have no handler', async () => {
    await expect(createServer({ backend: s.backend, tmpDir: s.dir, routes: without('bank') })).rejects.toThrow(
      'The routes do not match the operations table: the operation seedBank (POST /bank/seed) has no route handler; ' +
        'the operation importBankTransactions (POST /bank/import) has no route handler; ' +
        'the operation showBankAccount (GET /bank/accounts/{customer_id}) has no route handler.',
    );
  });

  it('refuses to start when a handler has no row, or is of another kind than its row', async () => {
    const extra = replaced('policies', (r) => ({ ...r, handlers: { ...r.handlers, deletePolicy: read(() => ({})) } }));
    await expect(createServer({ backend: s.backend, tmpDir: s.dir, routes: extra })).rejects.toThrow(
      'The routes do not match the operations table: the handler deletePolicy (routes of policies) has no row in the operations table.',
    );
    const wrongKind = replaced('policies', (r) => ({ ...r, handlers: { ...r.handlers, getPolicy: write(() => ({ args: [] })) } }));
    expect(() => checkRoutes(wrongKind)).toThrow('the handler getPolicy is a write, its row a read');
    const twice = [...RESOURCE_ROUTES, { ...RESOURCE_ROUTES.find((r) => r.resource === 'meta')!, resource: 'meta' }];
    expect(() => checkRoutes(twice)).toThrow('the operation whoami has two handlers (routes of meta and meta)');
  });

  it('refuses to start when a plugin registers a route under /v1 that no row declares', async () => {
    const rogue: ResourceRoutes = {
      resource: 'rogue',
      handlers: {},
      plugin: async (v1) => {
        v1.get('/policies/export', async () => 'everything');
      },
    };
    await expect(createServer({ backend: s.backend, tmpDir: s.dir, routes: [...RESOURCE_ROUTES, rogue] })).rejects.toThrow(
      'The route GET /v1/policies/export has no row in the operations table (src/backend/operations.ts).',
    );
  });

  it('a server on the shipped routes answers (the control)', async () => {
    const res = await call(s.app, 'GET', '/v1/whoami', { key: s.keys.acme });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ client: 'Acme Life', role: 'client', simulation: true });
  });
});
