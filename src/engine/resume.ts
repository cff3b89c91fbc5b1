/**
 * The working set kept between advances, so that the next advance opens each account in O(1)
 * instead of replaying its history (issue 13).
 *
 * At the end of an advance's last day, in that day's unit of work, the engine keeps every
 * account of its working set that has lived through that day: the bank's balance and the
 * engine's summary (every column of AccountSummaries, read generically: a field added there is
 * kept with no change here). The next advance, when the state is kept as of the clock's date and
 * under the same tag, opens those accounts from it and replays only the others (customers new to
 * the working set). The summary is a canonical function of the clock's date (summary.ts), so an
 * account opened from here is the account a replay would open, and the days after give the same
 * debits, byte for byte.
 *
 * The tag names what the history was lived from: the format, the summaries' layout, the seed and
 * epoch of generated accounts, the calendar and its imported holidays, and the engine's settings.
 * A state under another tag, or as of another day, is not used. A bank import drops it (the
 * store does, in the import's transaction): imported rows change the history of their accounts.
 *
 * Blocks of up to BLOCK accounts of one client, each: count and column count (u32), each column's
 * stored type (u8: STORED), then aligned to 8 bytes each section: balances (f64), client ids
 * (i32), each summary column in order (stride values per account, in the narrowest of STORED
 * that holds the block's values exactly), customer id lengths (u32, in UTF-16 units), the customer ids
 * (UTF-8, concatenated).
 */
import { createHash } from 'node:crypto';
import { CALENDAR_KEY, IMPORTED_HOLIDAYS_KEY } from '../domain/calendar.js';
import type { BankAccounts, ResumeBlock } from './ports.js';
import { SETTING_KEYS } from './settings.js';
import type { AccountSummaries, SummaryColumn } from './summary.js';

/** Accounts per block. */
export const BLOCK = 4096;
const FORMAT = 1;

const align8 = (n: number) => (n + 7) & ~7;

/** The types a column's values are stored in, by code (the narrowest that holds a block's values exactly). */
const STORED = [Int8Array, Uint8Array, Int16Array, Int32Array, Float64Array] as const;

function narrowest(v: SummaryColumn['data']): number {
  let min = 0;
  let max = 0;
  for (let k = 0; k < v.length; k++) {
    const x = v[k]!;
    if (!Number.isInteger(x) || Object.is(x, -0)) return 4; // also NaN, ±Infinity; -0 kept as it is
    if (x < min) min = x;
    else if (x > max) max = x;
  }
  if (min >= -128 && max <= 127) return 0;
  if (min >= 0 && max <= 255) return 1;
  if (min >= -32768 && max <= 32767) return 2;
  if (min >= -2147483648 && max <= 2147483647) return 3;
  return 4;
}

/** The tag of a working set lived under `settings` (the stored meta and settings) with `summaries`' layout. */
export function resumeTag(settings: ReadonlyMap<string, string>, summaries: AccountSummaries): string {
  const layout = summaries.columns().map((c) => `${c.name}:${c.data.constructor.name}:${c.stride}`);
  const keys = ['seed', 'bank_epoch', CALENDAR_KEY, IMPORTED_HOLIDAYS_KEY, ...Object.values(SETTING_KEYS)];
  // Hashed: imported holidays can make the inputs long, and the tag is stored with every block.
  const inputs = JSON.stringify([FORMAT, layout, keys.map((k) => [k, settings.get(k) ?? null])]);
  return `${FORMAT}:${createHash('sha256').update(inputs).digest('hex')}`;
}

/**
 * The blocks of the accounts of `accounts` that have lived through `day`, one at a time as the
 * caller takes them: a block's bytes are valid until the next is asked for (one buffer is reused,
 * so that keeping a million accounts leaves no hundred megabytes of garbage behind).
 */
export function* encodeResume(accounts: BankAccounts, summaries: AccountSummaries, day: number): Generator<ResumeBlock> {
  const columns = summaries.columns();
  const encoder = new TextEncoder();
  const pick: number[] = [];
  let scratch = new ArrayBuffer(0);
  const flush = (): ResumeBlock => {
    const n = pick.length;
    const ids = pick.map((i) => accounts.customerId[i]!);
    const idBytes = encoder.encode(ids.join(''));
    // Each column's values of the block (a view when the accounts are consecutive, as they
    // usually are), stored in the narrowest type that holds them exactly.
    const first = pick[0]!;
    const consecutive = pick[n - 1]! - first === n - 1;
    const slices = columns.map((c) => {
      const s = c.stride;
      if (consecutive) return c.data.subarray(first * s, (first + n) * s);
      const Ctor = c.data.constructor as new (l: number) => SummaryColumn['data'];
      const out = new Ctor(n * s);
      for (let j = 0; j < n; j++) {
        const from = pick[j]! * s;
        for (let v = 0; v < s; v++) out[j * s + v] = c.data[from + v]!;
      }
      return out;
    });
    const codes = slices.map(narrowest);
    let size = align8(8 + columns.length);
    size += align8(n * 8) + align8(n * 4);
    slices.forEach((v, x) => (size += align8(v.length * STORED[codes[x]!]!.BYTES_PER_ELEMENT)));
    size += align8(n * 4) + idBytes.length;
    if (scratch.byteLength < size) scratch = new ArrayBuffer(size);
    const buf = scratch;
    new Uint32Array(buf, 0, 2).set([n, columns.length]);
    new Uint8Array(buf, 8, columns.length).set(codes);
    let at = align8(8 + columns.length);
    const balances = new Float64Array(buf, at, n);
    at += align8(n * 8);
    const clients = new Int32Array(buf, at, n);
    at += align8(n * 4);
    for (let j = 0; j < n; j++) {
      balances[j] = accounts.balance(pick[j]!);
      clients[j] = accounts.clientId[pick[j]!]!;
    }
    slices.forEach((v, x) => {
      const Stored = STORED[codes[x]!]!;
      new Stored(buf, at, v.length).set(v);
      at += align8(v.length * Stored.BYTES_PER_ELEMENT);
    });
    const lengths = new Uint32Array(buf, at, n);
    for (let j = 0; j < n; j++) lengths[j] = ids[j]!.length;
    at += align8(n * 4);
    new Uint8Array(buf, at, idBytes.length).set(idBytes);
    pick.length = 0;
    return { clientId: clients[0]!, data: new Uint8Array(buf, 0, size) };
  };
  if (accounts.lastLived === undefined) return;
  for (let i = 0; i < accounts.size; i++) {
    if (accounts.lastLived(i) !== day) continue;
    // A block holds one client's accounts (the working set is in client order).
    if (pick.length > 0 && accounts.clientId[pick[0]!] !== accounts.clientId[i]) yield flush();
    pick.push(i);
    if (pick.length === BLOCK) yield flush();
  }
  if (pick.length > 0) yield flush();
}

