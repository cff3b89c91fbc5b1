/**
 * What a command gets injected: IO streams, terminal flags, environment, a wall clock, a prompter
 * and a lazy backend. Tests build a context with buffers and run commands in-process; the binary
 * builds one from `process`. The concrete backend (local or remote) is chosen here and only
 * here, imported dynamically when a command needs it, so `--help` loads no database or HTTP
 * library. The operator's functions (keys, settings) are the local backend's admin object
 * (`admin`); the HTTP service is given by the process entry (`serve`, src/app/premia.ts), so the
 * CLI never imports the server.
 *
 * Mode and credentials (first match wins):
 *   mode      --db with --base-url/--profile is a usage error; --base-url or --profile → remote;
 *             --db → local; PREMIA_BASE_URL or PREMIA_PROFILE → remote; PREMIA_DB → local;
 *             a saved profile named `default` → remote; else local on ./premia.db.
 *   profile   --profile, PREMIA_PROFILE, else `default` when it exists.
 *   base URL  --base-url, PREMIA_BASE_URL, else the profile's.
 *   API key   --api-key (with a warning: it shows in process lists and shell history),
 *             PREMIA_API_KEY, else the profile's key — only when the base URL is the profile's
 *             own, so that a saved key is never sent to another server.
 */
import { redactGivenKeys, redactKeysIn } from '../lib/key-text.js';
import { randomUUID } from 'node:crypto';
import { existsSync, rmSync, statSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { Admin, Backend, Mode, StoreCopyReport, StoreCopyRequest } from '../backend/types.js';
import { PremiaError, usageError, validationError } from '../domain/errors.js';
import { checkGivenKey } from '../domain/idempotency.js';
import { escapeUnseen } from '../domain/identifiers.js';
import { foreignUrlProblem, isPostgresUrl, isStoreFile, keyAsStoreProblem, redactDbUrl } from '../lib/db-url.js';
import { fileKind } from '../lib/file-kind.js';
import { sqliteDatabaseOwning } from '../lib/sqlite-files.js';
import type { LockWaitHooks } from '../lib/lock-wait.js';
import { discardTypedAhead } from '../lib/typed-ahead.js';
import { unexpandedTilde } from '../lib/tilde.js';
import { parseBaseUrl } from '../backend/wire.js';
import { checkPrivate, checkProfileName, configPath, DEFAULT_PROFILE, readConfig, redactKey, type Profile } from './config.js';

export interface GlobalOptions {
  db?: string;
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
  yes?: boolean;
  seed?: string;
  debug?: boolean;
  baseUrl?: string;
  apiKey?: string;
  profile?: string;
  idempotencyKey?: string;
  /** Local mode: act for this client of the store (`--as-client`). */
  asClient?: string;
  /** Seconds (--timeout, --connect-timeout). */
  timeout?: string;
  connectTimeout?: string;
}

/** Questions asked on a terminal (never without one). */
/** How a question is drawn: `colour: false` (--no-color, NO_COLOR, TERM=dumb) draws it plain. */
export interface PromptOptions {
  colour?: boolean;
}

export interface Prompter {
  /** A masked answer (API keys). */
  password(message: string, options?: PromptOptions): Promise<string>;
  input(message: string, options?: PromptOptions): Promise<string>;
  /** A yes/no question; the default answer (Enter) is no. */
  confirm(message: string, options?: PromptOptions): Promise<boolean>;
}

/** Where commands go: resolved from flags, environment and the saved profiles, without opening anything. */
export interface ResolvedTarget {
  mode: Mode;
  /** local: the store file. */
  db?: string;
  /** local: how the store file was chosen: --db, PREMIA_DB, or the default ./premia.db. */
  dbSource?: 'flag' | 'env' | 'default';
  /** local: the client to act for (--as-client), null for the store's own local client. */
  asClient?: string | null;
  /** remote: the base URL, exactly as given. */
  baseUrl?: string;
  /** remote: the key (secret: never print it; see `redactKey`). */
  apiKey?: string | null;
  keySource?: 'flag' | 'env' | 'profile' | null;
  /** The saved profile in use, if any. */
  profile: string | null;
  configPath: string | null;
}

/** What `premia serve` asks of the server (server/serve.ts implements it). */
export interface ServeOptions {
  host: string;
  port: number;
  jsonLimit?: number;
  uploadLimit?: number;
  rateLimit?: number;
  /** false: no clock or bank endpoints (--no-simulation). */
  simulation?: boolean;
  /** The store did not exist before this server made it (said on the start line). */
  newStore?: boolean;
}

export interface ServeIo {
  stderr: Writable;
  signals: EventEmitter;
  onListening?: (url: string) => void;
}

/** Serve the /v1 API over a local backend until a signal stops it; returns the exit code. */
export type ServeFn = (backend: Backend, options: ServeOptions, io: ServeIo) => Promise<number>;

/** Test tuning of remote mode (waits between retries). */
export interface RemoteTuning {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** The low-speed window of downloads (default: --timeout), tiny in tests. */
  lowSpeedWindowMs?: number;
}

export interface CliContext {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Wall clock (a new store's clock starts at its UTC date). */
  now: () => Date;
  prompter: Prompter;
  /**
   * Where SIGINT (Ctrl-C), SIGTERM and SIGHUP arrive: the process in the binary (as process 1 of
   * a PID namespace, an emitter it passes them to: app/signals.ts); a bare emitter elsewhere, so
   * an in-process run never touches the host's signal handlers (tests emit 'SIGINT' on it).
   */
  signals: EventEmitter;
  /**
   * The API keys configured for this run (--api-key, PREMIA_API_KEY, a profile's), as they become
   * known: a value given to another option that equals one is never shown whole (see `redact`).
   */
  secrets: Set<string>;
  /** Text for stderr: any premia key (pmk_…) and any configured key shown by its last 4 characters only. */
  redact: (text: string) => string;
  /** Where these global options point (memoised: one resolution per invocation). */
  target: (globals: GlobalOptions) => Promise<ResolvedTarget>;
  /**
   * The backend for these global options, created on first use and reused. In local mode a store
   * file that does not exist is created only with `createStore` (commands that write declare it,
   * see ActionOptions.createsStore); otherwise it is a VALIDATION_ERROR and nothing is created.
   */
  backend: (globals: GlobalOptions, options?: { createStore?: boolean }) => Promise<Backend>;
  /**
   * The operator's functions (API keys, settings) on the local store these global options open,
   * opened as `backend` opens it; local mode only.
   */
  admin: (globals: GlobalOptions, options?: { createStore?: boolean }) => Promise<Admin>;
  /** A remote backend for an explicit URL and key (premia login checks a key with it). */
  remote: (globals: GlobalOptions, connection: { baseUrl: string; apiKey: string; profile: string | null }) => Promise<Backend>;
  /** `premia serve`: the HTTP service, as the process entry gave it (absent: serving is refused). */
  serve: ServeFn;
  /** `premia db copy`: copy one local store (file or PostgreSQL) into another and verify it. */
  copyStore: (request: StoreCopyRequest) => Promise<StoreCopyReport>;
  /** Tests: run this instead of a verb's own run, with the options its command line parsed into. */
  runF?: (command: string, options: object) => Promise<number>;
  /**
   * Call `listener` whenever the process has nothing left to wait for (its event loop empty: the
   * process entry hears Node's 'beforeExit'); returns what removes it. A command still running
   * then waits for something that can no longer come, and `run` ends it as a failure.
   */
  whenIdle?: (listener: () => void) => () => void;
  /**
   * Release what `backend` and `remote` opened. After a command that failed (`failed`), a store
   * file it made and wrote nothing to is removed: a mistyped --db leaves no empty store behind,
   * which a later command would open as if it were the store meant.
   */
  dispose: (failed?: boolean) => Promise<void>;
}

export interface ContextInit {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  stdinIsTTY?: boolean;
  env?: Record<string, string | undefined>;
  cwd?: string;
  now?: () => Date;
  prompter?: Prompter;
  signals?: EventEmitter;
  remoteTuning?: RemoteTuning;
  /** The HTTP service for `premia serve` (the process entry and tests give it; the CLI does not import it). */
  serve?: ServeFn;
  runF?: CliContext['runF'];
  whenIdle?: CliContext['whenIdle'];
}

export const DEFAULT_DB_FILE = 'premia.db';

/**
 * Text for the terminal (an error, a status line, a warning, a question): keys redacted, and a
 * control or invisible character in it (from an argument, a path or a name given, a file, another
 * server's answer) escaped, so that the terminal shows it instead of acting on it (`\x1b[2J`
 * clears the screen, `\x1b]0;…\x07` retitles the window; U+202E turns the rest of the line
 * around). Its line breaks are kept.
 */
export function terminalText(ctx: Pick<CliContext, 'redact'>, text: string): string {
  return escapeUnseen(ctx.redact(text), true);
}

export function createContext(init: ContextInit): CliContext {
  const env = init.env ?? {};
  const now = init.now ?? (() => new Date());
  const cwd = init.cwd ?? process.cwd();
  let backend: Promise<Opened> | undefined;
  let resolved: Promise<ResolvedTarget> | undefined;
  const opened: Array<Promise<Opened>> = [];
  /** One idempotency key per invocation (see domain/idempotency.ts). */
  let invocationKey: string | undefined;
  const keyOf = (globals: GlobalOptions) => (invocationKey ??= globals.idempotencyKey !== undefined ? checkGivenKey(globals.idempotencyKey) : `premia-${randomUUID()}`);

  const ctx: CliContext = {
    stdout: init.stdout,
    stderr: init.stderr,
    stdin: init.stdin,
    stdoutIsTTY: init.stdoutIsTTY ?? false,
    stderrIsTTY: init.stderrIsTTY ?? false,
    stdinIsTTY: init.stdinIsTTY ?? false,
    env,
    cwd,
    now,
    prompter: init.prompter ?? inquirerPrompter(init),
    signals: init.signals ?? new EventEmitter(),
    secrets: new Set(env.PREMIA_API_KEY ? [env.PREMIA_API_KEY] : []),
    redact(text) {
      return redactGivenKeys(redactKeysIn(text), ctx.secrets);
    },
    target(globals) {
      resolved ??= resolveTarget(ctx, globals);
      return resolved;
    },
    async backend(globals, options) {
      return (await open(globals, options?.createStore === true)).backend;
    },
    async admin(globals, options) {
      const { admin } = await open(globals, options?.createStore === true);
      if (!admin) throw usageError('The operator functions (keys, settings) work on a local store: run them with --db on the machine that holds it.');
      return admin;
    },
    remote(globals, connection) {
      const remote = openRemote(ctx, globals, { ...connection, keySource: null }, keyOf(globals), init.remoteTuning).then((b): Opened => ({ backend: b, admin: null }));
      opened.push(remote);
      return remote.then((o) => o.backend);
    },
    async copyStore(request) {
      const { copyStore } = await import('../backend/local/index.js');
      return copyStore(request);
    },
    runF: init.runF,
    whenIdle: init.whenIdle,
    serve:
      init.serve ??
      (async () => {
        throw new PremiaError('NOT_SUPPORTED', "This build of premia has no HTTP service: run 'premia serve' from the premia binary.");
      }),
    async dispose(failed = false) {
      const all = opened.splice(0);
      backend = undefined;
      for (const b of all) {
        try {
          const o = await b;
          const remove = failed && o.newStoreUntouched?.untouched() === true;
          o.newStoreUntouched?.close();
          await o.backend.close();
          if (remove) removeStoreFiles(o.newStoreUntouched!.path);
        } catch {
          // opening failed: nothing to close
        }
      }
    },
  };
  const open = (globals: GlobalOptions, createStore: boolean): Promise<Opened> => {
    if (!backend) {
      backend = openBackend(ctx, globals, keyOf(globals), init.remoteTuning, createStore);
      opened.push(backend);
    }
    return backend;
  };
  return ctx;
}

/** An opened backend, with the admin object of its store in local mode. */
interface Opened {
  backend: Backend;
  admin: Admin | null;
  /** A store file this command made: whether nothing was written to it since (see dispose). */
  newStoreUntouched?: { path: string; untouched: () => boolean; close: () => void };
}

/** Resolve mode, URL, key and profile as the header of this file describes. */
export async function resolveTarget(ctx: CliContext, globals: GlobalOptions): Promise<ResolvedTarget> {
  const env = ctx.env;
  const path = configPath(env);
  const flagRemote = globals.baseUrl !== undefined || globals.profile !== undefined;
  // `--as-client "$CLIENT"` with CLIENT unset: taken as not given, the command acted for the
  // store's own client instead of the one meant.
  if (globals.asClient !== undefined && globals.asClient.trim() === '') {
    throw usageError("--as-client is empty; give the name of one of the store's clients (premia keys list shows them).");
  }
  if (globals.db !== undefined && flagRemote) {
    throw usageError('Give either --db (local mode) or --base-url/--profile (remote mode), not both.');
  }
  const local = (given: string, dbSource: ResolvedTarget['dbSource']): ResolvedTarget => {
    if (globals.apiKey !== undefined) throw usageError('--api-key is for remote mode; local mode (--db) uses no key.');
    // Spaces or a line end around the path (PREMIA_DB="/data/premia.db " from an env file): the
    // SQLite driver trims the name it opens, so every check here (exists, a directory, the 0600
    // creation) looked at another file than the one opened: a stray empty file was made beside a
    // new store readable by all. Trimmed here, the checks and the store are the same file.
    const db = given.trim();
    const option = dbSource === 'env' ? 'PREMIA_DB' : '--db';
    const foreign = foreignUrlProblem(db, option) ?? keyAsStoreProblem(db, option);
    if (foreign !== null) throw validationError(foreign.message, [foreign.detail]);
    // A postgres:// URL names a database server's store, used as given (never shown with its password).
    const file = db === ':memory:' ? db : isPostgresUrl(db) ? db.trim() : resolve(ctx.cwd, db);
    if (!isPostgresUrl(db)) checkNotDirectoryPath(db, file, option);
    return { mode: 'local', db: file, dbSource, asClient: globals.asClient ?? null, profile: null, configPath: path };
  };
  if (globals.db !== undefined) {
    // `--db "$DB"` with DB unset: an empty path resolves to the current directory, which was then
    // reported as "a directory, not a store file" although no directory was named.
    if (globals.db.trim() === '') throw usageError('--db is empty; give the store: a file such as ./premia.db, :memory:, or a postgres:// URL.');
    return local(globals.db, 'flag');
  }

  const envRemote = !!env.PREMIA_BASE_URL || !!env.PREMIA_PROFILE;
  // PREMIA_DB="$STORE" with STORE unset, as --db "" above: not a wish for ./premia.db, nor for the
  // service of a saved default profile, which an empty PREMIA_DB would otherwise leave to decide.
  if (!flagRemote && !envRemote && env.PREMIA_DB !== undefined && env.PREMIA_DB.trim() === '') {
    throw usageError(
      'PREMIA_DB is set but empty; give the store in it (a file such as ./premia.db, :memory:, or a postgres:// URL), or unset it for the default ./premia.db. Nothing changed.',
    );
  }
  let profileName: string | null = globals.profile ?? (env.PREMIA_PROFILE || null);
  const explicitProfile = profileName !== null;
  let profile: Profile | null = null;
  if (profileName !== null) {
    checkProfileName(profileName);
    if (path === null) throw validationError(`No profile '${profileName}': there is no config directory (set HOME or XDG_CONFIG_HOME).`);
    const { profiles } = await readConfig(path);
    profile = profiles[profileName] ?? null;
    if (!profile) {
      // The profiles there named: a mistyped name (`defualt`) was only told to make a profile of that name.
      const names = Object.keys(profiles).map((n) => escapeUnseen(n));
      const there = names.length === 0 ? '' : ` (its profiles: ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`})`;
      const fix = names.length === 0 ? 'create it' : names.length === 1 ? 'give that one, or create it' : 'give one of them, or create it';
      throw validationError(`There is no profile '${profileName}' in ${path}${there}; ${fix} with 'premia login --profile ${profileName} --base-url URL'.`);
    }
  } else if (!flagRemote && !envRemote && env.PREMIA_DB) {
    return local(env.PREMIA_DB, 'env');
  } else if (path !== null) {
    profile = (await readConfig(path)).profiles[DEFAULT_PROFILE] ?? null;
    if (profile) profileName = DEFAULT_PROFILE;
  }

  const baseUrl = globals.baseUrl ?? (env.PREMIA_BASE_URL || undefined) ?? profile?.base_url;
  if (baseUrl === undefined) {
    if (env.PREMIA_DB) return local(env.PREMIA_DB, 'env');
    // A key for a service and no service named: a misspelt PREMIA_BASE_URL, not a wish for ./premia.db.
    if (env.PREMIA_API_KEY) {
      throw usageError(
        `PREMIA_API_KEY is set but no service is named (PREMIA_BASE_URL, --base-url or a profile), so premia would work on the local store ./${DEFAULT_DB_FILE} instead. ` +
          'Set PREMIA_BASE_URL (is it misspelt?), or give --db (or PREMIA_DB) to use a local store. Nothing changed.',
      );
    }
    return local(DEFAULT_DB_FILE, 'default');
  }
  // Both variables exported (a cron line's, an old shell's): the service wins, as the header says,
  // but not without a word: a run meant for the store would go to the service unseen.
  if (!flagRemote && envRemote && env.PREMIA_DB?.trim()) {
    const by = env.PREMIA_BASE_URL ? 'PREMIA_BASE_URL' : 'PREMIA_PROFILE';
    ctx.stderr.write(`warning: PREMIA_DB is set but ${by} is too, and chooses remote mode: this command goes to the service, not to the store. Unset one of them (or give --db).\n`);
  }
  // A saved default profile chose the service while a store sits in this directory: a command
  // meant for that store (a cron line in its folder, a colleague's habit) would go to the service
  // unseen. Said, as for the variables above; --db (or --profile/--base-url) settles it.
  if (!flagRemote && !envRemote && !explicitProfile && profileName === DEFAULT_PROFILE && globals.baseUrl === undefined) {
    const here = resolve(ctx.cwd, DEFAULT_DB_FILE);
    if (statSync(here, { throwIfNoEntry: false })?.isFile()) {
      ctx.stderr.write(
        `warning: the saved profile '${DEFAULT_PROFILE}' chooses remote mode: this command goes to its service, not to the store ./${DEFAULT_DB_FILE} in this directory. ` +
          `Give --db ${DEFAULT_DB_FILE} to use the store (or --profile ${DEFAULT_PROFILE} to say the service is meant).\n`,
      );
    }
  }
  // Checked before any message quotes it: a password written into it is refused, not printed.
  // A key given as the URL is shown redacted: every key that may be configured is known by now.
  if (globals.apiKey !== undefined) ctx.secrets.add(globals.apiKey);
  if (profile) ctx.secrets.add(profile.api_key);
  parseBaseUrl(baseUrl);
  if (globals.asClient !== undefined) {
    throw usageError('--as-client selects a client of a local store; in remote mode the API key decides the client.');
  }
  // A saved key goes only to the URL it was saved for.
  const profileApplies = profile !== null && sameUrl(profile.base_url, baseUrl);
  if (!profileApplies && !explicitProfile) {
    profileName = null;
    profile = null;
  }
  let apiKey: string | null = null;
  let keySource: ResolvedTarget['keySource'] = null;
  // A key read from a file or a secret store often ends in a newline: it is not part of the key.
  if (globals.apiKey !== undefined) {
    apiKey = globals.apiKey.trim();
    keySource = 'flag';
    ctx.stderr.write(
      'warning: --api-key puts the key where others can see it (process listings, shell history); prefer PREMIA_API_KEY or premia login.\n',
    );
  } else if (env.PREMIA_API_KEY?.trim() && !(globals.profile !== undefined && profile && profileApplies)) {
    apiKey = env.PREMIA_API_KEY.trim();
    keySource = 'env';
  } else if (profile && profileApplies) {
    // A profile named on this command line brings its own key, PREMIA_API_KEY or not: a key left
    // in the environment by an earlier task must not act, for another client, under the profile
    // the operator just named (say so: the environment's key is not the one used).
    if (env.PREMIA_API_KEY?.trim() && env.PREMIA_API_KEY.trim() !== profile.api_key.trim()) {
      ctx.stderr.write(`note: PREMIA_API_KEY is set, but --profile ${profileName} was given: its own key is used, not the environment's.\n`);
    }
    await checkPrivate(path!); // a key is read from the file only when nobody else can read it
    apiKey = profile.api_key.trim();
    keySource = 'profile';
  }
  return { mode: 'remote', baseUrl, apiKey, keySource, profile: profileName, configPath: path };
}

function sameUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

async function openBackend(ctx: CliContext, globals: GlobalOptions, key: string, tuning: RemoteTuning | undefined, createStore: boolean): Promise<Opened> {
  const target = await ctx.target(globals);
  if (target.mode === 'remote') {
    if (!target.apiKey) {
      throw new PremiaError(
        'UNAUTHORIZED',
        `No API key for ${target.baseUrl}: set PREMIA_API_KEY, or run 'premia login --base-url ${target.baseUrl}' to save one in a profile.`,
      );
    }
    const backend = await openRemote(ctx, globals, { baseUrl: target.baseUrl!, apiKey: target.apiKey, profile: target.profile, keySource: target.keySource ?? null }, key, tuning);
    return { backend, admin: null };
  }
  return openLocal(ctx, globals, target, key, createStore);
}

/**
 * A write that waits for another process's (cron's advance, an import) says why nothing happens.
 * A command that does not catch Ctrl-C itself (imports and advances stop their own way) is
 * stopped by it during the wait with a word, rather than killed silently: nothing had begun.
 */
function lockWaitNotice(ctx: CliContext, globals: GlobalOptions): LockWaitHooks {
  let stop: AbortController | null = null;
  const onCtrlC = () => stop?.abort();
  return {
    onWait: () => {
      // Listening before the notice: a Ctrl-C pressed as it appears is this wait's.
      const own = ctx.signals.listenerCount('SIGINT') === 0 ? new AbortController() : null;
      if (own) {
        stop = own;
        ctx.signals.once('SIGINT', onCtrlC);
      }
      if (!globals.quiet) ctx.stderr.write('Waiting for another premia process to finish writing to the store; nothing has changed yet.\n');
      if (own === null) return undefined;
      return { signal: own.signal, error: () => new PremiaError('CANCELLED', 'Stopped by Ctrl-C while waiting for the other process: nothing changed.') };
    },
    onWaitEnd: () => {
      ctx.signals.removeListener('SIGINT', onCtrlC);
      stop = null;
    },
  };
}

