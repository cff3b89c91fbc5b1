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

/**
 * A list of strings packed into one byte array (UTF-8) with their end offsets: a million short
 * identifiers held as JS strings in an array cost ~32 bytes each on the heap, packed ~14.
 * Decoded again on each `get`.
 */
export class PackedStrings {
  private bytes = new Uint8Array(1024);
  private ends = new Int32Array(64);
  private n = 0;
  /** Whether every string pushed is ASCII (decoded byte for character, without a decoder). */
  private ascii = true;
  private static readonly encoder = new TextEncoder();
  private static readonly decoder = new TextDecoder();

  get length(): number {
    return this.n;
  }

  push(s: string): void {
    const at = this.n === 0 ? 0 : this.ends[this.n - 1]!;
    // An ASCII string (identifiers are: domain/identifiers.ts) is copied code unit by code unit.
    let end = at + s.length;
    this.bytes = grown(this.bytes, end);
    let k = 0;
    for (; k < s.length; k++) {
      const c = s.charCodeAt(k);
      if (c >= 0x80) break;
      this.bytes[at + k] = c;
    }
    if (k < s.length) {
      const utf8 = PackedStrings.encoder.encode(s);
      end = at + utf8.length;
      this.bytes = grown(this.bytes, end);
      this.bytes.set(utf8, at);
      this.ascii = false;
    }
    this.ends = grown(this.ends, this.n + 1);
    this.ends[this.n++] = end;
  }

  /**
   * String i's length in bytes when every string is ASCII (a byte a character), its bytes copied
   * into `out` from `at` when they fit; -1 when some string is not (read it with `get`).
   */
  asciiInto(i: number, out: Uint8Array, at: number): number {
    if (!this.ascii) return -1;
    const start = this.start(i);
    const length = this.ends[i]! - start;
    if (at + length <= out.length) out.set(this.bytes.subarray(start, start + length), at);
    return length;
  }

  get(i: number): string {
    const part = this.bytes.subarray(this.start(i), this.ends[i]);
    return this.ascii ? String.fromCharCode(...part) : PackedStrings.decoder.decode(part);
  }

  /** Where string i's bytes start (it ends at ends[i]). */
  private start(i: number): number {
    if (i < 0 || i >= this.n) throw new RangeError(`no string ${i} of ${this.n}`);
    return i === 0 ? 0 : this.ends[i - 1]!;
  }
}
