import {
  verb
} from "./chunk-ZHXFIFOW.js";

// dist/cli/commands/settings/set.js
async function setRun({ ui, admin, key, value }) {
  const { setting, previous } = await (await admin()).settings.set(key, value);
  if (ui.json)
    ui.printJson({ ...setting, previous });
  else if (previous === setting.value)
    ui.status(`${setting.key} is already ${setting.value}.`);
  else
    ui.status(`${setting.key} set to ${setting.value} (was ${previous}; default ${setting.default}).`);
  return 0;
}
var set_default = verb((deps, _flags, [key, value]) => ({ ...deps, key, value }), setRun);
export {
  set_default as default,
  setRun
};
