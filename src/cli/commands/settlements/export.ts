import { writeDownload } from '../../output/download.js';
import { count } from '../../output/format.js';
import type { CommandEnv } from '../action.js';

/** `premia settlements export`: CSV is the API body of the export, with or without --json. */
export default async function exportSettlement({ ctx, opts, ui, backend }: CommandEnv, ref: string): Promise<number> {
  const download = await (await backend()).exportSettlement(ref, { lines: opts.lines === true });
  const written = await writeDownload(ctx, download, opts.output as string | undefined);
  if (written.path !== null) ui.status(`Wrote ${download.filename} to ${written.path} (${count(written.bytes)} bytes).`);
  return 0;
}
