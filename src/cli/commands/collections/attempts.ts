import { validationError } from '../../../domain/errors.js';
import { isPeriod } from '../../../domain/period.js';
import type { CommandEnv } from '../action.js';

export default async function attempts({ opts, ui, backend }: CommandEnv): Promise<number> {
  const period = opts.period as string;
  if (!isPeriod(period)) throw validationError(`--period must be a month written YYYY-MM; got '${period}'.`);
  const download = await (await backend()).exportAttempts(period, opts.format === 'json' ? 'json' : 'csv');
  for await (const chunk of download.body) ui.write(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
  return 0;
}
