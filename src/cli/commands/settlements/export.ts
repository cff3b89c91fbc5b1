import { basename } from 'node:path';
import type { Backend, Download, Settlement } from '../../../backend/types.js';
import { conflict, PremiaError } from '../../../domain/errors.js';
import { printable } from '../../../domain/identifiers.js';
import { centsFromJsonNumber } from '../../../domain/money.js';
import { writeDownload } from '../../output/download.js';
import { refuseJsonForCsvOnly } from '../../output/download-json.js';
import { plural } from '../../output/format.js';
import { givenPath } from '../../input.js';
import { verb, type CommandDeps } from '../../command.js';
import { feeRuleWarnings, settlementNow } from './show.js';

interface Flags {
  output?: string;
  lines?: boolean;
  force?: boolean;
  requirePending?: boolean;
}

export interface ExportOptions extends CommandDeps {
  /** A settlement id or settlement number. */
  ref: string;
  /** One row per collection instead of the statement's one. */
  lines: boolean;
  /** A file or directory, else stdout. */
  output: string | undefined;
  /** Replace an existing file of another kind (not a database). */
  force: boolean;
  /** Write it only while the statement is pending (to be paid): a payment run's guard. */
  requirePending: boolean;
}

function exportOptions(deps: CommandDeps, flags: Flags, [ref]: string[]): ExportOptions {
  refuseJsonForCsvOnly(deps.globals, 'The settlement export', `the settlement as JSON: premia settlements get ${printable(ref!, 64)} --json`);
  return { ...deps, ref: ref!, lines: flags.lines === true, output: givenPath(flags.output, '--output', 'a file or a directory'), force: flags.force === true, requirePending: flags.requirePending === true };
}

/** `premia settlements export`: the API's CSV (it has no JSON of an export: see exportOptions). */
export async function exportRun({ ctx, ui, backend, ref, lines, output, force, requirePending }: ExportOptions): Promise<number> {
  const b = await backend();
  // A payment run's guard (cron: export, pay, mark-paid; run again after a failure): a statement
  // paid already, or disputed, is refused before the export is even asked for, not only warned of.
  const before = requirePending ? await guardedStatus(b, ref) : null;
  if (requirePending) refuseUnlessPending(ref, before);
  const download = await b.exportSettlement(ref, { lines });
  // SETTLE-2026-11-001.csv names another statement at each client: in a folder several clients'
  // exports share, one never replaces another's (the same statement's is the same bytes).
  download.oneDocument = true;
  const written = await writeDownload(ctx, download, output, undefined, '--output', force);
  // Written under another name (--output FILE): "as", not "Wrote 10.csv to …/15.csv".
  if (written.path !== null) ui.status(`Wrote ${download.filename} ${basename(written.path) === download.filename ? 'to' : 'as'} ${written.path} (${plural(written.bytes, 'byte')}).`);
  // The file is the server's, byte for byte; figures that do not follow the fee rule are said.
  const figures = statementFigures(download);
  if (figures) for (const w of feeRuleWarnings(figures)) ui.warn(w);
  // The one-row export is what a payment run reads, and it has no status column: a statement
  // paid already, disputed or replaced is said to be no longer payable (its bytes stay the same).
  if (!lines) {
    const note = notPayableNote(before ?? (await settlementNow(b, ref)));
    if (note !== null) ui.warn(note);
  }
  return 0;
}

/** The statement --require-pending judges: an unknown one is NOT_FOUND (as its export would be); null when its status cannot be read. */
async function guardedStatus(b: Backend, ref: string): Promise<Settlement | null> {
  try {
    return await b.getSettlement(ref);
  } catch (e) {
    if (e instanceof PremiaError && e.code === 'NOT_FOUND') throw e;
    return null;
  }
}

/** --require-pending: CONFLICT (exit 6) unless the statement is pending; NOT_SUPPORTED when its status cannot be read. */
function refuseUnlessPending(ref: string, s: Settlement | null): void {
  if (s === null) {
    throw new PremiaError(
      'NOT_SUPPORTED',
      `--require-pending needs the status of ${printable(ref, 64)}, and GET /settlements/{id} did not give it. Nothing was written; run the export without --require-pending.`,
    );
  }
  const why = notPayable(s);
  if (why === null) return;
  throw conflict('CONFLICT', `${why.state}${why.next === null ? '' : `; ${why.next}`}. --require-pending writes the export only while the statement is pending; nothing was written.`, [
    { settlement_number: s.settlement_number, status: s.status, superseded_by: s.superseded_by ?? null },
  ]);
}

/** Why a statement is not to be paid from its export (paid already, disputed, replaced); null while it is pending. */
function notPayableNote(s: Settlement | null): string | null {
  const why = notPayable(s);
  if (why === null) return null;
  return `${why.state}: this export is a record of it, not to be paid${why.next === null ? ' again' : `; ${why.next}`}.`;
}

/** A statement no longer to be paid: what it is (paid, disputed), and for a disputed one what is due instead; null while it is pending. */
function notPayable(s: Settlement | null): { state: string; next: string | null } | null {
  if (s === null) return null;
  if (s.status === 'paid') {
    const when = s.paid_on ? ` on ${s.paid_on}${s.paid_reference ? ` with reference ${s.paid_reference}` : ''}` : '';
    return { state: `${s.settlement_number} was paid${when}`, next: null };
  }
  if (s.status === 'disputed') {
    const since = [s.disputed_on ? `since ${s.disputed_on}` : null, s.paid_on ? `paid on ${s.paid_on}` : null].filter((x) => x !== null);
    const next = s.superseded_by
      ? `${s.superseded_by} replaced it (export that one for what is due)`
      : `'premia settlements create --period ${s.period_month}' makes a new statement`;
    return { state: `${s.settlement_number} is disputed${since.length > 0 ? ` (${since.join('; ')})` : ''}`, next };
  }
  return null;
}

const FIGURES = ['total_collections', 'distribution_fee', 'collections_fee', 'total_fees', 'vat', 'net_amount'] as const;

/** The statement's figures from another server's export row, or null when they cannot all be read. */
function statementFigures(download: Download): Settlement | null {
  const row = download.statementRow;
  if (!row) return null;
  try {
    const figures = Object.fromEntries(FIGURES.map((f) => [f, centsFromJsonNumber(row[f]!.trim(), f)]));
    return { ...row, ...figures } as unknown as Settlement;
  } catch {
    return null;
  }
}

export default verb(exportOptions, exportRun);
