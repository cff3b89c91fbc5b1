/** Store-wide settings: the virtual clock, the simulation seed, the id salt. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

type Q = Kysely<Database>;

export async function getMeta(db: Q, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

export async function setMeta(db: Q, key: string, value: string): Promise<void> {
  await db
    .insertInto('meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

export async function getAllMeta(db: Q): Promise<Map<string, string>> {
  const rows = await db.selectFrom('meta').selectAll().execute();
  return new Map(rows.map((r) => [r.key, r.value]));
}
