import type { ReportFormat } from '../../../backend/types.js';
import { conflict, PremiaError, usageError } from '../../../domain/errors.js';
import { checkPeriodOption } from '../../../domain/requests.js';
import { periodStateNote } from '../../../domain/period-state.js';
import { writeDownload } from '../../output/download.js';
import { count } from '../../output/format.js';
import type { CommandEnv } from '../action.js';

/**
 * `premia reports collections`: the report is data, so it goes to stdout (or --output) as it is.
 * Whether it is final (the period's state) goes beside it: a note on a terminal, and with
 * --require-closed a refusal (exit 6, nothing written) while it is not.
 */
export default async function collections({ ctx, opts, globals, ui, backend }: CommandEnv): Promise<number> {
  const period = checkPeriodOption(String(opts.period));
  if (globals.json && opts.format === 'csv') throw usageError('--json asks for JSON but --format csv asks for CSV; give only one of them.');
  // --json alone means the API's JSON body, which is the report in JSON.
  const format = (opts.format as ReportFormat | undefined) ?? (globals.json ? 'json' : 'csv');
  const download = await (await backend()).collectionsReport(period, format);
  const state = download.periodState;
  const note = state ? periodStateNote(period, state) : null;
  if (opts.requireClosed === true) {
    if (!state) {
      throw new PremiaError(
        'NOT_SUPPORTED',
        `--require-closed needs to know whether ${period} has closed, and this server does not say (its report carries no Premia-Period-State header: ` +
          'a server that implements only the spec, or an older premia). Nothing was written; run the report without --require-closed.',
      );
    }
    if (state.state !== 'closed') {
      const words = `${note} --require-closed writes the report only once the period has closed; nothing was written.`;
      throw conflict(state.state === 'open' ? 'PERIOD_OPEN' : 'NO_COLLECTIONS', words, [{ period_month: period, ...state }]);
    }
  }
  const written = await writeDownload(ctx, download, opts.output as string | undefined);
  if (written.path !== null) ui.status(`Wrote the ${period} collections report to ${written.path} (${count(written.bytes)} bytes).`);
  // For a person at a terminal only: a cron job reads the state from --require-closed or the JSON.
  if (note && ctx.stderrIsTTY) ui.status(`${ui.err.yellow('note:')} ${note}`);
  return 0;
}
