import { validationError } from '../../../domain/errors.js';
import { verb, type CommandDeps } from '../../command.js';
import { showClock } from '../clock/show.js';

export interface SeedOptions extends CommandDeps {
  seed: number;
}

export function seedOptions(deps: CommandDeps, _flags: unknown, [value]: string[]): SeedOptions {
  if (!/^\d{1,9}$/.test(value!)) throw validationError(`The seed must be a whole number from 0 to 999999999; got '${value!.slice(0, 40)}'.`);
  return { ...deps, seed: Number(value) };
}

export async function seedRun({ ui, backend, seed }: SeedOptions): Promise<number> {
  const clock = await (await backend()).seedBank(seed);
  if (!ui.json) ui.status(`Bank seed set to ${clock.seed}.`);
  showClock(ui, clock);
  return 0;
}

export default verb(seedOptions, seedRun);
