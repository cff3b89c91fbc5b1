import { ExitCode } from '../../../domain/errors.js';
import { count, plural } from '../../output/format.js';
import { openUpload } from '../../input.js';
import { catchCtrlC } from '../../interrupt.js';
import { verb, type CommandDeps } from '../../command.js';
import { statementRefusedWhole } from '../../../simulation/scenario.js';

export interface ImportOptions extends CommandDeps {
  /** The CSV file, or - for stdin. */
  file: string;
}

export async function importRun({ ctx, ui, backend, file }: ImportOptions): Promise<number> {
  const upload = await openUpload(ctx, file);
  const b = await backend();
  const ctrlC = catchCtrlC(ctx, () => {});
  let result;
  try {
    result = await b.importBankTransactions(upload, { signal: ctrlC.signal });
  } finally {
    ctrlC.release();
  }
  if (ui.json) ui.printJson(result);
  else {
    ui.line(`Imported ${plural(result.imported, 'transaction')}; ${plural(result.failed, 'row')} failed.`);
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
      if (result.errors_omitted) ui.line(`… and ${plural(result.errors_omitted, 'more error')} not shown (the first ${count(result.errors.length)} by row are listed).`);
    }
    if (statementRefusedWhole(result)) {
      ui.warn('Nothing was imported: a statement with a row premia cannot read is refused whole (its balances run on from row to row). Correct the rows listed and import the file again.');
    }
  }
  return result.failed > 0 ? ExitCode.PARTIAL : ExitCode.OK;
}

export default verb<unknown, ImportOptions>((deps, _flags, [file]) => ({ ...deps, file: file! }), importRun);
