/**
 * Numbers in sentences: digits grouped by thousands, and a noun that agrees with its count
 * ("1 day", "2 days"). Every message that counts something goes through `plural`, so no
 * message ever says "1 days".
 */

/**
 * 1234567 → "1,234,567" (human output only; CSV and JSON never group digits). Written out
 * rather than toLocaleString, whose first call loads ICU data (milliseconds of every start).
 */
export function count(n: number): string {
  if (!Number.isInteger(n)) return String(n);
  const digits = String(Math.abs(n));
  const head = digits.length % 3 || 3;
  let out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/** `n` and the noun in agreement: plural(1, 'day') → "1 day"; plural(2, 'policy', 'policies') → "2 policies". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${noun(n, one, many)}`;
}

/** The noun alone, in agreement with `n`. */
export function noun(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/**
 * Edit distance (short words: command names, client names): insertions, deletions, substitutions
 * and two neighbouring letters swapped (`beat` for `beta`), each one edit (the optimal string
 * alignment distance).
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, before[j - 2]! + 1);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * Whether `a` reads as a typo of `b` (both as given: fold case first where it does not count): an
 * edit or two apart, one when either is 5 characters or fewer. Equal words are no typo.
 */
export function isTypoOf(a: string, b: string): boolean {
  return a !== b && editDistance(a, b) <= (Math.min(a.length, b.length) <= 5 ? 1 : 2);
}
