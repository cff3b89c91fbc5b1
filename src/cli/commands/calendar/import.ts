import { openUpload } from '../../input.js';
import { verb, type CommandDeps } from '../../command.js';

export interface ImportOptions extends CommandDeps {
  /** The CSV file, or - for stdin. */
  file: string;
  /** Replace the dates imported before instead of adding to them. */
  replace: boolean;
}

export async function importRun({ ctx, ui, admin, file, replace }: ImportOptions): Promise<number> {
  const upload = await openUpload(ctx, file);
  const result = await (await admin()).calendar.import(upload, { replace });
  if (ui.json) ui.printJson(result);
  else {
    const s = (n: number) => (n === 1 ? '' : 's');
    ui.status(
      `Calendar ${result.calendar}: ${result.added} date${s(result.added)} added` +
        `${result.removed > 0 ? `, ${result.removed} removed` : ''}; ${result.imported_dates} imported date${s(result.imported_dates)} in all.`,
    );
  }
  return 0;
}

export default verb<{ replace?: boolean }, ImportOptions>((deps, flags, [file]) => ({ ...deps, file: file!, replace: flags.replace === true }), importRun);
