/**
 * The Idempotency-Key header of POST and PATCH. What the key does (the stored first response, a
 * replay, IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_IN_PROGRESS) is kept by the local backend's admin
 * object (backend/local/idempotency.ts), which local --idempotency-key shares.
 */
import { validationError } from '../domain/errors.js';
import { holdsApiKey } from '../domain/identifiers.js';

const KEY_RE = /^[\x20-\x7e]{1,255}$/;

/**
 * The Idempotency-Key header as sent: an array when it came more than once. Node joins a header
 * it does not know, sent twice, into one value (`first, second`), a key neither line gave; its
 * `headersDistinct` keeps them apart (an injected request in the tests has only `headers`).
 */
export function idempotencyKeyHeader(request: {
  headers: Record<string, string | string[] | undefined>;
  raw: { headersDistinct?: Record<string, string[] | undefined> };
}): string | string[] | undefined {
  const lines = request.raw.headersDistinct?.['idempotency-key'];
  if (lines === undefined) return request.headers['idempotency-key'];
  return lines.length === 1 ? lines[0] : lines;
}

/** The Idempotency-Key header, or null when absent; 400 when it is not 1–255 printable ASCII. */
export function readIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (Array.isArray(header)) {
    throw validationError('Send one Idempotency-Key header, not several.', [
      { field: 'Idempotency-Key', code: 'REPEATED', message: 'Idempotency-Key was sent more than once' },
    ]);
  }
  if (!KEY_RE.test(header)) {
    throw validationError('The Idempotency-Key header must be 1–255 printable ASCII characters.', [
      { field: 'Idempotency-Key', code: 'INVALID_FORMAT', message: 'Idempotency-Key must be 1–255 printable ASCII characters' },
    ]);
  }
  // Kept in clear for 24 hours with the stored response, where keys are kept only as hashes.
  if (holdsApiKey(header)) {
    throw validationError('The Idempotency-Key header holds an API key; send the key in X-API-Key and a value of your own (a UUID) as the Idempotency-Key.', [
      { field: 'Idempotency-Key', code: 'INVALID_FORMAT', message: 'Idempotency-Key holds an API key (pmk_ and 40 letters and digits), a secret never stored as data' },
    ]);
  }
  return header;
}
