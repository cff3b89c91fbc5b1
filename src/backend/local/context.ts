import type { Bank } from '../../engine/ports.js';
import type { Store } from '../../store/store.js';
import type { EngineOptions } from './memory.js';

/** What every local operation needs: the store, the client it acts for, and a wall clock. */
export interface LocalContext {
  store: Store;
  clientId: number;
  /** Wall clock; only its time of day is used (the date comes from the virtual clock). */
  now: () => Date;
  /** The bank the engine collects through, made on the store; the simulated bank when absent (the only one premia has). */
  bank?: (store: Store) => Bank;
  /** The engine's edge options (fault injection, memory diagnostics); read from the environment when absent. */
  engine?: EngineOptions;
}
