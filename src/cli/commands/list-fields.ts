/**
 * The fields of each list command: the API object's own field names, which of them are money
 * and numbers, and the columns a table shows by default (see output/list.ts). Loaded with the
 * command tree (for --help and completion), so it imports only light modules (types, constants).
 */
import { ATTEMPT_COLUMNS, REPORT_COLUMNS, type ApiKeyView, type Attempt, type Collection, type Policy, type SettingView, type Settlement } from '../../backend/types.js';
import type { Field, ListSpec } from '../output/list.js';

/** Fields read straight off the object by name. */
function fields<T>(names: readonly (keyof T & string)[], kinds: { money?: readonly string[]; numeric?: readonly string[]; headers?: Record<string, string> } = {}): Field<T>[] {
  return names.map((name) => ({
    name,
    value: (row: T) => row[name] as string | number | boolean | null | undefined,
    money: kinds.money?.includes(name) === true,
    numeric: kinds.numeric?.includes(name) === true,
    header: kinds.headers?.[name],
  }));
}

export const POLICY_FIELDS = [
  'id',
  'policy_number',
  'customer_id',
  'external_customer_ref',
  'product_code',
  'collection_amount',
  'collection_amount_effective_period',
  'status',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof Policy)[];

export const POLICY_LIST: ListSpec<Policy> = {
  fields: fields<Policy>(POLICY_FIELDS, { money: ['collection_amount'] }),
  table: ['policy_number', 'customer_id', 'product_code', 'collection_amount', 'status', 'id'],
};

/** A collection's fields: its ids, then the report's 13 columns (period_month among the ids, as the API orders them). */
export const COLLECTION_FIELDS: readonly (keyof Collection)[] = ['id', 'period_month', 'policy_id', 'execution_id', ...REPORT_COLUMNS.slice(1)];

export const COLLECTION_LIST: ListSpec<Collection> = {
  fields: fields<Collection>(COLLECTION_FIELDS, {
    money: ['collection_amount_due', 'collection_amount_collected', 'shortfall'],
    numeric: ['number_of_attempts'],
    headers: {
      collection_amount_due: 'due',
      collection_amount_collected: 'collected',
      collection_status: 'status',
      number_of_attempts: 'attempts',
      last_failure_reason: 'last_failure',
    },
  }),
  table: ['policy_number', 'customer_id', 'collection_amount_due', 'collection_amount_collected', 'collection_status', 'number_of_attempts', 'last_failure_reason', 'id'],
};

export const ATTEMPT_FIELDS = ATTEMPT_COLUMNS;

export const ATTEMPT_LIST: ListSpec<Attempt> = {
  fields: fields<Attempt>(ATTEMPT_FIELDS, { money: ['amount'] }),
  table: [...ATTEMPT_FIELDS],
};

export const SETTLEMENT_FIELDS = [
  'id',
  'settlement_number',
  'period_month',
  'status',
  'total_collections',
  'distribution_fee',
  'collections_fee',
  'total_fees',
  'vat',
  'previously_paid',
  'net_amount',
  'collections_count',
  'payment_date',
  'payment_reference',
  'created_at',
  'paid_on',
  'paid_reference',
  'disputed_on',
  'dispute_reason',
  'supersedes',
  'superseded_by',
] as const satisfies readonly (keyof Settlement)[];

export const SETTLEMENT_LIST: ListSpec<Settlement> = {
  fields: fields<Settlement>(SETTLEMENT_FIELDS, {
    money: ['total_collections', 'distribution_fee', 'collections_fee', 'total_fees', 'vat', 'previously_paid', 'net_amount'],
    numeric: ['collections_count'],
  }),
  // previously_paid: paid under earlier statements of the period (net_amount is what is due now);
  // paid_on and superseded_by: a disputed statement that had been paid, and by which it was replaced.
  table: ['settlement_number', 'status', 'total_collections', 'previously_paid', 'net_amount', 'payment_date', 'payment_reference', 'paid_on', 'superseded_by', 'id'],
};

export const KEY_FIELDS = ['id', 'client', 'role', 'key', 'created_at', 'revoked_at'] as const satisfies readonly (keyof ApiKeyView)[];

export const KEY_LIST: ListSpec<ApiKeyView> = {
  fields: fields<ApiKeyView>(KEY_FIELDS, { headers: { created_at: 'created', revoked_at: 'revoked' } }),
  table: [...KEY_FIELDS],
};

export const SETTING_FIELDS = ['key', 'value', 'default', 'min', 'max', 'choices', 'description'] as const satisfies readonly (keyof SettingView)[];

export const SETTING_LIST: ListSpec<SettingView> = {
  // A choice setting (calendar) has its values in `choices`, written za|none as the table's range.
  fields: fields<SettingView>(SETTING_FIELDS, { headers: { description: 'what it controls' } }).map((f) =>
    f.name === 'choices' ? { ...f, value: (s: SettingView) => (s.choices ? s.choices.join('|') : null) } : f,
  ),
  table: ['key', 'value', 'default', { name: 'range', value: (s) => (s.choices ? s.choices.join('|') : `${s.min}-${s.max}`) }, 'description'],
};

/** A saved profile as `premia profiles` lists it (the key redacted). */
export interface ProfileRow {
  name: string;
  current: boolean;
  base_url: string;
  client: string | null;
  api_key: string;
}

export const PROFILE_FIELDS = ['name', 'current', 'base_url', 'client', 'api_key'] as const satisfies readonly (keyof ProfileRow)[];

export const PROFILE_LIST: ListSpec<ProfileRow> = {
  fields: fields<ProfileRow>(PROFILE_FIELDS, { headers: { api_key: 'key' } }),
  table: [{ name: 'current', header: ' ', value: (p) => (p.current ? '*' : '') }, 'name', 'base_url', 'client', 'api_key'],
};
