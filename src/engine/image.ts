/**
 * The engine's image: its working set kept in the store between advances, customer by customer,
 * so that an advance opens only the customers that have something to do (issue 13).
 *
 * A customer's record holds everything the engine knows of it: its account as the bank last
 * reported it (balance, last day lived), the engine's summary of it (every column of
 * AccountSummaries, read generically: a field added there is kept with no change here), its open
 * collections as the engine holds them (amounts, counts, days, debits submitted and not yet
 * made), and the day it must next be lived (its wake day: the next day for an active customer,
 * a later one or NEVER for one asleep: awake.ts). A sleeping customer's account is kept as of the
 * last day it lived: nothing happened to it since, so living its missing days later gives what
 * living them on time would have.
 *
 * Records are kept in blocks of up to BLOCK customers of one client and one wake day. The image
 * has a head: the clock's date it was kept as of, the tag of the inputs its history was lived
 * from (the format, the summaries' layout, the strategies, the seed and epoch of generated
 * accounts, the calendar and its imported holidays, the engine's settings) and the version of
 * the store's engine inputs it saw (a value the store changes whenever a policy, an execution
 * or a collection's fixed fields change or a bank import is stored, and which the engine reads when it loads: the engine's
 * own days change none of these but for a lapse, after which the next advance reads the
 * collections again, as it did before the image).
 *
 * An advance whose store holds an image as of the clock's date under the same tag and inputs
 * version reads only the blocks whose wake day comes before its last day: the others sleep
 * through it. Otherwise (anything else changed the engine's inputs) the open collections are
 * read from their table as before and the image gives only the accounts and summaries of the
 * customers it holds (still valid: the bank history they were lived from has not changed, and a
 * sleeping account had none of premia's debits since); the others are replayed.
 *
 * A block: customer and collection counts, column count and the customer ids' UTF-8 length (u32), each column's stored type (u8:
 * STORED), then, each section aligned to 8 bytes: the numeric columns in order (per customer:
 * client, balance, last day lived, wake day, collection count, the summary columns; per
 * collection: the CollectionSet columns below), each in the narrowest of STORED that holds the
 * block's values exactly, then the UTF-16 lengths (u32) and UTF-8 bytes of the customer ids. A
 * collection's policy number is not kept, only its rank (its place in (client, policy_number)
 * order among the open collections of the load that read them from the store: the image is
 * rewritten whole by such a load, so the ranks of its blocks are of one order).
 */
import { createHash } from 'node:crypto';
import { CALENDAR_KEY, IMPORTED_HOLIDAYS_KEY, type Calendar } from '../domain/calendar.js';
import { fromDayNumber, type IsoDate } from '../domain/period.js';
import { grown } from '../domain/typed-arrays.js';
import { STRATEGY_NAMES } from '../domain/strategy-names.js';
import { ACTIVE, GONE, NEVER } from './awake.js';
import { PENDING_SLOTS, type CollectionSet } from './collection-set.js';
import type { BankAccounts, ImageBlock, ImageHead } from './ports.js';
import { SETTING_KEYS } from './settings.js';
import type { EngineState } from './state.js';
import { AccountSummaries, type SummaryColumn } from './summary.js';

/** Customers per block. */
export const BLOCK = 4096;
const FORMAT = 3;

type Column = SummaryColumn['data'];
const align8 = (n: number) => (n + 7) & ~7;

/** The types a column's values are stored in, by code (the narrowest that holds a block's values exactly). */
const STORED = [Int8Array, Uint8Array, Int16Array, Int32Array, Float64Array] as const;

/** The code of the narrowest of STORED that holds doubles `v` exactly. */
function narrowestFloat64(v: Float64Array): number {
  let min = 0;
  let max = 0;
  for (let k = 0; k < v.length; k++) {
    const x = v[k]!;
    if (!Number.isInteger(x) || Object.is(x, -0)) return 4; // also NaN, ±Infinity; -0 kept as it is
    if (x < min) min = x;
    else if (x > max) max = x;
  }
  return codeOfRange(min, max);
}

