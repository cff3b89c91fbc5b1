import { validateClockSetRequest } from '../../../domain/requests.js';
import type { CommandEnv } from '../action.js';
import { showClock } from './show.js';

export default async function set({ ui, backend }: CommandEnv, date: string): Promise<number> {
  // Checked as the service checks PUT /clock, so a bad date reads the same in both modes.
  const input = validateClockSetRequest({ date });
  const clock = await (await backend()).setClock(input.date);
  if (!ui.json) ui.status(`Clock set to ${clock.date}.`);
  showClock(ui, clock);
  return 0;
}
