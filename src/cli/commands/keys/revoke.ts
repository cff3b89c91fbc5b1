import { askOrCancel, confirmMode } from '../../confirm.js';
import { revokeQuestion } from '../../questions.js';
import { verb, type CommandDeps } from '../../command.js';

export interface RevokeOptions extends CommandDeps {
  /** The key's id (from keys list). */
  keyId: string;
}

export async function revokeRun(opts: RevokeOptions): Promise<number> {
  const { ui, keyId } = opts;
  const admin = await opts.admin();
  if (confirmMode(opts) === 'ask') {
    const keys = await admin.keys.list();
    const key = keys.find((k) => k.id === keyId.trim());
    // An unknown or already revoked key: the revocation itself says so; nothing to ask.
    if (key && key.revoked_at === null) {
      const others = keys.filter((k) => k.client === key.client && k.id !== key.id && k.revoked_at === null).length;
      await askOrCancel(opts, revokeQuestion(key, others));
    }
  }
  const { key, changed } = await admin.keys.revoke(keyId);
  if (ui.json) ui.printJson(key);
  else if (changed) ui.status(`Revoked key ${key.id} (${key.key}) of ${key.client}; requests with it are refused from now on.`);
  else ui.status(`Key ${key.id} (${key.key}) of ${key.client} was already revoked on ${key.revoked_at}.`);
  return 0;
}

export default verb<unknown, RevokeOptions>((deps, _flags, [keyId]) => ({ ...deps, keyId: keyId! }), revokeRun);
