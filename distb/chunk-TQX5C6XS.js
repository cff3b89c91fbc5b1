import {
  PremiaError,
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/cli/config.js
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
var DEFAULT_PROFILE = "default";
var PROFILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
function configPath(env) {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && xdg.startsWith("/"))
    return join(xdg, "premia", "config.json");
  const home = env.HOME ?? env.USERPROFILE;
  if (home)
    return join(home, ".config", "premia", "config.json");
  return null;
}
function checkProfileName(name) {
  if (!PROFILE_NAME_RE.test(name)) {
    throw validationError(`'${name.slice(0, 80)}' is not a profile name: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit.`);
  }
  return name;
}
function redactKey(key) {
  if (!key)
    return null;
  const k = key.trim();
  return k.length > 8 ? `\u2026${k.slice(-4)}` : "\u2026";
}
async function readConfig(path) {
  let text;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    const code = e.code;
    if (code === "ENOENT" || code === "ENOTDIR")
      return { profiles: {} };
    if (code === "EACCES")
      throw validationError(`Cannot read the premia config ${path}: permission denied.`);
    throw e;
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw validationError(`The premia config ${path} is not valid JSON; fix it, or remove it and run 'premia login' again.`);
  }
  const profiles = parsed?.profiles;
  if (typeof parsed !== "object" || parsed === null || profiles !== void 0 && (typeof profiles !== "object" || profiles === null)) {
    throw validationError(`The premia config ${path} is not a premia config (expected {"profiles": {...}}); fix it or remove it.`);
  }
  const out = {};
  for (const [name, value] of Object.entries(profiles ?? {})) {
    const p = value;
    if (!p || typeof p.base_url !== "string" || typeof p.api_key !== "string") {
      throw validationError(`Profile '${name}' in ${path} needs a base_url and an api_key; run 'premia login --profile ${name}' again.`);
    }
    out[name] = { base_url: p.base_url, api_key: p.api_key, client: typeof p.client === "string" ? p.client : null };
  }
  return { profiles: out };
}
async function checkPrivate(path) {
  if (process.platform === "win32")
    return;
  const info = await stat(path);
  if ((info.mode & 63) !== 0) {
    throw new PremiaError("VALIDATION_ERROR", `The premia config ${path} can be read by other users (mode ${(info.mode & 511).toString(8)}), so its API keys are not used. Run 'chmod 600 ${path}' (and consider rotating the keys), then try again.`);
  }
}
async function saveProfile(path, name, profile) {
  checkProfileName(name);
  const config = await readConfig(path);
  config.profiles[name] = { base_url: profile.base_url, api_key: profile.api_key, client: profile.client ?? null };
  await writeConfig(path, config);
}
async function removeProfile(path, name) {
  const config = await readConfig(path);
  if (!(name in config.profiles))
    return false;
  delete config.profiles[name];
  await writeConfig(path, config);
  return true;
}
async function writeConfig(path, config) {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 448 });
  await chmod(dir, 448).catch(() => void 0);
  const temp = join(dir, `.config.json.${randomBytes(6).toString("hex")}.tmp`);
  const file = await open(temp, "wx", 384);
  try {
    await file.chmod(384);
    await file.writeFile(`${JSON.stringify(config, null, 2)}
`, "utf8");
    await file.sync();
    await file.close();
    await rename(temp, path);
  } catch (e) {
    await file.close().catch(() => void 0);
    await rm(temp, { force: true }).catch(() => void 0);
    throw e;
  }
}

export {
  DEFAULT_PROFILE,
  configPath,
  checkProfileName,
  redactKey,
  readConfig,
  checkPrivate,
  saveProfile,
  removeProfile
};
