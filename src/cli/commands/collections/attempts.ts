import { checkPeriodOption } from '../../../domain/requests.js';
import { writeDownload } from '../../output/download.js';
import type { CommandEnv } from '../action.js';

export default async function attempts({ ctx, opts, backend }: CommandEnv): Promise<number> {
  const period = checkPeriodOption(opts.period);
  const download = await (await backend()).exportAttempts(period, opts.format === 'json' ? 'json' : 'csv');
  // Bytes as they come (a remote download's chunks may split a UTF-8 character).
  await writeDownload(ctx, download);
  return 0;
}
