/**
 * The day writer (issue 13): a worker thread that commits the engine's days on its own
 * connection to a SQLite file store while the engine lives the next ones
 * (repos/engine-pipeline.ts hands them over). Each day is one BEGIN IMMEDIATE transaction, in the
 * order handed over, with exactly the statements the engine's day unit runs (engine-days.ts).
 *
 * Before a day is written the writer checks that nothing but itself has committed since the
 * engine read the store (`PRAGMA data_version` of this connection, taken when the engine loaded
 * its working set): when something did, the day is not written, nor any handed over after it,
 * until the engine has read the store again (`baseline`).
 *
 * Messages in: {type: 'baseline'} | {type: 'day', seq, ops} | {type: 'close'}.
 * Messages out: {type: 'ready'} | {type: 'baseline'} | {type: 'committed', seq, lapsed} |
 * {type: 'dropped', seq, changed} | {type: 'failed', seq, error} | {type: 'closed'}.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { PremiaError } from '../domain/errors.js';
import { ACKED, applyDayOps, STOP, type DayWriterData, type DayWriterIn, type DayWriterOut } from './engine-days.js';
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
//    collections table, so fewer checkpoints copy each page fewer times (issue 13: the 1M
//    month's writes alone, 8.1-8.6 s with 1,000 pages, 6.2-6.4 s with this and the two above).
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

const post = (m: DayWriterOut) => port.postMessage(m);

async function handle(m: DayWriterIn): Promise<void> {
  if (m.type === 'baseline') {
    baseline = dataVersion();
    stopped = Atomics.load(shared, STOP) !== 0;
    post({ type: 'baseline' });
    return;
  }
  if (m.type === 'close') {
    raw.close();
    post({ type: 'closed' });
    port.close();
    return;
  }
  if (stopped) {
    post({ type: 'dropped', seq: m.seq, changed: false });
    return;
  }
  // The day before reported (or a stop) first, outside any transaction: the engine's thread may
  // be waiting for the store's lock itself (another advance asking for the claim).
  while (Atomics.load(shared, STOP) === 0) {
    const acked = Atomics.load(shared, ACKED);
    if (acked >= m.seq - 1) break;
    Atomics.wait(shared, ACKED, acked, 1000);
  }
  if (Atomics.load(shared, STOP) !== 0) {
    stopped = true;
    post({ type: 'dropped', seq: m.seq, changed: false });
    return;
  }
  try {
    raw.exec('begin immediate');
    if (dataVersion() !== baseline) {
      raw.exec('rollback');
      stopped = true;
      post({ type: 'dropped', seq: m.seq, changed: true });
      return;
    }
    const lapsed = await applyDayOps(statements, m.ops, 'or rollback ');
    raw.exec('commit');
    post({ type: 'committed', seq: m.seq, lapsed: [...lapsed] });
  } catch (e) {
    if (raw.inTransaction) raw.exec('rollback');
    stopped = true;
    const err = e as Error;
    post({ type: 'failed', seq: m.seq, error: { message: err.message, name: err.name, code: err instanceof PremiaError ? err.code : undefined } });
  }
}

// One message at a time, in order.
let queue = Promise.resolve();
port.on('message', (m: DayWriterIn) => {
  queue = queue.then(() => handle(m));
});
post({ type: 'ready' });
