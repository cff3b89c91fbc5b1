import { validationError } from '../../../domain/errors.js';
import type { CommandEnv } from '../action.js';
import { showClock } from '../clock/show.js';

export default async function seed({ ui, backend }: CommandEnv, value: string): Promise<number> {
  if (!/^\d{1,9}$/.test(value)) throw validationError('The seed is a whole number from 0 to 999999999.');
  const clock = await (await backend()).seedBank(Number(value));
  if (!ui.json) ui.status(`Bank seed set to ${clock.seed}.`);
  showClock(ui, clock);
  return 0;
}
