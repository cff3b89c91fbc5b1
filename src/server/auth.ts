/** What the server answers a key that may not do what it asks. */
import { PremiaError } from '../domain/errors.js';

/** What a client key gets on the clock and bank endpoints (403). */
export const FORBIDDEN_MESSAGE =
  'This needs an operator key: the virtual clock and the simulated bank belong to the whole store, so a client key may only read the clock. ' +
  "The operator makes one with 'premia keys create --operator'.";

export function forbidden(): PremiaError {
  return new PremiaError('FORBIDDEN', FORBIDDEN_MESSAGE);
}
