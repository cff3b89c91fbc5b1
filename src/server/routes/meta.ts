/** The service itself: who a key acts for (whoami), the OpenAPI document, and the key's idempotency records. */
import { OPERATION_LIST } from '../../backend/operations.js';
import { validateIdempotencyKeyQuery } from '../../domain/requests.js';
import { forbidden } from '../auth.js';
import { defineRoutes, JsonText, read } from '../dispatch.js';
import { openApiDocument } from '../openapi.js';

export const metaRoutes = defineRoutes('meta', {
  whoami: read(({ principal, server }) => ({ client: principal.clientName, key_id: principal.keyId, role: principal.role, simulation: server.simulation })),
  openapi: read(async () => new JsonText(JSON.stringify(await openApiDocument()))),
  // The client's own keys; with a store-wide operation named, the store's key as that operation
  // is sent with it (an advance's, a seed's), to a key that may send it: an operator's. What a
  // retry of its own would be answered anyway, and no other client's key.
  listIdempotencyKeys: read(async ({ backend, query, principal, server }) => {
    const keyed = OPERATION_LIST.filter((row) => row.idempotent && (server.simulation || !row.simulation)).map((row) => row.name);
    const { key, operation } = validateIdempotencyKeyQuery(query, keyed);
    const row = operation === undefined ? undefined : OPERATION_LIST.find((r) => r.name === operation);
    if (row?.role === 'operator' && principal.role !== 'operator') throw forbidden();
    const record = await backend.idempotencyRecord(key, row);
    return { data: record === null ? [] : [record] };
  }),
});
