/** API keys of the HTTP service. Only a hash of each key is stored (see server/keys.ts). */
import type { Kysely } from 'kysely';
import type { Database, KeyRole } from '../schema.js';

type Q = Kysely<Database>;

export interface ApiKeyRow {
  id: number;
  client_id: number;
  key_hash: string;
  prefix: string;
  last4: string;
  created_at: number;
  revoked_at: number | null;
  role: KeyRole;
}

export interface ApiKeyWithClient extends ApiKeyRow {
  client_name: string;
}

export async function insertApiKey(db: Q, row: Omit<ApiKeyRow, 'id' | 'revoked_at'>): Promise<number> {
  // role is written explicitly (its column default, client, is for keys made before roles).
  const result = await db.insertInto('api_keys').values(row).executeTakeFirstOrThrow();
  return Number(result.insertId);
}

/** The key with this hash, revoked or not, with its client's name. */
export async function findApiKeyByHash(db: Q, keyHash: string): Promise<ApiKeyWithClient | undefined> {
  return db
    .selectFrom('api_keys')
    .innerJoin('clients', 'clients.id', 'api_keys.client_id')
    .selectAll('api_keys')
    .select('clients.name as client_name')
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

export async function findApiKeyById(db: Q, id: number): Promise<ApiKeyWithClient | undefined> {
  return db
    .selectFrom('api_keys')
    .innerJoin('clients', 'clients.id', 'api_keys.client_id')
    .selectAll('api_keys')
    .select('clients.name as client_name')
    .where('api_keys.id', '=', id)
    .executeTakeFirst();
}

export async function listApiKeys(db: Q): Promise<ApiKeyWithClient[]> {
  return db
    .selectFrom('api_keys')
    .innerJoin('clients', 'clients.id', 'api_keys.client_id')
    .selectAll('api_keys')
    .select('clients.name as client_name')
    .orderBy('api_keys.id')
    .execute();
}

/** Mark a key revoked; returns false when it already was. */
export async function revokeApiKey(db: Q, id: number, at: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
