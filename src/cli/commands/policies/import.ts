import { OPERATIONS } from '../../../backend/operations.js';
import { ExitCode } from '../../../domain/errors.js';
import { stringifyJson } from '../../../domain/json.js';
import { describeCaseMismatches, isCaseMismatches } from '../../../domain/customer-case.js';
import { afterRowErrors, warnUnaccountedRows } from '../../output/import-errors.js';
import { SILENT, startProgress } from '../../output/progress.js';
import { ImportProgressLine } from '../../output/live.js';
import { countedUpload, openUpload } from '../../input.js';
import { catchCtrlC } from '../../interrupt.js';
import { verb, type CommandDeps } from '../../command.js';
import { warnIfReplayed } from '../../keyed-write.js';
import { warnIfMonthQueued } from './queued-notice.js';

export interface ImportOptions extends CommandDeps {
  /** The CSV file, or - for stdin. */
  file: string;
}

export async function importRun(opts: ImportOptions): Promise<number> {
  const { ctx, ui, backend, file } = opts;
  const opened = await openUpload(ctx, file);
  const b = await backend();
  // Another server counts the rows its own way: those it answers for are checked against the file.
  const counted = b.mode === 'remote' ? countedUpload(opened, 'a policy CSV file') : null;
  const upload = counted?.upload ?? opened;
  // Typed at the terminal: a spinner redrawn there would erase the line being typed.
  const typed = file === '-' && ctx.stdinIsTTY;
  const progress = typed ? SILENT : await startProgress(ui, `Importing ${upload.name}…`);
  const live = new ImportProgressLine(upload.name, upload.size);
  const started = Date.now();
  const ctrlC = catchCtrlC(ctx, () => progress.stop());
  let result;
  try {
    result = await b.importPolicies(upload, {
      signal: ctrlC.signal,
      onProgress: ({ bytes, rows }) => progress.update(live.line(rows, bytes, Date.now() - started)),
    });
  } catch (e) {
    if (!ctrlC.signal.aborted) progress.fail(`Import of ${upload.name} failed`);
    throw e;
  } finally {
    ctrlC.release();
  }
  progress.stop();
  if (ui.json) ui.printJson(result);
  else {
    ui.line(`Imported ${ui.plural(result.imported, 'policy', 'policies')}; ${ui.plural(result.failed, 'row')} failed.`);
    // Another server's errors may have another shape (the spec does not show it): each is shown as it
    // came, in premia's JSON form, so an amount it echoes (read into cents) is shown as the amount.
    const premiaShaped = result.errors.every(
      (e) => e && typeof e === 'object' && typeof e.row === 'number' && typeof e.message === 'string' && typeof e.code === 'string',
    );
    if (result.errors.length > 0 && !premiaShaped) {
      ui.line();
      for (const e of result.errors as unknown[]) ui.line(`  ${typeof e === 'string' ? e : stringifyJson(e)}`);
    } else if (result.errors.length > 0) {
      ui.line();
      ui.table(
        [
          { header: 'row', value: (e) => e.row, align: 'right' },
          { header: 'policy_number', value: (e) => e.policy_number },
          { header: 'field', value: (e) => e.field },
          { header: 'code', value: (e) => e.code },
          { header: 'message', value: (e) => e.message },
        ],
        result.errors,
      );
      afterRowErrors(ui, result);
    }
  }
  // Bank rows imported before, under ids that differ from these policies' customer ids only in
  // letter case: said under --json too (the answer holds them as case_mismatches).
  if (isCaseMismatches(result.case_mismatches)) {
    ui.warn(
      `${describeCaseMismatches(result.case_mismatches, 'the bank rows stored')}. The policies' customers are collected from generated accounts, not from those rows; ` +
        "import their statements under the policies' customer ids.",
    );
  }
  warnUnaccountedRows(ui, upload.name, counted?.rows() ?? null, result);
  // A cron job's retry under its --idempotency-key is answered with the first run's result: said
  // last, of all the above, never read as a second import (its exit code is that result's). Then
  // nothing about a month queued before the policies were added: the earlier run added them,
  // perhaps before the month was queued.
  if (!warnIfReplayed(opts, b, OPERATIONS.importPolicies, 'nothing was imported now')) await warnIfMonthQueued(ui, b, result.imported);
  return result.failed > 0 ? ExitCode.PARTIAL : ExitCode.OK;
}

export default verb<unknown, ImportOptions>((deps, _flags, [file]) => ({ ...deps, file: file! }), importRun);
