import { verb, type CommandDeps } from '../../command.js';
import { listOutput, printList, type ListFlags, type ListOutput } from '../../output/list.js';
import { KEY_LIST } from '../list-fields.js';

export interface ListOptions extends CommandDeps {
  output: ListOutput;
}

export async function listRun({ ui, admin, output }: ListOptions): Promise<number> {
  const keys = await (await admin()).keys.list();
  if (!ui.json && output.format === 'table' && keys.length === 0) {
    ui.status("No API keys yet; create one with 'premia keys create --client NAME'.");
    return 0;
  }
  printList(ui, KEY_LIST, output, keys, keys);
  return 0;
}

export default verb<ListFlags, ListOptions>((deps, flags) => ({ ...deps, output: listOutput(flags, deps.globals, KEY_LIST) }), listRun);
