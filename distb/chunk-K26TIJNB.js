// dist/domain/hash.js
function hashString32(s, seed = 0) {
  let h = (seed ^ 2654435769) >>> 0;
  for (let i = 0; i < s.length; i++) {
    let k = s.charCodeAt(i);
    k = Math.imul(k, 3432918353);
    k = k << 15 | k >>> 17;
    k = Math.imul(k, 461845907);
    h ^= k;
    h = h << 13 | h >>> 19;
    h = Math.imul(h, 5) + 3864292196 | 0;
  }
  h ^= s.length;
  return fmix32(h);
}
function fmix32(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 2246822507);
  h ^= h >>> 13;
  h = Math.imul(h, 3266489909);
  h ^= h >>> 16;
  return h >>> 0;
}
function mix32(a, b) {
  return fmix32(Math.imul(a ^ 668265263, 374761393) + b | 0);
}
function unitFloat(h) {
  return (h >>> 0) / 4294967296;
}
var Rng = class {
  state;
  constructor(seed) {
    this.state = seed >>> 0;
  }
  /** Next 32-bit unsigned integer. */
  nextU32() {
    this.state = this.state + 1831565813 | 0;
    let t = this.state;
    t = Math.imul(t ^ t >>> 15, t | 1);
    t ^= t + Math.imul(t ^ t >>> 7, t | 61);
    return (t ^ t >>> 14) >>> 0;
  }
  /** Uniform float in [0, 1). */
  next() {
    return this.nextU32() / 4294967296;
  }
  /** Uniform integer in [min, max]. */
  int(min, max) {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick(items) {
    return items[Math.floor(this.next() * items.length)];
  }
};

export {
  hashString32,
  fmix32,
  mix32,
  unitFloat,
  Rng
};
