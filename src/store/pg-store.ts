/**
 * A premia store on a PostgreSQL database (`--db postgres://user@host:port/db`), through the
 * `pg` driver under kysely (pg-dialect.ts). The same schema as SQLite's, from the same
 * migrations; the same answers, byte for byte.
 *
 * Writes take turns, as on SQLite: every write transaction first takes the store's writer lock,
 * a transaction-scoped advisory lock (waited for up to the busy timeout, then STORE_BUSY), so
 * every check-then-write that was safe under SQLite's BEGIN IMMEDIATE stays safe across any
 * number of processes and machines; reads never wait (MVCC). Holding the lock, the transaction
 * lines each id sequence up with its table (max(id) + 1, what SQLite gives a new row), so ids
 * (and the public ids made from them) are the ones SQLite would give, even after a rolled-back
 * transaction used some numbers.
 *
 * Integers: every integer column is `bigint` (ids, cents, epoch-ms timestamps); pg returns
 * int8 and numeric (sums of bigint) as text, which this store reads as JavaScript numbers,
 * checking that each is a safe integer (below 2^53: 90 trillion euros in cents, or a
 * timestamp in the year 287,000). A value beyond that is an error, never a rounded number.
 */
import { createRequire } from 'node:module';
import type { ClientConfig, Pool, PoolClient } from 'pg';
import { redactDbUrl, scrubDbSecret } from '../lib/db-url.js';
import { PremiaError } from '../domain/errors.js';
import { pgDiskFullError, wrappedDiskFull } from '../domain/disk-full.js';
import { isTypoOf } from '../domain/words.js';
import { Kysely, sql } from './kysely.js';
import { PinnedPgDialect, PremiaPgDialect, type PgCursor, type PgCursorConstructor } from './pg-dialect.js';
import { abortCopy } from './pg-copy.js';
import type { Database } from './schema.js';
import { migrate, MIGRATION_TABLE } from './migrate.js';
import { pgLocks, storeLockSpace, type PgLocks } from './pg-locks.js';
import type { Db, PgStore, PgUnit } from './store-types.js';

const require = createRequire(import.meta.url);

/** The default number of connections a process keeps (PREMIA_DB_POOL or `?pool=` change it). */
export const DEFAULT_POOL_SIZE = 10;
/** How long a connection attempt may take before it is a failure (`?connect_timeout=` seconds changes it). */
export const DEFAULT_CONNECT_TIMEOUT_S = 10;
/**
 * How long the connection holding a clock advance may be silent (a holder killed, frozen, or on a
 * machine lost or cut off) before the server drops it and another advance may run. A holder
 * that lives says so every quarter of it; a day's longest stretch of work without a word to the
 * server (a million policies' first day) takes seconds.
 */
export const DEFAULT_ADVANCE_TIMEOUT_S = 60;
/** The longest statement or connect timeout, in ms: PostgreSQL's and Node's timers' limit (2^31 - 1). */
const MAX_TIMEOUT_MS = 2_147_483_647;
/** The most connections a process may keep: PostgreSQL's own ceiling of max_connections. */
const MAX_POOL_SIZE = 262_143;
/** The table that marks a database as premia's (SQLite's application_id), and its value. */
export const MARKER_TABLE = 'premia_store';
const PREMIA_APPLICATION_ID = 0x50524d41;

export interface OpenPgOptions {
  url: string;
  /** Create premia's tables in an empty database (false: an empty database is STORE_NOT_FOUND). */
  create: boolean;
  /** How long a write waits for the writer lock, in ms. */
  busyTimeoutMs: number;
  /** Environment for PREMIA_DB_POOL and PREMIA_DB_STATEMENT_TIMEOUT (default process.env). */
  env?: Record<string, string | undefined>;
  /** The option that named the store, for messages (default `--db`; `db copy` names `--from` and `--to`). */
  option?: string;
}

/** The connection settings premia takes from the URL and the environment (README, "PostgreSQL"). */
export interface PgSettings {
  client: ClientConfig;
  pool: number;
  statementTimeoutMs: number;
  connectTimeoutS: number;
  /**
   * How long (ms) the connection that holds a clock advance may stay silent before the server
   * closes it, giving the advance up to another process (repos/engine-pg.ts).
   */
  advanceTimeoutMs: number;
  /** The option that gave the URL, as messages name it: `--db` (or PREMIA_DB), or `db copy`'s `--from` / `--to`. */
  given: string;
}

/** The sslmode values the driver knows (libpq's, and node-postgres's no-verify). */
const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full', 'no-verify'];

/**
 * A URL whose user name or password (up to the last '@', as the driver reads it: an unencoded
 * '@' or space works) holds a '/' or a '%' that starts no escape is refused before the driver
 * reads it: the '/' ends the host part there, and the driver would take a piece of the password
 * for the host and name it in its error. Only the redacted URL is shown.
 */
