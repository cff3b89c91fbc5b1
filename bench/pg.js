/**
 * `npm run bench -- --db postgres` (or `--db postgres://user@host:port/db`): premia on PostgreSQL
 * against PostgreSQL's own tools (issue 14). Kept apart from bench/run.js, which calls it with its
 * helpers (timing under /usr/bin/time, the generated CSV, the result rows).
 *
 *   pg-import  `premia policies import` of the generated N-row CSV against `psql -c "\copy
 *              policies (<the CSV's header>) from FILE csv header"` of the same file into the
 *              same table: each into the policies table of a fresh premia store, made untimed by
 *              premia's migrations (`premia keys create`: its identity ids, unique index, foreign
 *              key to clients and CHECKs). The CSV has no client and no status or timestamps, and gives amounts in
 *              rands, so in the baseline's database only, before the timed run, those columns get
 *              defaults (the store's client, 'active', 0) and collection_amount takes numeric(12,2)
 *              for bigint cents; the baseline must load every row. Target: ≥ 0.6 × psql's speed.
 *              A second line, for information: psql's `\copy` into a bare table of the CSV's
 *              columns (text and numeric: what `sqlite3 .import` is to the SQLite line).
 *   pg-engine  on the imported database: `clock set`, `collections execute` and the month in one
 *              `clock advance --to 2026-11-30`, each timed; then the same queued month (copies of
 *              the database) in 16 customer shards (engine.shards), by the advance alone and by
 *              the advance beside one `premia engine work` (issue 14), their attempts checked
 *              against the month in one piece.
 *   pg-report  `premia reports collections` of that month against `psql -c "\copy (select …) to
 *              stdout csv header"` writing the same bytes. Target: ≥ 0.5 × psql's speed.
 *
 * `--db postgres` starts a throwaway PostgreSQL 15 cluster (as test/pg/cluster.ts does: initdb
 * into a temporary folder, as the postgres user when run as root, a free port on 127.0.0.1,
 * `trust` for local TCP connections) and removes it at the end, also on Ctrl-C. `--db
 * postgres://…` uses that server instead: the bench then creates and drops databases named
 * premia_bench_* on it (the user needs CREATEDB).
 *
 * Wall time is what the ratios compare: the work is the server's, in another process. The CPU
 * columns are the client processes' (premia, psql); with a throwaway cluster the server's CPU
 * time for each run is added to the row's extra (`server_cpu_s`, from /proc).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';

const PG_BIN = process.env.PREMIA_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const SUPERUSER = 'premia_bench';
/** The shards of the sharded months (engine.shards). */
const SHARDS = 16;

