/**
 * The engine's store-wide settings that an operator may change (`premia settings`): kept in the
 * store's `meta` table under their key, read by the engine when it loads a day's working set
 * and by the lapse rule at period close. A key not in the table has its default.
 */
import { validationError } from '../domain/errors.js';
import { DEFAULT_ENGINE_CONFIG } from './strategy.js';

export interface SettingDef {
  key: string;
  default: number;
  min: number;
  max: number;
  /** What it controls, in a line. */
  description: string;
}

export const SETTINGS: readonly SettingDef[] = [
  {
    key: 'engine.max_failed_attempts',
    default: DEFAULT_ENGINE_CONFIG.maxFailedAttempts,
    min: 1,
    max: 31,
    description: 'failed debit attempts per policy and month, after which no more are planned',
  },
  {
    key: 'lapse.unpaid_periods',
    default: 2,
    min: 1,
    max: 12,
    description: 'consecutive closed periods UNPAID after which an active policy lapses',
  },
];

export function settingDef(key: string): SettingDef {
  const def = SETTINGS.find((s) => s.key === key);
  if (!def) {
    const known = SETTINGS.map((s) => s.key).join(', ');
    throw validationError(`'${key.slice(0, 60)}' is not a setting; the settings are ${known}.`, [
      { field: 'key', code: 'UNKNOWN_SETTING', message: `one of ${known}` },
    ]);
  }
  return def;
}

/** A value given for a setting, checked: a whole number within its range. */
export function parseSettingValue(def: SettingDef, text: string): number {
  const n = /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < def.min || n > def.max) {
    throw validationError(`${def.key} must be a whole number from ${def.min} to ${def.max}; got '${text.slice(0, 40)}'.`, [
      { field: 'value', code: 'INVALID_VALUE', message: `a whole number from ${def.min} to ${def.max}` },
    ]);
  }
  return n;
}

/** A stored value in force: the default when unset, or when the stored text is not a valid value. */
export function storedSetting(def: SettingDef, stored: string | undefined): number {
  if (stored === undefined) return def.default;
  const n = /^\d{1,6}$/.test(stored) ? Number(stored) : Number.NaN;
  return Number.isInteger(n) && n >= def.min && n <= def.max ? n : def.default;
}

/** The value in force of `key` from the store's meta table. */
export function settingIn(meta: Map<string, string>, key: string): number {
  return storedSetting(settingDef(key), meta.get(key));
}