async function openLocal(ctx: CliContext, globals: GlobalOptions, target: ResolvedTarget, key: string, createStore: boolean): Promise<Opened> {
  const onFile = isStoreFile(target.db!);
  if (onFile) {
    const option = target.dbSource === 'env' ? 'PREMIA_DB' : '--db';
    // The default store named as such (a cron job's working directory removed under it: the
    // default ./premia.db's directory is gone), not as a --db nobody gave.
    await checkStoreDirectory(target.db!, option, target.dbSource === 'default' ? `the default ./${DEFAULT_DB_FILE}` : undefined);
    await checkNotSqliteCompanion(target.db!, option);
    await checkStoreFile(target.db!, target.dbSource ?? 'flag', createStore);
  }
  // The modes as found (opening makes the -wal and -shm); said once the file is known to be a store.
  const warning = onFile ? await sharedStoreWarning(target.db!) : null;
  const isNew = onFile && createStore && !existsSync(target.db!);
  const { openLocalBackend, watchNewStore } = await import('../backend/local/index.js');
  // One command per process: nothing else on this thread uses the store while it advances.
  const base = await openLocalBackend({ path: target.db!, seed: parseSeed(globals.seed), now: ctx.now, create: createStore, aloneOnThread: true, lockWait: lockWaitNotice(ctx, globals) });
  const admin = base.admin;
  const newStoreUntouched = isNew ? { path: target.db!, ...watchNewStore(base) } : undefined;
  try {
    if (warning) ctx.stderr.write(terminalText(ctx, warning));
    let backend = base;
    if (target.asClient) {
      const client = await admin.clients.byName(target.asClient);
      if (!client) {
        // A name written in another case or spacing, or with a typo: the client meant, named.
        const like = await admin.clients.like(target.asClient);
        const where = `There is no client '${target.asClient}' in ${redactDbUrl(target.db!)}`;
        throw new PremiaError(
          'NOT_FOUND',
          like === null
            ? `${where}; clients are created with 'premia keys create --client NAME'.`
            : `${where}, but there is a client '${like}': give its name exactly as written.`,
        );
      }
      // This backend owns the store now: closing it closes the store.
      backend = base.forClient(client.id, { ownsStore: true });
    }
    if (globals.idempotencyKey === undefined) return { backend, admin, newStoreUntouched };
    // --idempotency-key in local mode: the same records as the service keeps, so a rerun acts once.
    const { withIdempotency } = await import('./local-idempotency.js');
    return {
      backend: withIdempotency(backend, key, admin.idempotency, backend.ctx.clientId, ctx.now, { advanceResultFor: (r) => backend.advanceResultFor(r) }),
      admin,
      newStoreUntouched,
    };
  } catch (e) {
    const untouched = newStoreUntouched?.untouched() === true;
    newStoreUntouched?.close();
    await base.close();
    if (untouched) removeStoreFiles(newStoreUntouched.path);
    throw e;
  }
}

