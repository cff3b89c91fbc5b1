/**
 * JSON with money. Inside premia money is integer cents; on the wire (API bodies and `--json`
 * output) it is a JSON number with exactly two decimals (`149.50`), which JSON.stringify cannot
 * write. Money is recognised by field name: every field listed here is money wherever it
 * appears, and no other field is. The server, the CLI and the remote client all go through
 * these two functions, so the three always agree.
 */
import { centsFromJsonNumber, formatCents } from './money.js';

export const MONEY_FIELDS: ReadonlySet<string> = new Set([
  // policies
  'collection_amount',
  'old_amount',
  'new_amount',
  // collections
  'collection_amount_due',
  'collection_amount_collected',
  'shortfall',
  'amount',
  'amount_due',
  'amount_collected',
  'amount_remaining',
  'expected_amount',
  // bank
  'balance',
  'credits',
  'debits',
  'typical_amount',
  // settlements
  'total_collections',
  'distribution_fee',
  'collections_fee',
  'total_fees',
  'vat',
  'net_amount',
  'previously_paid',
  // summaries
  'collected',
  'due',
  'failed_amount',
]);

/** Serialise like JSON.stringify (compact), writing money fields as numbers with two decimals. */
export function stringifyJson(value: unknown): string {
  return write(value, false);
}

function write(value: unknown, money: boolean): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (money) return formatCents(value);
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          out += write(value[i], money);
        }
        return `${out}]`;
      }
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      if (value instanceof ForeignValue) return JSON.stringify(value.value);
      let out = '{';
      let first = true;
      for (const key of Object.keys(value)) {
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined || typeof v === 'function') continue;
        if (!first) out += ',';
        first = false;
        out += `${JSON.stringify(key)}:${write(v, MONEY_FIELDS.has(key))}`;
      }
      return `${out}}`;
    }
    default:
      return 'null';
  }
}

/**
 * Turn money fields of parsed JSON (decimal numbers) back into integer cents, in place,
 * recursively. Used by the remote client on response bodies; `floatNoise` for another server's
 * (centsFromJsonNumber).
 */
export function moneyToCents<T>(value: T, floatNoise = false): T {
  convert(value, undefined, floatNoise, 0);
  return value;
}

/**
 * A value under a money field's name deep in another server's answer (an extra field of its own:
 * `rates.collections_fee` 0.035, an import error echoing `"collection_amount": "12,50"`) that is
 * not an amount: kept as it came, and written back as it came. The fields premia reads are the
 * answer's own (its top level), where such a value is still refused.
 */
export class ForeignValue {
  constructor(readonly value: number | string) {}
  toJSON(): number | string {
    return this.value;
  }
}

function convert(value: unknown, key: string | undefined, floatNoise: boolean, depth: number): unknown {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = convert(value[i], key, floatNoise, depth + 1);
    return value;
  }
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const k of Object.keys(obj)) obj[k] = convert(obj[k], k, floatNoise, depth + 1);
    return obj;
  }
  if (key !== undefined && MONEY_FIELDS.has(key) && (typeof value === 'number' || typeof value === 'string')) {
    try {
      return centsFromJsonNumber(value, key, floatNoise);
    } catch (e) {
      if (floatNoise && depth > 1) return new ForeignValue(value);
      throw e;
    }
  }
  return value;
}
