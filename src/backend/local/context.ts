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
  /**
   * Nothing else on this thread uses the store while this backend advances the clock (the CLI's
   * one command, the server's job thread, which runs one job at a time): the day writer may then
   * write a day before the engine has reported the one before and only wait for that to commit,
   * holding the store's write lock meanwhile (engine-pipeline.ts), since nothing on the engine's
   * thread can be blocked behind that lock (an advance's onDay must then not write to the store
   * itself). Otherwise (two backends on one thread, a server running jobs on its request thread)
   * the writer waits for the report before it begins a day.
   */
  aloneOnThread?: boolean;
  /** The engine's edge options (fault injection, memory diagnostics); read from the environment when absent. */
  engine?: EngineOptions;
}
