/** The virtual clock (simulation): read it (every key), set it, preview and live an advance (operator keys). */
import { validateAdvanceQuery, validateAdvanceRequest, validateClockSetRequest } from '../../domain/requests.js';
import { defineRoutes, read, write } from '../dispatch.js';

export const clockRoutes = defineRoutes('clock', {
  getClock: read(({ backend }) => backend.getClock()),
  setClock: write(({ body }) => ({ args: [validateClockSetRequest(body).date] })),
  // What POST /clock/advance would do (clock advance --dry-run, the CLI's confirmation).
  previewAdvance: read(({ backend, query }) => backend.previewAdvance(validateAdvanceQuery(query))),
  advanceClock: write(({ body }) => ({ args: [validateAdvanceRequest(body)] })),
});
