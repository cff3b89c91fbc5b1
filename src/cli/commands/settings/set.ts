import { verb, type CommandDeps } from '../../command.js';

export interface SetOptions extends CommandDeps {
  /** The setting (premia settings lists them). */
  key: string;
  /** Checked by the store's settings, against the setting's range. */
  value: string;
}

export async function setRun({ ui, admin, key, value }: SetOptions): Promise<number> {
  const { setting, previous } = await (await admin()).settings.set(key, value);
  if (ui.json) ui.printJson({ ...setting, previous });
  else if (previous === setting.value) ui.status(`${setting.key} is already ${setting.value}.`);
  else ui.status(`${setting.key} set to ${setting.value} (was ${previous}; default ${setting.default}).`);
  return 0;
}

export default verb<unknown, SetOptions>((deps, _flags, [key, value]) => ({ ...deps, key: key!, value: value! }), setRun);
