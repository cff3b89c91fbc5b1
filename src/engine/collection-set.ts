/**
 * The open collections of the engine's working set, column-wise, grouped by customer (account)
 * and in policy_number order within a customer: a million collections are a few typed arrays.
 */
import type { IsoDate } from '../domain/period.js';
import { dayNumber, lastDay, NO_DAY } from '../domain/period.js';
import { STRATEGY_LIST, type CollectionView } from './strategies.js';

export { NO_DAY };
/** Plans a collection can hold: the action days D+1 .. D+1+leadDays. */
export const PENDING_SLOTS = 3;

/** Status codes: index into domain/collection.ts STATUS_BY_CODE (failure codes: debit-outcome.ts FAILURE_BY_CODE). */
export const S_UNPAID = 0;
export const S_PARTIAL = 1;
export const S_FULL = 2;
export const S_CANCELLED = 3;

export interface PeriodInfo {
  period: string;
  first: number;
  last: number;
}

export const dayOrNone = (date: IsoDate | null): number => (date ? dayNumber(date) : NO_DAY);

export class CollectionSet {
  n = 0;
  readonly rowid: Int32Array;
  readonly account: Int32Array;
  readonly period: Uint8Array;
  readonly strategy: Uint8Array;
  readonly due: Int32Array;
  readonly collected: Int32Array;
  readonly attempts: Int16Array;
  readonly failed: Int16Array;
  readonly status: Uint8Array;
  readonly blocked: Uint8Array;
  readonly firstDay: Int32Array;
  readonly lastDay: Int32Array;
  readonly failure: Uint8Array;
  /** Submitted plans: PENDING_SLOTS (day, amount) pairs per collection, day 0 = free. */
  readonly pendDay: Int32Array;
  readonly pendAmount: Int32Array;
  readonly dirty: Uint8Array;
  readonly closed: Uint8Array;
  /**
   * Each collection's place in (client, policy_number) order, ties in column order: the order a
   * day's attempts are stored in (`rankByPolicy`).
   */
  readonly rank: Int32Array;
  readonly periods: PeriodInfo[] = [];

  constructor(readonly capacity: number) {
    const c = Math.max(1, capacity);
    this.rowid = new Int32Array(c);
    this.account = new Int32Array(c);
    this.period = new Uint8Array(c);
    this.strategy = new Uint8Array(c);
    this.due = new Int32Array(c);
    this.collected = new Int32Array(c);
    this.attempts = new Int16Array(c);
    this.failed = new Int16Array(c);
    this.status = new Uint8Array(c);
    this.blocked = new Uint8Array(c);
    this.firstDay = new Int32Array(c);
    this.lastDay = new Int32Array(c);
    this.failure = new Uint8Array(c);
    this.pendDay = new Int32Array(c * PENDING_SLOTS);
    this.pendAmount = new Int32Array(c * PENDING_SLOTS);
    this.dirty = new Uint8Array(c);
    this.closed = new Uint8Array(c);
    this.rank = new Int32Array(c);
  }

  /**
   * Set `rank` from the collections' clients (`clientOf`) and policy numbers (`policyOf`), when
   * they are read from the store (a load from the image reads the ranks it kept: the policy
   * numbers are not kept in memory). `guess`, when given, lists the columns in an order that may
   * be the one wanted already (row id order: a run queues a client's period in policy_number
   * order), checked in one pass; otherwise the columns are sorted.
   */
  rankByPolicy(clientOf: (c: number) => number, policyOf: (c: number) => string, guess?: Int32Array): void {
    const n = this.n;
    const before = (a: number, b: number): number => {
      const ca = clientOf(a);
      const cb = clientOf(b);
      if (ca !== cb) return ca - cb;
      const pa = policyOf(a);
      const pb = policyOf(b);
      return pa < pb ? -1 : pa > pb ? 1 : a - b;
    };
    let order = guess;
    if (order !== undefined) {
      for (let k = 1; k < n; k++) {
        const a = order[k - 1]!;
        const b = order[k]!;
        // Strictly increasing (client, policy_number): no tie to order by column.
        if (clientOf(a) > clientOf(b) || (clientOf(a) === clientOf(b) && policyOf(a) >= policyOf(b))) {
          order = undefined;
          break;
        }
      }
    }
    if (order === undefined) {
      order = new Int32Array(n);
      for (let c = 0; c < n; c++) order[c] = c;
      order.sort(before);
    }
    for (let k = 0; k < n; k++) this.rank[order[k]!] = k;
  }

