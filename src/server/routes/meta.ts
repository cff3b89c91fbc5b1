/** The service itself: who a key acts for (whoami) and the OpenAPI document. */
import { defineRoutes, JsonText, read } from '../dispatch.js';
import { openApiDocument } from '../openapi.js';

export const metaRoutes = defineRoutes('meta', {
  whoami: read(({ principal, server }) => ({ client: principal.clientName, key_id: principal.keyId, role: principal.role, simulation: server.simulation })),
  openapi: read(async () => new JsonText(JSON.stringify(await openApiDocument()))),
});
