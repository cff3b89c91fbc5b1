import type { ReportFormat } from '../../../backend/types.js';
import type { Period } from '../../../domain/period.js';
import { verb, type CommandDeps } from '../../command.js';
import { writeDownload } from '../../output/download.js';
import { checkPeriodOption } from '../../../domain/requests.js';

interface Flags {
  period: string;
  format?: string;
}

export interface AttemptsOptions extends CommandDeps {
  period: Period;
  format: ReportFormat;
}

export function attemptsOptions(deps: CommandDeps, flags: Flags): AttemptsOptions {
  const period = checkPeriodOption(flags.period);
  return { ...deps, period, format: flags.format === 'json' ? 'json' : 'csv' };
}

export async function attemptsRun({ ctx, backend, period, format }: AttemptsOptions): Promise<number> {
  const download = await (await backend()).exportAttempts(period, format);
  // Bytes as they come (a remote download's chunks may split a UTF-8 character).
  await writeDownload(ctx, download);
  return 0;
}

export default verb(attemptsOptions, attemptsRun);
