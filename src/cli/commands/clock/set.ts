import type { IsoDate } from '../../../domain/period.js';
import { validateClockSetRequest } from '../../../domain/requests.js';
import { verb, type CommandDeps } from '../../command.js';
import { askOrCancel, clockJumpNeedsYes, confirmMode, unlessUnsupported } from '../../confirm.js';
import { clockJump, clockSetQuestion } from '../../questions.js';
import { showClock } from './show.js';

export interface SetOptions extends CommandDeps {
  date: IsoDate;
}

export function setOptions(deps: CommandDeps, _flags: unknown, [date]: string[]): SetOptions {
  // Checked as the service checks PUT /clock, so a bad date reads the same in both modes.
  return { ...deps, date: validateClockSetRequest({ date }).date };
}

export async function setRun(opts: SetOptions): Promise<number> {
  const { ui, backend, date } = opts;
  const b = await backend();
  // A move of more than a year (2062-11-30 typed for 2026-11-30) asks first on a terminal and
  // needs --yes without one: what is recorded meanwhile keeps the year it was stamped with.
  const mode = confirmMode(opts);
  if (mode !== 'yes') {
    const clock = await unlessUnsupported(() => b.getClock());
    // (Once a run has locked the clock, the store refuses the set: nothing to ask.)
    const question = clock === null || clock.locked ? null : clockSetQuestion(clock.date, date);
    if (clock !== null && question !== null) {
      if (mode === 'unattended') throw clockJumpNeedsYes(clock.date, date, clockJump(clock.date, date));
      await askOrCancel(opts, question);
    }
  }
  const clock = await b.setClock(date);
  if (!ui.json) ui.status(`Clock set to ${clock.date}.`);
  showClock(ui, clock);
  return 0;
}

export default verb(setOptions, setRun);
