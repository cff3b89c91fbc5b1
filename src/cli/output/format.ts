/** Human formatting helpers. */
import { formatCents } from '../../domain/money.js';

export { count, noun, plural } from '../../domain/words.js';

export const money = (cents: number | null | undefined): string => (cents === null || cents === undefined ? '-' : formatCents(cents));
