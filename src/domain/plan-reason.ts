/**
 * Why a debit was planned: a code and the numbers behind it. Stored as numbers with each
 * submitted debit (the plan batches of the store), rendered in words by the strategy that owns
 * the code (`collections explain`), so a code, once used, keeps its number and meaning.
 */
import { deflateRaw, inflateRawSync } from 'node:zlib';

export interface Why {
  code: WhyCode;
  /**
   * 0 none, 1 income observed, 2 income predicted, 3 income predicted on the action day itself,
   * the last business day before a weekend or holiday.
   */
  trigger: 0 | 1 | 2 | 3;
  /** Days between the income and the debit. */
  triggerDays: number;
  triggerDay: number;
  triggerAmount: number;
  /** The balance the engine expected at the debit (cents). */
  estimate: number;
  /** Irregular earners: which partial debit, of at most how many. */
  part: number;
  maxSplit: number;
  /** What was still due when planned (cents). */
  remaining: number;
  /** Last chance: 1 when the full amount due was planned, 0 when what the account can bear. */
  full: number;
  /** Naive retries: the day of the failed attempt. */
  lastAttemptDay: number;
}

export const WhyCode = {
  NAIVE_FIRST: 1,
  NAIVE_RETRY: 2,
  SMART_AFTER_INCOME: 3,
  SMART_PARTIAL: 4,
  SMART_REST: 5,
  SMART_IRREGULAR_MONTH_END: 6,
  SMART_NO_INCOME_ENOUGH: 7,
  SMART_NO_INCOME_MONTH_END: 8,
  SMART_LAST_CHANCE: 9,
  ORACLE: 10,
  SMART_BALANCE: 11,
  SMART_SEEN_BALANCE: 12,
  SMART_SEEN_BALANCE_SHARE: 13,
  SMART_PARTIAL_SHARE: 14,
  SMART_PARTIAL_BALANCE: 15,
  SMART_IRREGULAR_NO_DEPOSIT_DUE: 16,
  SMART_PAYDAY_BEFORE_CLOSED_DAYS: 17,
  SMART_MONTH_END_PAYDAY: 18,
  SMART_MONTH_END_NEW_ACCOUNT: 19,
} as const;
export type WhyCode = (typeof WhyCode)[keyof typeof WhyCode];

/** A reason with every number at zero but the code (strategies fill in what they know). */
export function blankWhy(code: WhyCode): Why {
  return {
    code,
    trigger: 0,
    triggerDays: 0,
    triggerDay: 0,
    triggerAmount: 0,
    estimate: 0,
    part: 0,
    maxSplit: 0,
    remaining: 0,
    full: 0,
    lastAttemptDay: 0,
  };
}

/** A debit submitted to the bank for an action day, as kept in the store. */
export interface SubmittedDebit {
  /** The collection's row id. */
  collection: number;
  /** The action day (day number). */
  day: number;
  amount: number;
  why: Why;
}

/**
 * A submitted debit as numbers (the engine's plan columns, the store's plan batches): PLAN_INTS
 * integers (collection, action day, and its reason's code, trigger, triggerDays, triggerDay,
 * part, maxSplit, full, lastAttemptDay) and PLAN_REALS doubles (amount, and its reason's
 * triggerAmount, estimate, remaining).
 */
export const PLAN_INTS = 10;
export const PLAN_REALS = 4;

/**
 * A packed batch of submitted debits, as the engine fills it (and stores it compressed: storedBatch):
 * PLAN_BATCH_VERSION and the count n (Int32), the n debits' PLAN_INTS integers, then their
 * PLAN_REALS doubles (at byte 8 + 4·PLAN_INTS·n, a multiple of 8).
 */
export const PLAN_BATCH_VERSION = 1;
/** The most debits a batch holds (a client's day with more is kept in several, in order). */
export const PLAN_BATCH = 65_536;
/** Bytes of a packed batch of n debits. */
export const planBatchBytes = (n: number): number => 8 + n * (4 * PLAN_INTS + 8 * PLAN_REALS);

/** The integers and the doubles of a batch laid out for `cap` debits in `buf`. */
export function planBatchViews(buf: ArrayBuffer, cap: number): { ints: Int32Array; reals: Float64Array } {
  return { ints: new Int32Array(buf, 8, cap * PLAN_INTS), reals: new Float64Array(buf, 8 + cap * 4 * PLAN_INTS, cap * PLAN_REALS) };
}

