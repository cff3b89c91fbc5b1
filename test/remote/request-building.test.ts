/**
 * The remote client builds each request from its row of the operations table: method, path (its
 * parameters percent-encoded), query, body, the status of a success, whether it sends an
 * Idempotency-Key and Prefer. Local --idempotency-key wraps the same rows.
 */
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { OPERATIONS, type RequestOf } from '../../src/backend/operations.js';
import { callOf } from '../../src/backend/remote/index.js';
import { buildRequest, RESPOND_ASYNC } from '../../src/backend/wire.js';
import { IDEMPOTENT_WRITES } from '../../src/cli/local-idempotency.js';
import { asCents } from '../../src/domain/money.js';

describe('buildRequest', () => {
  it('a PATCH: the id percent-encoded into the path, the patch as the body, an Idempotency-Key', () => {
    expect(buildRequest(OPERATIONS.updatePolicy, 'POL/7 ü', { status: 'lapsed' })).toEqual({
      method: 'PATCH',
      path: '/policies/POL%2F7%20%C3%BC',
      json: { status: 'lapsed' },
      status: 200,
      idempotencyKey: true,
      prefer: null,
      route: { what: 'updating a policy (PATCH /policies/{id})', extension: false, idless: false },
    });
  });

  it('a create answers 201; the collections run 202, its body only the fields given', () => {
    // The row's request type is the JSON body (money in cents until it is written).
    const policy: RequestOf<typeof OPERATIONS.createPolicy> = { policy_number: 'P-1', customer_id: 'C1', external_customer_ref: 'E1', product_code: 'LIFE', collection_amount: asCents(19950) };
    expect(buildRequest(OPERATIONS.createPolicy, policy)).toMatchObject({ method: 'POST', path: '/policies', json: policy, status: 201, idempotencyKey: true });
    expect(buildRequest(OPERATIONS.executeCollections, { period_month: '2026-11' })).toMatchObject({
      path: '/collections/execute',
      json: { period_month: '2026-11' },
      status: 202,
    });
    expect(buildRequest(OPERATIONS.executeCollections, { period_month: '2026-11', policy_ids: ['P-1'], strategy: 'naive' }).json).toEqual({
      period_month: '2026-11',
      policy_ids: ['P-1'],
      strategy: 'naive',
    });
  });

  it('long work asks to be answered asynchronously; an upload carries its file and no JSON', () => {
    const file = { name: 'policies.csv', stream: Readable.from([]) };
    const request = buildRequest(OPERATIONS.importPolicies, file, undefined);
    expect(request).toMatchObject({ method: 'POST', path: '/policies/import', status: 200, idempotencyKey: true, prefer: RESPOND_ASYNC });
    expect(request.upload).toBe(file);
    expect(request.json).toBeUndefined();
    expect(RESPOND_ASYNC).toBe('respond-async, wait=1');
    expect(buildRequest(OPERATIONS.advanceClock, { days: 3 }, undefined)).toMatchObject({ json: { days: 3 }, prefer: RESPOND_ASYNC, idempotencyKey: true });
  });

  it('PUT /clock sends no Idempotency-Key (setting the clock twice to one date is the same)', () => {
    expect(buildRequest(OPERATIONS.setClock, '2026-12-01')).toEqual({
      method: 'PUT',
      path: '/clock',
      json: { date: '2026-12-01' },
      status: 200,
      idempotencyKey: false,
      prefer: null,
      route: { what: 'setting the virtual clock (PUT /clock)', extension: true, idless: true },
    });
  });

  it('reads: the query of a list (absent filters left for the query string to drop), the lines flag only when asked', () => {
    expect(buildRequest(OPERATIONS.listPolicies, { status: 'active', limit: 5 })).toEqual({
      method: 'GET',
      path: '/policies',
      query: { status: 'active', limit: 5, after: undefined },
      status: 200,
      idempotencyKey: false,
      prefer: null,
      route: { what: 'policy lists (GET /policies)', extension: true, idless: true },
    });
    expect(buildRequest(OPERATIONS.exportSettlement, 'SETTLE-2026-11-001', { lines: true })).toMatchObject({
      path: '/settlements/SETTLE-2026-11-001/export',
      query: { lines: 'true' },
    });
    expect(buildRequest(OPERATIONS.exportSettlement, 'SETTLE-2026-11-001', undefined).query).toBeUndefined();
    expect(buildRequest(OPERATIONS.attemptsReport, '2026-11', 'csv')).toMatchObject({ path: '/reports/attempts', query: { period_month: '2026-11', format: 'csv' } });
    expect(buildRequest(OPERATIONS.showBankAccount, 'C 1')).toMatchObject({ path: '/bank/accounts/C%201', idempotencyKey: false });
  });

  it('a list that names a resource in its query is not "idless": its 404 is that resource', () => {
    expect(buildRequest(OPERATIONS.listCollections, { period_month: '2026-11', policy: 'P-1' }).route).toEqual({
      what: 'collection lists (GET /collections)',
      extension: true,
      idless: false,
    });
  });
});

describe('callOf: the call a remote method makes', () => {
  it('adds what only the call knows (the reference, what to verify) to its row', () => {
    expect(callOf(OPERATIONS.getSettlement, ['SETTLE-2026-11-001'], { ref: { noun: 'settlement', value: 'SETTLE-2026-11-001' } })).toEqual({
      method: 'GET',
      path: '/settlements/SETTLE-2026-11-001',
      status: 200,
      idempotencyKey: false,
      prefer: null,
      route: { what: 'a settlement (GET /settlements/{id})', extension: false, idless: false, ref: { noun: 'settlement', value: 'SETTLE-2026-11-001' } },
    });
    expect(callOf(OPERATIONS.createSettlement, ['2026-11'], { verify: 'Check' })).toEqual({
      method: 'POST',
      path: '/settlements',
      json: { period_month: '2026-11' },
      status: 201,
      idempotencyKey: true,
      // A write names its row, for the writes the service says it replayed (Backend.replayedWrites).
      operation: 'createSettlement',
      prefer: null,
      route: { what: 'settlements (POST /settlements)', extension: false, idless: true, verify: 'Check' },
    });
  });
});

describe('local --idempotency-key', () => {
  it('wraps exactly the backend methods whose rows take an Idempotency-Key', () => {
    expect([...IDEMPOTENT_WRITES.keys()]).toEqual([
      'createPolicy',
      'importPolicies',
      'updatePolicy',
      'executeCollections',
      'createSettlement',
      'markSettlementPaid',
      'disputeSettlement',
      'advanceClock',
      'seedBank',
      'importBankTransactions',
    ]);
  });
});
