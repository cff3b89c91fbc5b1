/**
 * Saved profiles of remote mode: `$XDG_CONFIG_HOME/premia/config.json`, else
 * `~/.config/premia/config.json`, a JSON file `{"profiles": {NAME: {base_url, api_key, client}}}`.
 *
 * The file holds API keys, so: its directory is created 0700, the file is written to a temporary
 * file created 0600 in the same directory and renamed into place (a reader never sees half a
 * file, and the key is never on disk with wider permissions), and a key is refused from a file
 * that group or others can read. Paths come only from the injected environment (never from
 * os.homedir()), so tests and in-process runs see exactly the configuration they were given.
 */
import { randomBytes } from 'node:crypto';
import { chmod, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PremiaError, validationError } from '../domain/errors.js';
import { maskKey } from '../lib/key-text.js';
import { makeDirectories } from '../lib/make-directories.js';
import { readSmallFile } from '../lib/small-file.js';

export interface Profile {
  /** The service's base URL, including /v1, exactly as given. */
  base_url: string;
  api_key: string;
  /** The client the key acts for, as the service said at login (null when it did not say). */
  client?: string | null;
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';
const PROFILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The config file for this environment, or null when neither XDG_CONFIG_HOME nor HOME is set. */
export function configPath(env: Record<string, string | undefined>): string | null {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && xdg.startsWith('/')) return join(xdg, 'premia', 'config.json');
  const home = env.HOME ?? env.USERPROFILE;
  if (home) return join(home, '.config', 'premia', 'config.json');
  return null;
}

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME_RE.test(name)) {
    throw validationError(`'${name.slice(0, 80)}' is not a profile name: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit.`);
  }
  return name;
}

/** A key as it may be shown: its last 4 characters only, and nothing of a key of 8 characters or fewer. */
export function redactKey(key: string | null | undefined): string | null {
  return key ? maskKey(key.trim()) : null;
}

/** The most a config file may hold: a few profiles take a few hundred bytes. */
const MAX_CONFIG_BYTES = 1 << 20;

/**
 * The config file's text, when it is a regular file of at most MAX_CONFIG_BYTES. A link to
 * /dev/zero or a huge file was read whole ("premia failed unexpectedly: Invalid string length"
 * after filling memory), and a FIFO there held every command, silent, waiting for a writer
 * (opened non-blocking now, it is refused like a device).
 */
async function readConfigText(path: string): Promise<string> {
  const read = await readSmallFile(path, MAX_CONFIG_BYTES);
  if ('text' in read) return read.text;
  const fix = "remove it or fix it (it holds the profiles of 'premia login'), or set XDG_CONFIG_HOME to another directory";
  if (read.refused === 'not a file') throw validationError(`The premia config ${path} is not a regular file (a device, a pipe or a socket); ${fix}.`);
  throw validationError(`The premia config ${path} is larger than ${MAX_CONFIG_BYTES} bytes, far more than its profiles take; ${fix}.`);
}

