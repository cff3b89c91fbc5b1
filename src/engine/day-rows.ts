/**
 * A day's rows as the engine makes them: its attempts, the collections they changed and the
 * debits it submits, in typed arrays rather than one object per row (a million-policy month's
 * first business day plans, attempts and updates ~900,000 of each), handed to the store as
 * columns (ports.ts AttemptColumns, UpdateColumns, PlanColumns).
 */
import { fromDayNumber } from '../domain/period.js';
import { packSubmitted, PLAN_INTS, PLAN_REALS, type Why } from '../domain/plan-reason.js';
import { grown } from '../domain/typed-arrays.js';
import type { CollectionSet } from './collection-set.js';
import type { AttemptColumns, DayUnit, PlanColumns, UpdateColumns } from './ports.js';

/** Debits submitted at the end of a day for one client, growing as they are planned. */
export class PlanBuffer implements PlanColumns {
  n = 0;
  ints = new Int32Array(64 * PLAN_INTS);
  reals = new Float64Array(64 * PLAN_REALS);

  push(collection: number, day: number, amount: number, w: Why): void {
    this.ints = grown(this.ints, (this.n + 1) * PLAN_INTS);
    this.reals = grown(this.reals, (this.n + 1) * PLAN_REALS);
    packSubmitted(this.ints, this.n * PLAN_INTS, this.reals, this.n * PLAN_REALS, collection, day, amount, w);
    this.n++;
  }

  /**
   * The debits in collection id order. The order they are planned in is the working set's
   * account order, which depends on how it was loaded (from the collections, or from the image's
   * blocks of one wake day each): stored in id order, the same month gives the same plan batches
   * lived in one advance or day by day. Usually already in order (a pass, no copy).
   */
  inIdOrder(): this {
    const n = this.n;
    const ints = this.ints;
    let k = 1;
    while (k < n && ints[(k - 1) * PLAN_INTS]! < ints[k * PLAN_INTS]!) k++;
    if (k >= n) return this;
    const order = orderBy(n, (j) => ints[j * PLAN_INTS]!);
    const sortedInts = new Int32Array(ints.length);
    const sortedReals = new Float64Array(this.reals.length);
    for (let to = 0; to < n; to++) {
      const from = order[to]!;
      sortedInts.set(ints.subarray(from * PLAN_INTS, (from + 1) * PLAN_INTS), to * PLAN_INTS);
      sortedReals.set(this.reals.subarray(from * PLAN_REALS, (from + 1) * PLAN_REALS), to * PLAN_REALS);
    }
    this.ints = sortedInts;
    this.reals = sortedReals;
    return this;
  }
}

/** The debits planned at the end of a day, per client (clients in the order their first debit was planned). */
export class DayPlans {
  readonly byClient = new Map<number, PlanBuffer>();
  count = 0;

  push(clientId: number, collection: number, day: number, amount: number, why: Why): void {
    let b = this.byClient.get(clientId);
    if (!b) this.byClient.set(clientId, (b = new PlanBuffer()));
    b.push(collection, day, amount, why);
    this.count++;
  }
}

/** The day's submitted debits to the store, each client's in collection id order. */
export async function insertPlans(unit: DayUnit, plans: DayPlans, planDay: number): Promise<void> {
  if (plans.count === 0) return;
  const date = fromDayNumber(planDay);
  for (const [clientId, rows] of plans.byClient) await unit.insertPlanColumns(date, clientId, rows.inIdOrder());
}

/**
 * The attempts a day makes, in the order they are made: the collection (its column), the
 * amount and the failure code of each. Scratch reused by every day of a working set.
 */
export class DayAttempts {
  n = 0;
  col = new Int32Array(1024);
  amount = new Float64Array(1024);
  reason = new Uint8Array(1024);

  push(c: number, amount: number, reason: number): void {
    if (this.n === this.col.length) {
      this.col = grown(this.col, this.n + 1);
      this.amount = grown(this.amount, this.n + 1);
      this.reason = grown(this.reason, this.n + 1);
    }
    this.col[this.n] = c;
    this.amount[this.n] = amount;
    this.reason[this.n] = reason;
    this.n++;
  }

  /**
   * The attempts as stored: in (client, policy_number) order (rowid order is report order), of
   * which `rank` gives each collection's place (collection-set.ts).
   */
  columns(cs: CollectionSet, clientOf: (c: number) => number): AttemptColumns {
    const n = this.n;
    const order = orderBy(n, (j) => cs.rank[this.col[j]!]!);
    const rows: AttemptColumns = {
      n,
      clientId: new Int32Array(n),
      collectionId: new Int32Array(n),
      period: new Uint8Array(n),
      periods: cs.periods.map((p) => p.period),
      amount: new Float64Array(n),
      reason: new Uint8Array(n),
    };
    for (let k = 0; k < n; k++) {
      const j = order[k]!;
      const c = this.col[j]!;
      rows.clientId[k] = clientOf(c);
      rows.collectionId[k] = cs.rowid[c]!;
      rows.period[k] = cs.period[c]!;
      rows.amount[k] = this.amount[j]!;
      rows.reason[k] = this.reason[j]!;
    }
    return rows;
  }
}

/** 0 .. n - 1 ordered by `key` (distinct whole numbers from 0 to 2^31 - 1). */
export function orderBy(n: number, key: (j: number) => number): Int32Array {
  const order = new Int32Array(n);
  if (n <= PACKED_MAX) {
    // Key and index packed in one double, sorted natively (no comparator calls).
    const packed = new Float64Array(n);
    for (let j = 0; j < n; j++) packed[j] = key(j) * PACKED_MAX + j;
    packed.sort();
    for (let k = 0; k < n; k++) order[k] = packed[k]! % PACKED_MAX;
    return order;
  }
  for (let j = 0; j < n; j++) order[j] = j;
  const keys = new Float64Array(n);
  for (let j = 0; j < n; j++) keys[j] = key(j);
  return order.sort((a, b) => keys[a]! - keys[b]!);
}
/** Indices up to this many pack with a 31-bit key into a double exactly. */
const PACKED_MAX = 1 << 22;

/** Collections `cols[from .. to - 1]` as they stand, as update columns. */
export function updateColumns(cs: CollectionSet, cols: Int32Array, from: number, to: number): UpdateColumns {
  const n = to - from;
  const rows: UpdateColumns = {
    n,
    id: new Int32Array(n),
    collected: new Float64Array(n),
    status: new Uint8Array(n),
    first: new Int32Array(n),
    last: new Int32Array(n),
    attempts: new Int32Array(n),
    failed: new Int32Array(n),
    failure: new Uint8Array(n),
  };
  for (let k = 0; k < n; k++) {
    const c = cols[from + k]!;
    rows.id[k] = cs.rowid[c]!;
    rows.collected[k] = cs.collected[c]!;
    rows.status[k] = cs.status[c]!;
    rows.first[k] = cs.firstDay[c]!;
    rows.last[k] = cs.lastDay[c]!;
    rows.attempts[k] = cs.attempts[c]!;
    rows.failed[k] = cs.failed[c]!;
    rows.failure[k] = cs.failure[c]!;
  }
  return rows;
}
