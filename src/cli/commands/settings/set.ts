import type { CommandEnv } from '../action.js';

export default async function set({ ui, admin }: CommandEnv, key: string, value: string): Promise<number> {
  const { setting, previous } = await (await admin()).settings.set(key, value);
  if (ui.json) ui.printJson({ ...setting, previous });
  else if (previous === setting.value) ui.status(`${setting.key} is already ${setting.value}.`);
  else ui.status(`${setting.key} set to ${setting.value} (was ${previous}; default ${setting.default}).`);
  return 0;
}
