import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allocateProRata,
  COLLECTIONS_FEE_RATE,
  countWeights,
  DISTRIBUTION_FEE_RATE,
  ProRataAllocator,
  settlementFigures,
  SORT_ALL_WEIGHTS,
  StatementSplitter,
  VAT_RATE,
} from '../../src/domain/fees.js';
import { formatCents } from '../../src/domain/money.js';

/** Figures as two-decimal text, in statement order, for readable tables. */
function figuresText(totalCents: number): string[] {
  const f = settlementFigures(totalCents);
  return [f.total_collections, f.distribution_fee, f.collections_fee, f.total_fees, f.vat, f.net_amount].map(formatCents);
}

const cents = (text: string) => Math.round(Number(text) * 100);

describe('settlementFigures: the fee rule of the agreement', () => {
  it('keeps the rates of the client agreement', () => {
    expect(DISTRIBUTION_FEE_RATE.toString()).toBe('0.25');
    expect(COLLECTIONS_FEE_RATE.toString()).toBe('0.035');
    expect(VAT_RATE.toString()).toBe('0.15');
  });

  // total, distribution (×0.25), collections (×0.035), total_fees, vat (×0.15 of fees), net
  it.each([
    // the worked example of docs/settlements.md: 308.6425 → 308.64, 43.20995 → 43.21, 52.7775 → 52.78
    ['1234.57', '308.64', '43.21', '351.85', '52.78', '829.94'],
    ['0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
    ['0.01', '0.00', '0.00', '0.00', '0.00', '0.01'],
    // 0.005 rounds half-up to 0.01 (banker's rounding would give 0.00)
    ['0.02', '0.01', '0.00', '0.01', '0.00', '0.01'],
    ['0.03', '0.01', '0.00', '0.01', '0.00', '0.02'],
    // 0.025 → 0.03 half-up (half-even: 0.02)
    ['0.10', '0.03', '0.00', '0.03', '0.00', '0.07'],
    // VAT 0.015 → 0.02: half-up decides the VAT cent
    ['0.35', '0.09', '0.01', '0.10', '0.02', '0.23'],
    ['1.00', '0.25', '0.04', '0.29', '0.04', '0.67'],
    // 3.575 → 3.58; 0.5005 → 0.50; 0.612 → 0.61
    ['14.30', '3.58', '0.50', '4.08', '0.61', '9.61'],
    // 14.285 → 14.29; 1.9999 → 2.00
    ['57.14', '14.29', '2.00', '16.29', '2.44', '38.41'],
    ['100.00', '25.00', '3.50', '28.50', '4.28', '67.22'],
    // 249999.9975 → 250000.00; 34999.99965 → 35000.00
    ['999999.99', '250000.00', '35000.00', '285000.00', '42750.00', '672249.99'],
    // 308641.9725 → 308641.97; 43209.87615 → 43209.88; 52777.7775 → 52777.78
    ['1234567.89', '308641.97', '43209.88', '351851.85', '52777.78', '829938.26'],
    // a million policies at the largest premium
    ['1000000000000.00', '250000000000.00', '35000000000.00', '285000000000.00', '42750000000.00', '672250000000.00'],
  ])('total %s → distribution %s, collections %s, fees %s, VAT %s, net %s', (total, distribution, collections, fees, vat, net) => {
    expect(figuresText(cents(total))).toEqual([total, distribution, collections, fees, vat, net]);
  });

  it('refuses a negative or fractional total', () => {
    expect(() => settlementFigures(-1)).toThrow(RangeError);
    expect(() => settlementFigures(1.5)).toThrow(RangeError);
  });

  it('reconciles exactly and rounds each figure half-up, for thousands of random totals', () => {
    // An independent half-up oracle in integer arithmetic: round(x × n / d) = floor((2xn + d) / 2d).
    const halfUp = (x: bigint, n: bigint, d: bigint) => (2n * x * n + d) / (2n * d);
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 100_000_000_000_000 })), (total) => {
        const f = settlementFigures(total);
        expect(f.net_amount + f.total_fees + f.vat).toBe(total);
        expect(f.total_fees).toBe(f.distribution_fee + f.collections_fee);
        const t = BigInt(total);
        expect(BigInt(f.distribution_fee)).toBe(halfUp(t, 25n, 100n));
        expect(BigInt(f.collections_fee)).toBe(halfUp(t, 35n, 1000n));
        expect(BigInt(f.vat)).toBe(halfUp(BigInt(f.total_fees), 15n, 100n));
        for (const v of Object.values(f)) expect(Number.isSafeInteger(v)).toBe(true);
      }),
      { numRuns: 5000, seed: 4242 },
    );
  });
});

