/**
 * A day's rows as the engine makes them: its attempts, the collections they changed and the
 * debits it submits, in typed arrays rather than one object per row (a million-policy month's
 * first business day plans, attempts and updates ~900,000 of each), handed to the store as
 * columns (ports.ts AttemptColumns, UpdateColumns, PlanColumns).
 */
import { fromDayNumber } from '../domain/period.js';
import { packedBatch, packSubmitted, PLAN_BATCH, PLAN_INTS, PLAN_REALS, planBatchBytes, planBatchViews, sealPlanBatch, storedBatch, type Why } from '../domain/plan-reason.js';
import { grown } from '../domain/typed-arrays.js';
import type { CollectionSet } from './collection-set.js';
import type { AttemptColumns, DayUnit, PlanColumns, UpdateColumns } from './ports.js';

/** Buffers of full batches compressed, for the next ones (PlanBuffer.room). */
const spareBatches: ArrayBuffer[] = [];
const SPARE_BATCHES = 2;

/**
 * Debits submitted at the end of a day for one client, packed as they are planned into the
 * batches the store keeps (domain/plan-reason.ts): the first batch grows by doubling up to
 * PLAN_BATCH debits, the next ones are made whole, and each is compressed as the store keeps it
 * once full, on libuv's thread pool while the planning goes on. The first business day of a
 * million-policy month plans ~800,000: ~55 MB packed, ~11 MB compressed, held until the day is
 * written (growing columns, doubled and only then copied into batches, would hold more than twice
 * the packed size at their peak).
 */
export class PlanBuffer implements PlanColumns {
  n = 0;
  /** Batches filled, each PLAN_BATCH debits, as stored (compressed; their counts written). */
  private readonly done: Array<Promise<Uint8Array>> = [];
  private cap = 64;
  private buf = new ArrayBuffer(planBatchBytes(64));
  private ints: Int32Array;
  private reals: Float64Array;
  /** Debits in the batch filling. */
  private m = 0;
  /** Whether the collection ids came in increasing order. */
  private ordered = true;
  private lastId = Number.NEGATIVE_INFINITY;

  constructor() {
    const views = planBatchViews(this.buf, this.cap);
    this.ints = views.ints;
    this.reals = views.reals;
  }

  push(collection: number, day: number, amount: number, w: Why): void {
    if (this.m === this.cap) this.room();
    packSubmitted(this.ints, this.m * PLAN_INTS, this.reals, this.m * PLAN_REALS, collection, day, amount, w);
    if (collection <= this.lastId) this.ordered = false;
    this.lastId = collection;
    this.m++;
    this.n++;
  }

  /** Room for one more debit: the batch filling doubled, or (full) sent to be stored and a new one begun. */
  private room(): void {
    if (this.cap === PLAN_BATCH) {
      const full = this.buf;
      sealPlanBatch(full, PLAN_BATCH);
      const stored = storedBatch(new Uint8Array(full));
      // Its buffer serves a later batch once compressed (a new one each time would leave the old
      // ones waiting for the collector, piling up at the peak of a million-policy month).
      stored.then(() => void (spareBatches.length < SPARE_BATCHES && spareBatches.push(full))).catch(() => {}); // a failure is seen by batches()
      this.done.push(stored);
      this.m = 0;
    }
    const cap = Math.min(this.cap * 2, PLAN_BATCH);
    const buf = (cap === PLAN_BATCH ? spareBatches.pop() : undefined) ?? new ArrayBuffer(planBatchBytes(cap));
    const { ints, reals } = planBatchViews(buf, cap);
    if (this.m > 0) {
      ints.set(this.ints.subarray(0, this.m * PLAN_INTS));
      reals.set(this.reals.subarray(0, this.m * PLAN_REALS));
    }
    this.cap = cap;
    this.buf = buf;
    this.ints = ints;
    this.reals = reals;
  }

