/**
 * `premia reports summary --period P`: the month in pictures. On stdout, the figures as text
 * with a bar chart of the cumulative share collected by day (Unicode on a colour terminal,
 * plain ASCII otherwise); `--json` gives the same figures as JSON. The figures come through
 * the Backend interface (summary-figures.ts), so local and remote mode agree.
 */
import { checkPeriodOption } from '../../../domain/requests.js';
import type { Period } from '../../../domain/period.js';
import { verb, type CommandDeps } from '../../command.js';
import { readSummary } from './summary-figures.js';
import { renderSummaryText } from './summary-text.js';

interface Flags {
  period: string;
}

export interface SummaryOptions extends CommandDeps {
  period: Period;
}

export function summaryOptions(deps: CommandDeps, flags: Flags): SummaryOptions {
  return { ...deps, period: checkPeriodOption(flags.period) };
}

export async function summaryRun({ ui, backend, period }: SummaryOptions): Promise<number> {
  const figures = await readSummary(await backend(), period);
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
