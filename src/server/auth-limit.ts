/**
 * Failed authentications per source address. A request without a valid key costs a key lookup
 * and tells its sender something; an address that fails more than `max` times in a window gets
 * 401 with Retry-After until the window ends, decided before any lookup (auth.ts AuthBlocked).
 *
 * Keys that have already authenticated from an address keep working while it is blocked: a good
 * client behind the same NAT (or proxy) as a broken or hostile one is not locked out with it.
 * Only the SHA-256 digests of such keys are remembered, in memory: up to MAX_GOOD_KEYS per
 * address (a proxy in front of that many clients), the least recently used forgotten first, and
 * MAX_GOOD_KEYS_IN_ALL over all addresses (the least recently seen address forgotten first).
 * Every request with one is still checked against the store, so a revoked key stops at once.
 */

/**
 * 100 a minute: keys hold about 238 random bits (40 base62 characters), so the limit guards against floods rather than
 * guessing, and a client's own checks of its error handling (a missing, a wrong and a revoked
 * key on every endpoint) stay well under it.
 */
export const DEFAULT_AUTH_FAILURES = 100;
export const DEFAULT_AUTH_WINDOW_MS = 60_000;
/** Addresses remembered at most (least recently seen forgotten first). */
const MAX_ADDRESSES = 10_000;
/** Good key digests remembered per address (least recently used forgotten first). */
export const MAX_GOOD_KEYS = 1024;
/** Good key digests remembered over all addresses (~100 bytes each). */
const MAX_GOOD_KEYS_IN_ALL = 100_000;

interface Entry {
  windowStart: number;
  failures: number;
  /** Digests of keys that authenticated from the address, least recently used first. */
  good: Set<string>;
}

export class FailedAuthLimiter {
  private readonly entries = new Map<string, Entry>();
  /** Digests remembered over all entries. */
  private goodInAll = 0;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /**
   * Before the lookup: the seconds this address must wait, or null to go on (it is not blocked,
   * or `digest` is a key that authenticated from it before).
   */
  blocked(address: string, digest: string | null): number | null {
    const entry = this.current(address);
    if (!entry || entry.failures < this.max) return null;
    if (digest !== null && entry.good.has(digest)) return null;
    return Math.max(1, Math.ceil((entry.windowStart + this.windowMs - this.now()) / 1000));
  }

  failed(address: string): void {
    const entry = this.current(address) ?? { windowStart: this.now(), failures: 0, good: new Set<string>() };
    if (entry.failures === 0) entry.windowStart = this.now();
    entry.failures++;
    this.touch(address, entry);
  }

  succeeded(address: string, digest: string): void {
    const entry = this.current(address) ?? { windowStart: this.now(), failures: 0, good: new Set<string>() };
    // Used now: the most recently used of the address's keys.
    if (entry.good.delete(digest)) this.goodInAll--;
    entry.good.add(digest);
    this.goodInAll++;
    if (entry.good.size > MAX_GOOD_KEYS) {
      entry.good.delete(entry.good.values().next().value!);
      this.goodInAll--;
    }
    this.touch(address, entry);
  }

  /** The address's entry, its failures reset once their window has passed. */
  private current(address: string): Entry | undefined {
    const entry = this.entries.get(address);
    if (entry && entry.failures > 0 && this.now() >= entry.windowStart + this.windowMs) entry.failures = 0;
    return entry;
  }

  private touch(address: string, entry: Entry): void {
    this.entries.delete(address);
    this.entries.set(address, entry);
    while (this.entries.size > MAX_ADDRESSES || (this.goodInAll > MAX_GOOD_KEYS_IN_ALL && this.entries.size > 1)) {
      const [oldest, gone] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.goodInAll -= gone.good.size;
    }
  }
}
