import { askOrCancel, confirmMode } from '../../confirm.js';
import { revokeQuestion } from '../../questions.js';
import type { CommandEnv } from '../action.js';

export default async function revoke(env: CommandEnv, keyId: string): Promise<number> {
  const { ui } = env;
  const admin = await env.admin();
  if (confirmMode(env) === 'ask') {
    const keys = await admin.keys.list();
    const key = keys.find((k) => k.id === keyId.trim());
    // An unknown or already revoked key: the revocation itself says so; nothing to ask.
    if (key && key.revoked_at === null) {
      const others = keys.filter((k) => k.client === key.client && k.id !== key.id && k.revoked_at === null).length;
      await askOrCancel(env, revokeQuestion(key, others));
    }
  }
  const { key, changed } = await admin.keys.revoke(keyId);
  if (ui.json) ui.printJson(key);
  else if (changed) ui.status(`Revoked key ${key.id} (${key.key}) of ${key.client}; requests with it are refused from now on.`);
  else ui.status(`Key ${key.id} (${key.key}) of ${key.client} was already revoked on ${key.revoked_at}.`);
  return 0;
}
