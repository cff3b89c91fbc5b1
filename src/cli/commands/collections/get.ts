import { verb, type CommandDeps } from '../../command.js';
import { showCollection } from './show.js';

export interface GetOptions extends CommandDeps {
  /** A collection id. */
  id: string;
}

export async function getRun({ ui, backend, id }: GetOptions): Promise<number> {
  const c = await (await backend()).getCollection(id);
  if (ui.json) ui.printJson(c);
  else showCollection(ui, c);
  return 0;
}

export default verb<unknown, GetOptions>((deps, _flags, [id]) => ({ ...deps, id: id! }), getRun);
