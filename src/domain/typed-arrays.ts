/**
 * Growing typed arrays: the column buffers of the engine, the bank and the fee tables grow by
 * doubling, keeping what they hold.
 */

type Column = Int32Array | Uint8Array | Float64Array;

/** `a` with room for at least `length` values: itself when it has it, else a copy twice as long (or `length`). */
export function grown<T extends Column>(a: T, length: number): T {
  if (length <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(length, a.length * 2));
  b.set(a);
  return b;
}
