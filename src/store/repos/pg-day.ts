/**
 * The unit of work of the engine's day running on a PostgreSQL store, if any: the simulated
 * bank's reads and writes (bank-pg.ts) join it, as they share the day's connection on SQLite.
 * Advances of one store take turns (the advance lock), so a store has at most one day running.
 */
import type { PgStore, PgUnit } from '../store.js';

const running = new WeakMap<PgStore, PgUnit>();

export function dayUnitOf(store: PgStore): PgUnit | undefined {
  return running.get(store);
}

export async function inDayUnit<T>(store: PgStore, unit: PgUnit, fn: () => Promise<T>): Promise<T> {
  running.set(store, unit);
  try {
    return await fn();
  } finally {
    running.delete(store);
  }
}
