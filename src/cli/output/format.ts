/** Human formatting helpers. */
import { moneyText } from './table.js';

export { count, noun, plural } from '../../domain/words.js';

/** Money in human output (sentences, key/value blocks): grouped by thousands like counts, 1,234,567.89. CSV and JSON never group. */
export const money = (cents: number | null | undefined): string => (cents === null || cents === undefined ? '-' : moneyText(cents, true));