/** The file's profiles; an absent file has none. Throws a usage error for a file that is not premia's config. */
export async function readConfig(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readConfigText(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // No file can be there: nor can one under a path too long (XDG_CONFIG_HOME or HOME of a name
    // over 255 bytes), where every command, local ones too, "failed unexpectedly: ENAMETOOLONG".
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') return { profiles: {} };
    if (code === 'EACCES') throw validationError(`Cannot read the premia config ${path}: permission denied.`);
    // A directory (or a loop of links) where the file should be: every command reads the file for
    // a default profile, and each failed "unexpectedly" (exit 1) with EISDIR and no path.
    if (code === 'EISDIR' || code === 'ELOOP') {
      const what = code === 'EISDIR' ? 'is a directory, not a file' : 'is a loop of symbolic links';
      throw validationError(`The premia config ${path} ${what}; remove it or fix it (it holds the profiles of 'premia login'), or set XDG_CONFIG_HOME to another directory.`);
    }
    throw e;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw validationError(`The premia config ${path} is not valid JSON; fix it, or remove it and run 'premia login' again.`);
  }
  const profiles = (parsed as { profiles?: unknown })?.profiles;
  // An array is an object to typeof, and Object.entries would find no profile in it: a config
  // written wrong would pass for one that holds none.
  const isRecord = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isRecord(parsed) || (profiles !== undefined && !isRecord(profiles))) {
    throw validationError(`The premia config ${path} is not a premia config (expected {"profiles": {...}}); fix it or remove it.`);
  }
  const out: Record<string, Profile> = {};
  for (const [name, value] of Object.entries((profiles ?? {}) as Record<string, unknown>)) {
    const p = value as Partial<Profile> | null;
    if (!p || typeof p.base_url !== 'string' || typeof p.api_key !== 'string') {
      throw validationError(`Profile '${name}' in ${path} needs a base_url and an api_key; run 'premia login --profile ${name}' again.`);
    }
    out[name] = { base_url: p.base_url, api_key: p.api_key, client: typeof p.client === 'string' ? p.client : null };
  }
  return { profiles: out };
}

/**
 * Refuse to use keys from a file that others can read. (Not checked on Windows, where the mode
 * bits do not describe who can read a file.)
 */
export async function checkPrivate(path: string): Promise<void> {
  if (process.platform === 'win32') return;
  const info = await stat(path);
  if ((info.mode & 0o077) !== 0) {
    throw new PremiaError(
      'VALIDATION_ERROR',
      `The premia config ${path} can be read by other users (mode ${(info.mode & 0o777).toString(8)}), so its API keys are not used. ` +
        `Run 'chmod 600 ${path}' (and consider rotating the keys), then try again.`,
    );
  }
}

/** Save (add or replace) a profile; returns nothing secret. */
export async function saveProfile(path: string, name: string, profile: Profile): Promise<void> {
  checkProfileName(name);
  const config = await readConfig(path);
  config.profiles[name] = { base_url: profile.base_url, api_key: profile.api_key, client: profile.client ?? null };
  await writeConfig(path, config);
}

/** Remove a profile; false when there was none. The file is rewritten private (0600). */
export async function removeProfile(path: string, name: string): Promise<boolean> {
  const config = await readConfig(path);
  if (!(name in config.profiles)) return false;
  delete config.profiles[name];
  await writeConfig(path, config);
  return true;
}

/** Write the whole file: a 0600 temporary file in a 0700 directory, flushed, then renamed over the old one. */
export async function writeConfig(path: string, config: ConfigFile): Promise<void> {
  try {
    await writeConfigFile(path, config);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = CONFIG_WRITE_REASONS[code ?? ''];
    if (why === undefined) throw e;
    throw validationError(
      `Cannot write the premia config at ${path} (${why}); nothing was saved. Point XDG_CONFIG_HOME (or HOME) at a directory you can write, or pass --base-url and PREMIA_API_KEY without a profile.`,
      [{ field: 'config', code: 'PERMISSION_DENIED', message: `${path}: ${why}` }],
    );
  }
}

/** Why the config file cannot be written, by the error's code (any other is thrown as it is). */
const CONFIG_WRITE_REASONS: Record<string, string> = {
  EROFS: 'a read-only file system',
  ENOENT: 'no such directory',
  ENOTDIR: 'no such directory',
  ENAMETOOLONG: 'the path is too long',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};

async function writeConfigFile(path: string, config: ConfigFile): Promise<void> {
  const dir = dirname(path);
  await makeDirectories(dir, 0o700);
  // An existing directory is left as it is; premia's own directory should be private too.
  await chmod(dir, 0o700).catch(() => undefined);
  const temp = join(dir, `.config.json.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temp, 'wx', 0o600);
  try {
    await file.chmod(0o600); // whatever the umask
    await file.writeFile(`${JSON.stringify(config, null, 2)}\n`, 'utf8');
    await file.sync();
    await file.close();
    await rename(temp, path);
  } catch (e) {
    await file.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw e;
  }
}
