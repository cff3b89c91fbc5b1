/**
 * `premia login`: ask for the API key (masked, on a terminal only), prove it against the service
 * (GET /whoami, or on a server without it a spec GET of an id that cannot exist: 404 means the
 * key was accepted), then save the profile in the private config file. The key is never echoed,
 * printed or put in a message: only its last 4 characters.
 */
import { PremiaError, usageError } from '../../../domain/errors.js';
import { checkProfileName, configPath, DEFAULT_PROFILE, readConfig, redactKey, saveProfile } from '../../config.js';
import { verb, type CommandDeps } from '../../command.js';
import { terminalText } from '../../context.js';
import { parseBaseUrl } from '../../../backend/wire.js';
import { isLoopback } from '../../../lib/loopback.js';

export async function loginRun({ ctx, globals, ui }: CommandDeps): Promise<number> {
  const path = configPath(ctx.env);
  if (path === null) throw usageError('premia login saves profiles under $XDG_CONFIG_HOME or $HOME, and neither is set.');
  const name = checkProfileName(globals.profile ?? (ctx.env.PREMIA_PROFILE || DEFAULT_PROFILE));
  const existing = (await readConfig(path)).profiles[name];
  const terminal = ctx.stdinIsTTY && ctx.stderrIsTTY;

  let baseUrl = globals.baseUrl ?? (ctx.env.PREMIA_BASE_URL || undefined) ?? existing?.base_url;
  if (baseUrl === undefined) {
    if (!terminal) throw usageError("Say which service to log in to: give --base-url URL (the service's address, including /v1), or set PREMIA_BASE_URL.");
    baseUrl = (await ctx.prompter.input('Base URL of the service (including /v1):', { colour: ui.colour })).trim();
    if (baseUrl === '') throw usageError('No base URL given; nothing was saved.');
  }
  // Before the prompt quotes it: a password written into it is refused, not shown.
  const url = parseBaseUrl(baseUrl);
  // Said before the key is asked for: the profile sends it with every request from now on.
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    ui.warn(`${url.host} is reached over plain http://: the API key crosses the network unencrypted with every request. Use https:// unless every network between here and the service is private.`);
  }

  let key: string;
  if (globals.apiKey !== undefined) {
    ui.warn('--api-key puts the key where others can see it (process listings, shell history); prefer the prompt or PREMIA_API_KEY.');
    key = globals.apiKey;
  } else if (ctx.env.PREMIA_API_KEY) {
    key = ctx.env.PREMIA_API_KEY;
    ui.status('Using the API key in PREMIA_API_KEY.');
  } else if (terminal) {
    key = await ctx.prompter.password(terminalText(ctx, `API key for ${baseUrl}:`), { colour: ui.colour });
  } else {
    throw usageError('No terminal to ask for the API key: set PREMIA_API_KEY to the key and run premia login again.');
  }
  key = key.trim();
  if (key === '') throw usageError('The API key is empty; nothing was saved.');

  const backend = await ctx.remote(globals, { baseUrl, apiKey: key, profile: name });
  let client: string | null | undefined;
  try {
    client = (await backend.describe()).client;
  } catch (e) {
    if (e instanceof PremiaError && e.code === 'UNAUTHORIZED') {
      throw new PremiaError(
        'UNAUTHORIZED',
        `The service at ${baseUrl} refused the key ${redactKey(key)}; nothing was saved. Check the key (the operator creates keys with 'premia keys create') and run premia login again.`,
        { requestId: e.requestId },
      );
    }
    throw e;
  }
  await saveProfile(path, name, { base_url: baseUrl, api_key: key, client: client ?? null });

  const saved = { profile: name, base_url: baseUrl, client: client ?? null, api_key: redactKey(key), config: path };
  if (ui.json) ui.printJson(saved);
  else {
    ui.status(`Logged in to ${baseUrl}${client ? ` as ${client}` : ''} with key ${redactKey(key)}.`);
    ui.status(`Saved profile '${name}' in ${path} (readable only by you).`);
    if (name !== DEFAULT_PROFILE) ui.status(`Use it with --profile ${name} or PREMIA_PROFILE=${name}.`);
  }
  return 0;
}

export default verb((deps) => deps, loginRun);