/** The customers being loaded: customer k is (clientId[k], customerId[k]). */
export interface Customers {
  readonly clientId: ArrayLike<number>;
  readonly customerId: readonly string[];
}

/**
 * Takes blocks (in the order written) and fills, for each customer of `customers` found in them,
 * its balance into `balances` (NaN stays for the others: they are replayed) and its summary
 * columns into `summaries` (whose account k is customer k). `found` counts them.
 */
export class ResumeReader {
  found = 0;
  readonly balances: Float64Array;
  private readonly columns: SummaryColumn[];
  private readonly decoder = new TextDecoder();
  /** Where the next kept account is expected among the customers (both are in load order). */
  private next = 0;
  private index: Map<string, number> | null = null;

  constructor(
    private readonly customers: Customers,
    summaries: AccountSummaries,
  ) {
    this.balances = new Float64Array(customers.customerId.length).fill(Number.NaN);
    this.columns = summaries.columns();
  }

  /** The customer index of (clientId, customerId), or -1. */
  private find(clientId: number, customerId: string): number {
    const c = this.customers;
    const k = this.next;
    if (k < c.customerId.length && c.clientId[k] === clientId && c.customerId[k] === customerId) {
      this.next = k + 1;
      return k;
    }
    // The sets differ (customers new to the working set, or gone from it): look up by key.
    if (this.index === null) {
      this.index = new Map();
      for (let j = 0; j < c.customerId.length; j++) this.index.set(`${c.clientId[j]}\u0000${c.customerId[j]}`, j);
    }
    const found = this.index.get(`${clientId}\u0000${customerId}`);
    if (found === undefined) return -1;
    this.next = found + 1;
    return found;
  }

  block(data: Uint8Array): void {
    // Typed views need aligned offsets: copy a block that does not start on 8 bytes.
    const bytes = data.byteOffset % 8 === 0 ? data : data.slice();
    const buf = bytes.buffer;
    const base = bytes.byteOffset;
    const [n, ncols] = new Uint32Array(buf, base, 2) as unknown as [number, number];
    if (ncols !== this.columns.length) throw new Error('resume block layout differs from the summaries');
    const codes = new Uint8Array(buf, base + 8, ncols);
    let at = base + align8(8 + ncols);
    const balances = new Float64Array(buf, at, n);
    at += align8(n * 8);
    const clients = new Int32Array(buf, at, n);
    at += align8(n * 4);
    const stored: Array<SummaryColumn['data']> = [];
    this.columns.forEach((c, x) => {
      const Stored = STORED[codes[x]!]!;
      stored.push(new Stored(buf as ArrayBuffer, at, n * c.stride));
      at += align8(n * c.stride * Stored.BYTES_PER_ELEMENT);
    });
    const lengths = new Uint32Array(buf, at, n);
    at += align8(n * 4);
    const ids = this.decoder.decode(new Uint8Array(buf, at, base + bytes.length - at));
    const target = new Int32Array(n);
    let pos = 0;
    for (let j = 0; j < n; j++) {
      const id = ids.slice(pos, pos + lengths[j]!);
      pos += lengths[j]!;
      const k = this.find(clients[j]!, id);
      target[j] = k;
      if (k < 0) continue;
      this.balances[k] = balances[j]!;
      this.found++;
    }
    // Usually the block's accounts are consecutive customers: each column is then one copy.
    const first = target[0]!;
    const consecutive = first >= 0 && target[n - 1] === first + n - 1 && target.every((k, j) => k === first + j);
    this.columns.forEach((c, x) => {
      const src = stored[x]!;
      const s = c.stride;
      if (consecutive) {
        c.data.set(src, first * s);
        return;
      }
      for (let j = 0; j < n; j++) {
        const k = target[j]!;
        if (k < 0) continue;
        for (let v = 0; v < s; v++) c.data[k * s + v] = src[j * s + v]!;
      }
    });
  }
}
