/**
 * The day writer (issue 13): a worker thread that commits the engine's days on its own
 * connection to a SQLite file store while the engine lives the next ones
 * (repos/engine-pipeline.ts hands them over). Days commit in the order handed over, each in
 * one BEGIN IMMEDIATE transaction with exactly the statements the engine's day unit runs
 * (engine-days.ts), or, for a run of light days waiting together, several in one transaction
 * (`writeDays`): a crash still leaves the store at the end of a whole day.
 *
 * Before a day is written the writer checks that nothing but itself has committed since the
 * engine read the store (`PRAGMA data_version` of this connection, taken when the engine loaded
 * its working set): when something did, the day is not written, nor any handed over after it,
 * until the engine has read the store again (`baseline`).
 *
 * A day may come in parts (the engine hands its rows as they become final: engine/day.ts
 * eveningAndDay): its transaction then begins on the first and commits on its last.
 *
 * Messages in: {type: 'baseline'} | {type: 'day', seq, ops} | {type: 'part', seq, ops} |
 * {type: 'abandon', seq} | {type: 'image-block' | 'image-end', seq} | {type: 'close'}.
 * Messages out: {type: 'ready'} | {type: 'baseline'} | {type: 'committed', seq, lapsed} |
 * {type: 'dropped', seq, changed} | {type: 'failed', seq, error} | {type: 'closed'}.
 */
import { createRequire } from 'node:module';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { PremiaError } from '../domain/errors.js';
import { ACKED, dayRows, DayOps, STOP, type DayWriterData, type DayWriterIn, type DayWriterOut, type ImageRow } from './engine-days.js';
import { StatementCache } from './sqlite-dialect.js';

/** WAL pages between checkpoints while days are written (256 MiB of 16 KiB pages). */
const WAL_PAGES = 16_384;

const port = parentPort!;
const data = workerData as DayWriterData;
const require = createRequire(import.meta.url);
const BetterSqlite = require('better-sqlite3') as typeof BetterSqlite3;
const raw = new BetterSqlite(data.path, { timeout: data.busyTimeoutMs, fileMustExist: true });
// The store's own settings (store.ts), but:
//  - a day commits without waiting for the disk (a day lost in a crash is recomputed exactly on
//    resume);
//  - no foreign key checks: every row a day writes refers to rows the engine read in the
//    snapshot this connection checks before each day (data_version: a day is written only when
//    nothing else committed since), so they cannot fail; checked, they cost two lookups per
//    attempt and a statement journal per multi-row statement;
//  - the WAL is checkpointed every WAL_PAGES pages rather than every 1,000: a checkpoint copies
//    the pages and waits for the disk, and a day's updates land on pages all over the
//    collections table, so fewer checkpoints copy each page fewer times (issue 13).
raw.pragma('foreign_keys = OFF');
raw.pragma('synchronous = NORMAL');
raw.pragma(`cache_size = ${data.cacheSize}`);
raw.pragma(`wal_autocheckpoint = ${WAL_PAGES}`);
const statements = new StatementCache(raw);
const shared = new Int32Array(data.shared);
const dataVersion = () => raw.pragma('data_version', { simple: true }) as number;

let baseline = dataVersion();
/** Set once a day was not written: the rest are dropped until the next baseline. */
let stopped = false;

/** The last day (seq) answered (committed, dropped or failed): later messages of it are ignored. */
let answered = 0;

const post = (m: DayWriterOut) => {
  if (m.type === 'committed' || m.type === 'dropped' || m.type === 'failed') answered = m.seq;
  port.postMessage(m);
};

/**
 * Days waiting here when one is written are written with it, in the same transaction, while
 * each writes at least JOIN_MIN_ROWS rows and together at most GROUP_ROWS (GROUP_DAYS days at
 * most): a day's updates land on pages all over the collections table and its attempts' index,
 * and a transaction writes each page it changed once to the WAL however many of its days
 * changed it, where days written one by one each write the pages they share again (issue 13).
 * Days with few rows cost little one by one and are written alone, as a store's first days are.
 */
const JOIN_MIN_ROWS = 1_000;
const GROUP_ROWS = 400_000;
const GROUP_DAYS = 8;

type Day = Extract<DayWriterIn, { type: 'day' }>;
const failure = (e: unknown) => {
  const err = e as Error;
  return { message: err.message, name: err.name, code: err instanceof PremiaError ? err.code : undefined };
};

/** Messages received and not handled yet, in order. */
const inbox: DayWriterIn[] = [];
let draining = false;

/** Handle the messages received, in order (those still queued on the port pulled in as days are grouped). */
async function drain(): Promise<void> {
  draining = true;
  try {
    while (inbox.length > 0) {
      const m = inbox.shift()!;
      if ((m.type === 'day' || m.type === 'part' || m.type === 'abandon') && m.seq <= answered) continue; // of a day dropped
      if (m.type === 'day' || m.type === 'part') await writeDays(m);
      else if (m.type === 'abandon') post({ type: 'dropped', seq: m.seq, changed: false });
      else if (m.type === 'image-block' || m.type === 'image-end') continue; // of a day not written
      else handle(m);
    }
  } finally {
    draining = false;
  }
}

function handle(m: Extract<DayWriterIn, { type: 'baseline' | 'close' }>): void {
  if (m.type === 'baseline') {
    baseline = dataVersion();
    stopped = Atomics.load(shared, STOP) !== 0;
    post({ type: 'baseline' });
    return;
  }
  raw.close();
  post({ type: 'closed' });
  port.close();
}

