import type { CommandEnv } from '../action.js';
import { showClock } from './show.js';

export default async function set({ ui, backend }: CommandEnv, date: string): Promise<number> {
  const clock = await (await backend()).setClock(date);
  if (!ui.json) ui.status(`Clock set to ${clock.date}.`);
  showClock(ui, clock);
  return 0;
}
