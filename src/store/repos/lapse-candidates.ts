/**
 * The policies a period close may lapse on PostgreSQL: active policies whose collection of the
 * newest closed period ended UNPAID, in (client, policy number) order (engine-pg.ts then looks up
 * the earlier periods; SQLite's day writes do both in engine-days.ts, with raw statements: they
 * also run on the day writer's connection, where there is no kysely).
 */
import type { Period } from '../../domain/period.js';
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
