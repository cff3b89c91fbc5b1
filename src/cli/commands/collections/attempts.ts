import { ATTEMPT_COLUMNS, type Attempt, type ReportFormat } from '../../../backend/types.js';
import { PremiaError, usageError } from '../../../domain/errors.js';
import { parseSignedAmount } from '../../../domain/money.js';
import { CsvReader, isBlankRecord } from '../../../lib/csv-reader.js';
import { moneyToCents } from '../../../domain/json.js';
import type { Period } from '../../../domain/period.js';
import { givenPath } from '../../input.js';
import { verb, type CommandDeps } from '../../command.js';
import { writeDownload } from '../../output/download.js';
import { downloadFormat } from '../../output/download-json.js';
import { plural } from '../../output/format.js';
import { checkFields, printList, printListPages, type ListOutput } from '../../output/list.js';
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
  if (format !== 'table' && !ui.json) {
    // Chosen fields as CSV or JSON: the CSV export read a page at a time (a million attempts are
    // never held whole), each page taken by stdout's reader before the next is read.
    const download = await (await backend()).exportAttempts(period, 'csv');
    await printListPages(ui, ATTEMPT_LIST, { format, fields }, attemptPages(download.body));
    return 0;
  }
  // A table: the JSON export, read whole (its widths are the widest values), printed as a list.
  const download = await (await backend()).exportAttempts(period, 'json');
  const chunks: Buffer[] = [];
  for await (const c of download.body) chunks.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c));
  const body = moneyToCents(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { period_month: string; attempts: Attempt[] });
  const list: ListOutput = { format, fields };
  printList(ui, ATTEMPT_LIST, list, body.attempts, body);
  return 0;
}

/** The service's attempts export is not what premia reads (only another server's can be). */
const notAnExport = (why: string) => new PremiaError('REMOTE_ERROR', `The attempts export cannot be read: ${why}.`);

/** Attempts a page of a whole list holds (as printPagedList's pages). */
const PAGE = 10_000;

/** The attempts export's CSV (ATTEMPT_COLUMNS, amounts in decimals) as attempts, PAGE at a time. */
export async function* attemptPages(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<Attempt[]> {
  let page: Attempt[] = [];
  let header = false;
  const reader = new CsvReader({
    onRecord: (f, line) => {
      if (isBlankRecord(f)) return;
      if (!header) {
        if (f.join(',') !== ATTEMPT_COLUMNS.join(',')) throw notAnExport(`its header is '${f.join(',').slice(0, 200)}', not '${ATTEMPT_COLUMNS.join(',')}'`);
        header = true;
        return;
      }
      const amount = f.length === ATTEMPT_COLUMNS.length ? parseSignedAmount(f[4]!) : null;
      if (typeof amount !== 'number' || (f[5] !== 'SUCCESS' && f[5] !== 'FAILED')) throw notAnExport(`line ${line} is not an attempt`);
      page.push({ collection_id: f[0]!, policy_number: f[1]!, customer_id: f[2]!, date: f[3]!, amount, outcome: f[5], failure_reason: f[6] === '' ? null : f[6]! });
    },
  });
  for await (const chunk of body) {
    reader.push(chunk);
    if (page.length >= PAGE) {
      yield page;
      page = [];
    }
  }
  reader.end();
  if (page.length > 0) yield page;
}

export default verb(attemptsOptions, attemptsRun);
