/**
 * Seeded, non-cryptographic hashing and random numbers. Every random choice premia makes in
 * a simulation comes from here, so the same seed and inputs always give the same results.
 * Not for secrets: API keys use node:crypto.
 */

/** 32-bit hash of a string (murmur3-style mixing of UTF-16 code units), with a seed. */
export function hashString32(s: string, seed = 0): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (let i = 0; i < s.length; i++) {
    let k = s.charCodeAt(i);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= s.length;
  return fmix32(h);
}

/** Murmur3's finaliser: a full avalanche of 32 bits. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Combine two 32-bit values into a well-mixed 32-bit value. */
export function mix32(a: number, b: number): number {
  return fmix32((Math.imul(a ^ 0x27d4eb2f, 0x165667b1) + b) | 0);
}

/** A uniform float in [0, 1) from a 32-bit hash. */
export function unitFloat(h: number): number {
  return (h >>> 0) / 4294967296;
}

/** A small fast seeded generator (mulberry32). */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Next 32-bit unsigned integer. */
  nextU32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Uniform float in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}
