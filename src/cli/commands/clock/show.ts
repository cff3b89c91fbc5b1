import type { ClockState } from '../../../backend/types.js';
import type { Ui } from '../../output/ui.js';
import { verb, type CommandDeps } from '../../command.js';

export function showClock(ui: Ui, clock: ClockState): void {
  if (ui.json) ui.printJson(clock);
  else ui.keyValues([['date', clock.date], ['seed', clock.seed], ['locked', clock.locked ? 'yes (a collections run exists)' : 'no']]);
}

export async function showRun({ ui, backend }: CommandDeps): Promise<number> {
  showClock(ui, await (await backend()).getClock());
  return 0;
}

export default verb((deps) => deps, showRun);
