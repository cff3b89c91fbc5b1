#!/usr/bin/env node
/**
 * The floor of the engine month (`npm run bench`, issue 13): the time to write the month's
 * attempts and collection updates alone, with prepared multi-row statements, one transaction per
 * day, on a copy of the store the month started from — what the engine could not do faster
 * however little else it did.
 *
 *   node bench/floor.js MONTH_DB WORK_DB
 *
 * MONTH_DB is the store after the month (its attempts are the rows written); WORK_DB is a copy of
 * the store before the advance (clock set, the period queued), written to in place. The rows are
 * prepared in memory first, untimed: each day's attempts in rowid order, and each day's
 * collection updates (the collection's values after that day) in rowid order. Then, timed: for
 * each day, BEGIN IMMEDIATE, the attempts in 64-row INSERTs, the updates in 64-row UPDATE … FROM
 * (VALUES …), COMMIT — under the engine's settings for a run of days (synchronous = NORMAL, a
 * 160 MiB page cache). Prints one line of JSON: {"seconds", "cpu_seconds", "days", "attempts", "updates"}.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');

const [monthPath, workPath] = process.argv.slice(2);
if (!monthPath || !workPath) {
  process.stderr.write('usage: node bench/floor.js MONTH_DB WORK_DB\n');
  process.exit(2);
}

const ROWS = 64;
const ATTEMPT_COLUMNS = ['id', 'client_id', 'collection_id', 'period_month', 'date', 'amount', 'outcome', 'failure_reason'];
const UPDATE_COLUMNS = ['id', 'amount_collected', 'status', 'first_attempt_date', 'last_attempt_date', 'attempts', 'failed_attempts', 'last_failure_reason'];

const valuesList = (rows, width) => new Array(rows).fill(`(${new Array(width).fill('?').join(',')})`).join(',');

// Untimed: the rows, day by day, from the month store (queries only; opened read-write because
// a read-only connection to a WAL store leaves its -wal and -shm files behind when it closes).
const month = new Database(monthPath, { fileMustExist: true });
const days = new Map(); // date -> { attempts: unknown[][], updates: Map<collection id, state> }
const state = new Map(); // collection id -> [collected, status, first, last, attempts, failed, reason, due]
const due = new Map();
for (const [id, amountDue] of month.prepare('select id, amount_due from collections where id in (select collection_id from attempts)').raw(true).iterate()) due.set(id, amountDue);
for (const row of month.prepare(`select ${ATTEMPT_COLUMNS.join(', ')} from attempts order by id`).raw(true).iterate()) {
  const [, , collection, , date, amount, outcome, reason] = row;
  let day = days.get(date);
  if (!day) days.set(date, (day = { attempts: [], updates: new Map() }));
  day.attempts.push(row);
  let s = state.get(collection);
  if (!s) state.set(collection, (s = { collected: 0, first: null, last: null, attempts: 0, failed: 0, reason: null }));
  s.attempts++;
  s.last = date;
  s.first ??= date;
  if (outcome === 'SUCCESS') s.collected += amount;
  else {
    s.failed++;
    s.reason = reason;
  }
  const d = due.get(collection);
  day.updates.set(collection, [collection, s.collected, s.collected >= d ? 'PAID_FULL' : s.collected > 0 ? 'PAID_PARTIAL' : 'UNPAID', s.first, s.last, s.attempts, s.failed, s.reason]);
}
month.close();
const plan = [...days.keys()].sort().map((date) => {
  const d = days.get(date);
  return { attempts: d.attempts, updates: [...d.updates.values()].sort((a, b) => a[0] - b[0]) };
});

const db = new Database(workPath, { fileMustExist: true, timeout: 10_000 });
db.pragma('journal_mode = WAL');
db.pragma('foreign_keys = ON');
db.pragma('synchronous = NORMAL');
db.pragma('cache_size = -163840');
const insert = (k) => db.prepare(`insert into attempts (${ATTEMPT_COLUMNS.join(', ')}) values ${valuesList(k, ATTEMPT_COLUMNS.length)}`);
const update = (k) =>
  db.prepare(
    `update collections set ${UPDATE_COLUMNS.slice(1)
      .map((c, j) => `${c} = v.column${j + 2}`)
      .join(', ')} from (values ${valuesList(k, UPDATE_COLUMNS.length)}) as v where collections.id = v.column1`,
  );
const statements = { insert: [insert(ROWS), insert(1)], update: [update(ROWS), update(1)] };

/** Run `rows` through the 64-row statement and the rest through the one-row statement. */
function write([full, one], rows, width) {
  const params = new Array(ROWS * width);
  let r = 0;
  for (; r + ROWS <= rows.length; r += ROWS) {
    for (let k = 0; k < ROWS; k++) {
      const row = rows[r + k];
      for (let j = 0; j < width; j++) params[k * width + j] = row[j];
    }
    full.run(params);
  }
  for (; r < rows.length; r++) one.run(rows[r]);
}

const begin = db.prepare('begin immediate');
const commit = db.prepare('commit');
let attempts = 0;
let updates = 0;
const started = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
for (const day of plan) {
  begin.run();
  write(statements.insert, day.attempts, ATTEMPT_COLUMNS.length);
  write(statements.update, day.updates, UPDATE_COLUMNS.length);
  commit.run();
  attempts += day.attempts.length;
  updates += day.updates.length;
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const cpu = process.cpuUsage(cpu0);
db.pragma('synchronous = FULL');
db.close();
process.stdout.write(`${JSON.stringify({ seconds: Number(seconds.toFixed(3)), cpu_seconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(3)), days: plan.length, attempts, updates })}\n`);
