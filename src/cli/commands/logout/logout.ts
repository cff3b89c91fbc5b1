/** `premia logout`: forget a saved profile (the key stays valid at the service until the operator revokes it). */
import { usageError } from '../../../domain/errors.js';
import { checkProfileName, configPath, DEFAULT_PROFILE, removeProfile } from '../../config.js';
import { verb, type CommandDeps } from '../../command.js';

export async function logoutRun({ ctx, globals, ui }: CommandDeps): Promise<number> {
  const path = configPath(ctx.env);
  if (path === null) throw usageError('There are no saved profiles: neither $XDG_CONFIG_HOME nor $HOME is set.');
  const name = checkProfileName(globals.profile ?? (ctx.env.PREMIA_PROFILE || DEFAULT_PROFILE));
  const removed = await removeProfile(path, name);
  if (ui.json) ui.printJson({ profile: name, removed });
  else if (removed) {
    ui.status(`Removed profile '${name}' and its key from ${path}.`);
    ui.status('The key itself stays valid at the service until the operator revokes it (premia keys revoke).');
  } else ui.status(`There was no profile '${name}' in ${path}; nothing to remove.`);
  return 0;
}

export default verb((deps) => deps, logoutRun);
