/**
 * The collections engine (src/engine) wired to the local store: its ports are the store's
 * engine repository and the simulated bank on the same store (or the bank the context names).
 */
import { advance, type AdvanceResult } from '../../engine/advance.js';
import type { Bank } from '../../engine/ports.js';
import { SimulatedBank } from '../../bank/simulated.js';
import { bankStore } from '../../store/repos/bank.js';
import { engineStore } from '../../store/repos/engine.js';
import type { Store } from '../../store/store.js';
import type { AdvanceOptions, AdvanceTarget } from '../types.js';
import type { LocalContext } from './context.js';
import { accountHelper } from './account-helper.js';
import { engineHooks } from './memory.js';

/** The simulated bank on `store` (what the engine collects through unless told otherwise). */
export function simulatedBankOn(store: Store): Bank {
  return new SimulatedBank(bankStore(store));
}

/** Live through the days after the clock's date up to the target. */
export function advanceClock(ctx: LocalContext, target: AdvanceTarget, options: AdvanceOptions = {}): Promise<AdvanceResult> {
  const bank = (ctx.bank ?? simulatedBankOn)(ctx.store);
  // The helper opens accounts as the simulated bank does: not for another bank.
  const helper = ctx.bank === undefined ? accountHelper(ctx.store) : undefined;
  return advance({ store: engineStore(ctx.store), bank, helper }, target, {
    clientId: ctx.clientId,
    now: ctx.now,
    onDay: options.onDay,
    onWait: options.onWait,
    signal: options.signal,
    hooks: engineHooks(ctx.engine ?? {}),
  });
}
