/**
 * `premia settings` on the local store: the engine's store-wide settings (engine/settings.ts),
 * kept in the meta table. Operator functions (like API keys): they act on the store, for every
 * client, and exist only in local mode.
 */
import { usageError } from '../../domain/errors.js';
import { parseSettingValue, settingDef, SETTINGS, storedSetting, type SettingDef } from '../../engine/settings.js';
import { getAllMeta, getMeta, setMeta } from '../../store/repos/meta.js';
import type { Store } from '../../store/store.js';
import type { Backend, SettingView } from '../types.js';
import { LocalBackend } from './index.js';


function storeOf(backend: Backend): Store {
  if (backend instanceof LocalBackend) return backend.store;
  throw usageError("Settings are kept in the store itself: run 'premia settings' with --db on the machine that holds it.");
}

function view(def: SettingDef, stored: string | undefined): SettingView {
  return { key: def.key, value: storedSetting(def, stored), default: def.default, min: def.min, max: def.max, description: def.description };
}

export async function listSettings(backend: Backend): Promise<SettingView[]> {
  const meta = await getAllMeta(storeOf(backend).db);
  return SETTINGS.map((def) => view(def, meta.get(def.key)));
}

/** Set a setting (checked first: nothing is written for an unknown key or a bad value). */
export async function setSetting(backend: Backend, key: string, value: string): Promise<{ setting: SettingView; previous: number }> {
  const def = settingDef(key);
  const n = parseSettingValue(def, value);
  return storeOf(backend).transaction(async (trx) => {
    const previous = storedSetting(def, await getMeta(trx, def.key));
    await setMeta(trx, def.key, String(n));
    return { setting: view(def, String(n)), previous };
  });
}
