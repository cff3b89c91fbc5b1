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
import { applyRate, asCents, Money, type Cents } from './money.js';
import { grown } from './typed-arrays.js';

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
export function settlementFigures(totalCollections: number): SettlementFigures {
  if (!Number.isSafeInteger(totalCollections) || totalCollections < 0) {
    throw new RangeError(`total_collections must be a non-negative whole number of cents, not ${totalCollections}`);
  }
  const distribution_fee = applyRate(totalCollections, DISTRIBUTION_FEE_RATE);
  const collections_fee = applyRate(totalCollections, COLLECTIONS_FEE_RATE);
  const total_fees = asCents(distribution_fee + collections_fee);
  const vat = applyRate(total_fees, VAT_RATE);
  return {
    total_collections: asCents(totalCollections),
    distribution_fee,
    collections_fee,
    total_fees,
    vat,
    net_amount: asCents(totalCollections - total_fees - vat),
  };
}

// ---------------------------------------------------------------------------------------------
// Pro-rata allocation (largest remainder)

/**
 * A list of (weight, count) pairs: how many items there are of each weight. A weight may
 * appear more than once (its counts add up). Kept in two growable Float64Arrays, so a million
 * distinct weights take 16 MB and no Map.
 */
export class WeightTable {
  weights = new Float64Array(64);
  counts = new Float64Array(64);
  length = 0;

  static from(pairs: Iterable<readonly [number, number]>): WeightTable {
    const t = new WeightTable();
    for (const [w, n] of pairs) t.push(w, n);
    return t;
  }

