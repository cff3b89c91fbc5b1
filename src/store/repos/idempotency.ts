/** Stored responses of requests sent with an Idempotency-Key (see server/idempotency.ts). */
import type { Kysely } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../schema.js';

type Q = Kysely<Database>;
export type IdempotencyRow = IdempotencyKeysTable;

export async function findIdempotencyKey(db: Q, clientId: number, key: string): Promise<IdempotencyRow | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('client_id', '=', clientId).where('key', '=', key).executeTakeFirst();
}

/** Record that the first request with this key has started (status null). */
export async function insertIdempotencyKey(db: Q, row: Omit<IdempotencyRow, 'status' | 'content_type' | 'body'>): Promise<void> {
  await db.insertInto('idempotency_keys').values({ ...row, status: null, content_type: null, body: null }).execute();
}

export async function completeIdempotencyKey(
  db: Q,
  clientId: number,
  key: string,
  response: { status: number; content_type: string; body: string },
): Promise<void> {
  await db.updateTable('idempotency_keys').set(response).where('client_id', '=', clientId).where('key', '=', key).execute();
}

export async function deleteIdempotencyKey(db: Q, clientId: number, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('client_id', '=', clientId).where('key', '=', key).execute();
}

/** Forget every stored response whose time is up. */
export async function purgeExpiredIdempotencyKeys(db: Q, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
