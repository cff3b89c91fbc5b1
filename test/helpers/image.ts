/**
 * The engine's working set opened two ways on one store (issue 13): from the engine's image
 * (engine/image.ts) and by replaying every account, for the image tests on SQLite
 * (test/engine/image.test.ts) and PostgreSQL (test/pg/image.test.ts).
 */
import type { LocalBackend } from '../../src/backend/local/index.js';
import { simulatedBankOn } from '../../src/backend/local/engine.js';
import { catchUp, NEVER } from '../../src/engine/awake.js';
import type { DayUnit } from '../../src/engine/ports.js';
import { loadState } from '../../src/engine/load.js';
import type { EngineState } from '../../src/engine/state.js';
import { dayNumber } from '../../src/domain/period.js';
import { engineStore } from '../../src/store/repos/engine.js';

/** The unit without the image: the working set comes from the collections and the bank replays every account. */
export function replaying(unit: DayUnit): DayUnit {
  const u = Object.create(unit) as DayUnit & { readImageHead?: unknown };
  u.readImageHead = undefined;
  return u;
}

/** As a last day, every block of the image is read (even those of customers asleep for good). */
const EVERY = NEVER;

/**
 * The working set as the next advance would load it (one whose last day is `lastDay`: by default
 * every customer the image holds), opened from the image and by replay.
 */
export async function loadBoth(b: LocalBackend, lastDay = EVERY): Promise<{ kept: EngineState; replayed: EngineState }> {
  const bank = simulatedBankOn(b.store);
  return engineStore(b.store).runDay(async (unit) => ({ kept: await loadState(unit, bank, lastDay), replayed: await loadState(replaying(unit), bank, lastDay) }));
}

/**
 * Every account's balance, last day lived and summary columns, by customer, once brought up to
 * the state's date (the image keeps a sleeping account as of the last day it lived).
 */
export function accountsOf(s: EngineState): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  const columns = s.summaries.columns();
  const today = dayNumber(s.today);
  for (let i = 0; i < s.accounts.size; i++) {
    catchUp(s, i, today);
    const row: unknown[] = [s.accounts.balance(i), s.accounts.lastLived!(i)];
    for (const c of columns) row.push(c.name, Array.from(c.data.subarray(i * c.stride, (i + 1) * c.stride)));
    out.set(`${s.accounts.clientId[i]}/${s.accounts.customerIdOf(i)}`, row);
  }
  return out;
}
