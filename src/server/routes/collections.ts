/** Collections: queue a period's run (the spec's), read one, list, explain, and an execution's status. */
import { validateCollectionListQuery, validateExecuteRequest } from '../../domain/requests.js';
import { defineRoutes, read, write } from '../dispatch.js';

export const collectionsRoutes = defineRoutes('collections', {
  executeCollections: write(({ body }) => ({ args: [validateExecuteRequest(body)] })),
  listCollections: read(({ backend, query }) => backend.listCollections(validateCollectionListQuery(query))),
  getCollection: read(({ backend, params }) => backend.getCollection(params.id!)),
  explainCollection: read(({ backend, params }) => backend.explainCollection(params.id!)),
  getExecution: read(({ backend, params }) => backend.getExecution(params.id!)),
});
