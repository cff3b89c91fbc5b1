/**
 * `premia reports summary --period P`: the month in pictures. On stdout, the figures as text
 * with a bar chart of the cumulative share collected by day (Unicode on a colour terminal,
 * plain ASCII otherwise); `--json` gives the same figures as JSON. The figures come through
 * the Backend interface (simulation/month-figures.ts), so local and remote mode agree.
 */
import { usageError } from '../../../domain/errors.js';
import { checkPeriodOption } from '../../../domain/requests.js';
import type { Period } from '../../../domain/period.js';
import { givenPath } from '../../input.js';
import { verb, type CommandDeps } from '../../command.js';
import { writeDownload } from '../../output/download.js';
import { otherClientsNote } from '../../other-clients.js';
import { readSummary, type SummaryFigures } from '../../../simulation/month-figures.js';
import { renderSummaryHtml } from './summary-html.js';
import { groupedCount, renderSummaryText } from './summary-text.js';
import type { Download } from '../../../backend/types.js';

interface Flags {
  period: string;
  html?: string;
  force?: boolean;
}

export interface SummaryOptions extends CommandDeps {
  period: Period;
  /** Write the page here (a file, a directory for summary-<period>.html, or - for stdout) instead of the text. */
  html: string | undefined;
  /** Replace an existing file of another kind (not a database). */
  force: boolean;
}

export function summaryOptions(deps: CommandDeps, flags: Flags): SummaryOptions {
  const period = checkPeriodOption(flags.period);
  if (deps.globals.json && flags.html !== undefined) throw usageError('--json prints the figures as JSON and --html writes them as a page; give only one of them.');
  return { ...deps, period, html: givenPath(flags.html, '--html', 'a file or a directory'), force: flags.force === true };
}

/** The page as a download, so it is written by the rules of every other output file. */
export function summaryPage(figures: SummaryFigures): Download {
  return {
    filename: `summary-${figures.period_month}.html`,
    contentType: 'text/html; charset=utf-8',
    body: (async function* () {
      yield renderSummaryHtml(figures);
    })(),
  };
}

export async function summaryRun(opts: SummaryOptions): Promise<number> {
  const { ctx, ui, backend, period, html, force } = opts;
  const figures = await readSummary(await backend(), period);
  // Zeros, in local mode for the store's own client, of a month other clients ran: said.
  const others = figures.period_state?.state === 'not_run' ? await otherClientsNote(opts, period) : null;
  if (others !== null) ui.warn(others);
  if (html !== undefined) {
    const written = await writeDownload(ctx, summaryPage(figures), html, undefined, '--html', force);
    if (written.path !== null) ui.status(`Wrote the ${period} summary page to ${written.path} (${groupedCount(written.bytes)} bytes).`);
    return 0;
  }
  if (ui.json) {
    ui.printJson(figures);
    return 0;
  }
  // Unicode and bold only where colour is allowed on stdout (a terminal, no NO_COLOR, no --no-color).
  const fancy = ui.out.level > 0;
  ui.write(renderSummaryText(figures, { fancy, heading: (t) => ui.out.bold(t) }));
  return 0;
}

export default verb(summaryOptions, summaryRun);
