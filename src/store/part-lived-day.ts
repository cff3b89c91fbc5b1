/**
 * A day in customer shards left part lived (PostgreSQL, engine/shards.ts): a clock advance that
 * stopped (killed, its connection lost, a failure) after some of the day's shards were done leaves
 * the day open, and the next advance lives the shards that are left. The shards already done
 * committed that day for their customers, so a change made meanwhile to what the engine reads
 * (a policy's status or premium, a collections run, a bank history, a setting, the calendar)
 * would reach only the customers still to live it: a policy cancelled at the clock's date then
 * debited the next day, when SQLite (whose day rolls back whole) never debits it. Such a change
 * is refused until the day is finished.
 */
import { PremiaError } from '../domain/errors.js';
import type { IsoDate } from '../domain/period.js';
import type { Db, Store } from './store-types.js';

/**
 * The day some of whose shards are done while it is still open, or null. Read in a write
 * transaction: it holds the writer lock, which a running advance holds (shared) from a day's
 * opening to its closing, so a day open here is one whose advance is gone.
 */
async function partLivedDay(store: Store, trx: Db): Promise<IsoDate | null> {
  if (store.kind !== 'postgres') return null;
  const row = await trx.selectFrom('engine_shards').select('day').where('state', '=', 'done').orderBy('day').limit(1).executeTakeFirst();
  return row?.day ?? null;
}

/** Refuse `change` (what would change, e.g. "the policy's status") while a day is part lived. */
export async function refuseInPartLivedDay(store: Store, trx: Db, change: string): Promise<void> {
  const day = await partLivedDay(store, trx);
  if (day === null) return;
  throw new PremiaError(
    'CONFLICT',
    `The day ${day} is part lived: a clock advance stopped in it after some of its customers had lived it, so ${change} cannot change now ` +
      `(those customers would keep that day as lived without the change). Nothing changed; finish the day first ('premia clock advance --to ${day}'), then run this again.`,
    { details: [{ field: 'clock', code: 'DAY_PART_LIVED', message: `${day} is part lived` }] },
  );
}