function checkUserInfo(url: string, where: string): void {
  const afterScheme = url.slice(url.indexOf('://') + 3);
  // The user-info ends at the last '@' that a host and a database path follow, wherever a '?' or
  // '#' of the password put it; an '@' with no '/' after it is in a query value or a fragment.
  let at = afterScheme.lastIndexOf('@');
  if (at >= 0 && !afterScheme.slice(at + 1).includes('/')) at = afterScheme.split(/[?#]/, 1)[0]!.lastIndexOf('@');
  if (at < 0) return;
  const userInfo = afterScheme.slice(0, at);
  if (/[/?#]|%(?![0-9A-Fa-f]{2})/.test(userInfo)) {
    throw new PremiaError(
      'VALIDATION_ERROR',
      `The user name or password in ${where} holds a character that must be percent-encoded ('/' as %2F, '?' as %3F, '#' as %23, a '%' that starts no escape as %25); the password is not shown.`,
      { details: [{ field: 'db', code: 'INVALID_FORMAT', message: 'percent-encode the user name and password of the URL' }] },
    );
  }
}

/** premia's own URL parameters: taken out before the rest goes to pg-connection-string. */
const OWN_PARAMS = ['pool', 'statement_timeout', 'connect_timeout', 'advance_timeout'] as const;

/** The parameters premia or the driver (pg-connection-string) reads: a near miss of one is a typo. */
const KNOWN_PARAMS: readonly string[] = [
  ...OWN_PARAMS,
  'sslmode',
  'ssl',
  'sslcert',
  'sslkey',
  'sslrootcert',
  'application_name',
  'fallback_application_name',
  'client_encoding',
  'options',
  'host',
  'port',
  'user',
  'password',
  'uselibpqcompat',
];

/** libpq's other parameters: the driver does not read them, but they are no typos either. */
const OTHER_LIBPQ_PARAMS: readonly string[] = ['sslcrl', 'sslcrldir', 'sslpassword', 'sslsni', 'sslcompression', 'sslcertmode', 'ssl_min_protocol_version', 'ssl_max_protocol_version', 'gssencmode', 'channel_binding', 'target_session_attrs', 'keepalives', 'keepalives_idle', 'keepalives_interval', 'keepalives_count', 'tcp_user_timeout', 'passfile', 'service', 'hostaddr', 'dbname', 'krbsrvname', 'require_auth', 'load_balance_hosts', 'replication'];

/**
 * Read the settings of a `postgres://` URL: pg-connection-string's reading with libpq's meaning
 * of `sslmode` (`require` encrypts without checking the certificate, `verify-ca` checks the
 * chain, `verify-full` also the host name; `disable` never encrypts), plus premia's `pool`,
 * `statement_timeout` (ms) and `connect_timeout` (s), which PREMIA_DB_POOL and
 * PREMIA_DB_STATEMENT_TIMEOUT give when the URL does not.
 */
export function pgSettings(url: string, env: Record<string, string | undefined> = process.env, option = '--db'): PgSettings {
  const where = redactDbUrl(url);
  const bad = (what: string, value: string, min: number, max: number) =>
    new PremiaError('VALIDATION_ERROR', `${what} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value.slice(0, 40))} (in ${where}).`, {
      details: [{ field: 'db', code: 'INVALID_VALUE', message: `${what}: ${value.slice(0, 40)}` }],
    });
  checkUserInfo(url, where);
  const own = new Map<string, string>();
  const query = url.indexOf('?');
  let rest = url;
  if (query >= 0) {
    const params = new URLSearchParams(url.slice(query + 1));
    for (const name of OWN_PARAMS) {
      const v = params.get(name);
      if (v !== null) own.set(name, v);
      params.delete(name);
    }
    // A misspelt parameter would be passed on and ignored: `?sslmod=require` connecting without
    // TLS, `?pol=4` with the default pool. One a letter or two from a parameter premia or the
    // driver reads, and not that parameter, is refused with the one it looks like.
    for (const name of params.keys()) {
      const lower = name.toLowerCase();
      if (KNOWN_PARAMS.includes(lower) || OTHER_LIBPQ_PARAMS.includes(lower)) continue;
      const meant = KNOWN_PARAMS.find((known) => isTypoOf(lower, known));
      if (meant !== undefined) {
        throw new PremiaError('VALIDATION_ERROR', `${where} has a parameter ${JSON.stringify(name.slice(0, 40))}, which premia does not know: did you mean ${meant}?`, {
          details: [{ field: 'db', code: 'INVALID_VALUE', message: `unknown parameter ${name.slice(0, 40)} (did you mean ${meant}?)` }],
        });
      }
    }
    const sslmode = params.get('sslmode');
    if (sslmode === 'prefer' || sslmode === 'allow') {
      throw new PremiaError(
        'VALIDATION_ERROR',
        `sslmode=${sslmode} (TLS if the server offers it, else a plain connection) is not available: the PostgreSQL driver premia uses cannot fall back from one to the other. Give sslmode=require (or verify-ca, verify-full) for TLS, or sslmode=disable (in ${where}).`,
        { details: [{ field: 'db', code: 'INVALID_VALUE', message: `sslmode: ${sslmode}` }] },
      );
    }
    if (sslmode !== null && !SSL_MODES.includes(sslmode)) {
      throw new PremiaError('VALIDATION_ERROR', `sslmode must be one of ${SSL_MODES.join(', ')}; got ${JSON.stringify(sslmode.slice(0, 40))} (in ${where}).`, {
        details: [{ field: 'db', code: 'INVALID_VALUE', message: `sslmode: ${sslmode.slice(0, 40)}` }],
      });
    }
    const left = params.toString();
    rest = url.slice(0, query) + (left ? `?${left}` : '');
  }
  // Each has a ceiling: PostgreSQL refuses a statement_timeout past 2^31 - 1 ms (the server's
  // words, on the first statement, were an unexpected failure), Node's timers cut a connect
  // timeout past 2^31 - 1 ms to 1 ms (every connection then "timed out"), and no server takes
  // more connections than MAX_POOL_SIZE.
  const number = (what: string, value: string | undefined, fallback: number, min: number, max: number): number => {
    if (value === undefined || value === '') return fallback;
    if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) throw bad(what, value, min, max);
    return Number(value);
  };
  const pool = number('pool (?pool= or PREMIA_DB_POOL)', own.get('pool') ?? env.PREMIA_DB_POOL, DEFAULT_POOL_SIZE, 1, MAX_POOL_SIZE);
  const statementTimeoutMs = number(
    'statement_timeout (?statement_timeout= or PREMIA_DB_STATEMENT_TIMEOUT, ms)',
    own.get('statement_timeout') ?? env.PREMIA_DB_STATEMENT_TIMEOUT,
    0,
    0,
    MAX_TIMEOUT_MS,
  );
  const connectTimeoutS = number('connect_timeout (seconds)', own.get('connect_timeout'), DEFAULT_CONNECT_TIMEOUT_S, 0, Math.floor(MAX_TIMEOUT_MS / 1000));
  const advanceTimeoutS = number(
    'advance_timeout (?advance_timeout= or PREMIA_DB_ADVANCE_TIMEOUT, seconds)',
    own.get('advance_timeout') ?? env.PREMIA_DB_ADVANCE_TIMEOUT,
    DEFAULT_ADVANCE_TIMEOUT_S,
    1,
    Math.floor(MAX_TIMEOUT_MS / 1000),
  );
  let client: ClientConfig;
  try {
    const { parse, toClientConfig } = require('pg-connection-string') as typeof import('pg-connection-string');
    const libpq = /[?&]uselibpqcompat=/i.test(rest) ? {} : { useLibpqCompat: true };
    client = toClientConfig(parse(rest, libpq));
  } catch (e) {
    throw new PremiaError('VALIDATION_ERROR', `${where} is not a usable PostgreSQL URL: ${scrubDbSecret((e as Error).message, url)}.`, {
      details: [{ field: 'db', code: 'INVALID_FORMAT', message: 'postgres://user[:password]@host[:port]/database[?sslmode=…&pool=N]' }],
    });
  }
  if (!client.database) {
    throw new PremiaError('VALIDATION_ERROR', `${where} names no database: give it after the host, as in postgres://user@host:5432/premia.`, {
      details: [{ field: 'db', code: 'INVALID_FORMAT', message: 'the URL has no database name' }],
    });
  }
  client.connectionTimeoutMillis = connectTimeoutS * 1000;
  if (statementTimeoutMs > 0) client.statement_timeout = statementTimeoutMs;
  client.application_name ??= 'premia';
  return { client, pool, statementTimeoutMs, connectTimeoutS, advanceTimeoutMs: advanceTimeoutS * 1000, given: option };
}

/** Read int8 and numeric as numbers, refusing any that a double cannot hold exactly. */
function exactNumber(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) {
    if (Number.isFinite(n) && !/^-?\d+$/.test(text)) return n; // a numeric with decimals (none is stored; an average)
    throw new Error(`the database returned ${text}, beyond the integers premia reads exactly (2^53)`);
  }
  return n;
}

/**
 * The host, port and user the driver connects with, for messages: the URL's, else PGHOST, PGPORT
 * and PGUSER, else the driver's defaults, filled as pg's ConnectionParameters fills them (a URL
 * without a host, postgres:///premia, gives an empty one).
 */
function reached(settings: PgSettings): { host: string; port: number | string; user: string } {
  const c = settings.client;
  const env = process.env;
  return {
    host: c.host || env.PGHOST || 'localhost',
    port: c.port || env.PGPORT || 5432,
    user: c.user || env.PGUSER || (process.platform === 'win32' ? env.USERNAME : env.USER) || 'the default user',
  };
}

/** Where the database is, for messages: host:port/database, never the password. */
function placeOf(settings: PgSettings): string {
  const { host, port } = reached(settings);
  return `${host}:${port}/${settings.client.database}`;
}

/** A driver or server error turned into premia's, with the password scrubbed from what it says. */
export function pgError(e: unknown, url: string, settings: PgSettings): unknown {
  if (e instanceof PremiaError) return e;
  const err = e as { code?: string; message?: string; errno?: number };
  const message = scrubDbSecret(String(err?.message ?? e), url);
  const place = placeOf(settings);
  const { host, user } = reached(settings);
  const code = typeof err?.code === 'string' ? err.code : '';
  const unavailable = (text: string) => new PremiaError('STORE_UNAVAILABLE', text, { cause: scrubbed(e, message) });
  const lost = () => unavailable(`The PostgreSQL server at ${place} closed or lost the connection (${message}). Try again once it is back.`);
  switch (code) {
    case 'ECONNREFUSED':
      return unavailable(`Cannot connect to the PostgreSQL server at ${place}: the connection was refused. Is the server running, and are the host and port in ${settings.given} right?`);
    case 'ENOENT': // a unix-socket directory (host=/var/run/postgresql) with no server's socket in it
    case 'ENOTDIR':
      return unavailable(
        `Cannot connect to the PostgreSQL server at ${place}: there is no server socket ${scrubDbSecret(String((e as { address?: string }).address ?? `${host}/.s.PGSQL.${reached(settings).port}`), url)}. ` +
          `Is the server running, and are the socket directory (the host) and port in ${settings.given} right?`,
      );
    case 'EACCES': // a socket this user may not open
      return unavailable(`Cannot connect to the PostgreSQL server at ${place}: ${message}. This user may not open the server's socket: check the socket directory (the host) in ${settings.given} and its permissions.`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return unavailable(`Cannot connect to the PostgreSQL server at ${place}: the host name ${host} is not known.`);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ETIMEDOUT':
    case '57P01': // admin_shutdown
    case '57P02':
    case '57P03': // cannot_connect_now (starting up)
      return lost();
    case '28P01':
    case '28000':
      return unavailable(
        `The PostgreSQL server at ${place} refused user ${user}: ${message.replace(/\.$/, '')}. Check the user and password in ${settings.given === '--db' ? '--db or PREMIA_DB' : settings.given} (or PGPASSWORD / ~/.pgpass).`,
      );
    case '3D000':
      return unavailable(`The PostgreSQL server at ${place} has no database ${settings.client.database}: create it first (createdb ${settings.client.database}), or name another in ${settings.given}.`);
    case '53300': // too_many_connections: the server's, the role's or the database's limit
      return unavailable(
        `The PostgreSQL server at ${place} refused another connection of user ${user}: ${message.replace(/\.$/, '')}. ` +
          `Each premia process opens up to ${settings.pool} (?pool= or PREMIA_DB_POOL), premia serve twice that (its job thread keeps a pool of its own) and a clock advance one more: ` +
          'lower the pool, run fewer processes at once, or raise the limit (max_connections, or the CONNECTION LIMIT of the user or the database).',
      );
    case '53100': // disk_full: the server's data or temporary files (53200 out_of_memory is not a disk)
      return pgDiskFullError(place, message, scrubbed(e, message));
    case '22P05': // untranslatable_character: a store made in a database of another encoding than UTF8
      return new PremiaError(
        'VALIDATION_ERROR',
        `The database at ${place} cannot hold a character of this request in its encoding (${message.replace(/\.$/, '')}); what premia was writing was rolled back. ` +
          'premia keeps text as Unicode: copy the store into a UTF8 database (createdb -E UTF8 -T template0 …, then premia db copy) and use that one.',
        { cause: scrubbed(e, message), details: [{ field: 'db', code: 'INVALID_VALUE', message: 'a character the database encoding lacks' }] },
      );
    case '25006': // read_only_sql_transaction: a standby, or default_transaction_read_only
      return new PremiaError(
        'VALIDATION_ERROR',
        `The PostgreSQL database at ${place} takes no writes (${message.replace(/\.$/, '')}): it is a standby server, or default_transaction_read_only is on for it or for user ${user}. ` +
          'What premia was doing was rolled back. Point --db at the primary server, or make the database writable.',
        { cause: scrubbed(e, message), details: [{ field: 'db', code: 'STORE_READ_ONLY', message: `${place} is read-only` }] },
      );
    case '42501': // insufficient_privilege
      return privilegeError(message, place, user, settings.client.database ?? '', e, settings.given);
    case '55P03':
    case '40P01':
    case '40001':
      return new PremiaError('STORE_BUSY', `The store ${redactDbUrl(url)} is busy (another premia holds its writer lock). Try again shortly.`, { cause: scrubbed(e, message) });
    case '57014':
      return new PremiaError(
        'STORE_BUSY',
        `A statement on ${place} ran longer than the statement timeout (${settings.statementTimeoutMs} ms) and was cancelled; nothing of it was kept. Raise ?statement_timeout= or PREMIA_DB_STATEMENT_TIMEOUT.`,
        { cause: scrubbed(e, message) },
      );
  }
  // The driver's own words for a connection that ended under it (no SQLSTATE): the server went
  // away between two queries of a transaction, or closed the socket without a word.
  if (/Connection terminated unexpectedly|not queryable/i.test(message)) {
    return lost();
  }
  if (/timeout expired|connection timeout/i.test(message)) {
    return unavailable(`Cannot connect to the PostgreSQL server at ${place}: no answer within ${settings.connectTimeoutS} s (${message}).`);
  }
  if (/SSL|TLS|certificate/i.test(message) && !code.match(/^[0-9A-Z]{5}$/)) {
    return unavailable(`Cannot open a TLS connection to the PostgreSQL server at ${place}: ${message}. Check sslmode (and sslrootcert) in ${settings.given}.`);
  }
  if (message !== String(err?.message ?? e)) return scrubbed(e, message);
  return e;
}

/**
 * A privilege the connecting user lacks (SQLSTATE 42501): the operator's to fix, as a store file
 * this user cannot write is on SQLite (exit 2, detail STORE_READ_ONLY, which `premia serve`
 * answers 503), never an unexpected failure. The server's words name what was refused; the
 * transaction it happened in was rolled back.
 */
function privilegeError(message: string, place: string, user: string, database: string, cause: unknown, given: string): PremiaError {
  const refused = message.replace(/\.$/, '');
  const details = [{ field: 'db', code: 'STORE_READ_ONLY', message: `user ${user} lacks a privilege on ${place}` }];
  if (/permission denied for database/i.test(refused)) {
    // Refused at the door (CONNECT revoked): the same as a user the server does not let in.
    return new PremiaError(
      'STORE_UNAVAILABLE',
      `The PostgreSQL server at ${place} refused user ${user}: ${refused}. Grant it CONNECT on the database, or name another user in ${given}.`,
      { cause: scrubbed(cause, message) },
    );
  }
  if (/permission denied for schema/i.test(refused)) {
    // PostgreSQL 15 lets only the database's owner create tables in schema public.
    return new PremiaError(
      'VALIDATION_ERROR',
      `The PostgreSQL user ${user} may not create premia's tables in ${place} (${refused}); nothing was created. ` +
        `Make ${user} the database's owner (createdb -O ${user} ${database}, or ALTER DATABASE ${database} OWNER TO ${user}), or grant it CREATE on the schema.`,
      { cause: scrubbed(cause, message), details },
    );
  }
  return new PremiaError(
    'VALIDATION_ERROR',
    `The PostgreSQL user ${user} lacks a privilege premia needs on the store at ${place} (${refused}); what it was doing was rolled back. ` +
      `premia reads and writes every table and sequence of its store: connect as the user that owns them, or grant this one those rights.`,
    { cause: scrubbed(cause, message), details },
  );
}

/** The error with `message` in place of its own (the driver's text, scrubbed). */
function scrubbed(e: unknown, message: string): unknown {
  if (e instanceof Error) {
    try {
      e.message = message;
      if (e.stack) e.stack = e.stack.replace(/^[^\n]*/, `${e.name}: ${message}`);
    } catch {
      // a frozen error: leave it
    }
  }
  return e;
}

/** `?` placeholders as PostgreSQL's `$n` (the queries given are premia's own: no `?` inside quotes). */
export function pgPlaceholders(query: string): string {
  let n = 0;
  let quoted = false;
  let out = '';
  for (const ch of query) {
    if (ch === "'") quoted = !quoted;
    out += ch === '?' && !quoted ? `$${++n}` : ch;
  }
  return out;
}

/**
 * The password when the URL gives none, asked for only when the server wants one: PGPASSWORD,
 * else the password file (~/.pgpass, or PGPASSFILE) read as libpq reads it (through pgpass, the
 * module the driver itself uses, called here: the driver's own use of it is deprecated and
 * printed a warning on every command). None at all is the operator's to fix, not an internal error.
 */
function passwordLookup(settings: PgSettings, env: Record<string, string | undefined>): (params?: { host?: string; port?: number; database?: string; user?: string }) => Promise<string> {
  const pgpass = require('pgpass') as (connInfo: object, cb: (password: string | undefined) => void) => void;
  // The driver passes the connection's parameters (its defaults filled in); the URL's otherwise.
  return async (params = { host: settings.client.host, port: settings.client.port, database: settings.client.database, user: settings.client.user }) => {
    if (env.PGPASSWORD !== undefined && env.PGPASSWORD !== '') return env.PGPASSWORD;
    const found = await new Promise<string | undefined>((resolve) => pgpass(params, resolve));
    if (found !== undefined) return found;
    throw new PremiaError(
      'STORE_UNAVAILABLE',
      `The PostgreSQL server at ${placeOf(settings)} asks for the password of user ${params.user || reached(settings).user} and none was given: put it in the URL (percent-encoded: postgres://user:password@host/db), in PGPASSWORD, or in ~/.pgpass.`,
    );
  };
}

export async function openPgStore(options: OpenPgOptions): Promise<PgStore> {
  const settings = pgSettings(options.url, options.env, options.option);
  const pg = require('pg') as typeof import('pg');
  const Cursor = require('pg-cursor') as PgCursorConstructor;
  const url = options.url;
  const translate = (e: unknown) => pgError(e, url, settings);
  const types = {
    getTypeParser: (oid: number, format?: string) =>
      oid === 20 || oid === 1700 ? exactNumber : (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format),
  };
  const pool: Pool = new pg.Pool({ ...settings.client, password: settings.client.password || passwordLookup(settings, options.env ?? process.env), max: settings.pool, types });
  // An idle connection that the server closes must not crash the process: the next query reconnects.
  pool.on('error', () => undefined);
  // Nor one checked out (a download's COPY, a transaction) when the server goes away or restarts
  // (57P01): the query on it fails with the error, and the connection is dropped on release.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });

  /** The SQL that lines the id sequences up with their tables (null until the tables exist). */
  let syncIds: string | null = null;
  /** The store's advisory locks (pg-locks.ts), known once the first connection found its schema. */
  let known: PgLocks | null = null;
  const locks = (): PgLocks => {
    if (known === null) throw new Error('the store has no schema yet to take its locks in');
    return known;
  };
  const beginWrite = async (client: PoolClient) => {
    await client.query(`set local lock_timeout = ${Math.max(1, Math.floor(options.busyTimeoutMs))}`);
    await client.query(`select pg_advisory_xact_lock(${locks().writer})`);
    await client.query('set local lock_timeout = 0');
    if (syncIds !== null) await client.query(syncIds);
  };
  const dialect = new PremiaPgDialect(pool, Cursor, beginWrite, translate);
  const db = new Kysely<Database>({ dialect });
  const display = redactDbUrl(url);

  const unit = (client: PoolClient): PgUnit => ({
    client,
    db: new Kysely<Database>({ dialect: new PinnedPgDialect(client, Cursor, translate) }),
    rows: (query, params, opts) => cursorRows(client, Cursor, query, params, opts ?? {}, translate),
  });
  const connect = async (): Promise<PoolClient> => {
    try {
      return await pool.connect();
    } catch (e) {
      throw translate(e);
    }
  };
  const inTransaction = async <T>(begin: (client: PoolClient) => Promise<void>, fn: (unit: PgUnit) => Promise<T>): Promise<T> => {
    const client = await connect();
    let broken = false;
    try {
      await begin(client);
      const out = await fn(unit(client));
      await client.query('commit');
      return out;
    } catch (e) {
      try {
        await abortCopy(client);
        await client.query('rollback');
      } catch {
        broken = true;
      }
      throw translate(e);
    } finally {
      client.release(broken);
    }
  };

  const store: PgStore = {
    kind: 'postgres',
    path: display,
    target: url,
    db,
    get locks() {
      return locks();
    },
    advanceTimeoutMs: settings.advanceTimeoutMs,
    async transaction(fn) {
      return db.transaction().execute(fn);
    },
    writeUnit(fn, silentUpTo) {
      return inTransaction(async (client) => {
        await client.query('begin');
        if (silentUpTo !== undefined) await client.query(`set local idle_in_transaction_session_timeout = ${silentUpTo}`);
        await beginWrite(client);
      }, fn);
    },
    readUnit(fn) {
      return inTransaction((client) => client.query('begin isolation level repeatable read read only').then(() => undefined), fn);
    },
    sharedWriteUnit(fn) {
      return inTransaction(async (client) => {
        await client.query('begin');
        // Before the lock is held: a worker that stops answering once it holds it (frozen, its
        // machine lost) gives it back when the server ends its silent transaction (writeUnit's silentUpTo).
        await client.query(`set local idle_in_transaction_session_timeout = ${settings.advanceTimeoutMs}`);
        await client.query(`set local lock_timeout = ${Math.max(1, Math.floor(options.busyTimeoutMs))}`);
        await client.query(`select pg_advisory_xact_lock_shared(${locks().writer})`);
        await client.query('set local lock_timeout = 0');
      }, fn);
    },
    async sessionWriteUnit(session, fn) {
      const client = session as PoolClient;
      try {
        await client.query('begin');
        await beginWrite(client);
        const out = await fn(unit(client));
        await client.query('commit');
        return out;
      } catch (e) {
        await abortCopy(client).catch(() => undefined);
        await client.query('rollback').catch(() => undefined);
        throw translate(e);
      }
    },
    async *streamRows<T>(query: string, params: unknown[], opts: { raw?: boolean; batch?: number } = {}) {
      const client = await connect();
      let broken = false;
      try {
        await client.query('begin isolation level repeatable read read only');
        yield* cursorRows<T>(client, Cursor, query, params, opts, translate);
        await client.query('commit');
      } catch (e) {
        broken = true;
        throw translate(e);
      } finally {
        // Stopped early (the consumer went away): the transaction is still open; drop the connection.
        if (!broken) {
          try {
            await client.query('rollback');
          } catch {
            broken = true;
          }
        }
        client.release(broken);
      }
    },
    async *copyOut(statement: string) {
      const { to: copyTo } = require('pg-copy-streams') as typeof import('pg-copy-streams');
      const client = await connect();
      let clean = false;
      try {
        const stream = client.query(copyTo(statement));
        for await (const chunk of stream) yield chunk as Buffer;
        clean = true;
      } catch (e) {
        throw translate(e);
      } finally {
        // Failed, or stopped early (the consumer went away mid-COPY): the connection is in no
        // state to reuse; drop it. After the last chunk it only awaits the server's
        // CommandComplete, which pg reads before the connection's next query.
        client.release(!clean);
      }
    },
    async openSession() {
      // The password as the pool finds it: the driver's own ~/.pgpass reading printed its
      // deprecation warning on every clock advance, and a missing password was its words, not premia's.
      const client = new pg.Client({ ...settings.client, password: settings.client.password || passwordLookup(settings, options.env ?? process.env), types });
      client.on('error', () => undefined); // seen by the next query on it
      try {
        await client.connect();
      } catch (e) {
        await client.end().catch(() => undefined);
        throw translate(e);
      }
      return { client, close: () => client.end().catch(() => undefined) };
    },
    async close() {
      await db.destroy();
      await pool.end();
    },
  };

  try {
    // The first connection says whether the server is there and lets us in, and which schema
    // the store is in (none: claim says so).
    const first = await connect();
    try {
      const space = await storeLockSpace(first);
      if (space !== null) known = pgLocks(space);
    } finally {
      first.release();
    }
    await claim(store, options, display);
    await migrate(db);
    syncIds = await idSyncSql(db);
  } catch (e) {
    await store.close().catch(() => undefined);
    // A migration that ran out of room comes wrapped (INTERNAL, "Upgrading the store failed …").
    throw wrappedDiskFull(e) ?? translate(e);
  }
  return store;
}

async function* cursorRows<T>(
  client: PoolClient,
  Cursor: PgCursorConstructor,
  query: string,
  params: unknown[],
  opts: { raw?: boolean; batch?: number },
  translate: (e: unknown) => unknown,
): AsyncGenerator<T[]> {
  const batch = opts.batch ?? 2000;
  const cursor = client.query(new Cursor<T>(pgPlaceholders(query), params, opts.raw ? { rowMode: 'array' } : {}) as never) as unknown as PgCursor<T>;
  try {
    for (;;) {
      let rows: T[];
      try {
        rows = await cursor.read(batch);
      } catch (e) {
        throw translate(e);
      }
      if (rows.length === 0) break;
      yield rows;
    }
  } finally {
    await cursor.close().catch(() => undefined);
  }
}

/** pg_class kinds, as a refusal names them. */
const RELATION_KINDS: ReadonlyArray<readonly [string, string]> = [
  ['rp', 'tables'],
  ['v', 'views'],
  ['m', 'materialized views'],
  ['f', 'foreign tables'],
  ['S', 'sequences'],
];

/**
 * Refuse a database of another application before anything is written to it (tables, none of
 * them premia's marker), and claim an empty one for premia (the marker table, PostgreSQL's
 * equivalent of SQLite's application_id), under the writer lock so two processes opening an
 * empty database at once claim it once.
 */
/** The oldest PostgreSQL premia runs on: the engine's days read pg_current_snapshot() and pg_current_xact_id() (13). */
export const OLDEST_POSTGRES = 130000;

/** The refusal of a server older than OLDEST_POSTGRES (`version`: its server_version_num), or null. */
export function tooOldServer(version: number, display: string): PremiaError | null {
  if (!(version < OLDEST_POSTGRES)) return null;
  const major = version >= 100000 ? Math.floor(version / 10000) : `${Math.floor(version / 10000)}.${Math.floor(version / 100) % 100}`;
  return new PremiaError(
    'VALIDATION_ERROR',
    `The PostgreSQL server of ${display} is version ${major}; premia needs PostgreSQL 13 or later (its engine reads transaction snapshots with functions 13 brought), so nothing was done. ` +
      'Upgrade the server, or use a database on a newer one.',
    { details: [{ field: 'db', code: 'INVALID_VALUE', message: `PostgreSQL ${major}, not 13 or later` }] },
  );
}

async function claim(store: PgStore, options: OpenPgOptions, display: string): Promise<void> {
  // A search_path naming no schema that exists (a typo in the URL's options, a schema not made
  // yet) leaves premia nowhere to look for its tables or to make them; a server older than 13
  // would fail only in the middle of an advance.
  const where = (
    await sql<{ schema: string | null; path: string; version: number }>`select current_schema() as schema, current_setting('search_path') as path,
      current_setting('server_version_num')::int as version`.execute(store.db)
  ).rows[0]!;
  const old = tooOldServer(Number(where.version), display);
  if (old !== null) throw old;
  if (where.schema === null) {
    throw new PremiaError(
      'VALIDATION_ERROR',
      `The database ${display} has no schema of its search_path (${where.path}) that this user may use (none of them exists, or USAGE on it is not granted), ` +
        `so premia has nowhere to ${options.create ? 'make' : 'find'} its tables; nothing was created. ` +
        'Create the schema (CREATE SCHEMA …) or grant USAGE on it, or correct search_path (options=-csearch_path%3D… in the URL, or the user\'s setting).',
      { details: [{ field: 'db', code: 'STORE_NOT_FOUND', message: `no usable schema in the search_path (${where.path})` }] },
    );
  }
  // Every relation of the schema a user or another application makes (tables, views, sequences
  // and the like): a schema holding only views is someone's, not empty.
  const relationsOf = async (db: Db) =>
    (
      await sql<{ name: string; kind: string }>`
        select c.relname as name, c.relkind as kind from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S') order by c.relname`.execute(db)
    ).rows;
  const notCreatedYet = () =>
    new PremiaError('VALIDATION_ERROR', `The database ${display} holds no premia store yet; nothing was created.`, {
      details: [{ field: 'db', code: 'STORE_NOT_FOUND', message: `${display} has no premia tables` }],
    });
  const decide = (relations: Array<{ name: string; kind: string }>): 'ours' | 'empty' => {
    const tables = relations.filter((r) => r.kind === 'r' || r.kind === 'p').map((r) => r.name);
    if (tables.includes(MARKER_TABLE)) {
      // The mark alone: a creation or a `db copy` stopped before premia's tables were made. A
      // command that only reads leaves it so (a rerun of the copy then finds it empty).
      if (!options.create && !tables.includes(MIGRATION_TABLE)) throw notCreatedYet();
      return 'ours';
    }
    if (relations.length === 0) {
      if (!options.create) throw notCreatedYet();
      return 'empty';
    }
    const shown = RELATION_KINDS.map(([kinds, word]) => {
      const names = relations.filter((r) => kinds.includes(r.kind)).map((r) => r.name);
      return names.length === 0 ? '' : `${word} ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`;
    })
      .filter((part) => part !== '')
      .join('; ');
    throw new PremiaError(
      'VALIDATION_ERROR',
      `${display} is a PostgreSQL database of another application (${shown}), not a premia store; premia leaves it untouched. Name another database (or schema) in the URL.`,
      { details: [{ field: 'db', code: 'NOT_A_PREMIA_STORE', message: 'the database holds tables, views or sequences premia did not make' }] },
    );
  };
  if (decide(await relationsOf(store.db)) === 'ours') {
    // premia's tables with no clock yet: a creation or a `db copy` stopped after the tables were
    // made. A command that only reads leaves it so, as above (else opening it would write the
    // store's first rows, and a rerun of the copy would find the target no longer empty).
    if (!options.create && Number((await sql<{ n: number }>`select count(*) as n from meta where key = 'clock_date'`.execute(store.db)).rows[0]!.n) === 0) throw notCreatedYet();
    return;
  }
  // premia's text is Unicode, as SQLite's is: a database in another encoding (LATIN1, WIN1252…)
  // would refuse any character it lacks (a client's name, a dispute's reason) in the middle of
  // the work. A new store is made in a UTF8 (or SQL_ASCII, which stores the bytes as given) one only.
  const encoding = (await sql<{ encoding: string }>`select pg_encoding_to_char(encoding) as encoding from pg_database where datname = current_database()`.execute(store.db)).rows[0]?.encoding;
  if (encoding !== undefined && encoding !== 'UTF8' && encoding !== 'SQL_ASCII') {
    throw new PremiaError(
      'VALIDATION_ERROR',
      `The database ${display} is encoded in ${encoding}, which cannot hold every character premia stores (its text is Unicode, as on SQLite); nothing was created. ` +
        'Create the database with the UTF8 encoding (createdb -E UTF8 -T template0 …) and name it in the URL.',
      { details: [{ field: 'db', code: 'INVALID_VALUE', message: `database encoding ${encoding}, not UTF8` }] },
    );
  }
  await store.transaction(async (trx) => {
    if (decide(await relationsOf(trx)) === 'ours') return;
    await trx.schema.createTable(MARKER_TABLE).addColumn('application_id', 'integer', (c) => c.notNull()).execute();
    await sql`insert into ${sql.table(MARKER_TABLE)} (application_id) values (${PREMIA_APPLICATION_ID})`.execute(trx);
  });
}

/**
 * premia's tables (schema.ts's Database; the record makes the compiler hold it to that list):
 * the only ones the store lines ids up on and `db copy` reads, clears and writes. A table another
 * application made in the store's schema after premia (its claim refuses a schema that held one
 * before) is never touched: its identity sequence was set back to max(id) + 1 on every premia
 * write (ids it had used and deleted given out again), and a copy with --yes emptied it.
 */
const OWN_TABLES: Record<keyof Database, true> = {
  meta: true,
  clients: true,
  policies: true,
  policy_amount_changes: true,
  policy_status_changes: true,
  executions: true,
  collections: true,
  attempts: true,
  plan_batches: true,
  engine_image: true,
  engine_image_head: true,
  engine_inputs: true,
  engine_shards: true,
  bank_transactions: true,
  bank_snapshots: true,
  api_keys: true,
  idempotency_keys: true,
  settlements: true,
  settlement_events: true,
};
export const PREMIA_TABLES: ReadonlySet<string> = new Set(Object.keys(OWN_TABLES));

/** One statement that sets each identity sequence of premia's tables to max(id) + 1 of its table, where it is not already. */
export async function idSyncSql(db: Db): Promise<string | null> {
  const rows = (
    await sql<{ table: string; column: string; seq: string }>`
      select c.relname as "table", a.attname as "column", pg_get_serial_sequence(quote_ident(c.relname), a.attname) as seq
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and a.attidentity <> '' and c.relkind = 'r'
      order by c.relname`.execute(db)
  ).rows.filter((r) => PREMIA_TABLES.has(r.table));
  if (rows.length === 0) return null;
  const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const parts = rows.map(
    (r) =>
      `select ${lit(r.seq)}::regclass as seq, (select coalesce(max(${q(r.column)}), 0) + 1 from ${q(r.table)}) as next, ` +
      `(select last_value + case when is_called then 1 else 0 end from ${r.seq}) as cur`,
  );
  return `select setval(x.seq, x.next, false) from (${parts.join(' union all ')}) x where x.next <> x.cur`;
}
