/**
 * The engine's working set opened two ways on one store (issue 13): from the state the last
 * advance kept (engine/resume.ts) and by replaying every account, for the resume tests on
 * SQLite (test/engine/resume.test.ts) and PostgreSQL (test/pg/resume.test.ts).
 */
import type { LocalBackend } from '../../src/backend/local/index.js';
import { simulatedBankOn } from '../../src/backend/local/engine.js';
import type { DayUnit } from '../../src/engine/ports.js';
import { loadState, type EngineState } from '../../src/engine/state.js';
import { engineStore } from '../../src/store/repos/engine.js';

/** The unit without the kept state: the bank replays every account. */
export function replaying(unit: DayUnit): DayUnit {
  const u = Object.create(unit) as DayUnit & { readResumeState?: unknown };
  u.readResumeState = undefined;
  return u;
}

/** The working set as the next advance would load it, opened from the kept state and by replay. */
export async function loadBoth(b: LocalBackend): Promise<{ kept: EngineState; replayed: EngineState }> {
  const bank = simulatedBankOn(b.store);
  return engineStore(b.store).runDay(async (unit) => ({ kept: await loadState(unit, bank), replayed: await loadState(replaying(unit), bank) }));
}
