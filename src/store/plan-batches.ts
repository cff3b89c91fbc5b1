/**
 * The debits the engine submits each day, stored as one compressed binary batch per client and
 * planning day instead of one row per debit: writing a million rows of reasons a month was a
 * quarter of the engine's database time. A batch holds, per debit, the collection, the action
 * day, the amount and the reason as numbers (domain/plan-reason.ts `Why`), rendered in words
 * only when someone reads them (`collections explain`).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { unpackBatch, type SubmittedDebit } from '../domain/plan-reason.js';

/** One submitted debit of a batch. */
export type PlanEntry = SubmittedDebit;

/** A packed batch (domain/plan-reason.ts, as the engine's PlanBuffer makes them) as stored. */
export function compressPlans(packed: Uint8Array): Buffer {
  return deflateRawSync(packed, { level: 1 });
}

export function decodePlans(data: Uint8Array): PlanEntry[] {
  return unpackBatch(inflateRawSync(data));
}
