import type { CommandEnv } from '../action.js';

export default async function revoke({ ctx, ui, backend }: CommandEnv, keyId: string): Promise<number> {
  const { key, changed } = await ctx.operator().revokeKey(await backend(), keyId);
  if (ui.json) ui.printJson(key);
  else if (changed) ui.status(`Revoked key ${key.id} (${key.key}) of ${key.client}; requests with it are refused from now on.`);
  else ui.status(`Key ${key.id} (${key.key}) of ${key.client} was already revoked on ${key.revoked_at}.`);
  return 0;
}
