/** Every resource's routes, registered by createServer (app.ts); their handlers cover the operations table. */
import type { ResourceRoutes } from '../dispatch.js';
import { bankRoutes } from './bank.js';
import { clockRoutes } from './clock.js';
import { collectionsRoutes } from './collections.js';
import { metaRoutes } from './meta.js';
import { operationsRoutes } from './operations.js';
import { policiesRoutes } from './policies.js';
import { reportsRoutes } from './reports.js';
import { settlementsRoutes } from './settlements.js';

export const RESOURCE_ROUTES: readonly ResourceRoutes[] = [
  operationsRoutes,
  metaRoutes,
  policiesRoutes,
  collectionsRoutes,
  reportsRoutes,
  settlementsRoutes,
  clockRoutes,
  bankRoutes,
];
