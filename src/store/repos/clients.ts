/** Clients of the store: the organisations API keys act for (local mode acts for Local, id 1). */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ClientsTable, Database } from '../schema.js';

type Q = Kysely<Database>;
export type ClientRow = Selectable<ClientsTable>;

export async function findClientById(db: Q, id: number): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findClientByName(db: Q, name: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('name', '=', name).executeTakeFirst();
}

/** Every client's id and name (a store has a few). */
export async function listClientNames(db: Q): Promise<Array<{ id: number; name: string }>> {
  return db.selectFrom('clients').select(['id', 'name']).orderBy('id').execute();
}

/** The clients with collections in `period` (queued by a run), by id. */
export async function clientsWithCollections(db: Q, period: string): Promise<Array<{ id: number; name: string }>> {
  return db
    .selectFrom('clients')
    .select(['clients.id', 'clients.name'])
    .where((eb) => eb.exists(eb.selectFrom('collections').select('collections.id').whereRef('collections.client_id', '=', 'clients.id').where('collections.period_month', '=', period)))
    .orderBy('clients.id')
    .execute();
}

export async function insertClient(db: Q, row: Insertable<ClientsTable>): Promise<number> {
  const result = await db.insertInto('clients').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(result.id);
}
