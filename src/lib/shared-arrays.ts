/**
 * Typed arrays to post to another thread without detaching anything.
 *
 * Posting a buffer in a transfer list detaches it, and the first buffer an isolate ever detaches
 * invalidates V8's "array buffer detaching" protector: every optimized function of that thread
 * that reads or writes a typed array is thrown away at that moment and compiled again, with a
 * check for a detached buffer on each access from then on (issue 13: 129 optimized functions of
 * the engine thrown away at once on the 100k month's first business day, ~1 s more compiling).
 * A copy in a SharedArrayBuffer is posted with no transfer list: the other thread shares it.
 */

type View = Int32Array | Uint8Array | Float64Array;

/**
 * A copy of `a` in a SharedArrayBuffer of its own, of the same element type and length (a plain
 * Uint8Array for a Node Buffer, whose own constructor is deprecated).
 */
export function sharedCopy(a: Float64Array): Float64Array;
export function sharedCopy(a: Int32Array): Int32Array;
export function sharedCopy(a: Uint8Array): Uint8Array;
export function sharedCopy(a: View): View;
export function sharedCopy(a: View): View {
  const buffer = new SharedArrayBuffer(a.byteLength);
  let out: View;
  if (a instanceof Float64Array) out = new Float64Array(buffer);
  else if (a instanceof Int32Array) out = new Int32Array(buffer);
  else if (a instanceof Uint8Array) out = new Uint8Array(buffer);
  else throw new TypeError(`sharedCopy: no copy for a ${(a as object).constructor.name}`);
  out.set(a);
  return out;
}

/** `rows` with each of its typed arrays replaced by its sharedCopy (other fields as they are). */
export function sharedColumns<R extends object>(rows: R): R {
  const out = { ...rows } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) if (ArrayBuffer.isView(v)) out[k] = sharedCopy(v as View);
  return out as R;
}
