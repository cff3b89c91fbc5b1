import { OPERATIONS } from '../../../backend/operations.js';
import { validationError } from '../../../domain/errors.js';
import { verb, type CommandDeps } from '../../command.js';
import { warnIfReplayed } from '../../keyed-write.js';
import { showClock } from '../clock/show.js';

export interface SeedOptions extends CommandDeps {
  seed: number;
}

export function seedOptions(deps: CommandDeps, _flags: unknown, [value]: string[]): SeedOptions {
  if (!/^\d{1,9}$/.test(value!)) throw validationError(`The seed must be a whole number from 0 to 999999999; got '${value!.slice(0, 40)}'.`);
  return { ...deps, seed: Number(value) };
}

export async function seedRun(opts: SeedOptions): Promise<number> {
  const { ui, backend, seed } = opts;
  const b = await backend();
  const clock = await b.seedBank(seed);
  if (!ui.json) ui.status(`Bank seed set to ${clock.seed}.`);
  // The clock shown is the earlier run's answer too (the store's key: the seed's is store-wide).
  warnIfReplayed(opts, b, OPERATIONS.seedBank, 'the seed was not set now');
  showClock(ui, clock);
  return 0;
}

export default verb(seedOptions, seedRun);