function codeOfRange(min: number, max: number): number {
  if (min >= -128 && max <= 127) return 0;
  if (min >= 0 && max <= 255) return 1;
  if (min >= -32768 && max <= 32767) return 2;
  if (min >= -2147483648 && max <= 2147483647) return 3;
  return 4;
}

/** The per-collection columns of a record, in block order. */
const COLLECTION_COLUMNS = [
  'rowid',
  'periodFirst',
  'strategy',
  'due',
  'collected',
  'status',
  'attempts',
  'failed',
  'blocked',
  'firstDay',
  'lastDay',
  'failure',
  'pendDay',
  'pendAmount',
  'rank',
] as const;
type CollectionColumn = (typeof COLLECTION_COLUMNS)[number];
const strideOf = (name: CollectionColumn) => (name === 'pendDay' || name === 'pendAmount' ? PENDING_SLOTS : 1);
/** Per customer before the summary columns: client, balance, last day lived, wake day, collection count. */
const CUSTOMER_COLUMNS = 5;

/**
 * The tag of an image lived under `settings` (the stored meta and settings), with the layout the
 * account summaries have under `calendar` (the engine's, from those settings).
 */
export function imageTag(settings: ReadonlyMap<string, string>, calendar: Calendar): string {
  const layout = new AccountSummaries(1, 0, calendar).columns().map((c) => `${c.name}:${c.data.constructor.name}:${c.stride}`);
  const keys = ['seed', 'bank_epoch', CALENDAR_KEY, IMPORTED_HOLIDAYS_KEY, ...Object.values(SETTING_KEYS)];
  // Hashed: imported holidays can make the inputs long, and the tag is stored with the head.
  const inputs = JSON.stringify([FORMAT, layout, COLLECTION_COLUMNS, STRATEGY_NAMES, PENDING_SLOTS, keys.map((k) => [k, settings.get(k) ?? null])]);
  return `${FORMAT}:${createHash('sha256').update(inputs).digest('hex')}`;
}

/** A column of a block: its values, and the code of the narrowest of STORED that holds them. */
interface Gathered {
  values: Column;
  code: number;
}

/**
 * Values [pick[j] * stride, (pick[j] + 1) * stride) of `src` for each j, in src's own type (an
 * integer column is stored from there without passing through doubles), into `out` (reused from
 * block to block: new columns for each block of a million-account image would leave much of
 * them waiting for the collector at the month's peak), with its code: an integer column's by
 * the range met as it is gathered. One function per source type: in V8 one loop reading several
 * kinds of typed array runs several times slower than a loop that meets only one.
 */
function gather(src: Column, stride: number, pick: Int32Array, out: Column): Gathered {
  const values = out.subarray(0, pick.length * stride);
  if (src instanceof Float64Array) {
    gatherFloat64(src, stride, pick, values as Float64Array);
    return { values, code: narrowestFloat64(values as Float64Array) };
  }
  if (src instanceof Int32Array) return { values, code: gatherInt32(src, stride, pick, values as Int32Array) };
  if (src instanceof Int16Array) return { values, code: gatherInt16(src, stride, pick, values as Int16Array) };
  if (src instanceof Uint8Array) return { values, code: gatherUint8(src, stride, pick, values as Uint8Array) };
  return { values, code: gatherInt8(src, stride, pick, values as Int8Array) };
}

