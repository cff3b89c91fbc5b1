import { writeDownload } from '../../output/download.js';
import { plural } from '../../output/format.js';
import { verb, type CommandDeps } from '../../command.js';

interface Flags {
  output?: string;
  lines?: boolean;
  force?: boolean;
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
}

/** `premia settlements export`: CSV is the API body of the export, with or without --json. */
export async function exportRun({ ctx, ui, backend, ref, lines, output, force }: ExportOptions): Promise<number> {
  const download = await (await backend()).exportSettlement(ref, { lines });
  const written = await writeDownload(ctx, download, output, undefined, '--output', force);
  if (written.path !== null) ui.status(`Wrote ${download.filename} to ${written.path} (${plural(written.bytes, 'byte')}).`);
  return 0;
}

export default verb<Flags, ExportOptions>((deps, flags, [ref]) => ({ ...deps, ref: ref!, lines: flags.lines === true, output: flags.output, force: flags.force === true }), exportRun);
