/**
 * The report reader (issue 13): a worker thread that reads ranges of a large period's
 * collections report or attempts export beside the thread that streams it
 * (repos/collection-reports.ts), on its own read-only connection, and hands each range over as
 * its text (CSV lines or JSON results).
 *
 * The two connections must read one snapshot. This one takes its snapshot, says so (BEGUN), and
 * reads nothing for the report until the streaming thread has checked that nothing committed
 * between the moment before its own snapshot and now (GO), or gives up (STOP). Ranges are
 * claimed one at a time from a shared counter, at most `window` of them ahead of what the
 * streaming thread has taken, so the text waiting stays small however large the period.
 */
import { createRequire } from 'node:module';
import { workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { BEGUN, DECIDED, GO, NEXT, periodTextWriter, RangeReader, rowSourceOf, TAKEN, type ReportReaderData, type ReportReaderOut } from './report-ranges.js';

const data = workerData as ReportReaderData;
const port = data.port;
const require = createRequire(import.meta.url);
const BetterSqlite = require('better-sqlite3') as typeof BetterSqlite3;
const shared = new Int32Array(data.shared);

const db = new BetterSqlite(data.path, { readonly: true, fileMustExist: true, timeout: data.busyTimeoutMs });
try {
  db.exec('begin');
  // Any read takes the snapshot.
  db.prepare('select count(*) from sqlite_schema').pluck().get();
  Atomics.store(shared, BEGUN, 1);
  while (Atomics.load(shared, DECIDED) === 0) Atomics.wait(shared, DECIDED, 0);
  if (Atomics.load(shared, DECIDED) === GO) {
    const reader = new RangeReader(db, rowSourceOf(data.text), data.clientId, data.period, data.boundaries);
    const write = periodTextWriter(data.text, data.period);
    let mine = 0;
    for (;;) {
      // At most `window` ranges read and not yet taken; a STOP meanwhile ends it.
      for (let taken = Atomics.load(shared, TAKEN); mine - taken >= data.window; taken = Atomics.load(shared, TAKEN)) {
        if (Atomics.load(shared, DECIDED) !== GO) break;
        Atomics.wait(shared, TAKEN, taken, 1000);
      }
      if (Atomics.load(shared, DECIDED) !== GO) break;
      const k = Atomics.add(shared, NEXT, 1);
      if (k >= data.boundaries.length) break;
      let text = '';
      for (const rows of reader.pages(k)) text += write(rows);
      const bytes = Buffer.from(text, 'utf8');
      // Transferred when the bytes fill their buffer (a large text's own); a small one is a
      // slice of Node's shared pool, and is copied.
      const own = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      port.postMessage({ type: 'range', k, text: own } satisfies ReportReaderOut, own.byteOffset === 0 && own.byteLength === own.buffer.byteLength ? [own.buffer] : []);
      mine++;
    }
  }
  port.postMessage({ type: 'done' } satisfies ReportReaderOut);
} finally {
  if (db.inTransaction) db.exec('commit');
  db.close();
}
