/**
 * The engine's numbers, read through this one module.
 *
 * Settings an operator may change (`premia settings`): kept in the store's `meta` table under
 * their key, checked when set and when read (a stored value that is not valid reads as the
 * default), read by the engine when it loads a day's working set; a key not in the table has
 * its default.
 *
 * Constants (docs/engine.md, "Settings"): how many days ahead debits are submitted (LEAD_DAYS), how many
 * partial debits an irregular earner gets a month (MAX_SPLIT_DEBITS) and naive's schedule. They
 * are not settings: changing them changes what the strategies are (the figures of docs/engine.md, the
 * fixture-month test), and the number of days ahead also sizes the engine's plan slots.
 */
import { CALENDAR_BASES, CALENDAR_KEY, DEFAULT_CALENDAR, IMPORTED_HOLIDAYS_KEY, storedCalendar, type Calendar } from '../domain/calendar.js';
import { validationError } from '../domain/errors.js';
import type { EngineConfig } from './strategy.js';

/** Days between submitting a debit and its action date: at the end of day D the engine plans D + 1 + LEAD_DAYS. */
export const LEAD_DAYS = 0;
/** Partial debits an irregular earner gets at most per policy and month (smart). */
export const MAX_SPLIT_DEBITS = 4;
/** naive: attempts at most per policy and month, and days between them. */
export const NAIVE_MAX_ATTEMPTS = 4;
export const NAIVE_RETRY_DAYS = 7;

/** A setting whose value is a whole number in a range. */
export interface NumberSettingDef {
  kind: 'number';
  key: string;
  default: number;
  min: number;
  max: number;
  /** What it controls, in a line. */
  description: string;
}

/** A setting whose value is one of a few names. */
export interface ChoiceSettingDef {
  kind: 'choice';
  key: string;
  default: string;
  choices: readonly string[];
  description: string;
}

export type SettingDef = NumberSettingDef | ChoiceSettingDef;
export type SettingValue = number | string;

/**
 * The setting of how many customer shards a day is lived in (PostgreSQL; engine/shards.ts). Not
 * among SETTING_KEYS, the inputs of what the engine decides: sharding changes where a customer's
 * day is lived, never what happens in it.
 */
export const SHARDS_KEY = 'engine.shards';

export const SETTING_KEYS = {
  maxFailedAttempts: 'engine.max_failed_attempts',
  lapseAfterUnpaidPeriods: 'lapse.unpaid_periods',
  calendar: CALENDAR_KEY,
} as const;

export const SETTINGS: readonly SettingDef[] = [
  {
    kind: 'number',
    key: SETTING_KEYS.maxFailedAttempts,
    default: 4,
    min: 1,
    max: 31,
    description: 'failed debit attempts per policy and month, after which no more are planned',
  },
  {
    kind: 'number',
    key: SETTING_KEYS.lapseAfterUnpaidPeriods,
    default: 2,
    min: 1,
    max: 12,
    description: 'consecutive closed periods UNPAID after which an active policy lapses',
  },
  {
    kind: 'choice',
    key: SETTING_KEYS.calendar,
    default: DEFAULT_CALENDAR,
    choices: CALENDAR_BASES,
    description: 'business days: za (South African public holidays) or none (weekends only), plus imported dates',
  },
  {
    kind: 'number',
    key: SHARDS_KEY,
    default: 1,
    min: 1,
    max: 256,
    description: 'PostgreSQL: customer shards each day is lived in, shared with premia engine work (1: in one piece)',
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

/** A value given for a setting, checked: a whole number within its range, or one of its names. */
export function parseSettingValue(def: SettingDef, text: string): SettingValue {
  if (def.kind === 'choice') {
    if (!def.choices.includes(text)) {
      throw validationError(`${def.key} must be one of ${def.choices.join(', ')}; got '${text.slice(0, 40)}'.`, [
        { field: 'value', code: 'INVALID_VALUE', message: `one of ${def.choices.join(', ')}` },
      ]);
    }
    return text;
  }
  const n = /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < def.min || n > def.max) {
    throw validationError(`${def.key} must be a whole number from ${def.min} to ${def.max}; got '${text.slice(0, 40)}'.`, [
      { field: 'value', code: 'INVALID_VALUE', message: `a whole number from ${def.min} to ${def.max}` },
    ]);
  }
  return n;
}

/** A stored value in force: the default when unset, or when the stored text is not a valid value. */
export function storedSetting(def: SettingDef, stored: string | undefined): SettingValue {
  if (stored === undefined) return def.default;
  if (def.kind === 'choice') return def.choices.includes(stored) ? stored : def.default;
  const n = /^\d{1,6}$/.test(stored) ? Number(stored) : Number.NaN;
  return Number.isInteger(n) && n >= def.min && n <= def.max ? n : def.default;
}

/** The value in force of a numeric setting `key` from the stored settings. */
export function settingIn(stored: ReadonlyMap<string, string>, key: string): number {
  const def = settingDef(key);
  if (def.kind !== 'number') throw new Error(`${key} is not a numeric setting`);
  return storedSetting(def, stored.get(key)) as number;
}

/** The business-day calendar in force: the `calendar` setting's base and the imported dates. */
export function calendarIn(stored: ReadonlyMap<string, string>): Calendar {
  return storedCalendar(stored.get(CALENDAR_KEY), stored.get(IMPORTED_HOLIDAYS_KEY));
}

export interface EngineSettings extends EngineConfig {
  /** The lapse rule's number of consecutive UNPAID periods (domain/lapse.ts). */
  lapseAfterUnpaidPeriods: number;
}

/** Everything the engine runs by: the settings in force (from the stored values) and the constants. */
export function engineSettings(stored: ReadonlyMap<string, string>): EngineSettings {
  return {
    leadDays: LEAD_DAYS,
    maxSplitDebits: MAX_SPLIT_DEBITS,
    naiveMaxAttempts: NAIVE_MAX_ATTEMPTS,
    naiveRetryDays: NAIVE_RETRY_DAYS,
    maxFailedAttempts: settingIn(stored, SETTING_KEYS.maxFailedAttempts),
    lapseAfterUnpaidPeriods: settingIn(stored, SETTING_KEYS.lapseAfterUnpaidPeriods),
    calendar: calendarIn(stored),
  };
}
