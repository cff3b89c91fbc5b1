import { OPERATIONS } from '../../../backend/operations.js';
import type { BankImportResult, Upload } from '../../../backend/types.js';
import { CaseMismatchRefused, describeCaseMismatches, isCaseMismatches } from '../../../domain/customer-case.js';
import { ExitCode, PremiaError } from '../../../domain/errors.js';
import { afterRowErrors, warnUnaccountedRows } from '../../output/import-errors.js';
import { countedUpload, openUpload } from '../../input.js';
import { catchCtrlC } from '../../interrupt.js';
import { verb, type CommandDeps } from '../../command.js';
import { askOrCancel, confirmMode } from '../../confirm.js';
import { warnIfReplayed } from '../../keyed-write.js';
import { statementRefusedWhole } from '../../../simulation/scenario.js';

export interface ImportOptions extends CommandDeps {
  /** The CSV file, or - for stdin. */
  file: string;
}

/** What storing rows under an id that differs from a policy's customer id only in case leads to. */
const CASE_CONSEQUENCE = "Imported as they are, their rows are customers of their own, and the policies' customers are collected from generated accounts (invented money).";

/**
 * Rows naming customers that no policy names but whose ids differ only in letter case from a
 * policy's customer id (c100001 where the policies say C100001) are refused, nothing stored
 * (exit 2), unless --yes is given; at a terminal premia asks. Imported with --yes (or in remote
 * mode, where the service imports them and says so), a warning names them.
 */
export async function importRun(deps: ImportOptions): Promise<number> {
  const { ctx, ui, file } = deps;
  const mode = confirmMode(deps);
  let upload = await openUpload(ctx, file);
  let result: BankImportResult;
  let rows: number | null;
  try {
    ({ result, rows } = await importOnce(deps, upload, mode === 'yes' ? 'warn' : 'refuse'));
  } catch (e) {
    if (!(e instanceof CaseMismatchRefused)) throw e;
    // Asked only where the file can be read again (not stdin, not a pipe).
    if (mode !== 'ask' || upload.reopen === undefined) {
      throw new PremiaError(
        'INVALID_FILE',
        `Nothing was imported: ${describeCaseMismatches(e.mismatches, e.source)}. ${CASE_CONSEQUENCE} Correct the customer ids in the file, or add --yes to import the rows as they are.`,
        { details: e.details },
      );
    }
    await askOrCancel(deps, { details: [`${describeCaseMismatches(e.mismatches, e.source)}.`, CASE_CONSEQUENCE], question: 'Import the rows as they are?' });
    upload = await openUpload(ctx, file);
    ({ result, rows } = await importOnce(deps, upload, 'warn'));
  }
  if (ui.json) ui.printJson(result);
  else {
    ui.line(`Imported ${ui.plural(result.imported, 'transaction')}; ${ui.plural(result.failed, 'row')} failed.`);
    if (result.errors.length > 0) {
      ui.line();
      ui.table(
        [
          { header: 'row', value: (e) => e.row, align: 'right' },
          { header: 'customer_id', value: (e) => e.customer_id },
          { header: 'field', value: (e) => e.field },
          { header: 'code', value: (e) => e.code },
          { header: 'message', value: (e) => e.message },
        ],
        result.errors,
      );
      afterRowErrors(ui, result);
    }
    if (statementRefusedWhole(result)) {
      ui.warn('Nothing was imported: a statement with a row premia cannot read is refused whole (its balances run on from row to row). Correct the rows listed and import the file again.');
    }
  }
  warnUnaccountedRows(ui, upload.name, rows, result);
  // Said under --json too (the answer holds them as case_mismatches): the rows are stored.
  if (isCaseMismatches(result.case_mismatches)) {
    ui.warn(`${describeCaseMismatches(result.case_mismatches, upload.name)}. Their rows were imported as given, for customers of their own; the policies' customers are collected from generated accounts.`);
  }
  // A rerun under its --idempotency-key is answered with the first run's result: said last, of all
  // the above, never read as a second import (its exit code is that result's).
  warnIfReplayed(deps, await deps.backend(), OPERATIONS.importBankTransactions, 'nothing was imported now');
  return result.failed > 0 ? ExitCode.PARTIAL : ExitCode.OK;
}

/** One import of `upload`, with its rows as premia counts them when another server answers for them (else null). */
async function importOnce({ ctx, backend }: ImportOptions, upload: Upload, customerCase: 'warn' | 'refuse'): Promise<{ result: BankImportResult; rows: number | null }> {
  const b = await backend();
  const counted = b.mode === 'remote' ? countedUpload(upload, 'a bank transactions CSV file') : null;
  const ctrlC = catchCtrlC(ctx, () => {});
  try {
    const result = await b.importBankTransactions(counted?.upload ?? upload, { signal: ctrlC.signal, customerCase });
    return { result, rows: counted?.rows() ?? null };
  } finally {
    ctrlC.release();
  }
}

export default verb<unknown, ImportOptions>((deps, _flags, [file]) => ({ ...deps, file: file! }), importRun);