function gatherFloat64(src: Float64Array, s: number, pick: Int32Array, out: Float64Array): void {
  for (let j = 0; j < pick.length; j++) for (let x = 0; x < s; x++) out[j * s + x] = src[pick[j]! * s + x]!;
}
function gatherInt32(src: Int32Array, s: number, pick: Int32Array, out: Int32Array): number {
  let min = 0;
  let max = 0;
  for (let j = 0; j < pick.length; j++) {
    for (let x = 0; x < s; x++) {
      const v = src[pick[j]! * s + x]!;
      out[j * s + x] = v;
      if (v < min) min = v;
      else if (v > max) max = v;
    }
  }
  return codeOfRange(min, max);
}
function gatherInt16(src: Int16Array, s: number, pick: Int32Array, out: Int16Array): number {
  let min = 0;
  let max = 0;
  for (let j = 0; j < pick.length; j++) {
    for (let x = 0; x < s; x++) {
      const v = src[pick[j]! * s + x]!;
      out[j * s + x] = v;
      if (v < min) min = v;
      else if (v > max) max = v;
    }
  }
  return codeOfRange(min, max);
}
function gatherUint8(src: Uint8Array, s: number, pick: Int32Array, out: Uint8Array): number {
  let max = 0;
  for (let j = 0; j < pick.length; j++) {
    for (let x = 0; x < s; x++) {
      const v = src[pick[j]! * s + x]!;
      out[j * s + x] = v;
      if (v > max) max = v;
    }
  }
  return codeOfRange(0, max);
}
function gatherInt8(src: Int8Array, s: number, pick: Int32Array, out: Int8Array): number {
  let min = 0;
  let max = 0;
  for (let j = 0; j < pick.length; j++) {
    for (let x = 0; x < s; x++) {
      const v = src[pick[j]! * s + x]!;
      out[j * s + x] = v;
      if (v < min) min = v;
      else if (v > max) max = v;
    }
  }
  return codeOfRange(min, max);
}

/**
 * The records of every account of `state` (those that left the working set asleep for good, as
 * of the last day they lived), as blocks of one client and one wake day.
 * A block's bytes are valid until the next block is asked for (one buffer is reused).
 */
export function* encodeImage(state: EngineState, day: number): Generator<ImageBlock> {
  const accounts = state.accounts;
  const cs = state.cols;
  const n = accounts.size;
  // The accounts to keep, grouped by (client, wake day) in the order the groups first appear,
  // each group in account order: a counting sort into one array (a JS array per group would hold
  // a million-account working set's indexes on the heap at the month's peak, in several times
  // the memory of one Int32Array).
  const groupIndex = new Map<number, Map<number, number>>();
  const groups: Array<{ clientId: number; wake: number; size: number; start: number }> = [];
  const groupOf = new Int32Array(Math.max(1, n));
  for (let i = 0; i < n; i++) {
    const w = state.wakeDay[i]!;
    const wake = w === ACTIVE ? day + 1 : w === GONE ? NEVER : w;
    const clientId = accounts.clientId[i]!;
    let byWake = groupIndex.get(clientId);
    if (!byWake) groupIndex.set(clientId, (byWake = new Map<number, number>()));
    let g = byWake.get(wake);
    if (g === undefined) {
      g = groups.length;
      byWake.set(wake, g);
      groups.push({ clientId, wake, size: 0, start: 0 });
    }
    groupOf[i] = g;
    groups[g]!.size++;
  }
  let filled = 0;
  for (const g of groups) {
    g.start = filled;
    filled += g.size;
  }
  const order = new Int32Array(Math.max(1, n));
  const next = groups.map((g) => g.start);
  for (let i = 0; i < n; i++) order[next[groupOf[i]!]!++] = i;
  const encoder = new BlockEncoder(accounts, state.summaries, cs);
  let picked = new Int32Array(4096);
  for (const g of groups) {
    for (let at = 0; at < g.size; at += BLOCK) {
      const pick = order.subarray(g.start + at, g.start + Math.min(g.size, at + BLOCK));
      // The picked accounts' open collections, in account order.
      let m = 0;
      for (let j = 0; j < pick.length; j++) m += state.colCount[pick[j]!]!;
      if (picked.length < m) picked = new Int32Array(Math.max(m, 2 * picked.length));
      const counts = new Uint8Array(pick.length);
      m = 0;
      for (let j = 0; j < pick.length; j++) {
        const start = state.colStart[pick[j]!]!;
        const end = start + state.colCount[pick[j]!]!;
        for (let c = start; c < end; c++) {
          if (cs.closed[c] === 1) continue;
          picked[m++] = c;
          counts[j]!++;
        }
      }
      yield encoder.block(g.clientId, g.wake, pick, picked.subarray(0, m), counts);
    }
  }
}

