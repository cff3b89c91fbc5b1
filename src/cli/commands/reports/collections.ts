import type { ReportFormat } from '../../../backend/types.js';
import { conflict, PremiaError } from '../../../domain/errors.js';
import type { Period } from '../../../domain/period.js';
import { periodStateNote } from '../../../domain/period-state.js';
import { givenPath } from '../../input.js';
import { verb, type CommandDeps } from '../../command.js';
import { writeDownload } from '../../output/download.js';
import { downloadFormat } from '../../output/download-json.js';
import { plural } from '../../output/format.js';
import { checkPeriodOption } from '../../../domain/requests.js';
import { capitalised, noteInAnswer, otherClientsNote } from '../../other-clients.js';

interface Flags {
  period: string;
  format?: ReportFormat;
  output?: string;
  requireClosed?: boolean;
  force?: boolean;
}

export interface CollectionsOptions extends CommandDeps {
  period: Period;
  format: ReportFormat;
  /** A file or directory, else stdout. */
  output: string | undefined;
  /** Refuse (exit 6, nothing written) unless the period has closed. */
  requireClosed: boolean;
  /** Replace an existing file of another kind (not a database). */
  force: boolean;
}

export function collectionsOptions(deps: CommandDeps, flags: Flags): CollectionsOptions {
  const period = checkPeriodOption(flags.period);
  // --json is the report's JSON body (format=json), as the API gives it.
  const format = downloadFormat(deps.globals, flags.format, 'csv');
  return { ...deps, period, format, output: givenPath(flags.output, '--output', 'a file or a directory'), requireClosed: flags.requireClosed === true, force: flags.force === true };
}

/**
 * `premia reports collections`: the report is data, so it goes to stdout (or --output) as it is.
 * Whether it is final (the period's state) goes beside it: a note on a terminal, and with
 * --require-closed a refusal (exit 6, nothing written) while it is not.
 */
export async function collectionsRun(opts: CollectionsOptions): Promise<number> {
  const { ctx, ui, backend, period, format, output, requireClosed, force } = opts;
  const download = await (await backend()).collectionsReport(period, format);
  const state = download.periodState;
  const note = state ? periodStateNote(period, state) : null;
  // A report of no collections, in local mode for the store's own client, of a month other clients ran.
  const others = state?.state === 'not_run' ? await otherClientsNote(opts, period) : null;
  if (requireClosed) {
    if (!state) {
      throw new PremiaError(
        'NOT_SUPPORTED',
        `--require-closed needs to know whether ${period} has closed, and this server does not say (its report carries no Premia-Period-State header: ` +
          'a server that implements only the spec, or an older premia). Nothing was written; run the report without --require-closed.',
      );
    }
    if (state.state !== 'closed') {
      const inAnswer = others !== null && noteInAnswer(opts);
      if (others !== null && !inAnswer && !ui.json) ui.warn(others);
      const words = `${note} --require-closed writes the report only once the period has closed; nothing was written.${inAnswer ? ` ${capitalised(others)}` : ''}`;
      throw conflict(state.state === 'open' ? 'PERIOD_OPEN' : 'NO_COLLECTIONS', words, [{ period_month: period, ...state }]);
    }
  }
  if (others !== null) ui.warn(others);
  const written = await writeDownload(ctx, download, output, undefined, '--output', force);
  if (written.path !== null) ui.status(`Wrote the ${period} collections report to ${written.path} (${plural(written.bytes, 'byte')}).`);
  // For a person at a terminal only: a cron job reads the state from --require-closed or the JSON.
  if (note && ctx.stderrIsTTY) ui.note(note);
  return 0;
}

export default verb(collectionsOptions, collectionsRun);
