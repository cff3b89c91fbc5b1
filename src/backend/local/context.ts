import type { Bank } from '../bank.js';
import type { StatementCache } from '../../store/sqlite-dialect.js';
import type { Store } from '../../store/store.js';

/** What every local operation needs: the store, the client it acts for, and a wall clock. */
export interface LocalContext {
  store: Store;
  clientId: number;
  /** Wall clock; only its time of day is used (the date comes from the virtual clock). */
  now: () => Date;
  /** The bank the engine collects through; the simulated bank when absent (the only one premia has). */
  bank?: Bank<StatementCache>;
}