/**
 * The records of `accounts` with their summaries and no collections (asleep for good), in
 * account order: a block per run of one client's accounts (bytes valid until the next is taken).
 */
export function* encodeAccounts(accounts: BankAccounts, summaries: AccountSummaries): Generator<ImageBlock> {
  const encoder = new BlockEncoder(accounts, summaries, null);
  for (let at = 0; at < accounts.size; ) {
    const clientId = accounts.clientId[at]!;
    let end = at + 1;
    while (end < accounts.size && end - at < BLOCK && accounts.clientId[end] === clientId) end++;
    const pick = Int32Array.from({ length: end - at }, (_, j) => at + j);
    yield encoder.block(clientId, NEVER, pick, new Int32Array(0), new Uint8Array(pick.length));
    at = end;
  }
}

/** A column of doubles with its code. */
const doubles = (values: Float64Array): Gathered => ({ values, code: narrowestFloat64(values) });

/** The first day of each of `cols`' periods. */
function periodFirsts(cs: CollectionSet, cols: Int32Array): Float64Array {
  const out = new Float64Array(cols.length);
  for (let j = 0; j < cols.length; j++) out[j] = cs.periods[cs.period[cols[j]!]!]!.first;
  return out;
}

/** Encodes blocks of one working set into one reused buffer. */
class BlockEncoder {
  private scratch = new ArrayBuffer(0);
  /** The customer ids of a block (customerIds). */
  private idBytes = new Uint8Array(4096);
  private idLengths = new Uint32Array(0);
  private readonly text = new TextEncoder();
  private readonly summaryColumns: SummaryColumn[];
  /** Per gathered column (in block order), the array it is gathered into, reused (gather). */
  private readonly pools: Column[] = [];

  constructor(
    private readonly accounts: BankAccounts,
    summaries: AccountSummaries,
    private readonly cs: CollectionSet | null,
  ) {
    this.summaryColumns = summaries.columns();
  }

  /** Gathered column x's array, of `like`'s type, with room for `length` values. */
  private pool(x: number, like: Column, length: number): Column {
    const have = this.pools[x];
    if (have !== undefined && have.constructor === like.constructor && have.length >= length) return have;
    const Type = like.constructor as new (length: number) => Column;
    // Collection columns vary with the block: room for half as many again when one grows.
    return (this.pools[x] = new Type(Math.max(length, Math.ceil((have?.length ?? 0) * 1.5))));
  }

  /**
   * The ids of the customers `pick`, as UTF-8 bytes one after another, and each one's length in
   * characters (UTF-16 code units, as decodeBlock splits them): copied as they are kept when they
   * are ASCII (a million-account image made and dropped as many strings), else encoded.
   */
  private customerIds(pick: Int32Array): { idBytes: Uint8Array; idLengths: Uint32Array } {
    const accounts = this.accounts;
    const n = pick.length;
    if (this.idLengths.length < n) this.idLengths = new Uint32Array(n);
    const idLengths = this.idLengths.subarray(0, n);
    if (accounts.customerIdInto !== undefined) {
      let at = 0;
      let j = 0;
      for (; j < n; j++) {
        let length = accounts.customerIdInto(pick[j]!, this.idBytes, at);
        if (length < 0) break;
        if (at + length > this.idBytes.length) {
          this.idBytes = grown(this.idBytes, at + length);
          length = accounts.customerIdInto(pick[j]!, this.idBytes, at);
        }
        idLengths[j] = length;
        at += length;
      }
      if (j === n) return { idBytes: this.idBytes.subarray(0, at), idLengths };
    }
    const ids = Array.from(pick, (i) => accounts.customerIdOf(i));
    ids.forEach((id, j) => (idLengths[j] = id.length));
    return { idBytes: this.text.encode(ids.join('')), idLengths };
  }

