/** The simulated bank (simulation, operator keys): seed it, import transactions, show an account. */
import { validateSeedRequest } from '../../domain/requests.js';
import { defineRoutes, read, write } from '../dispatch.js';

export const bankRoutes = defineRoutes('bank', {
  seedBank: write(({ body }) => ({ args: [validateSeedRequest(body).seed] })),
  importBankTransactions: write(() => ({ args: [] })),
  showBankAccount: read(({ backend, params }) => backend.showBankAccount(params.customer_id!)),
});
