/** The day writer's compiled module (day-writer.ts), found from here, beside it (lib/worker-module.ts). */
import { workerModule } from '../lib/worker-module.js';

export const dayWriterModule = (): URL | null => workerModule(import.meta.url, 'store', 'day-writer.js', 'PREMIA_DAY_WRITER');

/**
 * PREMIA_DAY_WRITER=1: every advance of more than one day hands its days to the day writer, however
 * few collections are queued (by default only from HEAVY_LOAD_COLLECTIONS: store/repos/engine.ts).
 */
export const dayWriterForEveryLongAdvance = (): boolean => process.env.PREMIA_DAY_WRITER === '1';