  push(weight: number, count: number): void {
    if (!Number.isSafeInteger(weight) || weight < 0) throw new RangeError(`weight must be non-negative cents, not ${weight}`);
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be a non-negative whole number, not ${count}`);
    if (count === 0) return;
    this.weights = grown(this.weights, this.length + 1);
    this.counts = grown(this.counts, this.length + 1);
    this.weights[this.length] = weight;
    this.counts[this.length] = count;
    this.length++;
  }
}

/**
 * floor(a × w / W) and (a × w) mod W, exactly, in Number arithmetic (no BigInt), for
 * 0 ≤ a ≤ W < 2^51 and 0 ≤ w ≤ 2^53: the product is used directly when it is below 2^53
 * (then it is exact), else w is fed in base 2^s digits (Horner), every intermediate kept
 * below 2^53. Results land in `qOut` and `rOut` (no allocation per call).
 */
let qOut = 0;
let rOut = 0;
function mulDivMod(a: number, w: number, W: number, base: number): void {
  const p = a * w;
  if (p <= Number.MAX_SAFE_INTEGER) {
    const r = p % W;
    rOut = r;
    qOut = (p - r) / W;
    return;
  }
  // a × prefix(w) = q × W + r, r < W; per digit d < base: t = base × r + a × d < 2 × base × W ≤ 2^53.
  let pow = 1;
  while (pow * base <= w) pow *= base;
  let q = 0;
  let r = 0;
  let x = w;
  for (; pow >= 1; pow /= base) {
    const d = Math.floor(x / pow);
    x -= d * pow;
    const t = r * base + a * d;
    const rr = t % W;
    q = q * base + (t - rr) / W;
    r = rr;
  }
  qOut = q;
  rOut = r;
}

/** The largest power of two `base` with 2 × base × W ≤ 2^53 (0 when W is too large for Number). */
function digitBase(W: number): number {
  let base = 1;
  while (2 * base * 2 * W <= 2 ** 53) base *= 2;
  return 2 * base * W <= 2 ** 53 && base >= 2 ? base : 0;
}

/** Up to this many distinct weights, the remainders are sorted whole rather than selected. */
export const SORT_ALL_WEIGHTS = 32;

/**
 * Splits `amount` cents over items in proportion to their weights (cents), so the shares are
 * whole cents and sum to `amount` exactly. Each item first gets floor(amount × w / W); the
 * cents left over go, one each, to the items with the largest remainders (amount × w mod W).
 * Ties between equal remainders go to the larger weight, then to the item met first (the
 * caller feeds items in policy_number order). An item with a zero remainder never gets an
 * extra cent, so a share is always floor or ceil of the exact share: never above
 * amount × w / W rounded up, and 0 for a weight of 0.
 *
 * Built for streams of a million items: a share depends only on the item's weight, so the plan
 * needs just the count of items per weight (one pass), and `share(weight)` is then called for
 * every item, in order, in a second pass. The plan is O(distinct weights) in typed arrays; the
 * remainder threshold is found by a histogram selection (no full sort; a plan of at most
 * SORT_ALL_WEIGHTS weights sorts them); a share is recomputed
 * per item in Number arithmetic (exact: see mulDivMod). BigInt is used only when the total
 * weight reaches 2^51 cents, far beyond any statement.
 */
export class ProRataAllocator {
  private readonly amount: number;
  private readonly total: number;
  /** Digit base for mulDivMod; 0: use BigInt. */
  private readonly base: number;
  /** Items whose remainder is above this get one extra cent. -1: nobody does. */
  private readonly threshold: number = -1;
  /** Items whose remainder equals the threshold: how many more of each weight get one (first come). */
  private readonly atThreshold = new Map<number, number>();
  private readonly table: WeightTable;
  private readonly floors: Float64Array;
  private readonly remainders: Float64Array;

  /**
   * @param amount the cents to split (≥ 0)
   * @param weightCounts how many items there are of each weight (weights ≥ 0, integer cents)
   */
  constructor(amount: number, weightCounts: WeightTable | Iterable<readonly [number, number]>) {
    if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`amount must be non-negative cents, not ${amount}`);
    const table = weightCounts instanceof WeightTable ? weightCounts : WeightTable.from(weightCounts);
    this.table = table;
    const n = table.length;
    const { weights, counts } = table;
    let total = 0n;
    let totalN = 0;
    for (let i = 0; i < n; i++) totalN += weights[i]! * counts[i]!;
    if (totalN > Number.MAX_SAFE_INTEGER) {
      for (let i = 0; i < n; i++) total += BigInt(weights[i]!) * BigInt(counts[i]!);
      if (total > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('the weights add up to more than 2^53 cents');
    }
    this.amount = amount;
    this.total = totalN;
    this.floors = new Float64Array(n);
    this.remainders = new Float64Array(n);
    this.base = totalN > 0 && amount <= totalN ? digitBase(totalN) : 0;
    if (totalN === 0) {
      if (amount !== 0) throw new RangeError(`cannot split ${amount} cents over items that weigh nothing`);
      return;
    }
    // Cents still to hand out after every item got its floor.
    let left = amount;
    for (let i = 0; i < n; i++) {
      this.split(weights[i]!);
      this.floors[i] = qOut;
      this.remainders[i] = rOut;
      left -= qOut * counts[i]!;
    }
    if (left === 0) return;
    // The threshold: the largest remainder r ≥ 1 with at least `left` items at r or above.
    // Found by selection, not by sorting every remainder: a histogram of the remainders in
    // 65,536 buckets finds the bucket it lies in; only that bucket's entries are sorted. A plan
    // of a few weights sorts them all (the histogram's 512 KiB would cost more than the sort).
    if (left < 0) throw new Error('pro-rata allocation left cents over (weights inconsistent)');
    let above = 0; // items with a remainder above every candidate's (those in higher buckets)
    const inBucket: number[] = [];
    if (n <= SORT_ALL_WEIGHTS) {
      for (let i = 0; i < n; i++) if (this.remainders[i]! > 0) inBucket.push(i);
    } else {
      const BUCKETS = 1 << 16;
      const bucketOf = (r: number): number => Math.floor((r * BUCKETS) / totalN); // monotone in r
      const histogram = new Float64Array(BUCKETS);
      for (let i = 0; i < n; i++) {
        const r = this.remainders[i]!;
        if (r > 0) histogram[bucketOf(r)]! += counts[i]!;
      }
      let bucket = BUCKETS - 1;
      for (; bucket >= 0; bucket--) {
        if (above + histogram[bucket]! >= left) break;
        above += histogram[bucket]!;
      }
      if (bucket < 0) throw new Error('pro-rata allocation left cents over (weights inconsistent)');
      for (let i = 0; i < n; i++) {
        const r = this.remainders[i]!;
        if (r > 0 && bucketOf(r) === bucket) inBucket.push(i);
      }
    }
    inBucket.sort((a, b) => this.remainders[b]! - this.remainders[a]!);
    let lo = 0;
    let need = left - above;
    for (let k = 0; k < inBucket.length; ) {
      const r = this.remainders[inBucket[k]!]!;
      let atR = 0;
      for (; k < inBucket.length && this.remainders[inBucket[k]!]! === r; k++) atR += counts[inBucket[k]!]!;
      if (atR >= need) {
        lo = r;
        break;
      }
      need -= atR;
    }
    if (lo === 0) throw new Error('pro-rata allocation left cents over (weights inconsistent)');
    this.threshold = lo;
    // Items above the threshold all get a cent; the rest go to those at it, larger weights first.
    const equal = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const r = this.remainders[i]!;
      if (r > lo) left -= counts[i]!;
      else if (r === lo) equal.set(weights[i]!, (equal.get(weights[i]!) ?? 0) + counts[i]!);
    }
    for (const w of [...equal.keys()].sort((a, b) => b - a)) {
      if (left === 0) break;
      const give = Math.min(left, equal.get(w)!);
      this.atThreshold.set(w, give);
      left -= give;
    }
    if (left !== 0) throw new Error('pro-rata allocation left cents over (weights inconsistent)');
  }

  /** The share of the next item (call once per item, in order). */
  share(weight: number): Cents {
    if (this.total === 0) return 0 as Cents;
    this.split(weight);
    const floor = qOut as Cents;
    const up = (qOut + 1) as Cents;
    const remainder = rOut;
    if (remainder === 0 || remainder < this.threshold || this.threshold < 0) return floor;
    if (remainder > this.threshold) return up;
    const left = this.atThreshold.get(weight) ?? 0;
    if (left > 0) {
      this.atThreshold.set(weight, left - 1);
      return up;
    }
    return floor;
  }

  /**
   * The shares the items will get, as counts, without consuming the plan: calls
   * `each(weight, share, count)` for every group of items of one weight with one share.
   * This is what the next allocation of a chain needs for its own plan.
   */
  forEachShare(each: (weight: number, share: number, count: number) => void): void {
    const { weights, counts, length } = this.table;
    const given = new Map(this.atThreshold);
    for (let i = 0; i < length; i++) {
      const w = weights[i]!;
      const n = counts[i]!;
      if (this.total === 0) {
        each(w, 0, n);
        continue;
      }
      const floor = this.floors[i]!;
      const r = this.remainders[i]!;
      if (this.threshold < 0 || r === 0 || r < this.threshold) each(w, floor, n);
      else if (r > this.threshold) each(w, floor + 1, n);
      else {
        const up = Math.min(n, given.get(w) ?? 0);
        if (up > 0) {
          given.set(w, (given.get(w) ?? 0) - up);
          each(w, floor + 1, up);
        }
        if (n - up > 0) each(w, floor, n - up);
      }
    }
  }

  /** floor and remainder of amount × weight / total into qOut / rOut. */
  private split(weight: number): void {
    if (this.base > 0) {
      mulDivMod(this.amount, weight, this.total, this.base);
      return;
    }
    const product = BigInt(this.amount) * BigInt(weight);
    const total = BigInt(this.total);
    qOut = Number(product / total);
    rOut = Number(product % total);
  }
}

/** Count the items of each weight: the first pass of a ProRataAllocator. */
export function countWeights(weights: Iterable<number>): WeightTable {
  const counts = new Map<number, number>();
  for (const w of weights) counts.set(w, (counts.get(w) ?? 0) + 1);
  return WeightTable.from(counts);
}

/** Split `amount` over `weights` (in item order) by largest remainder; the shares sum to `amount`. */
export function allocateProRata(amount: number, weights: readonly number[]): Cents[] {
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
 * Splits a statement over its collections in three nested pro-rata steps (largest remainder
 * each), so that every column sums to the statement's figure, every line satisfies
 * collected = total_fees + vat + net, and no figure of a line is negative:
 *
 *   1. the distribution fee over the collected amounts (as before: within a cent of 25 % of
 *      the line, the largest deduction kept the most exact);
 *   2. the collections fee and VAT together over what each line has left (collected −
 *      distribution fee): a share is at most the line's rest rounded up, i.e. at most the
 *      rest itself, so net = rest − share ≥ 0 whenever the statement's net is;
 *   3. the VAT over each line's share of step 2 (so a line's VAT follows its fees);
 *      collections_fee is the remainder of that share, ≥ 0.
 *
 * Splitting each figure on its own instead can charge a 0.01 line a cent of fee and a cent of
 * VAT (net −0.01). Each step's plan needs only the counts of the previous step's shares, so the
 * whole split still takes one counting pass and one writing pass over the collections.
 */
export class StatementSplitter {
  private readonly distribution: ProRataAllocator;
  private readonly rest: ProRataAllocator;
  private readonly vat: ProRataAllocator;

  constructor(figures: SettlementFigures, collectedCounts: WeightTable | Iterable<readonly [number, number]>) {
    if (figures.net_amount < 0) throw new RangeError('a statement with a negative net cannot be split into lines');
    this.distribution = new ProRataAllocator(figures.distribution_fee, collectedCounts);
    const byRest = new WeightTable();
    this.distribution.forEachShare((collected, distribution, count) => byRest.push(collected - distribution, count));
    this.rest = new ProRataAllocator(figures.collections_fee + figures.vat, byRest);
    const byShare = new WeightTable();
    this.rest.forEachShare((_rest, share, count) => byShare.push(share, count));
    this.vat = new ProRataAllocator(figures.vat, byShare);
  }

  /** The shares of the next collection (call once per collection, in policy_number order). */
  next(collected: number): LineShares {
    const distribution_fee = this.distribution.share(collected);
    const rest = collected - distribution_fee;
    const share = this.rest.share(rest);
    const vat = this.vat.share(share);
    const collections_fee = share - vat;
    return {
      distribution_fee,
      collections_fee: collections_fee as Cents,
      total_fees: (distribution_fee + collections_fee) as Cents,
      vat,
      net_amount: (rest - share) as Cents,
    };
  }
}
