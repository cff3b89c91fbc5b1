import {
  DEFAULT_PROFILE,
  checkProfileName,
  configPath,
  readConfig,
  redactKey,
  saveProfile
} from "./chunk-TQX5C6XS.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import {
  PremiaError,
  usageError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/login/login.js
async function loginRun({ ctx, globals, ui }) {
  const path = configPath(ctx.env);
  if (path === null)
    throw usageError("premia login saves profiles under $XDG_CONFIG_HOME or $HOME, and neither is set.");
  const name = checkProfileName(globals.profile ?? (ctx.env.PREMIA_PROFILE || DEFAULT_PROFILE));
  const existing = (await readConfig(path)).profiles[name];
  const terminal = ctx.stdinIsTTY && ctx.stderrIsTTY;
  let baseUrl = globals.baseUrl ?? (ctx.env.PREMIA_BASE_URL || void 0) ?? existing?.base_url;
  if (baseUrl === void 0) {
    if (!terminal)
      throw usageError("Say which service to log in to: give --base-url URL (the service's address, including /v1), or set PREMIA_BASE_URL.");
    baseUrl = (await ctx.prompter.input("Base URL of the service (including /v1):")).trim();
    if (baseUrl === "")
      throw usageError("No base URL given; nothing was saved.");
  }
  let key;
  if (globals.apiKey !== void 0) {
    ui.warn("--api-key puts the key where others can see it (process listings, shell history); prefer the prompt or PREMIA_API_KEY.");
    key = globals.apiKey;
  } else if (ctx.env.PREMIA_API_KEY) {
    key = ctx.env.PREMIA_API_KEY;
    ui.status("Using the API key in PREMIA_API_KEY.");
  } else if (terminal) {
    key = await ctx.prompter.password(`API key for ${baseUrl}:`);
  } else {
    throw usageError("No terminal to ask for the API key: set PREMIA_API_KEY to the key and run premia login again.");
  }
  key = key.trim();
  if (key === "")
    throw usageError("The API key is empty; nothing was saved.");
  const backend = await ctx.remote(globals, { baseUrl, apiKey: key, profile: name });
  let client;
  try {
    client = (await backend.describe()).client;
  } catch (e) {
    if (e instanceof PremiaError && e.code === "UNAUTHORIZED") {
      throw new PremiaError("UNAUTHORIZED", `The service at ${baseUrl} refused the key ${redactKey(key)}; nothing was saved. Check the key (the operator creates keys with 'premia keys create') and run premia login again.`, { requestId: e.requestId });
    }
    throw e;
  }
  await saveProfile(path, name, { base_url: baseUrl, api_key: key, client: client ?? null });
  const saved = { profile: name, base_url: baseUrl, client: client ?? null, api_key: redactKey(key), config: path };
  if (ui.json)
    ui.printJson(saved);
  else {
    ui.status(`Logged in to ${baseUrl}${client ? ` as ${client}` : ""} with key ${redactKey(key)}.`);
    ui.status(`Saved profile '${name}' in ${path} (readable only by you).`);
    if (name !== DEFAULT_PROFILE)
      ui.status(`Use it with --profile ${name} or PREMIA_PROFILE=${name}.`);
  }
  return 0;
}
var login_default = verb((deps) => deps, loginRun);
export {
  login_default as default,
  loginRun
};
