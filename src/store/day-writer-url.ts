/** The day writer's compiled module (day-writer.ts), found from here, beside it (lib/worker-module.ts). */
import { workerModule } from '../lib/worker-module.js';

export const dayWriterModule = (): URL | null => workerModule(import.meta.url, 'store', 'day-writer.js', 'PREMIA_DAY_WRITER');

/**
 * PREMIA_DAY_WRITER=1: every advance of more than one day hands its days to the day writer, however
 * few collections are queued (by default only from HEAVY_LOAD_COLLECTIONS: store/repos/engine.ts).
 */
export const dayWriterForEveryLongAdvance = (): boolean => process.env.PREMIA_DAY_WRITER === '1';

/**
 * PREMIA_DAY_PART_ACCOUNTS=n: a day handed to the day writer comes in parts every n accounts
 * lived (engine/advance.ts PART_ACCOUNTS otherwise): the tests make small stores' days come in
 * several parts.
 */
export const partAccounts = (): number | undefined => {
  const n = Number(process.env.PREMIA_DAY_PART_ACCOUNTS);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};
