/** Human formatting helpers. */
import { moneyText } from './table.js';

export { count, noun, plural } from '../../domain/words.js';

/**
 * Money in sentences for people on stderr (status lines, questions, warnings): grouped by
 * thousands like counts, 1,234,567.89. What goes to stdout (tables, key/value blocks) is grouped
 * on a terminal only: Ui.money. CSV and JSON never group.
 */
export const money = (cents: number | null | undefined): string => (cents === null || cents === undefined ? '-' : moneyText(cents, true));

/**
 * `part` of `whole` as a percentage with one decimal ("93.6%"), rounded once from the exact
 * ratio (a rate already rounded to 4 decimals and rounded again can read 0.1 point off). Never
 * 100.0% short of the whole, nor 0.0% above nothing: 1,000.00 of 1,000.10 is 99.9%, a shortfall
 * shown beside it.
 */
export function percentOf(part: number, whole: number): string {
  if (whole === 0) return '0.0%';
  let tenths = Math.round((part / whole) * 1000);
  if (tenths >= 1000 && part < whole) tenths = 999;
  else if (tenths === 0 && part > 0) tenths = 1;
  return `${(tenths / 10).toFixed(1)}%`;
}
