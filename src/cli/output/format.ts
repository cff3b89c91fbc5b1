/** Human formatting helpers. */
import { formatCents } from '../../domain/money.js';

export const money = (cents: number | null | undefined): string => (cents === null || cents === undefined ? '-' : formatCents(cents));

/** 1234567 → "1,234,567" (human output only; CSV and JSON never group digits). */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}
