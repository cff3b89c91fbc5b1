/** The service itself: who a key acts for (whoami), the OpenAPI document, and the key's idempotency records. */
import { validateIdempotencyKeyQuery } from '../../domain/requests.js';
import { defineRoutes, JsonText, read } from '../dispatch.js';
import { openApiDocument } from '../openapi.js';

export const metaRoutes = defineRoutes('meta', {
  whoami: read(({ principal, server }) => ({ client: principal.clientName, key_id: principal.keyId, role: principal.role, simulation: server.simulation })),
  openapi: read(async () => new JsonText(JSON.stringify(await openApiDocument()))),
  // The client's own keys (the store's, of an advance or a seed, are no client's).
  listIdempotencyKeys: read(async ({ backend, query }) => {
    const record = await backend.idempotencyRecord(validateIdempotencyKeyQuery(query).key);
    return { data: record === null ? [] : [record] };
  }),
});
