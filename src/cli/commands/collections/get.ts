import type { CommandEnv } from '../action.js';
import { showCollection } from './show.js';

export default async function get({ ui, backend }: CommandEnv, id: string): Promise<number> {
  const c = await (await backend()).getCollection(id);
  if (ui.json) ui.printJson(c);
  else showCollection(ui, c);
  return 0;
}
