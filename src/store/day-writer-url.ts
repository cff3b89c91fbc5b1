/** The day writer's compiled module (day-writer.ts), found from here, beside it (lib/worker-module.ts). */
import { workerModule } from '../lib/worker-module.js';

export const dayWriterModule = (): URL | null => workerModule(import.meta.url, 'store', 'day-writer.js', 'PREMIA_DAY_WRITER');
