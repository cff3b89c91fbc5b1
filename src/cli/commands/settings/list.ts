import { verb, type CommandDeps } from '../../command.js';

export async function listRun({ ui, admin }: CommandDeps): Promise<number> {
  const settings = await (await admin()).settings.list();
  if (ui.json) {
    ui.printJson(settings);
    return 0;
  }
  ui.table(
    [
      { header: 'key', value: (s) => s.key },
      { header: 'value', value: (s) => String(s.value) },
      { header: 'default', value: (s) => String(s.default) },
      { header: 'range', value: (s) => (s.choices ? s.choices.join('|') : `${s.min}-${s.max}`) },
      { header: 'what it controls', value: (s) => s.description },
    ],
    settings,
  );
  return 0;
}

export default verb((deps) => deps, listRun);