  periodIndex(period: string): number {
    let k = this.periods.findIndex((p) => p.period === period);
    if (k < 0) {
      this.periods.push({ period, first: dayNumber(`${period}-01`), last: dayNumber(lastDay(period)) });
      k = this.periods.length - 1;
    }
    return k;
  }

  /** Block the collections whose store ids are `ids`: none of them is debited again (their policies lapsed). */
  blockIds(ids: readonly number[]): void {
    if (ids.length === 0) return;
    const wanted = new Set(ids);
    for (let c = 0; c < this.n; c++) if (wanted.has(this.rowid[c]!)) this.blocked[c] = 1;
  }

  addPending(c: number, day: number, amount: number): void {
    const base = c * PENDING_SLOTS;
    for (let s = 0; s < PENDING_SLOTS; s++) {
      if (this.pendDay[base + s] === 0) {
        this.pendDay[base + s] = day;
        this.pendAmount[base + s] = amount;
        return;
      }
    }
    throw new Error(`collection ${this.rowid[c]} has more than ${PENDING_SLOTS} pending debits`);
  }

  /** Take the plan for `day` out of the collection's pending slots; its amount, or 0. */
  takePending(c: number, day: number): number {
    const base = c * PENDING_SLOTS;
    for (let s = 0; s < PENDING_SLOTS; s++) {
      if (this.pendDay[base + s] === day) {
        this.pendDay[base + s] = 0;
        return this.pendAmount[base + s]!;
      }
    }
    return 0;
  }

  /** Status from the amounts (a cancelled collection stays cancelled). */
  statusOf(c: number): number {
    if (this.status[c] === S_CANCELLED) return S_CANCELLED;
    if (this.collected[c]! >= this.due[c]!) return S_FULL;
    return this.collected[c]! > 0 ? S_PARTIAL : S_UNPAID;
  }
}

/** Reusable CollectionView objects for the strategies (filled from the columns per call). */
export class Views {
  private readonly pool: CollectionView[] = [];
  readonly list: CollectionView[] = [];

  fill(cs: CollectionSet, start: number, count: number): CollectionView[] {
    const list = this.list;
    // Lengths set only when they change (setting an array's length is a call into the runtime).
    if (list.length > count) list.length = count;
    for (let j = 0; j < count; j++) {
      const c = start + j;
      let v = this.pool[j];
      if (!v) {
        v = {
          strategy: STRATEGY_LIST[0]!,
          code: 0,
          due: 0,
          collected: 0,
          attempts: 0,
          failed: 0,
          blocked: false,
          periodFirst: 0,
          periodLast: 0,
          lastAttemptDay: null,
          pendingDays: [],
          pendingAmounts: [],
        };
        this.pool[j] = v;
      }
      const p = cs.periods[cs.period[c]!]!;
      v.code = cs.strategy[c]!;
      v.strategy = STRATEGY_LIST[v.code]!;
      v.due = cs.due[c]!;
      v.collected = cs.collected[c]!;
      v.attempts = cs.attempts[c]!;
      v.failed = cs.failed[c]!;
      // A closed collection (its period closed earlier in this advance) plans nothing.
      v.blocked = cs.blocked[c] === 1 || cs.closed[c] === 1;
      v.periodFirst = p.first;
      v.periodLast = p.last;
      v.lastAttemptDay = cs.lastDay[c] === NO_DAY ? null : cs.lastDay[c]!;
      if (v.pendingDays.length !== 0) {
        v.pendingDays.length = 0;
        v.pendingAmounts.length = 0;
      }
      const base = c * PENDING_SLOTS;
      for (let s = 0; s < PENDING_SLOTS; s++) {
        if (cs.pendDay[base + s] !== 0) {
          v.pendingDays.push(cs.pendDay[base + s]!);
          v.pendingAmounts.push(cs.pendAmount[base + s]!);
        }
      }
      // Ascending by day, as the strategies expect.
      if (v.pendingDays.length > 1 && v.pendingDays[0]! > v.pendingDays[1]!) {
        v.pendingDays.reverse();
        v.pendingAmounts.reverse();
      }
      list[j] = v;
    }
    return list;
  }
}
