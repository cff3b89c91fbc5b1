#!/usr/bin/env node
/**
 * Measure the collections report, settlement creation and the --lines export on a generated
 * store of 1,000,000 collections, against `sqlite3 -csv` writing the same CSV.
 *
 *   npm run build && node bench/reports-1m.mjs [rows]
 *
 * The store is kept in bench/.data/ (git-ignored) and reused when it already has the rows.
 * Each command runs RUNS times (default 3) as a separate process writing to /dev/null; the best
 * wall time is shown with its CPU time and peak RSS (from /usr/bin/time, which is required).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const ROWS = Number(process.argv[2] ?? 1_000_000);
const PERIOD = '2026-11';
const DATA = join(ROOT, 'bench', '.data');
const DB = join(DATA, `report-${ROWS}.db`);
const BIN = join(ROOT, 'bin', 'premia.js');

async function buildStore() {
  const { openLocalBackend } = await import(join(ROOT, 'dist', 'backend', 'local', 'index.js'));
  const { setMeta } = await import(join(ROOT, 'dist', 'store', 'repos', 'meta.js'));
  mkdirSync(DATA, { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) rmSync(DB + suffix, { force: true });
  const backend = await openLocalBackend({ path: DB, seed: 1, now: () => new Date('2026-11-01T08:00:00Z') });
  const raw = backend.store.raw;
  const started = Date.now();
  raw.exec('begin immediate');
  raw.prepare(`insert into executions (id, client_id, period_month, strategy, status, policies_queued, created_at) values (1, 1, ?, 'bench', 'completed', ?, 0)`).run(PERIOD, ROWS);
  const policy = raw.prepare(
    `insert into policies (id, client_id, policy_number, customer_id, external_customer_ref, product_code, collection_amount, status, created_at, updated_at)
     values (?, 1, ?, ?, ?, ?, ?, 'active', 0, 0)`,
  );
  const collection = raw.prepare(
    `insert into collections (id, client_id, execution_id, policy_id, period_month, customer_id, external_customer_ref, policy_number, product_code,
       amount_due, amount_collected, status, first_attempt_date, last_attempt_date, attempts, failed_attempts, last_failure_reason, closed)
     values (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
  );
  let state = 12345;
  const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 4294967296);
  const products = ['FUNERAL_BASIC', 'FUNERAL_PLUS', 'LIFE_COVER', 'HOSPITAL_CASH'];
  for (let i = 1; i <= ROWS; i++) {
    const number = `POL${String(i).padStart(8, '0')}`;
    const customer = `C${String(100000 + (i % 400000)).padStart(7, '0')}`;
    const ext = `EXT-${i}`;
    const product = products[i % 4];
    const due = 5000 + Math.floor(next() * 95000);
    const roll = next();
    const collected = roll < 0.7 ? due : roll < 0.85 ? 0 : Math.floor(next() * due);
    const status = collected === due ? 'PAID_FULL' : collected === 0 ? 'UNPAID' : 'PAID_PARTIAL';
    const attempts = status === 'PAID_FULL' ? 1 : 3;
    policy.run(i, number, customer, ext, product, due);
    collection.run(
      i, i, PERIOD, customer, ext, number, product, due, collected, status,
      '2026-11-03', attempts === 1 ? '2026-11-03' : '2026-11-27', attempts, attempts - (collected === due ? 1 : 0) , status === 'PAID_FULL' ? null : 'INSUFFICIENT_FUNDS',
    );
  }
  raw.exec('commit');
  await setMeta(backend.store.db, 'clock_date', '2026-12-02');
  raw.pragma('wal_checkpoint(TRUNCATE)');
  await backend.close();
  console.log(`built ${ROWS} collections in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function hasRows() {
  if (!existsSync(DB)) return false;
  const Database = require('better-sqlite3');
  const db = new Database(DB, { readonly: true });
  try {
    return db.prepare('select count(*) as n from collections').get().n === ROWS;
  } finally {
    db.close();
  }
}

const RUNS = Number(process.env.RUNS ?? 3);

/** Run a command RUNS times with stdout to /dev/null; the best wall time (s), its CPU and peak RSS. */
function measure(label, cmd, args) {
  let best = null;
  for (let i = 0; i < RUNS; i++) {
    const started = process.hrtime.bigint();
    const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', cmd, ...args], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    const wall = Number(process.hrtime.bigint() - started) / 1e9;
    if (r.status !== 0) throw new Error(`${label} failed: ${r.stderr}`);
    const [user, sys, rssKb] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
    if (best === null || wall < best.wall) best = { wall, cpu: user + sys, rssKb };
  }
  console.log(`${label.padEnd(44)} ${best.wall.toFixed(2).padStart(6)} s wall  ${best.cpu.toFixed(2).padStart(6)} s cpu   peak RSS ${(best.rssKb / 1024).toFixed(0).padStart(4)} MiB`);
  return best;
}

if (!hasRows()) await buildStore();

const SQLITE_SQL = `select period_month, customer_id, external_customer_ref, policy_number, product_code,
  printf('%.2f', amount_due / 100.0), printf('%.2f', amount_collected / 100.0), printf('%.2f', (amount_due - amount_collected) / 100.0),
  status, first_attempt_date, last_attempt_date, attempts, last_failure_reason
  from collections where client_id = 1 and period_month = '${PERIOD}' order by policy_number`;

console.log(`\n${ROWS} collections, period ${PERIOD}`);
const sqlite = measure('sqlite3 -csv -header (same report)', 'sqlite3', ['-csv', '-header', DB, SQLITE_SQL]);
measure('sqlite3 -csv -header (raw cents, no printf)', 'sqlite3', ['-csv', '-header', DB, SQLITE_SQL.replace(/printf\('%\.2f', ([^)]*?) \/ 100\.0\)/g, '$1')]);
const csv = measure('premia reports collections (csv)', process.execPath, [BIN, '--db', DB, 'reports', 'collections', '--period', PERIOD]);
measure('premia reports collections --output (csv)', process.execPath, [BIN, '--db', DB, 'reports', 'collections', '--period', PERIOD, '--output', join(DATA, 'r.csv')]);
measure('premia reports collections (json)', process.execPath, [BIN, '--db', DB, 'reports', 'collections', '--period', PERIOD, '--format', 'json']);
measure('node startup + store open (clock show)', process.execPath, [BIN, '--db', DB, 'clock']);
console.log(`report csv speed: ${(sqlite.wall / csv.wall).toFixed(2)} × sqlite3 by wall time, ${(sqlite.cpu / csv.cpu).toFixed(2)} × by CPU time (target ≥ 0.50)`);

// Settlement: a fresh copy each time, so create can run again.
const { openLocalBackend } = await import(join(ROOT, 'dist', 'backend', 'local', 'index.js'));
const backend = await openLocalBackend({ path: DB, now: () => new Date('2026-12-02T08:00:00Z') });
await backend.store.db.deleteFrom('settlement_events').execute();
await backend.store.db.deleteFrom('settlements').execute(); // bench data only
const t0 = process.hrtime.bigint();
const s = await backend.createSettlement(PERIOD);
console.log(`${'settlements create (in-process)'.padEnd(44)} ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(2).padStart(6)} s   ${s.settlement_number} total ${s.total_collections} cents`);
await backend.close();
measure('premia settlements export --lines', process.execPath, [BIN, '--db', DB, 'settlements', 'export', s.settlement_number, '--lines']);
