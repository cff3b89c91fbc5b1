import type { ReportFormat } from '../../../backend/types.js';
import { usageError, validationError } from '../../../domain/errors.js';
import { isPeriod } from '../../../domain/period.js';
import { writeDownload } from '../../output/download.js';
import { count } from '../../output/format.js';
import type { CommandEnv } from '../action.js';

/** `premia reports collections`: the report is data, so it goes to stdout (or --output) as it is. */
export default async function collections({ ctx, opts, globals, ui, backend }: CommandEnv): Promise<number> {
  const period = String(opts.period);
  if (!isPeriod(period)) throw validationError(`--period '${period}' is not a period; write it as YYYY-MM, e.g. 2026-11.`);
  if (globals.json && opts.format === 'csv') throw usageError('--json asks for JSON but --format csv asks for CSV; give only one of them.');
  // --json alone means the API's JSON body, which is the report in JSON.
  const format = (opts.format as ReportFormat | undefined) ?? (globals.json ? 'json' : 'csv');
  const download = await (await backend()).collectionsReport(period, format);
  const written = await writeDownload(ctx, download, opts.output as string | undefined);
  if (written.path !== null) ui.status(`Wrote the ${period} collections report to ${written.path} (${count(written.bytes)} bytes).`);
  return 0;
}