  /** The block of accounts `pick` (of `clientId`, waking on `wake`) with collections `cols` (`counts` a customer). */
  block(clientId: number, wake: number, pick: Int32Array, cols: Int32Array, counts: Uint8Array): ImageBlock {
    const accounts = this.accounts;
    const cs = this.cs;
    const n = pick.length;
    const m = cols.length;
    const numeric: Gathered[] = [];
    const clients = new Float64Array(n);
    const balance = new Float64Array(n);
    const lastLived = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      clients[j] = accounts.clientId[pick[j]!]!;
      balance[j] = accounts.balance(pick[j]!);
      lastLived[j] = accounts.lastLived!(pick[j]!);
    }
    for (const v of [clients, balance, lastLived, new Float64Array(n).fill(wake), Float64Array.from(counts)]) numeric.push(doubles(v));
    let x = 0;
    for (const c of this.summaryColumns) numeric.push(gather(c.data, c.stride, pick, this.pool(x++, c.data, n * c.stride)));
    for (const name of COLLECTION_COLUMNS) {
      if (cs === null) numeric.push(doubles(new Float64Array(0)));
      else if (name === 'periodFirst') numeric.push(doubles(periodFirsts(cs, cols)));
      else numeric.push(gather(cs[name], strideOf(name), cols, this.pool(x++, cs[name], m * strideOf(name))));
    }
    const { idBytes, idLengths: lengths } = this.customerIds(pick);
    let size = align8(16 + numeric.length);
    for (const { values, code } of numeric) size += align8(values.length * STORED[code]!.BYTES_PER_ELEMENT);
    size += align8(n * 4) + idBytes.length;
    if (this.scratch.byteLength < size) this.scratch = new ArrayBuffer(size);
    const buf = this.scratch;
    new Uint32Array(buf, 0, 4).set([n, m, numeric.length, idBytes.length]);
    new Uint8Array(buf, 16, numeric.length).set(numeric.map((c) => c.code));
    let off = align8(16 + numeric.length);
    for (const { values, code } of numeric) {
      const Type = STORED[code]!;
      new Type(buf, off, values.length).set(values);
      off += align8(values.length * Type.BYTES_PER_ELEMENT);
    }
    new Uint32Array(buf, off, n).set(lengths);
    off += align8(n * 4);
    new Uint8Array(buf, off, idBytes.length).set(idBytes);
    return { clientId, wake, customers: n, collections: m, data: new Uint8Array(buf, 0, size) };
  }
}

/** One decoded block: typed views on its bytes (valid while the block is). */
export interface DecodedBlock {
  n: number;
  m: number;
  clientId: Column;
  balance: Column;
  lastLived: Column;
  wake: Column;
  colCount: Column;
  /** The summary columns, in AccountSummaries.columns() order. */
  summary: Column[];
  /** The collection columns, by name. */
  collections: Record<CollectionColumn, Column>;
  customerIds: string[];
}

const decoder = new TextDecoder();

/** Decode a block kept with `summaries`' layout. */
export function decodeBlock(data: Uint8Array, summaries: AccountSummaries): DecodedBlock {
  // Typed views need aligned offsets: copy a block that does not start on 8 bytes.
  const bytes = data.byteOffset % 8 === 0 ? data : data.slice();
  const buf = bytes.buffer as ArrayBuffer;
  const base = bytes.byteOffset;
  const [n, m, ncols, idByteLength] = new Uint32Array(buf, base, 4) as unknown as [number, number, number, number];
  const summaryColumns = summaries.columns();
  if (ncols !== CUSTOMER_COLUMNS + summaryColumns.length + COLLECTION_COLUMNS.length) throw new Error('image block layout differs from the engine');
  const codes = new Uint8Array(buf, base + 16, ncols);
  let off = base + align8(16 + ncols);
  let x = 0;
  const next = (length: number): Column => {
    const Stored = STORED[codes[x++]!]!;
    const v = new Stored(buf, off, length);
    off += align8(length * Stored.BYTES_PER_ELEMENT);
    return v;
  };
  const clientId = next(n);
  const balance = next(n);
  const lastLived = next(n);
  const wake = next(n);
  const colCount = next(n);
  const summary = summaryColumns.map((c) => next(n * c.stride));
  const collections = {} as Record<CollectionColumn, Column>;
  for (const name of COLLECTION_COLUMNS) collections[name] = next(m * strideOf(name));
  const split = (lengths: Uint32Array, text: string): string[] => {
    const out = new Array<string>(lengths.length);
    let pos = 0;
    for (let j = 0; j < lengths.length; j++) {
      out[j] = text.slice(pos, pos + lengths[j]!);
      pos += lengths[j]!;
    }
    return out;
  };
  const idLengths = new Uint32Array(buf, off, n);
  off += align8(n * 4);
  const customerIds = split(idLengths, decoder.decode(new Uint8Array(buf, off, idByteLength)));
  return { n, m, clientId, balance, lastLived, wake, colCount, summary, collections, customerIds };
}

