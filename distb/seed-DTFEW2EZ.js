import {
  showClock
} from "./chunk-CESH2GXY.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import {
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/bank/seed.js
function seedOptions(deps, _flags, [value]) {
  if (!/^\d{1,9}$/.test(value))
    throw validationError("The seed is a whole number from 0 to 999999999.");
  return { ...deps, seed: Number(value) };
}
async function seedRun({ ui, backend, seed }) {
  const clock = await (await backend()).seedBank(seed);
  if (!ui.json)
    ui.status(`Bank seed set to ${clock.seed}.`);
  showClock(ui, clock);
  return 0;
}
var seed_default = verb(seedOptions, seedRun);
export {
  seed_default as default,
  seedOptions,
  seedRun
};
