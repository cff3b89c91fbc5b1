/**
 * The operations table (src/backend/operations.ts) and openapi.yaml describe the same API: any
 * drift between them fails here. The YAML is written for readers (prose, examples, schemas) and
 * checked rather than generated; what the table decides is held to it in both directions.
 */
import { describe, expect, it } from 'vitest';
import { idless, impliedErrors, OPERATION_LIST, OPERATIONS, type AnyOperation } from '../../src/backend/operations.js';
import { ERROR_CODES } from '../../src/domain/errors.js';
import { OPENAPI } from './helpers.js';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** Every operation of the YAML: [METHOD, path, operation]. */
const documented: Array<[string, string, any]> = Object.entries(OPENAPI.paths).flatMap(([path, item]: [string, any]) =>
  Object.entries(item)
    .filter(([m]) => METHODS.includes(m))
    .map(([m, operation]) => [m.toUpperCase(), path, operation] as [string, string, any]),
);

const refName = (p: any): string => (p.$ref ? String(p.$ref).split('/').pop()! : String(p.name));

describe('the operations table and openapi.yaml', () => {
  it('name the same operations, by operationId, method and path', () => {
    const fromTable = OPERATION_LIST.map((row) => `${row.name} ${row.method} ${row.path}`).sort();
    const fromYaml = documented.map(([method, path, operation]) => `${operation.operationId} ${method} ${path}`).sort();
    expect(fromYaml).toEqual(fromTable);
    expect(OPERATION_LIST).toHaveLength(31);
    for (const [name, row] of Object.entries(OPERATIONS)) expect(row.name, name).toBe(name);
  });

  describe.each(OPERATION_LIST.map((row) => [`${row.method} ${row.path}`, row] as [string, AnyOperation]))('%s', (_, row) => {
    const operation = OPENAPI.paths[row.path][row.method.toLowerCase()];

    it('answers success with the row\'s status (and 202 exactly when it may be answered asynchronously)', () => {
      const successes = Object.keys(operation.responses).filter((s) => s.startsWith('2')).sort();
      expect(successes).toEqual(row.async ? [String(row.status), '202'].sort() : [String(row.status)]);
      const media = Object.keys(operation.responses[String(row.status)].content ?? {});
      expect(media.includes('text/csv'), 'a CSV download').toBe(row.response === 'download');
    });

    it('documents exactly the error statuses of its codes and of its kind', () => {
      const statuses = new Set([...row.errors, ...impliedErrors(row)].map((code) => String(ERROR_CODES[code].status)));
      const errors = Object.keys(operation.responses).filter((s) => !s.startsWith('2'));
      expect(errors.sort()).toEqual([...statuses].sort());
    });

    it('needs the key; an operator row says 403 (and a row refusing some of its uses to a client key); a simulation row is tagged so', () => {
      expect(operation.security).toBeUndefined();
      expect(OPENAPI.security).toEqual([{ ApiKey: [] }]);
      expect('403' in operation.responses).toBe(row.role === 'operator' || row.errors.includes('FORBIDDEN'));
      expect(operation.tags.includes('simulation')).toBe(row.simulation);
    });

    it('takes Idempotency-Key and Prefer where the row does', () => {
      const parameters = (operation.parameters ?? []).map(refName);
      expect(parameters.includes('IdempotencyKey'), 'Idempotency-Key').toBe(row.idempotent);
      expect(parameters.includes('Prefer'), 'Prefer').toBe(row.async);
    });

    it('takes the body the row reads', () => {
      const body = operation.requestBody;
      if (row.body === 'none') {
        expect(body).toBeUndefined();
        return;
      }
      expect(Object.keys(body.content)).toEqual([row.body === 'upload' ? 'multipart/form-data' : 'application/json']);
      expect(body.required).toBe(row.body !== 'json-optional');
    });
  });
});

describe('the rows', () => {
  it('take an Idempotency-Key exactly on POST and PATCH (the server checks the header by method before routing)', () => {
    for (const row of OPERATION_LIST) expect(row.idempotent, row.name).toBe(row.method === 'POST' || row.method === 'PATCH');
  });

  it('run as jobs exactly when they change the store, each naming its backend method', () => {
    expect(OPERATION_LIST.filter((row) => row.job).map((row) => row.backend)).toEqual([
      'createPolicy',
      'importPolicies',
      'updatePolicy',
      'executeCollections',
      'createSettlement',
      'markSettlementPaid',
      'disputeSettlement',
      'setClock',
      'advanceClock',
      'seedBank',
      'importBankTransactions',
    ]);
  });

  it('say a 404 means a missing route only where no resource can be missing', () => {
    // The remote client reads a 404 of these (an extension, from a premia service) as "not offered".
    expect(OPERATION_LIST.filter(idless).map((row) => row.name)).toEqual([
      'createPolicy',
      'importPolicies',
      'listPolicies',
      'executeCollections',
      'collectionsReport',
      'attemptsReport',
      'createSettlement',
      'listSettlements',
      'previewSettlement',
      'whoami',
      'openapi',
      'listIdempotencyKeys',
      'getClock',
      'setClock',
      'previewAdvance',
      'advanceClock',
      'seedBank',
      'importBankTransactions',
    ]);
    // GET /collections names a policy in its query: its 404 is that policy's, not a missing route.
    expect(idless(OPERATIONS.listCollections)).toBe(false);
  });
});
