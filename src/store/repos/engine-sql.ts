/**
 * SQL text the engine's units run alike on both stores: SQLite's through its statement cache
 * (engine.ts), PostgreSQL's with its own placeholders (engine-pg.ts, pg-store.ts pgPlaceholders).
 */

/** The strategies of the runs of open periods, `?` the first open one (DayUnit.openStrategies). */
export const OPEN_STRATEGIES = 'select distinct strategy from executions where period_month >= ? and client_id in (select id from clients)';