/**
 * A store file and its SQLite companions, gone (a new store nothing was written to), once closed.
 * SQLite removes the -wal when the last connection closes: one still there means another process
 * (a cron job started at the same moment) has the store open and may be writing to it, so it stays.
 */
function removeStoreFiles(path: string): void {
  if (existsSync(`${path}-wal`)) return;
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

/**
 * `--db stores/` names a directory (resolve() drops the slash): without one there, the store was
 * made as a file named `stores`; with a store file there, that store was opened. Only an existing
 * directory goes on, to be refused as one, with the file name to give.
 */
function checkNotDirectoryPath(db: string, file: string, source: string): void {
  if (db === ':memory:' || !db.endsWith('/')) return;
  let info: Stats | null = null;
  try {
    info = statSync(file);
  } catch {
    // nothing there
  }
  if (info?.isDirectory()) return;
  const [problem, code] = info === null ? ([`there is no directory ${file}`, 'DIRECTORY_NOT_FOUND'] as const) : ([`${file} is a file, not a directory`, 'NOT_A_DIRECTORY'] as const);
  const fix = info === null ? `Give the path of the store file (such as ${join(file, DEFAULT_DB_FILE)}, once that directory exists)` : `Give the path of the store file without the '/': ${file}`;
  throw validationError(`The store ${db} (${source}) ends with '/', so it names a directory, but ${problem}. ${fix}. Nothing changed.`, [
    { field: source, code, message: problem },
  ]);
}

/**
 * The store's directory must exist (premia creates the file, never directories): a mistyped
 * --db, PREMIA_DB or `db copy --to` is a validation error naming the directory, not an internal
 * failure. `source` is the option to give another path with; `shown`, how the path was chosen.
 */
export async function checkStoreDirectory(db: string, source: string, shown = source): Promise<void> {
  const dir = dirname(db);
  let problem: string | null = null;
  try {
    if (!(await stat(dir)).isDirectory()) problem = 'is not a directory';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') problem = 'does not exist';
    else if (code === 'ENOTDIR') problem = 'is not a directory';
    else return; // anything else (permissions...) is reported when the store is opened
  }
  if (problem === null) return;
  const tilde = problem === 'does not exist' ? unexpandedTilde(dir) : null;
  const message =
    tilde !== null ? `The directory ${dir} of the store ${db} (${shown}) ${problem} ${tilde}.` : `The directory ${dir} of the store ${db} (${shown}) ${problem}. Create it first, or give another path with ${source}.`;
  throw validationError(message, [{ field: source, code: 'DIRECTORY_NOT_FOUND', message: `${dir} ${problem}` }]);
}

/**
 * The store path must not be the -wal, -shm or -journal file of an SQLite database beside it (a
 * tab completion one step too far: `--db premia.db-wal`). SQLite alone owns those names: a store
 * made at premia.db-wal (idle, the WAL is empty or absent) was taken for premia.db's WAL and
 * deleted the next time premia.db opened, with all that was imported into it. Whether or not the
 * file exists, as for --output (output/download.ts).
 */
export async function checkNotSqliteCompanion(db: string, source: string): Promise<void> {
  const owner = await sqliteDatabaseOwning(db);
  if (owner === null) return;
  throw validationError(
    `The store ${db} (${source}) is the -${owner.kind} file of the SQLite database ${owner.database}, which SQLite alone writes and removes: ` +
      `a store kept there is lost the next time ${owner.database} is opened. Nothing was changed; give the store itself, such as ${owner.database}.`,
    [{ field: source, code: 'NOT_A_PREMIA_STORE', message: `${db} belongs to the SQLite database ${owner.database}` }],
  );
}

/** The error for a store path (`shown` as given, `field` its option) that is there but is no regular file. */
function notAStoreFile(db: string, info: Stats, shown: string, field: string): PremiaError {
  const kind = fileKind(info);
  const example = info.isDirectory() ? ` Give the path of the store file, e.g. ${join(db, DEFAULT_DB_FILE)}.` : ' Give the path of the store file.';
  return validationError(`The store ${db} (${shown}) is ${kind}, not a store file.${example}`, [{ field, code: 'NOT_A_FILE', message: `${db} is ${kind}` }]);
}

/**
 * `db copy`'s --from or --to, a file store: when it is there, a regular file. A device given as
 * either (`--to /dev/null`) was opened by SQLite, which failed with "disk I/O error" (or, on
 * /dev/full, a full disk) and left its journal beside the device (/dev/null-journal).
 */
export async function checkCopyStoreFile(db: string, option: string): Promise<void> {
  const info = await stat(db).catch(() => null); // missing (--to makes it), or reported when opened
  if (info !== null && !info.isFile()) throw notAStoreFile(db, info, option, option);
}

/**
 * The store path must name a file: a directory or a device is the user's mistake (exit 2), not an
 * internal failure. And only commands that write may create a store: any other on a missing store
 * (a cron job started in the wrong directory, a mistyped path) fails, naming the path and how it
 * was chosen, and creates nothing, rather than answering from a new empty store.
 */
async function checkStoreFile(db: string, source: NonNullable<ResolvedTarget['dbSource']>, mayCreate: boolean): Promise<void> {
  const flag = source === 'env' ? 'PREMIA_DB' : '--db';
  try {
    const info = await stat(db);
    if (info.isFile()) return;
    throw notAStoreFile(db, info, source === 'default' ? `the default ./${DEFAULT_DB_FILE}` : flag, source === 'default' ? 'db' : flag);
  } catch (e) {
    if (e instanceof PremiaError) throw e;
    // A loop of symbolic links, or a path too long: a read said "There is no store", a write
    // failed "unexpectedly" (exit 1) on the ELOOP or ENAMETOOLONG of a later stat.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENAMETOOLONG') {
      const what = code === 'ELOOP' ? 'is a loop of symbolic links, not a store file' : 'is too long a path (a name of more than 255 bytes, or a path of more than 4096)';
      throw validationError(`The store ${db} (${source === 'default' ? `the default ./${DEFAULT_DB_FILE}` : flag}) ${what}. Give the path of the store file.`, [
        { field: source === 'default' ? 'db' : flag, code: 'NOT_A_FILE', message: `${db} ${what}` },
      ]);
    }
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return; // reported when the store is opened
  }
  if (mayCreate) return;
  const how =
    source === 'flag' ? 'given with --db' : source === 'env' ? 'given with PREMIA_DB' : `the default: ./${DEFAULT_DB_FILE} in the current directory, as neither --db nor PREMIA_DB is set`;
  const field = source === 'flag' ? '--db' : source === 'env' ? 'PREMIA_DB' : 'db';
  throw validationError(
    `There is no store at ${db} (${how}); this command works on an existing store and does not create one, so nothing was created. ` +
      `Point --db or PREMIA_DB at the store, or run where it is; a new store is made only by 'premia policies import', ` +
      `'policies create', 'clock set', 'bank import', 'bank seed', 'keys create' or 'serve'.`,
    [{ field, code: 'STORE_NOT_FOUND', message: `${db} does not exist` }],
  );
}

