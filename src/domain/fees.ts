/**
 * The settlement fee rule of the client agreement (spec 2.5 and 8), and the pro-rata split of
 * the statement's figures over the period's collections (`settlements export --lines`).
 *
 * Each stated figure is rounded to cents half-up with decimal.js; net is what remains, so the
 * statement always reconciles exactly: net_amount + total_fees + vat === total_collections.
 *
 *   distribution_fee = round(total × 0.25)
 *   collections_fee  = round(total × 0.035)
 *   total_fees       = distribution_fee + collections_fee
 *   vat              = round(total_fees × 0.15)
 *   net_amount       = total − total_fees − vat
 *
 * Worked example: total 1234.57 → distribution 308.6425 → 308.64; collections 43.20995 →
 * 43.21; total_fees 351.85; vat 52.7775 → 52.78; net 1234.57 − 351.85 − 52.78 = 829.94.
 */
import { applyRate, Money, type Cents } from './money.js';

/** Distribution fee: 25 % of the total collected (client agreement). */
export const DISTRIBUTION_FEE_RATE = new Money('0.25');
/** Collections fee: 3.5 % of the total collected (client agreement). */
export const COLLECTIONS_FEE_RATE = new Money('0.035');
/** VAT: 15 % of the total fees (client agreement). */
export const VAT_RATE = new Money('0.15');

/** The figures of a settlement statement, in integer cents. */
export interface SettlementFigures {
  total_collections: Cents;
  distribution_fee: Cents;
  collections_fee: Cents;
  total_fees: Cents;
  vat: Cents;
  net_amount: Cents;
}

/** Apply the fee rule to a period's collected total (integer cents, ≥ 0). */
export function settlementFigures(totalCollections: Cents): SettlementFigures {
  if (!Number.isSafeInteger(totalCollections) || totalCollections < 0) {
    throw new RangeError(`total_collections must be a non-negative whole number of cents, not ${totalCollections}`);
  }
  const distribution_fee = applyRate(totalCollections, DISTRIBUTION_FEE_RATE);
  const collections_fee = applyRate(totalCollections, COLLECTIONS_FEE_RATE);
  const total_fees = distribution_fee + collections_fee;
  const vat = applyRate(total_fees, VAT_RATE);
  return {
    total_collections: totalCollections,
    distribution_fee,
    collections_fee,
    total_fees,
    vat,
    net_amount: totalCollections - total_fees - vat,
  };
}

// ---------------------------------------------------------------------------------------------
// Pro-rata allocation (largest remainder)

/**
 * Splits `amount` cents over items in proportion to their weights (collected cents), so the
 * shares are whole cents and sum to `amount` exactly. Each item first gets floor(amount × w /
 * W); the cents left over go, one each, to the items with the largest remainders
 * (amount × w mod W), ties going to the item met first (the caller feeds items in
 * policy_number order). An item with a zero remainder never gets an extra cent.
 *
 * Built for streams of a million items: a share depends only on the item's weight, so the plan
 * needs just the count of items per distinct weight (one pass), and `share(weight)` is then
 * called for every item, in order, in a second pass. Memory is O(distinct weights).
 * Integer arithmetic is done in BigInt (amount × weight can exceed 2^53).
 */
export class ProRataAllocator {
  private readonly amount: bigint;
  private readonly total: bigint;
  /** Items whose remainder is above this get one extra cent. null: nobody does. */
  private readonly threshold: bigint | null;
  /** Of the items whose remainder equals the threshold, this many more get one (first come). */
  private atThresholdLeft: number;
  private readonly cache = new Map<number, { floor: number; remainder: bigint }>();

