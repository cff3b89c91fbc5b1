/**
 * Idempotency keys of one CLI invocation. An invocation has one base key (generated, or given
 * with --idempotency-key so that a cron job's rerun reuses it); its n-th write request uses the
 * base key itself for n = 1 and `base:n` after that, so a rerun of the same command sends the
 * same keys in the same order and every write is done at most once.
 */
import { validationError } from './errors.js';
import { holdsApiKey } from './identifiers.js';

/**
 * The method an idempotency record gives a request that only the CLI makes, on the store itself
 * (`premia keys create`: keys are issued by the operator, the service has no endpoint for them);
 * its path is the command's words.
 */
export const CLI_METHOD = 'CLI';

/** Room left for the `:n` suffix under the service's limit of 255 characters. */
export const MAX_GIVEN_KEY_LENGTH = 240;

export function requestKey(base: string, n: number): string {
  return n <= 1 ? base : `${base}:${n}`;
}

/** A key given with --idempotency-key: 1-240 printable ASCII characters. */
export function checkGivenKey(key: string): string {
  if (!/^[\x21-\x7e][\x20-\x7e]*$/.test(key) || key.length > MAX_GIVEN_KEY_LENGTH || /\s$/.test(key)) {
    throw validationError(
      `--idempotency-key must be 1-${MAX_GIVEN_KEY_LENGTH} printable ASCII characters without leading or trailing spaces.`,
    );
  }
  if (holdsApiKey(key)) {
    throw validationError('--idempotency-key holds an API key; give a value of your own (the key is a secret, kept only as a hash, never stored as data).');
  }
  return key;
}
