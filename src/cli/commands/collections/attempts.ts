import type { Attempt, ReportFormat } from '../../../backend/types.js';
import { usageError } from '../../../domain/errors.js';
import { moneyToCents } from '../../../domain/json.js';
import type { Period } from '../../../domain/period.js';
import { givenPath } from '../../input.js';
import { verb, type CommandDeps } from '../../command.js';
import { writeDownload } from '../../output/download.js';
import { downloadFormat } from '../../output/download-json.js';
import { plural } from '../../output/format.js';
import { checkFields, printList, type ListOutput } from '../../output/list.js';
import { checkPeriodOption } from '../../../domain/requests.js';
import { ATTEMPT_LIST } from '../list-fields.js';

interface Flags {
  period: string;
  format?: 'csv' | 'json' | 'table';
  fields?: string;
  output?: string;
  force?: boolean;
}

export interface AttemptsOptions extends CommandDeps {
  period: Period;
  format: ReportFormat | 'table';
  /** The fields --fields chose, or null for the export's every column. */
  fields: string[] | null;
  /** Where the export goes (a file or a directory), instead of stdout. */
  output: string | undefined;
  force: boolean;
}

export function attemptsOptions(deps: CommandDeps, flags: Flags): AttemptsOptions {
  const period = checkPeriodOption(flags.period);
  // --json is the export's JSON body (format=json), as the API gives it.
  const format = downloadFormat(deps.globals, flags.format, 'csv');
  if (deps.globals.json && flags.fields !== undefined) {
    throw usageError("--json prints the export's JSON whole; to choose fields, use --format json --fields … (or --format csv).");
  }
  const fields = flags.fields === undefined ? null : checkFields(flags.fields, ATTEMPT_LIST);
  if (flags.output !== undefined && (format === 'table' || fields !== null)) {
    throw usageError('--output writes the export whole (--format csv or json, no --fields); a table or chosen fields go to stdout.');
  }
  return { ...deps, period, format, fields, output: givenPath(flags.output, '--output', 'a file or a directory'), force: flags.force === true };
}

export async function attemptsRun({ ctx, ui, backend, period, format, fields, output, force }: AttemptsOptions): Promise<number> {
  if (format !== 'table' && fields === null) {
    // The export as the service gives it: bytes as they come (a remote download's chunks may split a UTF-8 character).
    const written = await writeDownload(ctx, await (await backend()).exportAttempts(period, format), output, undefined, '--output', force);
    if (written.path !== null) ui.status(`Wrote the ${period} attempts to ${written.path} (${plural(written.bytes, 'byte')}).`);
    return 0;
  }
  // A table, or chosen fields: the JSON export, read whole, printed as a list.
  const download = await (await backend()).exportAttempts(period, 'json');
  const chunks: Buffer[] = [];
  for await (const c of download.body) chunks.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c));
  const body = moneyToCents(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { period_month: string; attempts: Attempt[] });
  const list: ListOutput = { format, fields };
  printList(ui, ATTEMPT_LIST, list, body.attempts, body);
  return 0;
}

export default verb(attemptsOptions, attemptsRun);
