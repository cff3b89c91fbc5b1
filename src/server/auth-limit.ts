/**
 * Failed authentications per source address. A request without a valid key costs a key lookup
 * and tells its sender something; an address that fails more than `max` times in a window gets
 * 429 with Retry-After until the window ends, decided before any lookup.
 *
 * Keys that have already authenticated from an address keep working while it is blocked: a good
 * client behind the same NAT (or proxy) as a broken or hostile one is not locked out with it.
 * Only the SHA-256 digests of such keys are remembered (a few per address), in memory; every
 * request with one is still checked against the store, so a revoked key stops at once.
 */

export const DEFAULT_AUTH_FAILURES = 20;
export const DEFAULT_AUTH_WINDOW_MS = 60_000;
/** Addresses remembered at most (least recently seen forgotten first). */
const MAX_ADDRESSES = 10_000;
/** Good key digests remembered per address. */
const MAX_GOOD_KEYS = 8;

interface Entry {
  windowStart: number;
  failures: number;
  good: string[];
}

export class FailedAuthLimiter {
  private readonly entries = new Map<string, Entry>();

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
    if (digest !== null && entry.good.includes(digest)) return null;
    return Math.max(1, Math.ceil((entry.windowStart + this.windowMs - this.now()) / 1000));
  }

  failed(address: string): void {
    const entry = this.current(address) ?? { windowStart: this.now(), failures: 0, good: [] };
    if (entry.failures === 0) entry.windowStart = this.now();
    entry.failures++;
    this.touch(address, entry);
  }

  succeeded(address: string, digest: string): void {
    const entry = this.current(address) ?? { windowStart: this.now(), failures: 0, good: [] };
    if (!entry.good.includes(digest)) {
      entry.good.push(digest);
      if (entry.good.length > MAX_GOOD_KEYS) entry.good.shift();
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
    if (this.entries.size > MAX_ADDRESSES) this.entries.delete(this.entries.keys().next().value!);
  }
}
