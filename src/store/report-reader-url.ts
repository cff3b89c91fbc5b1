/** The report reader's compiled module (report-reader.ts), found from here, beside it (lib/worker-module.ts). */
import { workerModule } from '../lib/worker-module.js';

/** Null with PREMIA_REPORT_THREADS=0: every report is then read by the thread that streams it. */
export const reportReaderModule = (): URL | null => workerModule(import.meta.url, 'store', 'report-reader.js', 'PREMIA_REPORT_THREADS');