/**
 * The accounts block `data` holds of the customers `find` places (account k, or -1: not one of
 * them), as the image kept them: their balances and last days lived into `kept`, their summaries
 * into `summaries`. Returns how many it held.
 */
export function keepFromBlock(
  data: Uint8Array,
  summaries: AccountSummaries,
  find: (clientId: number, customerId: string) => number,
  kept: { balance: Float64Array; lastLived: Int32Array },
): number {
  const b = decodeBlock(data, summaries);
  const columns = summaries.columns();
  let found = 0;
  // Summaries are copied a run at a time: a block's customers are in account order, and those
  // of one wake day (most of a month's, asleep for good once paid) follow one another.
  let runJ = 0;
  let runK = -1;
  let runLength = 0;
  for (let j = 0; j < b.n; j++) {
    const k = find(b.clientId[j]!, b.customerIds[j]!);
    if (k < 0) continue;
    kept.balance[k] = b.balance[j]!;
    kept.lastLived[k] = b.lastLived[j]!;
    found++;
    if (runLength > 0 && j === runJ + runLength && k === runK + runLength) {
      runLength++;
      continue;
    }
    if (runLength > 0) copySummaries(b, runJ, columns, runK, runLength);
    runJ = j;
    runK = k;
    runLength = 1;
  }
  if (runLength > 0) copySummaries(b, runJ, columns, runK, runLength);
  return found;
}

/** Copy customers j .. j + count - 1 of `block` into accounts k .. k + count - 1 of `columns` (summaries.columns(), the block's layout). */
export function copySummaries(block: DecodedBlock, j: number, columns: readonly SummaryColumn[], k: number, count: number): void {
  for (let x = 0; x < columns.length; x++) {
    const c = columns[x]!;
    const s = c.stride;
    c.data.set(block.summary[x]!.subarray(j * s, (j + count) * s), k * s);
  }
}

/** Copy collection q of `block` into collection c of `cols` (its period added to cols' periods). */
export function copyCollection(block: DecodedBlock, q: number, cols: CollectionSet, c: number): void {
  const b = block.collections;
  cols.rowid[c] = b.rowid[q]!;
  cols.period[c] = cols.periodIndex(fromDayNumber(b.periodFirst[q]!).slice(0, 7));
  cols.strategy[c] = b.strategy[q]!;
  cols.due[c] = b.due[q]!;
  cols.collected[c] = b.collected[q]!;
  cols.status[c] = b.status[q]!;
  cols.attempts[c] = b.attempts[q]!;
  cols.failed[c] = b.failed[q]!;
  cols.blocked[c] = b.blocked[q]!;
  cols.firstDay[c] = b.firstDay[q]!;
  cols.lastDay[c] = b.lastDay[q]!;
  cols.failure[c] = b.failure[q]!;
  for (let s = 0; s < PENDING_SLOTS; s++) {
    cols.pendDay[c * PENDING_SLOTS + s] = b.pendDay[q * PENDING_SLOTS + s]!;
    cols.pendAmount[c * PENDING_SLOTS + s] = b.pendAmount[q * PENDING_SLOTS + s]!;
  }
  cols.rank[c] = b.rank[q]!;
}

/** How an advance may use the image found in the store. */
export function imageUse(head: ImageHead | null, inputs: number, today: IsoDate, tag: string): 'none' | 'accounts' | 'all' {
  if (head === null || head.asOf !== today || head.tag !== tag) return 'none';
  return head.inputs === inputs ? 'all' : 'accounts';
}
