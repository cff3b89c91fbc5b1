/**
 * Idempotency-Key on POST and PATCH. The first response for a (client, key) is kept in the store
 * for 24 hours with a hash of its request; a retry with the same key and request gets it again
 * (with `Idempotent-Replayed: true`), the same key with another request is 422
 * IDEMPOTENCY_KEY_REUSED, and a retry while the first still runs is 409 IDEMPOTENCY_IN_PROGRESS.
 * The row is claimed in a BEGIN IMMEDIATE transaction before the work starts, so two servers on
 * one store cannot both run it. 5xx results are not kept (the row is deleted): a retry runs again.
 * Requests refused before any work (bad body, 401, 413, 429) are not recorded at all.
 */
import { createHash } from 'node:crypto';
import { PremiaError, validationError } from '../domain/errors.js';
import {
  completeIdempotencyKey,
  deleteIdempotencyKey,
  findIdempotencyKey,
  insertIdempotencyKey,
  purgeExpiredIdempotencyKeys,
} from '../store/repos/idempotency.js';
import type { Store } from '../store/store.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_RE = /^[\x20-\x7e]{1,255}$/;

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
  return header;
}

/** JSON with object keys sorted, so that the same body hashes the same however it was written. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
    .join(',')}}`;
}

/** Hash of what makes two requests "the same": method, path, and the body (or the uploaded file's hash). */
export function requestHash(method: string, path: string, body: unknown, fileSha256?: string): string {
  const h = createHash('sha256');
  h.update(`${method}\n${path}\n`);
  h.update(fileSha256 !== undefined ? `file:${fileSha256}` : `json:${canonical(body ?? null)}`);
  return h.digest('hex');
}

export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse };

export interface ClaimInput {
  clientId: number;
  key: string;
  hash: string;
  method: string;
  path: string;
  now: number;
}

/** Claim the key for this request, or return the stored response to replay. */
export async function claimKey(store: Store, input: ClaimInput): Promise<Claim> {
  return store.transaction(async (trx) => {
    await purgeExpiredIdempotencyKeys(trx, input.now);
    const row = await findIdempotencyKey(trx, input.clientId, input.key);
    if (!row) {
      await insertIdempotencyKey(trx, {
        client_id: input.clientId,
        key: input.key,
        request_hash: input.hash,
        method: input.method,
        path: input.path,
        created_at: input.now,
        expires_at: input.now + IDEMPOTENCY_TTL_MS,
      });
      return { kind: 'claimed' } as const;
    }
    if (row.request_hash !== input.hash) {
      throw new PremiaError(
        'IDEMPOTENCY_KEY_REUSED',
        `This Idempotency-Key was first used for another request (${row.method} ${row.path} or a different body); ` +
          'use a new key for a new request.',
      );
    }
    if (row.status === null) {
      throw new PremiaError(
        'IDEMPOTENCY_IN_PROGRESS',
        'The first request with this Idempotency-Key is still running; retry after it has finished.',
      );
    }
    return {
      kind: 'replay',
      response: { status: row.status, contentType: row.content_type ?? 'application/json; charset=utf-8', body: row.body ?? '' },
    } as const;
  });
}

export async function completeKey(store: Store, clientId: number, key: string, response: StoredResponse): Promise<void> {
  await store.transaction((trx) =>
    completeIdempotencyKey(trx, clientId, key, { status: response.status, content_type: response.contentType, body: response.body }),
  );
}

/** Forget a claimed key (the request failed with a 5xx: a retry may run again). */
export async function releaseKey(store: Store, clientId: number, key: string): Promise<void> {
  await store.transaction((trx) => deleteIdempotencyKey(trx, clientId, key));
}
