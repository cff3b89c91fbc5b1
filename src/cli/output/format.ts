/** Human formatting helpers. */
import { moneyText } from './table.js';

export { count, noun, plural } from '../../domain/words.js';

/** Money in human output (sentences, key/value blocks): grouped by thousands like counts, 1,234,567.89. CSV and JSON never group. */
export const money = (cents: number | null | undefined): string => (cents === null || cents === undefined ? '-' : moneyText(cents, true));

/**
 * `part` of `whole` as a percentage with one decimal ("93.6%"), rounded once from the exact
 * ratio (a rate already rounded to 4 decimals and rounded again can read 0.1 point off).
 */
export const percentOf = (part: number, whole: number): string => `${whole === 0 ? '0.0' : (Math.round((part / whole) * 1000) / 10).toFixed(1)}%`;
