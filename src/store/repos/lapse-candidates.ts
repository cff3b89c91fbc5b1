/**
 * The lapse rule's reads. unpaidActiveCollections: the policies a period close may lapse on
 * PostgreSQL, active policies whose collection of the newest closed period ended UNPAID, in
 * (client, policy number) order (engine-pg.ts then looks up the earlier periods; SQLite's day
 * writes do both in engine-days.ts, with raw statements: they also run on the day writer's
 * connection, where there is no kysely). lapsedCollections: what such a close takes out of the
 * engine's working set, on both stores.
 */
import { lastDay, type Period } from '../../domain/period.js';
import type { Db } from '../store-types.js';

export function unpaidActiveCollections(db: Db, period: Period): Promise<Array<{ policyId: number; clientId: number }>> {
  return db
    .selectFrom('collections as c')
    .innerJoin('policies as p', 'p.id', 'c.policy_id')
    .select(['c.policy_id as policyId', 'c.client_id as clientId'])
    .where('c.period_month', '=', period)
    .where('c.status', '=', 'UNPAID')
    .where('p.status', '=', 'active')
    .orderBy('c.client_id')
    .orderBy('c.policy_number')
    .execute();
}

/**
 * The ids of the open collections (UNPAID or PAID_PARTIAL) of periods after `period` whose
 * policies were lapsed on its last day and are still not active (EngineStore.lapsedCollections).
 */
export async function lapsedCollections(db: Db, period: Period): Promise<number[]> {
  const rows = await db
    .selectFrom('policy_status_changes as s')
    .innerJoin('policies as p', 'p.id', 's.policy_id')
    .innerJoin('collections as c', 'c.policy_id', 's.policy_id')
    .select('c.id')
    .distinct()
    .where('s.new_status', '=', 'lapsed')
    .where('s.changed_on', '=', lastDay(period))
    .where('p.status', '!=', 'active')
    .where('c.period_month', '>', period)
    .where('c.status', 'in', ['UNPAID', 'PAID_PARTIAL'])
    .orderBy('c.id')
    .execute();
  return rows.map((r) => Number(r.id));
}
