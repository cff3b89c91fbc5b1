import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

type Q = Kysely<Database>;
export interface ClientRow {
  id: number;
  name: string;
  created_at: number;
}

export async function findClientById(db: Q, id: number): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findClientByName(db: Q, name: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function insertClient(db: Q, row: { id?: number; name: string; created_at: number }): Promise<number> {
  const result = await db.insertInto('clients').values(row).executeTakeFirstOrThrow();
  return Number(result.insertId);
}

export async function listClients(db: Q): Promise<ClientRow[]> {
  return db.selectFrom('clients').selectAll().orderBy('name').execute();
}
