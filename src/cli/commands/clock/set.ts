import type { IsoDate } from '../../../domain/period.js';
import { validateClockSetRequest } from '../../../domain/requests.js';
import { verb, type CommandDeps } from '../../command.js';
import { showClock } from './show.js';

export interface SetOptions extends CommandDeps {
  date: IsoDate;
}

export function setOptions(deps: CommandDeps, _flags: unknown, [date]: string[]): SetOptions {
  // Checked as the service checks PUT /clock, so a bad date reads the same in both modes.
  return { ...deps, date: validateClockSetRequest({ date }).date };
}

export async function setRun({ ui, backend, date }: SetOptions): Promise<number> {
  const clock = await (await backend()).setClock(date);
  if (!ui.json) ui.status(`Clock set to ${clock.date}.`);
  showClock(ui, clock);
  return 0;
}

export default verb(setOptions, setRun);