/** Whether day `seq - 1` has been reported (false: the engine stopped instead). */
function reportedBefore(seq: number): boolean {
  while (Atomics.load(shared, STOP) === 0) {
    const acked = Atomics.load(shared, ACKED);
    if (acked >= seq - 1) break;
    Atomics.wait(shared, ACKED, acked, 1000);
  }
  return Atomics.load(shared, STOP) === 0;
}

type Part = Extract<DayWriterIn, { type: 'part' }>;

/**
 * Write day `first` and the days waiting after it that join it (one transaction), or drop them.
 * A day that comes in parts (its first a 'part': repos/engine-pipeline.ts) is written alone, its
 * transaction begun on the first part and each written as it comes; an 'abandon' rolls it back.
 */
async function writeDays(first: Day | Part): Promise<void> {
  const days: Array<Day | Part> = [first];
  const drop = (changed: (k: number) => boolean) => {
    if (raw.inTransaction) raw.exec('rollback');
    stopped = true;
    days.forEach((d, k) => post({ type: 'dropped', seq: d.seq, changed: changed(k) }));
  };
  if (stopped) return drop(() => false);
  // The day before reported (or a stop) first, outside any transaction, unless nothing on the
  // engine's thread can be waiting for the store's lock (DayWriterData.waitInTransaction).
  if (!data.waitInTransaction && !reportedBefore(first.seq)) return drop(() => false);
  for (let r = receiveMessageOnPort(port); r !== undefined; r = receiveMessageOnPort(port)) inbox.push(r.message as DayWriterIn);
  let rows = first.type === 'day' ? dayRows(first.ops) : 0;
  while (rows >= JOIN_MIN_ROWS && days.length < GROUP_DAYS && inbox[0]?.type === 'day') {
    const next = dayRows(inbox[0].ops);
    if (next < JOIN_MIN_ROWS || rows + next > GROUP_ROWS) break;
    days.push(inbox.shift() as Day);
    rows += next;
  }
  try {
    raw.exec('begin immediate');
    if (dataVersion() !== baseline) return drop((k) => k === 0);
    const lapsed: Array<Map<number, number>> = [];
    for (const d of days) {
      const l = await applyDay(d);
      if (l === null) return drop(() => false);
      lapsed.push(l);
    }
    // Written while the engine was still reporting the day before (a long day of its own keeps it
    // from doing so at once, and this thread need not idle meanwhile): committed once it has,
    // rolled back when the engine stopped instead.
    if (data.waitInTransaction && !reportedBefore(first.seq)) return drop(() => false);
    raw.exec('commit');
    days.forEach((d, k) => post({ type: 'committed', seq: d.seq, lapsed: [...lapsed[k]!] }));
  } catch (e) {
    if (raw.inTransaction) raw.exec('rollback');
    stopped = true;
    for (const d of days) post({ type: 'failed', seq: d.seq, error: failure(e) });
  }
}

/** Apply day `d`'s operations, and when it comes in parts the rest as it comes: its lapsed policies, or null when abandoned. */
async function applyDay(d: Day | Part): Promise<Map<number, number> | null> {
  const day = new DayOps(statements);
  const image = () => imageBlocks(d.seq);
  await day.apply(d.ops, image);
  for (let m: DayWriterIn = d; m.type === 'part'; ) {
    m = await next(d.seq);
    if (m.type === 'abandon') return null;
    await day.apply(m.ops, image);
  }
  return day.end();
}

/** The next part, rest or abandon of day `seq`, as it arrives. */
async function next(seq: number): Promise<Extract<DayWriterIn, { type: 'part' | 'day' | 'abandon' }>> {
  for (;;) {
    const k = inbox.findIndex((m) => (m.type === 'part' || m.type === 'day' || m.type === 'abandon') && m.seq === seq);
    if (k >= 0) return inbox.splice(k, 1)[0] as Extract<DayWriterIn, { type: 'part' | 'day' | 'abandon' }>;
    await new Promise<void>((resolve) => (arrived = resolve));
  }
}

/** Woken when a message arrives while a streamed image waits for its next block. */
let arrived: (() => void) | null = null;

/**
 * Day `seq`'s streamed image blocks as the engine sends them (engine-pipeline.ts), each one
 * acknowledged once written so that the engine sends another: ends at its image-end.
 */
async function* imageBlocks(seq: number): AsyncGenerator<ImageRow> {
  for (;;) {
    const k = inbox.findIndex((m) => (m.type === 'image-block' || m.type === 'image-end') && m.seq === seq);
    if (k < 0) {
      await new Promise<void>((resolve) => (arrived = resolve));
      continue;
    }
    const m = inbox.splice(k, 1)[0] as Extract<DayWriterIn, { type: 'image-block' | 'image-end' }>;
    if (m.type === 'image-end') {
      if (m.error !== undefined) throw new Error(m.error);
      return;
    }
    yield m.block;
    // Written (SQLite copied it): the engine fills its buffer with a later block. Freed here, it
    // would wait for this thread's next full collection while the engine made new ones.
    const buffer = m.block.data.buffer as SharedArrayBuffer;
    port.postMessage({ type: 'image-taken', seq, buffer } satisfies DayWriterOut);
  }
}

port.on('message', (m: DayWriterIn) => {
  inbox.push(m);
  const wake = arrived;
  arrived = null;
  wake?.();
  if (!draining) void drain();
});
post({ type: 'ready' });
