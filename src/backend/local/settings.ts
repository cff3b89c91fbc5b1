/**
 * `premia settings` on the local store: the engine's store-wide settings (engine/settings.ts),
 * kept in the meta table. Operator functions (like API keys): they act on the store, for every
 * client, and exist only in local mode.
 */
import { parseSettingValue, settingDef, SETTING_KEYS, SETTINGS, SHARDS_KEY, storedSetting, type SettingDef, type SettingValue } from '../../engine/settings.js';
import { getAllMeta, setMeta } from '../../store/repos/meta.js';
import { refuseInPartLivedDay } from '../../store/part-lived-day.js';
import type { Store } from '../../store/store.js';
import type { SettingView } from '../types.js';
import { checkCalendarChange } from './calendar.js';
import { refuseWhileAdvancing } from './world.js';

function view(def: SettingDef, stored: string | undefined): SettingView {
  const value = storedSetting(def, stored);
  return def.kind === 'number'
    ? { key: def.key, value, default: def.default, min: def.min, max: def.max, description: def.description }
    : { key: def.key, value, default: def.default, choices: [...def.choices], description: def.description };
}

export async function listSettings(store: Store): Promise<SettingView[]> {
  const meta = await getAllMeta(store.db);
  return SETTINGS.map((def) => view(def, meta.get(def.key)));
}

/**
 * Set a setting (checked first: nothing is written for an unknown key or a bad value; the
 * calendar cannot change once a collections run exists).
 */
export async function setSetting(store: Store, key: string, value: string): Promise<{ setting: SettingView; previous: SettingValue }> {
  const def = settingDef(key);
  const n = parseSettingValue(def, value);
  return store.transaction(async (trx) => {
    const meta = await getAllMeta(trx);
    const previous = storedSetting(def, meta.get(def.key));
    // The shards of a day are fixed when it opens: their count may change under an open day.
    if (def.key !== SHARDS_KEY && String(previous) !== String(n)) await refuseInPartLivedDay(store, trx, `the setting ${def.key}`);
    if (def.key === SETTING_KEYS.calendar) {
      checkCalendarChange(meta, String(previous), String(n));
      if (String(previous) !== String(n)) await refuseWhileAdvancing(store, trx, meta, 'the calendar');
    }
    await setMeta(trx, def.key, String(n));
    return { setting: view(def, String(n)), previous };
  });
}