/**
 * A store others can read exposes every client's data and key hashes: say so on stderr, with the
 * fix (also with --quiet, a security warning; never on stdout). New stores are made 0600.
 */
async function sharedStoreWarning(db: string): Promise<string | null> {
  const shared: string[] = [];
  let mode = 0;
  for (const path of [db, `${db}-wal`, `${db}-shm`]) {
    try {
      const st = await stat(path);
      if (!st.isFile() || (st.mode & 0o044) === 0) continue;
      if (path === db) mode = st.mode & 0o777;
      shared.push(path);
    } catch {
      // not there: nothing to warn about
    }
  }
  if (shared.length === 0) return null;
  const what = mode !== 0 ? `mode ${mode.toString(8).padStart(4, '0')}` : 'its -wal or -shm file';
  return (
    `warning: other users of this machine can read the store ${db} (${what}); it holds every client's data and API key hashes. ` +
    `Make it private: chmod 600 ${shared.map(shellQuote).join(' ')}\n`
  );
}

function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

async function openRemote(
  ctx: CliContext,
  globals: GlobalOptions,
  connection: { baseUrl: string; apiKey: string; profile: string | null; keySource: ResolvedTarget['keySource'] },
  key: string,
  tuning: RemoteTuning | undefined,
): Promise<Backend> {
  const { openRemoteBackend } = await import('../backend/remote/index.js');
  const keyHint =
    connection.keySource === 'profile'
      ? `The key comes from profile '${connection.profile}': run 'premia login${connection.profile === DEFAULT_PROFILE ? '' : ` --profile ${connection.profile}`}' to save a valid one, or set PREMIA_API_KEY.`
      : connection.keySource === 'flag'
        ? "The key comes from --api-key: check it, or set PREMIA_API_KEY / run 'premia login' instead."
        : connection.keySource === 'env'
          ? "The key comes from PREMIA_API_KEY: set it to a valid key (it was not revoked?), or unset it and run 'premia login'."
          : undefined;
  // Any key in a line (one pasted as an id lands in a URL path) is shown redacted.
  const debug = globals.debug ? (line: string) => ctx.stderr.write(ctx.redact(`debug: ${line}\n`)) : undefined;
  debug?.(`remote mode: ${connection.baseUrl}${connection.profile ? ` (profile ${connection.profile})` : ''}, key ${redactKey(connection.apiKey)}${connection.keySource ? ` from ${connection.keySource}` : ''}`);
  return openRemoteBackend({
    baseUrl: connection.baseUrl,
    apiKey: connection.apiKey,
    profile: connection.profile,
    idempotencyKey: key,
    timeoutMs: seconds('--timeout', globals.timeout ?? ctx.env.PREMIA_TIMEOUT, 1, 86_400),
    connectTimeoutMs: seconds('--connect-timeout', globals.connectTimeout ?? ctx.env.PREMIA_CONNECT_TIMEOUT, 1, 600),
    keyHint,
    debug,
    sleep: tuning?.sleep,
    random: tuning?.random,
    lowSpeedWindowMs: tuning?.lowSpeedWindowMs,
  });
}