describe('allocateProRata: largest remainder, ties to the larger weight, then the earlier item', () => {
  it.each([
    // amount, weights, shares
    [10, [1, 1, 1], [4, 3, 3]],
    [2, [1, 1, 1], [1, 1, 0]],
    [100, [1, 2, 3], [17, 33, 50]],
    [5, [0, 5, 0], [0, 5, 0]],
    [0, [7, 9], [0, 0]],
    [0, [0, 0], [0, 0]],
    // exact shares need no remainder
    [50, [100, 100], [25, 25]],
    // remainders 0.6, 0.2, 0.2 (× 5): the one cent left goes to the largest
    [1, [3, 1, 1], [1, 0, 0]],
    // three cents left over five equal remainders: the first three get them
    [3, [1, 1, 1, 1, 1], [1, 1, 1, 0, 0]],
    // a later item with a larger remainder beats an earlier one
    [7, [1, 2], [2, 5]],
    // equal remainders (2 of 4 each): the larger weight gets the cent, wherever it stands
    [2, [1, 3], [0, 2]],
    [2, [3, 1], [2, 0]],
  ])('%i over %j → %j', (amount, weights, shares) => {
    expect(allocateProRata(amount, weights)).toEqual(shares);
  });

  it('refuses to split cents over weights that sum to zero', () => {
    expect(() => allocateProRata(1, [0, 0])).toThrow(RangeError);
  });

  it('handles products beyond 2^53 exactly', () => {
    // 2.5e13 × 1e8 is far past Number.MAX_SAFE_INTEGER.
    const weights = [100_000_000, 99_999_999, 1, 33_333_333];
    const total = weights.reduce((a, b) => a + b, 0);
    const amount = Math.floor(total / 4) + 7;
    const shares = allocateProRata(amount, weights);
    expect(shares.reduce((a, b) => a + b, 0)).toBe(amount);
    expect(shares).toEqual([25000003, 25000003, 0, 8333334]);
  });

  it('matches a naive largest-remainder oracle on random data', () => {
    const naive = (amount: number, weights: number[]): number[] => {
      const W = weights.reduce((a, w) => a + BigInt(w), 0n);
      const exact = weights.map((w, i) => ({ i, floor: (BigInt(amount) * BigInt(w)) / W, rem: (BigInt(amount) * BigInt(w)) % W }));
      let left = BigInt(amount) - exact.reduce((a, e) => a + e.floor, 0n);
      const order = [...exact].sort((a, b) =>
        a.rem !== b.rem ? (a.rem > b.rem ? -1 : 1) : weights[a.i] !== weights[b.i] ? weights[b.i]! - weights[a.i]! : a.i - b.i,
      );
      const shares = exact.map((e) => Number(e.floor));
      for (const e of order) {
        if (left === 0n) break;
        shares[e.i]! += 1;
        left -= 1n;
      }
      return shares;
    };
    const weightsArb = fc.oneof(
      fc.array(fc.oneof(fc.constantFrom(0, 1, 14950, 9999), fc.integer({ min: 0, max: 100_000_000 })), { minLength: 1, maxLength: 60 }),
      fc.array(fc.oneof(fc.constantFrom(0, 1, 14950, 9999), fc.integer({ min: 0, max: 100_000_000 })), { minLength: 40, maxLength: 120 }),
    );
    // Plans of up to SORT_ALL_WEIGHTS distinct weights sort their remainders, larger ones select
    // them through a histogram: both ways are met, and both must give the oracle's shares.
    const ways = { sorted: 0, selected: 0 };
    fc.assert(
      fc.property(weightsArb, fc.double({ min: 0, max: 1, noNaN: true }), (weights, fraction) => {
        const W = weights.reduce((a, b) => a + b, 0);
        fc.pre(W > 0);
        ways[countWeights(weights).length <= SORT_ALL_WEIGHTS ? 'sorted' : 'selected']++;
        const amount = Math.floor(W * fraction);
        const shares = allocateProRata(amount, weights);
        expect(shares).toEqual(naive(amount, weights));
        expect(shares.reduce((a, b) => a + b, 0)).toBe(amount);
        // Plain comparisons per item, the items out of bounds asserted once.
        const outOfBounds = weights.flatMap((w, i) => {
          const floor = Math.floor((amount * w) / W);
          // A float floor may be off by one near integers.
          return (w === 0 && shares[i] !== 0) || shares[i]! - floor < -1 || shares[i]! - floor > 1 ? [{ i, w, share: shares[i] }] : [];
        });
        expect(outOfBounds).toEqual([]);
      }),
      { numRuns: 2000, seed: 7 },
    );
    expect(ways.sorted).toBeGreaterThan(500);
    expect(ways.selected).toBeGreaterThan(500);
  });

  it('is exact in Number arithmetic where amount × weight is far beyond 2^53 (BigInt oracle)', () => {
    const weightsArb = fc.array(fc.integer({ min: 0, max: 2_000_000_000 }), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(weightsArb, fc.integer({ min: 1, max: 1_000_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (weights, scale, fraction) => {
        const scaled = weights.map((w) => w * scale); // up to 2e15 per weight
        const W = scaled.reduce((a, b) => a + b, 0);
        fc.pre(W > 0 && W <= Number.MAX_SAFE_INTEGER);
        const amount = Math.floor(W * fraction);
        const shares = allocateProRata(amount, scaled);
        expect(shares.reduce((a, b) => a + b, 0)).toBe(amount);
        scaled.forEach((w, i) => {
          const exact = (BigInt(amount) * BigInt(w)) / BigInt(W);
          expect(BigInt(shares[i]!) - exact === 0n || BigInt(shares[i]!) - exact === 1n).toBe(true);
        });
      }),
      { numRuns: 1000, seed: 11 },
    );
  });

  it('the streaming allocator gives the same shares as the one-shot function', () => {
    const weights = [14950, 14950, 0, 333, 14950, 1, 1];
    const allocator = new ProRataAllocator(9001, countWeights(weights));
    expect(weights.map((w) => allocator.share(w))).toEqual(allocateProRata(9001, weights));
  });
});

describe('StatementSplitter: statement lines that sum to the statement', () => {
  it('splits a small statement exactly', () => {
    const collected = [14950, 14950, 0, 10000, 5];
    const figures = settlementFigures(collected.reduce((a, b) => a + b, 0)); // 399.05
    expect(figuresText(figures.total_collections)).toEqual(['399.05', '99.76', '13.97', '113.73', '17.06', '268.26']);
    const splitter = new StatementSplitter(figures, countWeights(collected));
    const lines = collected.map((c) => splitter.next(c));
    expect(lines).toEqual([
      // equal amounts tie on the distribution fee: the earlier policy gets its spare cent; the
      // second then has the larger rest (112.13 against 112.12), so it gets the collections cent
      { distribution_fee: 3738, collections_fee: 523, total_fees: 4261, vat: 639, net_amount: 10050 },
      { distribution_fee: 3737, collections_fee: 524, total_fees: 4261, vat: 639, net_amount: 10050 },
      { distribution_fee: 0, collections_fee: 0, total_fees: 0, vat: 0, net_amount: 0 },
      { distribution_fee: 2500, collections_fee: 350, total_fees: 2850, vat: 428, net_amount: 6722 },
      { distribution_fee: 1, collections_fee: 0, total_fees: 1, vat: 0, net_amount: 4 },
    ]);
  });

  it('never gives a line a negative net or figure, even on collections of a cent or two', () => {
    // The audit's case: with each figure split on its own, the c=2 line got fees 2, VAT 1, net −1.
    const collected = [1, 2, 1, 2, 1, 2, 2, 2, 2];
    const figures = settlementFigures(collected.reduce((a, b) => a + b, 0));
    const splitter = new StatementSplitter(figures, countWeights(collected));
    for (const c of collected) {
      const line = splitter.next(c);
      for (const v of Object.values(line)) expect(v).toBeGreaterThanOrEqual(0);
      expect(line.total_fees + line.vat + line.net_amount).toBe(c);
    }
    // A hundred one-cent collections: 0.25 + 0.04 fees and 0.04 VAT over lines of 0.01.
    const ones = new Array<number>(100).fill(1);
    const s2 = new StatementSplitter(settlementFigures(100), countWeights(ones));
    const lines = ones.map((c) => s2.next(c));
    expect(lines.every((l) => l.net_amount >= 0 && l.total_fees + l.vat <= 1)).toBe(true);
    expect(lines.filter((l) => l.net_amount === 0)).toHaveLength(33);
  });

  /** Lines of a period split from its own figures: where any is below zero, the collected amounts. */
  const negativeLine = (collected: number[]): number[] | null => {
    const splitter = new StatementSplitter(settlementFigures(collected.reduce((x, y) => x + y, 0)), countWeights(collected));
    for (const c of collected) {
      const line = splitter.next(c);
      if (line.net_amount < 0 || line.vat < 0 || line.distribution_fee < 0 || line.collections_fee < 0) return collected;
    }
    return null;
  };

  it('no line below zero for every period of up to 8 collections of 0.01 or 0.02 (exhaustive)', () => {
    const negative: number[][] = [];
    let periods = 0;
    for (let n = 1; n <= 8; n++) {
      for (let bits = 0; bits < 1 << n; bits++) {
        const bad = negativeLine(Array.from({ length: n }, (_, i) => 1 + ((bits >> i) & 1)));
        if (bad) negative.push(bad);
        periods++;
      }
    }
    expect(periods).toBe(510);
    expect(negative).toEqual([]);
  });

  it('no line below zero for periods of 9 to 40 collections of 0.01 or 0.02 (a fixed budget of random periods)', () => {
    // The exhaustive sweep up to 12 collections (8,190 periods) took 35 s on a busy machine; a
    // fixed-seed sample of 1,500 periods covers the longer ones too.
    fc.assert(
      fc.property(fc.array(fc.constantFrom(1, 2), { minLength: 9, maxLength: 40 }), (collected) => negativeLine(collected) === null),
      { numRuns: 400, seed: 1213 },
    );
  });

  it('every column sums to the statement figure, every line to its collected amount, no line below zero (random data)', () => {
    const amounts = fc.oneof(
      fc.array(
        fc.oneof(fc.constantFrom(0, 1, 2, 3, 14950, 33333), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 100_000_000 })),
        { minLength: 1, maxLength: 200 },
      ),
      // periods of tiny collections only: where a cent of fee and a cent of VAT could meet on one line
      fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 30 }),
    );
    fc.assert(
      fc.property(amounts, (collected) => {
        // Plain comparisons per line (an expect per line made this test take 20 s on a busy
        // machine); the first wrong line is reported with what it should have been.
        const figures = settlementFigures(collected.reduce((a, b) => a + b, 0));
        const splitter = new StatementSplitter(figures, countWeights(collected));
        const sum = { distribution_fee: 0, collections_fee: 0, total_fees: 0, vat: 0, net_amount: 0 };
        for (const c of collected) {
          const line = splitter.next(c);
          const wrong =
            line.total_fees + line.vat + line.net_amount !== c ||
            line.total_fees !== line.distribution_fee + line.collections_fee ||
            Object.values(line).some((v) => !(v >= 0));
          if (wrong) expect({ collected: c, line }).toEqual({ collected: c, line: 'a line that adds up to its collected amount, none below zero' });
          for (const k of Object.keys(sum) as Array<keyof typeof sum>) sum[k] += line[k];
        }
        expect(sum).toEqual({
          distribution_fee: figures.distribution_fee,
          collections_fee: figures.collections_fee,
          total_fees: figures.total_fees,
          vat: figures.vat,
          net_amount: figures.net_amount,
        });
      }),
      { numRuns: 1000, seed: 99 },
    );
  });
});