/** Write the head of a batch of n debits in `buf`. */
export function sealPlanBatch(buf: ArrayBuffer, n: number): void {
  const head = new Int32Array(buf, 0, 2);
  head[0] = PLAN_BATCH_VERSION;
  head[1] = n;
}

/**
 * A packed batch as the store keeps it: compressed (raw deflate, level 1: a million debits'
 * reasons are ~55 MB packed, ~11 MB stored) on libuv's thread pool, in a buffer of its own (it
 * may be handed to another thread). `packed` must not change until this resolves. Its output
 * in one chunk as large as the input: zlib's default of 16 KiB makes a batch ~60 tasks of the
 * pool, each queued by the main thread when the one before ends, so a batch filled while the
 * main thread is busy (a day's planning) waits for it, held uncompressed (issue 13).
 */
export function storedBatch(packed: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) =>
    deflateRaw(packed, { level: 1, chunkSize: Math.max(16 * 1024, packed.byteLength) }, (e, z) => {
      if (e) reject(e);
      else resolve(z.byteOffset === 0 && z.byteLength === z.buffer.byteLength ? z : new Uint8Array(z));
    }),
  );
}

/** The packed batch of a stored one, in a buffer of its own (for planBatchViews). */
export function packedBatch(stored: Uint8Array): ArrayBuffer {
  return new Uint8Array(inflateRawSync(stored)).buffer;
}

/** The debits of a stored batch, in order. */
export function readStoredBatch(stored: Uint8Array): SubmittedDebit[] {
  return unpackBatch(inflateRawSync(stored));
}

/** The debits of a packed batch, in order. */
export function unpackBatch(packed: Uint8Array): SubmittedDebit[] {
  // Copied into aligned arrays (an inflated buffer need not be 8-byte aligned).
  const head = new Int32Array(2);
  new Uint8Array(head.buffer).set(packed.subarray(0, 8));
  if (head[0] !== PLAN_BATCH_VERSION) throw new Error(`unknown plan batch version ${head[0]}`);
  const n = head[1]!;
  const ints = new Int32Array(n * PLAN_INTS);
  new Uint8Array(ints.buffer).set(packed.subarray(8, 8 + ints.byteLength));
  const reals = new Float64Array(n * PLAN_REALS);
  new Uint8Array(reals.buffer).set(packed.subarray(8 + ints.byteLength, 8 + ints.byteLength + reals.byteLength));
  const out: SubmittedDebit[] = [];
  for (let k = 0; k < n; k++) out.push(unpackSubmitted(ints, k * PLAN_INTS, reals, k * PLAN_REALS));
  return out;
}

/** Writes one submitted debit's numbers at ints[o..o+PLAN_INTS) and reals[r..r+PLAN_REALS). */
export function packSubmitted(ints: Int32Array, o: number, reals: Float64Array, r: number, collection: number, day: number, amount: number, w: Why): void {
  ints[o] = collection;
  ints[o + 1] = day;
  ints[o + 2] = w.code;
  ints[o + 3] = w.trigger;
  ints[o + 4] = w.triggerDays;
  ints[o + 5] = w.triggerDay;
  ints[o + 6] = w.part;
  ints[o + 7] = w.maxSplit;
  ints[o + 8] = w.full;
  ints[o + 9] = w.lastAttemptDay;
  reals[r] = amount;
  reals[r + 1] = w.triggerAmount;
  reals[r + 2] = w.estimate;
  reals[r + 3] = w.remaining;
}

/** The submitted debit whose numbers packSubmitted wrote at ints[o..] and reals[r..]. */
export function unpackSubmitted(ints: Int32Array, o: number, reals: Float64Array, r: number): SubmittedDebit {
  return {
    collection: ints[o]!,
    day: ints[o + 1]!,
    amount: reals[r]!,
    why: {
      code: ints[o + 2]! as Why['code'],
      trigger: ints[o + 3]! as Why['trigger'],
      triggerDays: ints[o + 4]!,
      triggerDay: ints[o + 5]!,
      triggerAmount: reals[r + 1]!,
      estimate: reals[r + 2]!,
      part: ints[o + 6]!,
      maxSplit: ints[o + 7]!,
      remaining: reals[r + 3]!,
      full: ints[o + 8]!,
      lastAttemptDay: ints[o + 9]!,
    },
  };
}