function seconds(flag: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined || text === '') return undefined;
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || n < min || n > max) {
    throw validationError(`${flag} (or its environment variable) is a number of seconds from ${min} to ${max}; got '${text.slice(0, 40)}'.`);
  }
  return Math.round(n * 1000);
}

/** @inquirer/prompts' look without colour or bold (its own theme styles with escape codes whatever the stream). */
const PLAIN_THEME = {
  prefix: { idle: '?', done: '✔' },
  style: {
    answer: (t: string) => t,
    message: (t: string) => t,
    error: (t: string) => `> ${t}`,
    defaultAnswer: (t: string) => `(${t})`,
    help: (t: string) => t,
    highlight: (t: string) => t,
    key: (t: string) => `<${t}>`,
  },
};

function inquirerPrompter(init: ContextInit): Prompter {
  const context = { input: init.stdin as NodeJS.ReadableStream, output: init.stderr as NodeJS.WritableStream };
  const theme = (options?: PromptOptions) => (options?.colour === false ? { theme: PLAIN_THEME } : {});
  return {
    async password(message, options) {
      const { password } = await import('@inquirer/prompts');
      return password({ message, mask: '*', ...theme(options) }, context);
    },
    async input(message, options) {
      const { input } = await import('@inquirer/prompts');
      return input({ message, ...theme(options) }, context);
    },
    async confirm(message, options) {
      const { confirm } = await import('@inquirer/prompts');
      // Keys typed before the question showed (`y`, Enter, typed with the command) do not answer it.
      if (init.stdin === process.stdin && process.stdin.isTTY) discardTypedAhead(0);
      return confirm({ message, default: false, ...theme(options) }, context);
    },
  };
}

function parseSeed(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  return Number(text);
}
