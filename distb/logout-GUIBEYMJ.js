import {
  DEFAULT_PROFILE,
  checkProfileName,
  configPath,
  removeProfile
} from "./chunk-TQX5C6XS.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import {
  usageError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/logout/logout.js
async function logoutRun({ ctx, globals, ui }) {
  const path = configPath(ctx.env);
  if (path === null)
    throw usageError("There are no saved profiles: neither $XDG_CONFIG_HOME nor $HOME is set.");
  const name = checkProfileName(globals.profile ?? (ctx.env.PREMIA_PROFILE || DEFAULT_PROFILE));
  const removed = await removeProfile(path, name);
  if (ui.json)
    ui.printJson({ profile: name, removed });
  else if (removed) {
    ui.status(`Removed profile '${name}' and its key from ${path}.`);
    ui.status("The key itself stays valid at the service until the operator revokes it (premia keys revoke).");
  } else
    ui.status(`There was no profile '${name}' in ${path}; nothing to remove.`);
  return 0;
}
var logout_default = verb((deps) => deps, logoutRun);
export {
  logout_default as default,
  logoutRun
};
