/** A customer is known per client: the same customer_id at two clients is two customers. */

/**
 * A map keyed by customer: one map of customer ids per client. A lookup hashes the customer id
 * string itself, whose hash the string keeps, where a key joining client and customer would be
 * a new string to build and hash at every call (issue 13).
 */
export class CustomerMap<V> {
  private readonly byClient = new Map<number, Map<string, V>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(clientId: number, customerId: string): V | undefined {
    return this.byClient.get(clientId)?.get(customerId);
  }

  has(clientId: number, customerId: string): boolean {
    return this.byClient.get(clientId)?.has(customerId) === true;
  }

  set(clientId: number, customerId: string, value: V): this {
    let ids = this.byClient.get(clientId);
    if (ids === undefined) this.byClient.set(clientId, (ids = new Map<string, V>()));
    if (!ids.has(customerId)) this.count++;
    ids.set(customerId, value);
    return this;
  }
}

/**
 * Customers numbered 0, 1, 2… in the order first seen, for a read that knows about how many it
 * will meet: an open-addressing table of that size, made once (doubled if more come), the key
 * compared with the ids kept. A Map of 800,000 customer ids grows and rehashes as it fills:
 * numbering a million-policy load's rows through CustomerMap takes the engine's thread many
 * times as long (issue 13).
 */
export class CustomerNumbers {
  readonly clientId: number[] = [];
  readonly customerId: string[] = [];
  private slots: Int32Array;
  private mask: number;

  /** About `expected` customers (a hint: more are numbered too). */
  constructor(expected: number) {
    let size = 16;
    while (size < 2 * expected) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
  }

  get size(): number {
    return this.customerId.length;
  }

  /** The number of (client, customer), given the next one when first seen. */
  number(clientId: number, customerId: string): number {
    let x = this.slotOf(clientId, customerId);
    for (;;) {
      const v = this.slots[x]!;
      if (v === 0) break;
      if (this.customerId[v - 1] === customerId && this.clientId[v - 1] === clientId) return v - 1;
      x = (x + 1) & this.mask;
    }
    const k = this.customerId.length;
    this.clientId.push(clientId);
    this.customerId.push(customerId);
    this.slots[x] = k + 1;
    if (2 * (k + 1) > this.slots.length) this.grow();
    return k;
  }

  /** The number of (client, customer), or -1 when it has none. */
  find(clientId: number, customerId: string): number {
    for (let x = this.slotOf(clientId, customerId); ; x = (x + 1) & this.mask) {
      const v = this.slots[x]!;
      if (v === 0) return -1;
      if (this.customerId[v - 1] === customerId && this.clientId[v - 1] === clientId) return v - 1;
    }
  }

  /** Twice the slots, every customer placed again (at most half the slots are ever in use). */
  private grow(): void {
    this.slots = new Int32Array(2 * this.slots.length);
    this.mask = this.slots.length - 1;
    for (let k = 0; k < this.customerId.length; k++) {
      let x = this.slotOf(this.clientId[k]!, this.customerId[k]!);
      while (this.slots[x] !== 0) x = (x + 1) & this.mask;
      this.slots[x] = k + 1;
    }
  }

  private slotOf(clientId: number, customerId: string): number {
    let h = Math.imul(clientId ^ HASH_SEED, 0x9e3779b1);
    for (let j = 0; j < customerId.length; j++) h = Math.imul(h ^ customerId.charCodeAt(j), 0x01000193);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    return (h ^ (h >>> 13)) & this.mask;
  }
}

/**
 * CustomerNumbers' hash starts from a value drawn for each process: customer ids come from files
 * (a policy import), and ids made to share slots under a hash known in advance would turn each
 * lookup into a walk through all of them (V8's own string hash is seeded for the same reason).
 * The numbers given never depend on it.
 */
const HASH_SEED = globalThis.crypto.getRandomValues(new Uint32Array(1))[0]! | 0;

/** A set of customers (a CustomerMap of nothing). */
export class CustomerSet extends CustomerMap<true> {
  add(clientId: number, customerId: string): this {
    return this.set(clientId, customerId, true);
  }
}

/** Which customers a read keeps. */
export interface CustomerFilter {
  has(clientId: number, customerId: string): boolean;
}

/**
 * Customers k of `clientId`/`customerId` for which `pick(k)` holds (every one when omitted), as a
 * filter whose set is made when it is first asked: a read that finds no row (a store with no
 * imported rows, no kept balances or no past debits) never pays for a set of a million
 * customers.
 */
export function lazyCustomerFilter(clientId: ArrayLike<number>, customerId: readonly string[], pick?: (k: number) => boolean): CustomerFilter {
  let set: CustomerSet | null = null;
  return {
    has(c, id) {
      if (set === null) {
        set = new CustomerSet();
        for (let k = 0; k < customerId.length; k++) if (pick === undefined || pick(k)) set.add(clientId[k]!, customerId[k]!);
      }
      return set.has(c, id);
    },
  };
}