  /**
   * The debits as stored batches in collection id order (the store keeps them so). The order
   * they are planned in is the working set's account order, which depends on how it was loaded
   * (from the collections, or from the image's blocks of one wake day each): stored in id order,
   * the same month gives the same plan batches lived in one advance or day by day. Usually
   * already in order: the batches as they were stored. Taken once (their buffers may be
   * handed on).
   */
  async batches(): Promise<Uint8Array[]> {
    if (!this.ordered) return this.sortedBatches();
    const out = await Promise.all(this.done);
    const m = this.m;
    if (m === 0) return out;
    sealPlanBatch(this.buf, m);
    // The doubles move down to follow the m debits' integers.
    planBatchViews(this.buf, m).reals.set(this.reals.subarray(0, m * PLAN_REALS));
    out.push(await storedBatch(new Uint8Array(this.buf, 0, planBatchBytes(m))));
    return out;
  }

  /** The debits sorted by collection id (stable), stored in batches of PLAN_BATCH. */
  private async sortedBatches(): Promise<Uint8Array[]> {
    const n = this.n;
    const parts = [...(await Promise.all(this.done)).map((stored) => ({ buf: packedBatch(stored), cap: PLAN_BATCH, m: PLAN_BATCH })), { buf: this.buf, cap: this.cap, m: this.m }];
    const ints = new Int32Array(n * PLAN_INTS);
    const reals = new Float64Array(n * PLAN_REALS);
    let at = 0;
    for (const p of parts) {
      const part = planBatchViews(p.buf, p.cap);
      ints.set(part.ints.subarray(0, p.m * PLAN_INTS), at * PLAN_INTS);
      reals.set(part.reals.subarray(0, p.m * PLAN_REALS), at * PLAN_REALS);
      at += p.m;
    }
    const order = orderBy(n, (j) => ints[j * PLAN_INTS]!);
    const out: Array<Promise<Uint8Array>> = [];
    for (let first = 0; first < n; first += PLAN_BATCH) {
      const m = Math.min(PLAN_BATCH, n - first);
      const buf = new ArrayBuffer(planBatchBytes(m));
      sealPlanBatch(buf, m);
      const { ints: outInts, reals: outReals } = planBatchViews(buf, m);
      for (let k = 0; k < m; k++) {
        const j = order[first + k]!;
        outInts.set(ints.subarray(j * PLAN_INTS, (j + 1) * PLAN_INTS), k * PLAN_INTS);
        outReals.set(reals.subarray(j * PLAN_REALS, (j + 1) * PLAN_REALS), k * PLAN_REALS);
      }
      out.push(storedBatch(new Uint8Array(buf)));
    }
    return Promise.all(out);
  }
}

/** The debits planned at the end of a day, per client (clients in the order their first debit was planned). */
export class DayPlans {
  readonly byClient = new Map<number, PlanBuffer>();
  count = 0;

  push(clientId: number, collection: number, day: number, amount: number, why: Why): void {
    this.of(clientId).push(collection, day, amount, why);
    this.count++;
  }

  /** Client `clientId`'s debits (its place among the clients taken now). */
  of(clientId: number): PlanBuffer {
    let b = this.byClient.get(clientId);
    if (!b) this.byClient.set(clientId, (b = new PlanBuffer()));
    return b;
  }
}

/**
 * Debits planned out of collection id order, put into `plans` in that order as the ids below a
 * bound become final (engine/day.ts eveningAndDay: the accounts still to plan have none below
 * it), so that each client's batches are stored as they fill rather than all sorted at the end
 * (a million-policy month's first business day: ~55 MB of packed debits at once).
 */
export class PlansInOrder {
  private readonly clientId: number[] = [];
  private readonly collection: number[] = [];
  private readonly day: number[] = [];
  private readonly amount: number[] = [];
  private readonly why: Why[] = [];

  constructor(readonly plans: DayPlans) {}

  push(clientId: number, collection: number, day: number, amount: number, why: Why): void {
    this.plans.of(clientId); // the clients in the order of their first debit, as DayPlans.push keeps them
    this.clientId.push(clientId);
    this.collection.push(collection);
    this.day.push(day);
    this.amount.push(amount);
    this.why.push(why);
  }

