import { verb, type CommandDeps } from '../../command.js';
import { listOutput, printList, type ListFlags, type ListOutput } from '../../output/list.js';
import { SETTING_LIST } from '../list-fields.js';

export interface ListOptions extends CommandDeps {
  output: ListOutput;
}

export async function listRun({ ui, admin, output }: ListOptions): Promise<number> {
  const settings = await (await admin()).settings.list();
  printList(ui, SETTING_LIST, output, settings, settings);
  return 0;
}

export default verb<ListFlags, ListOptions>((deps, flags) => ({ ...deps, output: listOutput(flags, deps.globals, SETTING_LIST) }), listRun);
