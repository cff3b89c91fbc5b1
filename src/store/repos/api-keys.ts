/** API keys of the HTTP service. Only a hash of each key is stored (see backend/local/api-keys.ts). */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ApiKeysTable, Database, KeyRole } from '../schema.js';

type Q = Kysely<Database>;

export type ApiKeyRow = Selectable<ApiKeysTable>;

export interface ApiKeyWithClient extends ApiKeyRow {
  client_name: string;
}

export async function insertApiKey(db: Q, row: Omit<Insertable<ApiKeysTable>, 'id' | 'revoked_at' | 'role'> & { role: KeyRole }): Promise<number> {
  // role is written explicitly (its column default, client, is for keys made before roles).
  const result = await db.insertInto('api_keys').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(result.id);
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
