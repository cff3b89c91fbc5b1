/** Operations answered 202 Accepted (Prefer: respond-async): how far one has got, and its result. */
import { notFound } from '../../domain/errors.js';
import { operationJson } from '../async-operations.js';
import { defineRoutes, JsonText, read } from '../dispatch.js';

export const operationsRoutes = defineRoutes('operations', {
  getOperation: read(({ principal, params, reply, server }) => {
    const op = server.operations.get(principal.clientId, params.id!);
    if (!op) throw notFound('Operation', params.id!, 'id');
    if (op.result === null) reply.header('retry-after', '1');
    return new JsonText(operationJson(op));
  }),
});
