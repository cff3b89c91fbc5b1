/** Stored responses of requests sent with an Idempotency-Key (see backend/local/idempotency.ts). */
import type { Kysely, Selectable } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../schema.js';

type Q = Kysely<Database>;
export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/** The process that runs the first request of a key. */
export interface IdempotencyOwner {
  host: string;
  pid: number;
  token: string;
  /** The PID namespace its process runs in (Linux; null elsewhere, or not known). */
  pidNamespace?: string | null;
}

/**
 * The owner_host column: the host name, then its PID namespace after a space where there is
 * one ('app-1 pid:[4026532178]'; a host name holds no space). Kept in the one column, with no
 * migration, so that a version which does not know namespaces still opens the store, and takes
 * an owner recorded so for one on another host (it waits out the claim's age: the safe side).
 */
export function ownerHostColumn(owner: IdempotencyOwner): string {
  return owner.pidNamespace ? `${owner.host} ${owner.pidNamespace}` : owner.host;
}

/** The host and PID namespace of a claim's owner (ownerHostColumn); namespace undefined: not recorded (an earlier version's). */
export function ownerPlace(ownerHost: string | null): { host: string | null; pidNamespace: string | undefined } {
  const space = ownerHost === null ? -1 : ownerHost.indexOf(' ');
  return space === -1 ? { host: ownerHost, pidNamespace: undefined } : { host: ownerHost!.slice(0, space), pidNamespace: ownerHost!.slice(space + 1) };
}

export async function findIdempotencyKey(db: Q, clientId: number, key: string): Promise<IdempotencyRow | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('client_id', '=', clientId).where('key', '=', key).executeTakeFirst();
}

/** Record that the first request with this key has started (status null). */
export async function insertIdempotencyKey(
  db: Q,
  row: Omit<IdempotencyRow, 'status' | 'content_type' | 'body' | 'owner_host' | 'owner_pid' | 'owner_token' | 'started_at'>,
  owner: IdempotencyOwner | null,
  startedAt: number | null,
): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({
      ...row,
      status: null,
      content_type: null,
      body: null,
      owner_host: owner ? ownerHostColumn(owner) : null,
      owner_pid: owner?.pid ?? null,
      owner_token: owner?.token ?? null,
      started_at: startedAt,
    })
    .execute();
}

/**
 * Give a key still in progress to a new owner (its previous owner is gone), as a fresh claim.
 * Only when the row is still the one that was judged abandoned (same owner token, no response).
 */
export async function takeOverIdempotencyKey(
  db: Q,
  clientId: number,
  key: string,
  previousToken: string | null,
  owner: IdempotencyOwner,
  now: number,
  expiresAt: number,
): Promise<boolean> {
  let q = db
    .updateTable('idempotency_keys')
    .set({ owner_host: ownerHostColumn(owner), owner_pid: owner.pid, owner_token: owner.token, started_at: now, created_at: now, expires_at: expiresAt })
    .where('client_id', '=', clientId)
    .where('key', '=', key)
    .where('status', 'is', null);
  q = previousToken === null ? q.where('owner_token', 'is', null) : q.where('owner_token', '=', previousToken);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Store the response of the request; only its current owner may (false when the key was taken over). */
export async function completeIdempotencyKey(
  db: Q,
  clientId: number,
  key: string,
  ownerToken: string,
  response: { status: number; content_type: string; body: string },
): Promise<boolean> {
  return updateOwnClaim(db, clientId, key, ownerToken, response);
}

/**
 * Record on a claim still in progress (status null, so its body is no response yet) what a
 * takeover needs to finish it: for an advance, the date it resolved to reach.
 */
export async function noteIdempotencyProgress(db: Q, clientId: number, key: string, ownerToken: string, note: string): Promise<boolean> {
  return updateOwnClaim(db, clientId, key, ownerToken, { body: note });
}

/** Set `values` on this owner's claim that has no response yet (false when the key was taken over). */
async function updateOwnClaim(
  db: Q,
  clientId: number,
  key: string,
  ownerToken: string,
  values: { status?: number; content_type?: string; body: string },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set(values)
    .where('client_id', '=', clientId)
    .where('key', '=', key)
    .where('owner_token', '=', ownerToken)
    .where('status', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Forget a claim of this owner that has no response (false when the key was taken over). */
export async function deleteIdempotencyKey(db: Q, clientId: number, key: string, ownerToken: string): Promise<boolean> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('client_id', '=', clientId)
    .where('key', '=', key)
    .where('owner_token', '=', ownerToken)
    .where('status', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Forget every stored response whose time is up. */
export async function purgeExpiredIdempotencyKeys(db: Q, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
