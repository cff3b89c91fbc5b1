/**
 * `premia settings` on the local store: the engine's store-wide settings (engine/settings.ts),
 * kept in the meta table. Operator functions (like API keys): they act on the store, for every
 * client, and exist only in local mode.
 */
import { parseSettingValue, settingDef, SETTINGS, storedSetting, type SettingDef } from '../../engine/settings.js';
import { getAllMeta, getMeta, setMeta } from '../../store/repos/meta.js';
import type { Store } from '../../store/store.js';
import type { SettingView } from '../types.js';

function view(def: SettingDef, stored: string | undefined): SettingView {
  return { key: def.key, value: storedSetting(def, stored), default: def.default, min: def.min, max: def.max, description: def.description };
}

export async function listSettings(store: Store): Promise<SettingView[]> {
  const meta = await getAllMeta(store.db);
  return SETTINGS.map((def) => view(def, meta.get(def.key)));
}

/** Set a setting (checked first: nothing is written for an unknown key or a bad value). */
export async function setSetting(store: Store, key: string, value: string): Promise<{ setting: SettingView; previous: number }> {
  const def = settingDef(key);
  const n = parseSettingValue(def, value);
  return store.transaction(async (trx) => {
    const previous = storedSetting(def, await getMeta(trx, def.key));
    await setMeta(trx, def.key, String(n));
    return { setting: view(def, String(n)), previous };
  });
}
