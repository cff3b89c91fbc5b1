import { verb, type CommandDeps } from '../../command.js';

export async function listRun({ ui, admin }: CommandDeps): Promise<number> {
  const keys = await (await admin()).keys.list();
  if (ui.json) {
    ui.printJson(keys);
    return 0;
  }
  if (keys.length === 0) {
    ui.status("No API keys yet; create one with 'premia keys create --client NAME'.");
    return 0;
  }
  ui.table(
    [
      { header: 'id', value: (k) => k.id },
      { header: 'client', value: (k) => k.client },
      { header: 'role', value: (k) => k.role },
      { header: 'key', value: (k) => k.key },
      { header: 'created', value: (k) => k.created_at },
      { header: 'revoked', value: (k) => k.revoked_at },
    ],
    keys,
  );
  return 0;
}

export default verb((deps) => deps, listRun);