/** The throwaway cluster: { base (URL without database), stop(), serverCpu() }. */
async function startCluster(log) {
  for (const tool of ['initdb', 'pg_ctl', 'postgres']) {
    if (!existsSync(join(PG_BIN, tool))) throw new Error(`${join(PG_BIN, tool)} is missing: install PostgreSQL 15 (apt-get install postgresql-15) or set PREMIA_PG_BIN`);
  }
  const asPostgres = os.userInfo().uid === 0;
  const run = (name, args) => {
    const cmd = asPostgres ? 'runuser' : join(PG_BIN, name);
    const argv = asPostgres ? ['-u', 'postgres', '--', join(PG_BIN, name), ...args] : args;
    const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`${name} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  };
  const dir = mkdtempSync(join(os.tmpdir(), 'premia-bench-pg-'));
  const data = join(dir, 'data');
  let started = false;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    if (started) {
      try {
        run('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = (signal) => {
    stop();
    process.kill(process.pid, signal);
  };
  try {
    if (asPostgres) {
      const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      if (!Number.isInteger(uid)) throw new Error('running as root and there is no postgres user to run the cluster as (initdb refuses root)');
      chownSync(dir, uid, gid);
    }
    chmodSync(dir, 0o700);
    const t0 = Date.now();
    run('initdb', ['-D', data, '-U', SUPERUSER, '--auth-local=trust', '--auth-host=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    const port = await freePort();
    // Durable as a real server would be, bar fsync (a throwaway cluster on a shared disk).
    const options = [`-p ${port}`, '-c listen_addresses=127.0.0.1', `-c unix_socket_directories=${dir}`, '-c fsync=off', '-c shared_buffers=256MB', '-c max_wal_size=4GB'].join(' ');
    started = true;
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    process.once('exit', stop);
    run('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', options]);
    log(`  throwaway PostgreSQL 15 cluster on 127.0.0.1:${port} (fsync off, shared_buffers 256MB), started in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return {
      base: `postgres://${SUPERUSER}@127.0.0.1:${port}`,
      stop: () => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        stop();
      },
      serverCpu: () => serverCpu(postmaster),
      children: () => children(postmaster).length,
    };
  } catch (e) {
    stop();
    throw e;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * CPU seconds the server has used: the postmaster's own and its exited children's (each
 * connection's backend is reaped by it), plus its live children's.
 */
function serverCpu(postmaster) {
  const tick = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  const fields = (pid) => {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return text.slice(text.lastIndexOf(')') + 2).split(' ');
    } catch {
      return null;
    }
  };
  const own = fields(postmaster);
  if (own === null) return null;
  // After the ')': state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14)
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const pid of children(postmaster)) {
    const f = fields(pid);
    if (f !== null) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / tick;
}

function children(pid) {
  return spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
}

/** Wait (up to 5 s) until the server has reaped the backends of a client that exited. */
function settle(cluster, count) {
  const until = Date.now() + 5000;
  while (cluster.children() > count && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
}

/** The database part of a URL replaced (or added). */
function withDatabase(base, name) {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Run statements on the server's postgres database (psql, synchronously: the bench's runs are). */
function admin(base, statements) {
  const args = ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', withDatabase(base, 'postgres')];
  for (const s of statements) args.push('-c', s);
  const r = spawnSync('psql', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`psql: ${statements.join('; ')} failed: ${r.stderr.trim()}`);
}

/**
 * The PostgreSQL lines. `h`: bench/run.js's helpers and constants; `o`: its options (scale,
 * runs, only, db). Pushes rows onto `results`.
 */
export async function benchPostgres(o, h, results) {
  const { log, row, count, rate, CommandFailed } = h;
  if (spawnSync('psql', ['--version'], { stdio: 'ignore' }).status !== 0) throw new CommandFailed('psql is needed for the PostgreSQL baselines; install postgresql-client-15.');
  const cluster = o.db === 'postgres' ? await startCluster(log) : null;
  const base = cluster ? cluster.base : o.db;
  // The bench's databases, made afresh before each run that needs an empty one.
  const dbName = (name) => `premia_bench_${name}`;
  const fresh = (name) => {
    admin(base, [`drop database if exists ${dbName(name)} with (force)`, `create database ${dbName(name)}`]);
    return withDatabase(base, dbName(name));
  };
  const dropAll = () => {
    for (const name of ['import', 'psql', 'bare', 'w1', 'w2']) {
      try {
        admin(base, [`drop database if exists ${dbName(name)} with (force)`]);
      } catch {
        // the server is gone: nothing to drop
      }
    }
  };
  /** A spec for measureTogether with the server's CPU time of each run kept on the result. */
  const serverRuns = new Map(); // label → [{ wall, cpu }] of each run
  const withServerCpu = (spec) => {
    if (!cluster) return spec;
    let before = 0;
    let idle = 0;
    serverRuns.set(spec.label, []);
    return {
      ...spec,
      before: () => {
        spec.before?.();
        idle = cluster.children();
        before = cluster.serverCpu();
      },
      check: (r) => {
        settle(cluster, idle);
        serverRuns.get(spec.label).push({ wall: r.wall, cpu: cluster.serverCpu() - before });
        spec.check?.(r);
      },
    };
  };
  /** The server's CPU time of the run measureTogether kept (the best wall time). */
  const serverCpuOf = (m) => serverRuns.get(m.label)?.find((x) => x.wall === m.wall)?.cpu;
  const extraCpu = (m) => {
    const cpu = serverCpuOf(m);
    return cpu === undefined ? {} : { server_cpu_s: Number(cpu.toFixed(2)) };
  };
  const premia = (url, ...args) => [process.execPath, [h.BIN, '--db', url, '--quiet', ...args]];

  try {
    let month = null;
    if (o.only.includes('import') || o.only.includes('engine') || o.only.includes('report')) {
      month = importPart(o.only.includes('import'));
    }
    if (month && (o.only.includes('engine') || o.only.includes('report'))) await enginePart(month);
    if (month && o.only.includes('report')) reportPart(month);
  } finally {
    dropAll();
    cluster?.stop();
  }

  function importPart(timed) {
    const csv = h.ensurePoliciesCsv(o);
    const rows = o.scale;
    const header = readFileSync(csv, 'utf8').slice(0, 200).split('\n')[0];
    log(`\nPostgreSQL import: ${rows} rows (${(statSync(csv).size / 1024 / 1024).toFixed(1)} MiB)`);
    const premiaDb = withDatabase(base, dbName('import'));
    const psqlDb = withDatabase(base, dbName('psql'));
    const bareDb = withDatabase(base, dbName('bare'));
    const psqlCopy = (db) => ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', db, '-c', `\\copy policies (${header}) from '${csv}' with (format csv, header true)`];
    const loaded = (db, what) => {
      const r = spawnSync('psql', ['-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', db, '-c', 'select count(*) from policies'], { encoding: 'utf8' });
      const n = Number(r.stdout.trim());
      if (r.status !== 0 || n !== rows) throw new CommandFailed(`${what} loaded ${r.status === 0 ? n : `? (${r.stderr.trim()})`} of ${rows} rows`);
    };
    // Before each timed run: no other run's table left for autovacuum to work through, and no
    // other run's WAL left for the checkpointer, so each run has the server to itself.
    const quiet = () => {
      admin(base, ['import', 'psql', 'bare'].map((name) => `drop database if exists ${dbName(name)} with (force)`));
      try {
        admin(base, ['checkpoint']);
      } catch {
        // not allowed to this user (--db postgres://…): the runs share what is left
      }
    };
    // A fresh database holding a fresh premia store with its Local client, made by premia itself
    // (untimed): both sides start from the same empty policies table.
    const freshStore = (name) => {
      const url = fresh(name);
      const r = spawnSync(process.execPath, [h.BIN, '--db', url, '--quiet', '--seed', h.SEED, 'keys', 'create', '--operator'], { encoding: 'utf8' });
      if (r.status !== 0) throw new CommandFailed(`premia keys create on ${dbName(name)} failed: ${r.stderr}`);
    };
    // The issue's baseline: the same file into the same table, premia's policies in a fresh store.
    const psqlSpec = withServerCpu({
      label: "psql \\copy into premia's policies table (fresh store)",
      cmd: 'psql',
      args: psqlCopy(psqlDb),
      before: () => {
        quiet();
        freshStore('psql');
        // What the CSV does not carry, as column defaults; its amounts are rands. The rest of
        // the table (identity, unique index, foreign key, CHECKs) stays as premia made it.
        const q = spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', psqlDb, '-c',
          `do $$ begin execute format('alter table policies alter column client_id set default %s, alter column status set default ''active'', ` +
          `alter column created_at set default 0, alter column updated_at set default 0, alter column collection_amount type numeric(12,2)', ` +
          `(select id from clients where name = 'Local')); end $$`], { encoding: 'utf8' });
        if (q.status !== 0) throw new CommandFailed(`preparing ${dbName('psql')} failed: ${q.stderr}`);
      },
      check: () => loaded(psqlDb, "psql's \\copy into policies"),
    });
    const premiaSpec = withServerCpu({
      label: 'premia policies import (fresh store)',
      cmd: process.execPath,
      args: premia(premiaDb, '--seed', h.SEED, '--json', 'policies', 'import', csv)[1],
      before: () => {
        quiet();
        freshStore('import');
      },
      stdout: 'pipe',
      check: (r) => {
        const body = JSON.parse(r.stdout);
        if (body.imported !== rows || body.failed !== 0) throw new CommandFailed(`premia imported ${body.imported} and failed ${body.failed} of ${rows} rows`);
      },
    });
    // For information: a bare table of the CSV's columns, as they are in the file (the amount in
    // rands): what `sqlite3 .import` is to the SQLite line.
    const bareSpec = withServerCpu({
      label: "psql \\copy into a bare table of the CSV's columns (fresh database)",
      cmd: 'psql',
      args: psqlCopy(bareDb),
      before: () => {
        quiet();
        fresh('bare');
        const q = spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', bareDb, '-c',
          'create table policies (customer_id text, external_customer_ref text, policy_number text, product_code text, collection_amount numeric(12,2))'], { encoding: 'utf8' });
        if (q.status !== 0) throw new CommandFailed(`preparing ${dbName('bare')} failed: ${q.stderr}`);
      },
      check: () => loaded(bareDb, "psql's \\copy into a bare table"),
    });
    if (!timed) {
      h.measureTogether([premiaSpec], 1);
      return premiaDb;
    }
    const [psql, bare, mine] = h.measureTogether([psqlSpec, bareSpec, premiaSpec], o.runs);
    admin(base, [`drop database if exists ${dbName('psql')} with (force)`, `drop database if exists ${dbName('bare')} with (force)`]);
    const ratio = psql.wall / mine.wall;
    const cpuOf = (m, key) => (serverCpuOf(m) === undefined ? {} : { [key]: Number(serverCpuOf(m).toFixed(2)) });
    results.push(row('pg-import', `PostgreSQL: policies import, ${count(rows)} rows`, mine, psql, {
      ratio,
      target: `≥ ${h.TARGETS.import_ratio.toFixed(2)} ×`,
      pass: ratio >= h.TARGETS.import_ratio,
      failNote: 'speed',
      premiaText: `${mine.wall.toFixed(2)} s ${rate(rows, mine.wall)}`,
      baselineText: `${psql.wall.toFixed(2)} s ${rate(rows, psql.wall)}`,
      extra: { rows, ...extraCpu(mine), ...cpuOf(psql, 'psql_server_cpu_s') },
    }));
    results.push(row('pg-import', "PostgreSQL: the same against psql into a bare table of the CSV's columns", mine, bare, {
      ratio: bare.wall / mine.wall,
      premiaText: `${mine.wall.toFixed(2)} s ${rate(rows, mine.wall)}`,
      baselineText: `${bare.wall.toFixed(2)} s ${rate(rows, bare.wall)}`,
      extra: { rows, ...cpuOf(bare, 'bare_server_cpu_s') },
    }));
    return premiaDb;
  }

  async function enginePart(db) {
    log(`\nPostgreSQL engine month: ${o.scale} policies`);
    const step = (label, args, check) => {
      const [cmd, a] = premia(db, ...args);
      const [m] = h.measureTogether([withServerCpu({ label, cmd, args: a, stdout: 'pipe', check })], 1);
      results.push(row('pg-engine', `PostgreSQL: ${label}`, m, null, { extra: extraCpu(m) }));
    };
    step(`clock set ${h.CLOCK_START}`, ['clock', 'set', h.CLOCK_START]);
    step(`collections execute (${count(o.scale)} queued)`, ['--json', 'collections', 'execute', '--period', h.PERIOD], (r) => {
      const body = JSON.parse(r.stdout);
      if (body.policies_queued !== o.scale) throw new CommandFailed(`execute queued ${body.policies_queued} policies, not ${o.scale}`);
    });
    const monthDone = (r) => {
      const body = JSON.parse(r.stdout);
      if (body.to !== h.MONTH_END || body.days.length !== 30) throw new CommandFailed(`advance ended at ${body.to} after ${body.days.length} days`);
    };
    // Copies of the queued month for the months in shards (made before the month is lived).
    const sharded = o.only.includes('engine');
    if (sharded) for (const name of ['w1', 'w2']) admin(base, [`drop database if exists ${dbName(name)} with (force)`, `create database ${dbName(name)} template ${dbName('import')}`]);
    step(`clock advance --to ${h.MONTH_END} (30 days)`, ['--json', 'clock', 'advance', '--to', h.MONTH_END], monthDone);
    if (!sharded) return;
    const attempts = (url) => {
      const [cmd, a] = premia(url, 'collections', 'attempts', '--period', h.PERIOD);
      const r = spawnSync(cmd, a, { maxBuffer: 1 << 30 });
      if (r.status !== 0) throw new CommandFailed(`collections attempts failed: ${r.stderr}`);
      return createHash('sha256').update(r.stdout).digest('hex');
    };
    const want = attempts(db);
    for (const [name, workers] of [['w1', 1], ['w2', 2]]) {
      const url = withDatabase(base, dbName(name));
      const set = spawnSync(...premia(url, 'settings', 'set', 'engine.shards', String(SHARDS)));
      if (set.status !== 0) throw new CommandFailed(`settings set engine.shards failed: ${set.stderr}`);
      const label = `clock advance --to ${h.MONTH_END} in ${SHARDS} shards, ${workers === 1 ? 'one process' : `beside ${workers - 1} premia engine work`}`;
      const others = [];
      const [cmd, a] = premia(url, '--json', 'clock', 'advance', '--to', h.MONTH_END);
      const spec = withServerCpu({ label, cmd, args: a, stdout: 'pipe', check: monthDone, before: () => {
        for (let k = 1; k < workers; k++) others.push(engineWorker(url, h.MONTH_END));
      } });
      const [m] = h.measureTogether([spec], 1);
      const helpers = await Promise.all(others);
      const same = attempts(url) === want;
      if (!same) log(`  note: the month in ${SHARDS} shards gave other attempts than the month in one piece`);
      results.push(row('pg-engine', `PostgreSQL: ${label}`, m, null, {
        extra: {
          ...extraCpu(m),
          same_attempts_as_one_piece: same,
          ...(helpers.length > 0 ? { workers_cpu_s: Number(helpers.reduce((t, w) => t + w.cpu, 0).toFixed(2)), workers_peak_rss_mib: Math.max(...helpers.map((w) => w.rssMib)), workers_shards: helpers.reduce((t, w) => t + w.shards, 0) } : {}),
        },
      }));
    }
  }

  /** `premia engine work --until DATE` beside the timed advance: its CPU time, peak RSS and shards lived once it exits. */
  function engineWorker(url, until) {
    const timeFile = join(os.tmpdir(), `premia-bench-worker-${process.pid}-${Math.random().toString(36).slice(2)}`);
    const [cmd, a] = premia(url, '--json', 'engine', 'work', '--until', until);
    const child = spawn('/usr/bin/time', ['-o', timeFile, '-f', '%U %S %M', cmd, ...a], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => {
        if (code !== 0) return reject(new CommandFailed(`premia engine work exited ${code}: ${err.trim()}`));
        const [user, sys, rssKb] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).map(Number);
        rmSync(timeFile, { force: true });
        resolve({ cpu: user + sys, rssMib: rssKb / 1024, shards: JSON.parse(out).shards });
      });
    });
  }

  function reportPart(db) {
    log(`\nPostgreSQL report: ${o.scale} collections of ${h.PERIOD}`);
    const sqlText = reportSql(h.PERIOD);
    const [cmd, args] = premia(db, 'reports', 'collections', '--period', h.PERIOD);
    const psqlArgs = ['-X', '-q', '-d', db, '-c', `\\copy (${sqlText}) to stdout with (format csv, header true)`];
    const [psql, mine] = h.measureTogether([
      withServerCpu({ label: 'psql \\copy (the same report) to stdout csv', cmd: 'psql', args: psqlArgs, stdout: 'pipe' }),
      withServerCpu({ label: 'premia reports collections (csv to stdout)', cmd, args, stdout: 'pipe' }),
    ], o.runs);
    const same = psql.stdout === mine.stdout;
    if (!same) log('  note: premia\'s report and psql\'s CSV differ');
    const ratio = psql.wall / mine.wall;
    results.push(row('pg-report', `PostgreSQL: reports collections csv, ${count(o.scale)} rows`, mine, psql, {
      ratio,
      target: `≥ ${h.TARGETS.report_ratio.toFixed(2)} ×`,
      pass: ratio >= h.TARGETS.report_ratio,
      failNote: 'speed',
      extra: {
        same_bytes_as_psql: same,
        output_mib: Number((Buffer.byteLength(mine.stdout) / 1024 / 1024).toFixed(1)),
        ...extraCpu(mine),
        ...(serverCpuOf(psql) === undefined ? {} : { psql_server_cpu_s: Number(serverCpuOf(psql).toFixed(2)) }),
      },
    }));
  }
}

/** The collections report as SQL on premia's PostgreSQL schema: the bytes `premia reports collections` writes. */
function reportSql(period) {
  const money = (expr) => `to_char((${expr}) / 100.0, 'FM999999999990.00')`;
  return `select period_month, customer_id, external_customer_ref, policy_number, product_code,
  ${money('amount_due')} as collection_amount_due, ${money('amount_collected')} as collection_amount_collected,
  ${money('amount_due - amount_collected')} as shortfall, status as collection_status, first_attempt_date, last_attempt_date,
  attempts as number_of_attempts, last_failure_reason
  from collections where period_month = '${period}' order by policy_number`.replace(/\s+/g, ' ');
}
