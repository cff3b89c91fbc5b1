/** Human formatting helpers. */
import { formatCents } from '../../domain/money.js';

export const money = (cents: number | null | undefined): string => (cents === null || cents === undefined ? '-' : formatCents(cents));

/**
 * 1234567 → "1,234,567" (human output only; CSV and JSON never group digits). Written out
 * rather than toLocaleString, whose first call loads ICU data (about 20 ms of every start).
 */
export function count(n: number): string {
  if (!Number.isInteger(n)) return String(n);
  const digits = String(Math.abs(n));
  const head = digits.length % 3 || 3;
  let out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}
