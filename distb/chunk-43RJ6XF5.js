import {
  DEFAULT_PROFILE,
  checkPrivate,
  checkProfileName,
  configPath,
  readConfig,
  redactKey
} from "./chunk-TQX5C6XS.js";
import {
  isPostgresUrl,
  redactDbUrl
} from "./chunk-7L3A4ARV.js";
import {
  checkGivenKey
} from "./chunk-7UDSVXC4.js";
import {
  stringifyJson
} from "./chunk-MHVTT2HV.js";
import {
  renderTable
} from "./chunk-RB5YZ7WD.js";
import {
  PremiaError,
  usageError,
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/cli/context.js
import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { EventEmitter } from "node:events";
var DEFAULT_DB_FILE = "premia.db";
function createContext(init) {
  const env = init.env ?? {};
  const now = init.now ?? (() => /* @__PURE__ */ new Date());
  const cwd = init.cwd ?? process.cwd();
  let backend;
  let resolved;
  const opened = [];
  let invocationKey;
  const keyOf = (globals) => invocationKey ??= globals.idempotencyKey !== void 0 ? checkGivenKey(globals.idempotencyKey) : `premia-${randomUUID()}`;
  const ctx = {
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
    target(globals) {
      resolved ??= resolveTarget(ctx, globals);
      return resolved;
    },
    async backend(globals, options) {
      return (await open(globals, options?.createStore === true)).backend;
    },
    async admin(globals, options) {
      const { admin } = await open(globals, options?.createStore === true);
      if (!admin)
        throw usageError("The operator functions (keys, settings) work on a local store: run them with --db on the machine that holds it.");
      return admin;
    },
    remote(globals, connection) {
      const remote = openRemote(ctx, globals, { ...connection, keySource: null }, keyOf(globals), init.remoteTuning).then((b) => ({ backend: b, admin: null }));
      opened.push(remote);
      return remote.then((o) => o.backend);
    },
    async copyStore(request) {
      const { copyStore } = await import("./local-TRSOSKNS.js");
      return copyStore(request);
    },
    runF: init.runF,
    serve: init.serve ?? (async () => {
      throw new PremiaError("NOT_SUPPORTED", "This build of premia has no HTTP service: run 'premia serve' from the premia binary.");
    }),
    async dispose() {
      const all = opened.splice(0);
      backend = void 0;
      for (const b of all) {
        try {
          await (await b).backend.close();
        } catch {
        }
      }
    }
  };
  const open = (globals, createStore) => {
    if (!backend) {
      backend = openBackend(ctx, globals, keyOf(globals), init.remoteTuning, createStore);
      opened.push(backend);
    }
    return backend;
  };
  return ctx;
}
async function resolveTarget(ctx, globals) {
  const env = ctx.env;
  const path = configPath(env);
  const flagRemote = globals.baseUrl !== void 0 || globals.profile !== void 0;
  if (globals.db !== void 0 && flagRemote) {
    throw usageError("Give either --db (local mode) or --base-url/--profile (remote mode), not both.");
  }
  const local = (db, dbSource) => {
    if (globals.apiKey !== void 0)
      throw usageError("--api-key is for remote mode; local mode (--db) uses no key.");
    const file = db === ":memory:" ? db : isPostgresUrl(db) ? db.trim() : resolve(ctx.cwd, db);
    return { mode: "local", db: file, dbSource, asClient: globals.asClient ?? null, profile: null, configPath: path };
  };
  if (globals.db !== void 0)
    return local(globals.db, "flag");
  const envRemote = !!env.PREMIA_BASE_URL || !!env.PREMIA_PROFILE;
  let profileName = globals.profile ?? (env.PREMIA_PROFILE || null);
  const explicitProfile = profileName !== null;
  let profile = null;
  if (profileName !== null) {
    checkProfileName(profileName);
    if (path === null)
      throw validationError(`No profile '${profileName}': there is no config directory (set HOME or XDG_CONFIG_HOME).`);
    profile = (await readConfig(path)).profiles[profileName] ?? null;
    if (!profile)
      throw validationError(`There is no profile '${profileName}' in ${path}; create it with 'premia login --profile ${profileName} --base-url URL'.`);
  } else if (!flagRemote && !envRemote && env.PREMIA_DB) {
    return local(env.PREMIA_DB, "env");
  } else if (path !== null) {
    profile = (await readConfig(path)).profiles[DEFAULT_PROFILE] ?? null;
    if (profile)
      profileName = DEFAULT_PROFILE;
  }
  const baseUrl = globals.baseUrl ?? (env.PREMIA_BASE_URL || void 0) ?? profile?.base_url;
  if (baseUrl === void 0)
    return env.PREMIA_DB ? local(env.PREMIA_DB, "env") : local(DEFAULT_DB_FILE, "default");
  if (globals.asClient !== void 0) {
    throw usageError("--as-client selects a client of a local store; in remote mode the API key decides the client.");
  }
  const profileApplies = profile !== null && sameUrl(profile.base_url, baseUrl);
  if (!profileApplies && !explicitProfile) {
    profileName = null;
    profile = null;
  }
  let apiKey = null;
  let keySource = null;
  if (globals.apiKey !== void 0) {
    apiKey = globals.apiKey.trim();
    keySource = "flag";
    ctx.stderr.write("warning: --api-key puts the key where others can see it (process listings, shell history); prefer PREMIA_API_KEY or premia login.\n");
  } else if (env.PREMIA_API_KEY?.trim()) {
    apiKey = env.PREMIA_API_KEY.trim();
    keySource = "env";
  } else if (profile && profileApplies) {
    await checkPrivate(path);
    apiKey = profile.api_key.trim();
    keySource = "profile";
  }
  return { mode: "remote", baseUrl, apiKey, keySource, profile: profileName, configPath: path };
}
function sameUrl(a, b) {
  return a.replace(/\/+$/, "") === b.replace(/\/+$/, "");
}
async function openBackend(ctx, globals, key, tuning, createStore) {
  const target = await ctx.target(globals);
  if (target.mode === "remote") {
    if (!target.apiKey) {
      throw new PremiaError("UNAUTHORIZED", `No API key for ${target.baseUrl}: set PREMIA_API_KEY, or run 'premia login --base-url ${target.baseUrl}' to save one in a profile.`);
    }
    const backend = await openRemote(ctx, globals, { baseUrl: target.baseUrl, apiKey: target.apiKey, profile: target.profile, keySource: target.keySource ?? null }, key, tuning);
    return { backend, admin: null };
  }
  return openLocal(ctx, globals, target, key, createStore);
}
async function openLocal(ctx, globals, target, key, createStore) {
  const onFile = target.db !== ":memory:" && !isPostgresUrl(target.db);
  if (onFile) {
    await checkStoreDirectory(target.db, target.dbSource === "env" ? "PREMIA_DB" : "--db");
    await checkStoreFile(target.db, target.dbSource ?? "flag", createStore);
  }
  const warning = onFile ? await sharedStoreWarning(target.db) : null;
  const { openLocalBackend } = await import("./local-TRSOSKNS.js");
  const base = await openLocalBackend({ path: target.db, seed: parseSeed(globals.seed), now: ctx.now, create: createStore });
  const admin = base.admin;
  try {
    if (warning)
      ctx.stderr.write(warning);
    let backend = base;
    if (target.asClient) {
      const client = await admin.clients.byName(target.asClient);
      if (!client) {
        throw new PremiaError("NOT_FOUND", `There is no client '${target.asClient}' in ${redactDbUrl(target.db)}; clients are created with 'premia keys create --client NAME'.`);
      }
      backend = base.forClient(client.id, { ownsStore: true });
    }
    if (globals.idempotencyKey === void 0)
      return { backend, admin };
    const { withIdempotency } = await import("./local-idempotency-SJUMZ7OP.js");
    return { backend: withIdempotency(backend, key, admin.idempotency, backend.ctx.clientId, ctx.now), admin };
  } catch (e) {
    await base.close();
    throw e;
  }
}
async function checkStoreDirectory(db, source) {
  const dir = dirname(db);
  let problem = null;
  try {
    if (!(await stat(dir)).isDirectory())
      problem = "is not a directory";
  } catch (e) {
    const code = e.code;
    if (code === "ENOENT")
      problem = "does not exist";
    else if (code === "ENOTDIR")
      problem = "is not a directory";
    else
      return;
  }
  if (problem === null)
    return;
  const message = `The directory ${dir} of the store ${db} (${source}) ${problem}. Create it first, or give another path with ${source}.`;
  throw validationError(message, [{ field: source, code: "DIRECTORY_NOT_FOUND", message: `${dir} ${problem}` }]);
}
async function checkStoreFile(db, source, mayCreate) {
  const flag = source === "env" ? "PREMIA_DB" : "--db";
  try {
    const info = await stat(db);
    if (info.isFile())
      return;
    const kind = info.isDirectory() ? "a directory" : info.isFIFO() ? "a named pipe" : info.isSocket() ? "a socket" : "a device";
    const example = info.isDirectory() ? ` Give the path of the store file, e.g. ${join(db, DEFAULT_DB_FILE)}.` : " Give the path of the store file.";
    throw validationError(`The store ${db} (${source === "default" ? `the default ./${DEFAULT_DB_FILE}` : flag}) is ${kind}, not a store file.${example}`, [
      { field: source === "default" ? "db" : flag, code: "NOT_A_FILE", message: `${db} is ${kind}` }
    ]);
  } catch (e) {
    if (e instanceof PremiaError)
      throw e;
    if (e.code !== "ENOENT")
      return;
  }
  if (mayCreate)
    return;
  const how = source === "flag" ? "given with --db" : source === "env" ? "given with PREMIA_DB" : `the default: ./${DEFAULT_DB_FILE} in the current directory, as neither --db nor PREMIA_DB is set`;
  const field = source === "flag" ? "--db" : source === "env" ? "PREMIA_DB" : "db";
  throw validationError(`There is no store at ${db} (${how}); this command reads a store and does not create one, so nothing was created. Point --db or PREMIA_DB at the store, or run where it is; a new store is made by the commands that write ('premia policies import', 'policies create', 'clock set', 'bank import', 'bank seed', 'keys create', 'serve').`, [{ field, code: "STORE_NOT_FOUND", message: `${db} does not exist` }]);
}
async function sharedStoreWarning(db) {
  const shared = [];
  let mode = 0;
  for (const path of [db, `${db}-wal`, `${db}-shm`]) {
    try {
      const st = await stat(path);
      if (!st.isFile() || (st.mode & 36) === 0)
        continue;
      if (path === db)
        mode = st.mode & 511;
      shared.push(path);
    } catch {
    }
  }
  if (shared.length === 0)
    return null;
  const what = mode !== 0 ? `mode ${mode.toString(8).padStart(4, "0")}` : "its -wal or -shm file";
  return `warning: other users of this machine can read the store ${db} (${what}); it holds every client's data and API key hashes. Make it private: chmod 600 ${shared.map(shellQuote).join(" ")}
`;
}
function shellQuote(path) {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
async function openRemote(ctx, globals, connection, key, tuning) {
  const { openRemoteBackend, parseBaseUrl } = await import("./remote-2C5EFLZS.js");
  parseBaseUrl(connection.baseUrl);
  const keyHint = connection.keySource === "profile" ? `The key comes from profile '${connection.profile}': run 'premia login${connection.profile === DEFAULT_PROFILE ? "" : ` --profile ${connection.profile}`}' to save a valid one, or set PREMIA_API_KEY.` : connection.keySource === "flag" ? "The key comes from --api-key: check it, or set PREMIA_API_KEY / run 'premia login' instead." : connection.keySource === "env" ? "The key comes from PREMIA_API_KEY: set it to a valid key (it was not revoked?), or unset it and run 'premia login'." : void 0;
  const debug = globals.debug ? (line) => ctx.stderr.write(`debug: ${line}
`) : void 0;
  debug?.(`remote mode: ${connection.baseUrl}${connection.profile ? ` (profile ${connection.profile})` : ""}, key ${redactKey(connection.apiKey)}${connection.keySource ? ` from ${connection.keySource}` : ""}`);
  return openRemoteBackend({
    baseUrl: connection.baseUrl,
    apiKey: connection.apiKey,
    profile: connection.profile,
    idempotencyKey: key,
    timeoutMs: seconds("--timeout", globals.timeout ?? ctx.env.PREMIA_TIMEOUT, 1, 86400),
    connectTimeoutMs: seconds("--connect-timeout", globals.connectTimeout ?? ctx.env.PREMIA_CONNECT_TIMEOUT, 1, 600),
    keyHint,
    debug,
    sleep: tuning?.sleep,
    random: tuning?.random
  });
}
function seconds(flag, text, min, max) {
  if (text === void 0 || text === "")
    return void 0;
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || n < min || n > max) {
    throw validationError(`${flag} (or its environment variable) is a number of seconds from ${min} to ${max}; got '${text.slice(0, 40)}'.`);
  }
  return Math.round(n * 1e3);
}
function inquirerPrompter(init) {
  const context = { input: init.stdin, output: init.stderr };
  return {
    async password(message) {
      const { password } = await import("@inquirer/prompts");
      return password({ message, mask: "*" }, context);
    },
    async input(message) {
      const { input } = await import("@inquirer/prompts");
      return input({ message }, context);
    },
    async confirm(message) {
      const { confirm } = await import("@inquirer/prompts");
      return confirm({ message, default: false }, context);
    }
  };
}
function parseSeed(text) {
  if (text === void 0)
    return void 0;
  return Number(text);
}

// dist/cli/output/ui.js
import { Chalk } from "chalk";
var Ui = class {
  ctx;
  json;
  quiet;
  /** Colours for stdout and stderr (level 0 when not a colour terminal). */
  out;
  err;
  constructor(ctx, globals) {
    this.ctx = ctx;
    this.json = globals.json === true;
    this.quiet = globals.quiet === true;
    const allowed = globals.color !== false && !("NO_COLOR" in ctx.env && ctx.env.NO_COLOR !== "") && ctx.env.TERM !== "dumb";
    this.out = new Chalk({ level: allowed && ctx.stdoutIsTTY ? 1 : 0 });
    this.err = new Chalk({ level: allowed && ctx.stderrIsTTY ? 1 : 0 });
  }
  /** Write data to stdout. */
  write(text) {
    this.ctx.stdout.write(text);
  }
  line(text = "") {
    this.ctx.stdout.write(`${text}
`);
  }
  printJson(value) {
    this.ctx.stdout.write(`${stringifyJson(value)}
`);
  }
  /** A status message on stderr (suppressed by --quiet). */
  status(text) {
    if (!this.quiet)
      this.ctx.stderr.write(`${text}
`);
  }
  warn(text) {
    this.ctx.stderr.write(`${this.err.yellow("warning:")} ${text}
`);
  }
  /** A table on stdout: cut to the terminal's width and money grouped by thousands on a terminal (see table.ts). */
  table(columns, rows) {
    this.write(renderTable(columns, rows, { colour: this.out, width: this.width, group: this.ctx.stdoutIsTTY }));
  }
  /**
   * The width of the terminal stdout is, or undefined when stdout is not a terminal (nothing is
   * cut for a pipe or a file). A terminal that reports no width: COLUMNS, else 80.
   */
  get width() {
    if (!this.ctx.stdoutIsTTY)
      return void 0;
    const columns = this.ctx.stdout.columns;
    if (typeof columns === "number" && columns > 0)
      return columns;
    const env = Number(this.ctx.env.COLUMNS);
    return Number.isInteger(env) && env > 0 ? env : 80;
  }
  /** A key/value block, keys aligned. */
  keyValues(pairs) {
    const width = Math.max(...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs)
      this.line(`${this.out.dim(k.padEnd(width))}  ${v === null || v === void 0 ? "-" : v}`);
  }
  /** Whether a live progress display may be drawn. */
  get interactive() {
    return this.ctx.stderrIsTTY && !this.quiet;
  }
  /**
   * Whether a spinner may be animated: an interactive stderr that reports a width. A terminal
   * reporting 0 (or no) columns gets plain status lines instead (see progress.ts).
   */
  get canAnimate() {
    const columns = this.ctx.stderr.columns;
    return this.interactive && typeof columns === "number" && columns > 0;
  }
};

// dist/cli/commands/action.js
function lazyAction(ctx, state, load, options = {}) {
  return async (...received) => {
    const command = received[received.length - 1];
    const globals = command.optsWithGlobals();
    state.globals = globals;
    const positional = received.slice(0, -2).flatMap((a) => Array.isArray(a) ? a : [a]);
    const ui = new Ui(ctx, globals);
    let announced = false;
    const deps = {
      ctx,
      globals,
      ui,
      createsStore: options.createsStore === true,
      backend: async () => {
        const target = await ctx.target(globals);
        if (options.localOnly && target.mode === "remote")
          throw localOnly(options.localOnly);
        const backend = await ctx.backend(globals, { createStore: options.createsStore === true });
        if (options.writes && !announced && ui.interactive) {
          announced = true;
          ui.status(ui.err.dim(targetLine(target)));
        }
        return backend;
      },
      admin: async () => {
        await deps.backend();
        return ctx.admin(globals, { createStore: options.createsStore === true });
      }
    };
    const { default: verb } = await load();
    const opts = verb.options(deps, command.opts(), positional);
    const code = ctx.runF ? await ctx.runF(commandPath(command), opts) : await verb.run(opts);
    state.exitCode = typeof code === "number" ? code : 0;
  };
}
function commandPath(command) {
  const words = [];
  for (let c = command; c?.parent; c = c.parent)
    words.unshift(c.name());
  return words.join(" ");
}
function targetLine(target) {
  if (target.mode === "local") {
    return `Local mode: store ${redactDbUrl(target.db)}${target.asClient ? `, client ${target.asClient}` : ""}`;
  }
  const key = target.apiKey ? `, key \u2026${target.apiKey.slice(-4)}` : "";
  return `Remote mode: ${target.baseUrl}${target.profile ? ` (profile ${target.profile}${key})` : key ? ` (${key.slice(2)})` : ""}`;
}
function localOnly(what) {
  return new PremiaError("NOT_SUPPORTED", `'${what}' is local-only: it works on a store file, not through the service. Run it with --db on the machine that holds the store (without --base-url, --profile or PREMIA_BASE_URL).`);
}

export {
  createContext,
  resolveTarget,
  Ui,
  lazyAction,
  localOnly
};