  /**
   * @param amount the cents to split (≥ 0)
   * @param weightCounts how many items there are of each weight (weights ≥ 0, integer cents)
   */
  constructor(amount: Cents, weightCounts: ReadonlyMap<number, number>) {
    if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`amount must be non-negative cents, not ${amount}`);
    let total = 0n;
    for (const [weight, count] of weightCounts) {
      if (!Number.isSafeInteger(weight) || weight < 0) throw new RangeError(`weight must be non-negative cents, not ${weight}`);
      total += BigInt(weight) * BigInt(count);
    }
    this.amount = BigInt(amount);
    this.total = total;
    if (total === 0n) {
      if (amount !== 0) throw new RangeError(`cannot split ${amount} cents over items that weigh nothing`);
      this.threshold = null;
      this.atThresholdLeft = 0;
      return;
    }
    // Cents still to hand out after every item got its floor, and the remainders by size.
    let left = this.amount;
    const byRemainder = new Map<bigint, number>();
    for (const [weight, count] of weightCounts) {
      const { floor, remainder } = this.split(weight);
      left -= BigInt(floor) * BigInt(count);
      if (remainder > 0n) byRemainder.set(remainder, (byRemainder.get(remainder) ?? 0) + count);
    }
    let threshold: bigint | null = null;
    let atThreshold = 0;
    const remainders = [...byRemainder.keys()].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    for (const r of remainders) {
      if (left === 0n) break;
      const count = BigInt(byRemainder.get(r)!);
      threshold = r;
      if (left >= count) {
        atThreshold = Number(count);
        left -= count;
      } else {
        atThreshold = Number(left);
        left = 0n;
      }
    }
    if (left !== 0n) throw new Error('pro-rata allocation left cents over (weights inconsistent)');
    // Items strictly above the threshold all get a cent; `atThreshold` of those equal to it do.
    this.threshold = threshold;
    this.atThresholdLeft = atThreshold;
  }

  /** The share of the next item (call once per item, in order). */
  share(weight: number): Cents {
    if (this.total === 0n) return 0;
    const { floor, remainder } = this.split(weight);
    if (this.threshold === null || remainder === 0n || remainder < this.threshold) return floor;
    if (remainder > this.threshold) return floor + 1;
    if (this.atThresholdLeft > 0) {
      this.atThresholdLeft--;
      return floor + 1;
    }
    return floor;
  }

  private split(weight: number): { floor: number; remainder: bigint } {
    let s = this.cache.get(weight);
    if (s === undefined) {
      const product = this.amount * BigInt(weight);
      s = { floor: Number(product / this.total), remainder: product % this.total };
      if (this.cache.size < 1_000_000) this.cache.set(weight, s);
    }
    return s;
  }
}

/** Count the items of each weight: the first pass of a ProRataAllocator. */
export function countWeights(weights: Iterable<number>): Map<number, number> {
  const counts = new Map<number, number>();
  for (const w of weights) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/** Split `amount` over `weights` (in item order) by largest remainder; the shares sum to `amount`. */
export function allocateProRata(amount: Cents, weights: readonly number[]): Cents[] {
  const allocator = new ProRataAllocator(amount, countWeights(weights));
  return weights.map((w) => allocator.share(w));
}

/** One collection's part of a statement: each figure of its row in `export --lines`. */
export interface LineShares {
  distribution_fee: Cents;
  collections_fee: Cents;
  total_fees: Cents;
  vat: Cents;
  net_amount: Cents;
}

/**
 * Splits a statement over its collections: distribution fee, collections fee and VAT are each
 * allocated pro rata to the collected amounts (largest remainder); a line's total fees and net
 * follow from them, so every line satisfies collected = total_fees + vat + net and every column
 * sums to the statement's figure.
 */
export class StatementSplitter {
  private readonly distribution: ProRataAllocator;
  private readonly collections: ProRataAllocator;
  private readonly vat: ProRataAllocator;

  constructor(figures: SettlementFigures, collectedCounts: ReadonlyMap<number, number>) {
    this.distribution = new ProRataAllocator(figures.distribution_fee, collectedCounts);
    this.collections = new ProRataAllocator(figures.collections_fee, collectedCounts);
    this.vat = new ProRataAllocator(figures.vat, collectedCounts);
  }

  /** The shares of the next collection (call once per collection, in policy_number order). */
  next(collected: Cents): LineShares {
    const distribution_fee = this.distribution.share(collected);
    const collections_fee = this.collections.share(collected);
    const vat = this.vat.share(collected);
    const total_fees = distribution_fee + collections_fee;
    return { distribution_fee, collections_fee, total_fees, vat, net_amount: collected - total_fees - vat };
  }
}
