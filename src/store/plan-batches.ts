/**
 * The debits the engine submits each day, stored as one compressed binary batch per client and
 * planning day instead of one row per debit: writing a million rows of reasons a month was a
 * quarter of the engine's database time. A batch holds, per debit, the collection, the action
 * day, the amount and the reason as numbers (domain/plan-reason.ts `Why`), rendered in words
 * only when someone reads them (`collections explain`).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { PLAN_INTS, PLAN_REALS, unpackSubmitted, type SubmittedDebit } from '../domain/plan-reason.js';
import type { PlanColumns } from '../engine/ports.js';

/** One submitted debit of a batch. */
export type PlanEntry = SubmittedDebit;

// Per debit (domain/plan-reason.ts):
const INTS = PLAN_INTS; // collection, day, code, trigger, triggerDays, triggerDay, part, maxSplit, full, lastAttemptDay
const REALS = PLAN_REALS; // amount, triggerAmount, estimate, remaining
const VERSION = 1;
/** The most debits a batch holds (a client's day with more is stored in several, in order). */
export const PLAN_BATCH = 65_536;

/**
 * Debits k = from .. to - 1 of `rows` packed: VERSION and the count (Int32), their PLAN_INTS
 * integers, then their PLAN_REALS doubles.
 */
export function packPlanColumns(rows: PlanColumns, from: number, to: number): Uint8Array {
  const n = to - from;
  const packed = new Uint8Array(4 * (2 + n * INTS) + 8 * n * REALS);
  const head = new Int32Array(packed.buffer, 0, 2);
  head[0] = VERSION;
  head[1] = n;
  new Int32Array(packed.buffer, 8, n * INTS).set(rows.ints.subarray(from * INTS, to * INTS));
  new Float64Array(packed.buffer, 4 * (2 + n * INTS), n * REALS).set(rows.reals.subarray(from * REALS, to * REALS));
  return packed;
}

/**
 * A client's day of submitted debits as packed batches of at most PLAN_BATCH debits, in order
 * (the first business day of a million-policy month plans ~900,000: as one batch it took ~130 MB
 * to encode).
 */
export function* planBatches(rows: PlanColumns): Generator<Uint8Array> {
  for (let at = 0; at < rows.n; at += PLAN_BATCH) yield packPlanColumns(rows, at, Math.min(rows.n, at + PLAN_BATCH));
}

/** A packed batch (packPlanColumns) as stored. */
export function compressPlans(packed: Uint8Array): Buffer {
  return deflateRawSync(packed, { level: 1 });
}

export function decodePlans(data: Uint8Array): PlanEntry[] {
  const raw = inflateRawSync(data);
  const head = new Int32Array(raw.buffer, raw.byteOffset, 2);
  if (head[0] !== VERSION) throw new Error(`unknown plan batch version ${head[0]}`);
  const n = head[1]!;
  // Copy into aligned arrays (the inflated buffer need not be 8-byte aligned).
  const ints = new Int32Array(2 + n * INTS);
  new Uint8Array(ints.buffer).set(raw.subarray(0, ints.byteLength));
  const reals = new Float64Array(n * REALS);
  new Uint8Array(reals.buffer).set(raw.subarray(ints.byteLength, ints.byteLength + reals.byteLength));
  const out: PlanEntry[] = [];
  for (let k = 0; k < n; k++) out.push(unpackSubmitted(ints, 2 + k * INTS, reals, k * REALS));
  return out;
}
