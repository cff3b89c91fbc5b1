/**
 * A throwaway PostgreSQL cluster for `npm run test:pg`: initdb into a temporary folder, a free
 * port on 127.0.0.1, `pg_ctl start`; stopped and removed at the end, also when the tests fail or
 * the run is interrupted. Built from the machine's PostgreSQL 15 binaries
 * (/usr/lib/postgresql/15/bin, or PREMIA_PG_BIN); where they are missing the PostgreSQL tests
 * are skipped with the reason printed.
 *
 * initdb refuses to run as root: as root the cluster is made and run as the `postgres` user
 * (runuser), in a folder that user owns. Host connections need a password (scram-sha-256), so a
 * wrong password is refused as on a real server.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const PG_BIN = process.env.PREMIA_PG_BIN ?? '/usr/lib/postgresql/15/bin';
export const SUPERUSER = 'premia_test';

export interface ClusterInfo {
  /** The superuser's URL without a database name (add `/name`). */
  base: string;
  host: string;
  port: number;
  user: string;
  password: string;
}

export interface RunningCluster extends ClusterInfo {
  /** Stop the server and remove its folder; safe to call more than once. */
  stop(): void;
}

/** Why the cluster cannot be made here, or null when it can. */
export function missingReason(): string | null {
  for (const tool of ['initdb', 'pg_ctl', 'postgres']) {
    if (!existsSync(join(PG_BIN, tool))) {
      return `PostgreSQL binaries not found (${join(PG_BIN, tool)} is missing): install PostgreSQL 15 (apt-get install postgresql-15) or set PREMIA_PG_BIN`;
    }
  }
  if (userInfo().uid === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) {
    return 'running as root and there is no postgres user to run the cluster as (initdb refuses root)';
  }
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Run a PostgreSQL tool as the cluster's owner; throws with its output when it fails. */
function tool(name: string, args: string[], asPostgres: boolean): void {
  const command = asPostgres ? 'runuser' : join(PG_BIN, name);
  const argv = asPostgres ? ['-u', 'postgres', '--', join(PG_BIN, name), ...args] : args;
  const r = spawnSync(command, argv, { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) {
    throw new Error(`${name} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  }
}

export async function startCluster(): Promise<RunningCluster> {
  const asPostgres = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'premia-pg-'));
  const data = join(dir, 'data');
  const password = randomBytes(12).toString('hex');
  let started = false;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    if (started) {
      try {
        tool('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w'], asPostgres);
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (asPostgres) {
      const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
      const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
      chownSync(dir, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
    }
    chmodSync(dir, 0o700);
    const pwfile = join(dir, 'pw');
    writeFileSync(pwfile, `${password}\n`);
    if (asPostgres) chownSync(pwfile, Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()), 0);
    tool(
      'initdb',
      ['-D', data, '-U', SUPERUSER, `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'],
      asPostgres,
    );
    const port = await freePort();
    const options = [
      `-p ${port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${dir}`,
      // A throwaway cluster: no durability needed, and a small footprint on a shared machine.
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c shared_buffers=64MB',
      '-c max_connections=100',
    ].join(' ');
    started = true;
    tool('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', options], asPostgres);
    return { base: `postgres://${SUPERUSER}:${password}@127.0.0.1:${port}`, host: '127.0.0.1', port, user: SUPERUSER, password, stop };
  } catch (e) {
    stop();
    throw e;
  }
}