  /** The debits held of collections below `bound`, into the plans in id order (the same ids in the order planned). */
  release(bound: number): void {
    const n = this.collection.length;
    let m = 0;
    for (let j = 0; j < n; j++) if (this.collection[j]! < bound) m++;
    if (m === 0) return;
    const ready = new Int32Array(m);
    m = 0;
    for (let j = 0; j < n; j++) if (this.collection[j]! < bound) ready[m++] = j;
    const order = orderBy(m, (k) => this.collection[ready[k]!]!);
    for (let k = 0; k < m; k++) {
      const j = ready[order[k]!]!;
      this.plans.push(this.clientId[j]!, this.collection[j]!, this.day[j]!, this.amount[j]!, this.why[j]!);
    }
    let keep = 0;
    for (let j = 0; j < n; j++) {
      if (this.collection[j]! < bound) continue;
      this.clientId[keep] = this.clientId[j]!;
      this.collection[keep] = this.collection[j]!;
      this.day[keep] = this.day[j]!;
      this.amount[keep] = this.amount[j]!;
      this.why[keep] = this.why[j]!;
      keep++;
    }
    for (const a of [this.clientId, this.collection, this.day, this.amount, this.why]) a.length = keep;
  }
}

/** The day's submitted debits to the store, each client's in collection id order. */
export async function insertPlans(unit: DayUnit, plans: DayPlans, planDay: number): Promise<void> {
  if (plans.count === 0) return;
  const date = fromDayNumber(planDay);
  for (const [clientId, rows] of plans.byClient) await unit.insertPlanColumns(date, clientId, rows);
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
    return this.rows(cs, clientOf, orderBy(this.n, (j) => cs.rank[this.col[j]!]!));
  }

  /**
   * The attempts ranked below `bound`, as `columns` gives them; the others stay, in the order
   * they were made.
   */
  take(cs: CollectionSet, bound: number, clientOf: (c: number) => number): AttemptColumns {
    let m = 0;
    for (let j = 0; j < this.n; j++) if (cs.rank[this.col[j]!]! < bound) m++;
    const taken = new Int32Array(m);
    m = 0;
    for (let j = 0; j < this.n; j++) if (cs.rank[this.col[j]!]! < bound) taken[m++] = j;
    const order = orderBy(m, (k) => cs.rank[this.col[taken[k]!]!]!);
    for (let k = 0; k < m; k++) order[k] = taken[order[k]!]!;
    const rows = this.rows(cs, clientOf, order);
    let keep = 0;
    for (let j = 0; j < this.n; j++) {
      if (cs.rank[this.col[j]!]! < bound) continue;
      this.col[keep] = this.col[j]!;
      this.amount[keep] = this.amount[j]!;
      this.reason[keep] = this.reason[j]!;
      keep++;
    }
    this.n = keep;
    return rows;
  }

  /** The attempts at `order` (indexes into the ones made), as columns. */
  private rows(cs: CollectionSet, clientOf: (c: number) => number, order: Int32Array): AttemptColumns {
    const n = order.length;
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

/**
 * 0 .. n - 1 ordered by `key` (whole numbers from 0 to 2^31 - 1; equal keys keep their order):
 * a least-significant-digit radix sort, RADIX_BITS of the key a pass, as many passes as the
 * largest key needs (two for a million collections' ranks or rowids). A day's ~800,000 attempts,
 * updates and plans each sort so in a few milliseconds, far faster than as packed doubles.
 */
export function orderBy(n: number, key: (j: number) => number): Int32Array {
  let keys = new Int32Array(n);
  let max = 0;
  for (let j = 0; j < n; j++) {
    const k = key(j);
    keys[j] = k;
    if (k > max) max = k;
  }
  let order = new Int32Array(n);
  for (let j = 0; j < n; j++) order[j] = j;
  let keysOut = new Int32Array(n);
  let orderOut = new Int32Array(n);
  const starts = new Int32Array(RADIX);
  for (let shift = 0; shift < 31 && max >>> shift > 0; shift += RADIX_BITS) {
    starts.fill(0);
    for (let j = 0; j < n; j++) starts[(keys[j]! >>> shift) & RADIX_MASK]!++;
    let at = 0;
    for (let d = 0; d < RADIX; d++) {
      const count = starts[d]!;
      starts[d] = at;
      at += count;
    }
    for (let j = 0; j < n; j++) {
      const k = keys[j]!;
      const to = starts[(k >>> shift) & RADIX_MASK]!++;
      keysOut[to] = k;
      orderOut[to] = order[j]!;
    }
    [keys, keysOut] = [keysOut, keys];
    [order, orderOut] = [orderOut, order];
  }
  return order;
}
const RADIX_BITS = 11;
const RADIX = 1 << RADIX_BITS;
const RADIX_MASK = RADIX - 1;

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
