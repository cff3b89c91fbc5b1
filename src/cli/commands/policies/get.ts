import type { CommandEnv } from '../action.js';
import { showPolicy } from './show.js';

export default async function get({ ui, backend }: CommandEnv, ref: string): Promise<number> {
  const policy = await (await backend()).getPolicy(ref);
  if (ui.json) ui.printJson(policy);
  else showPolicy(ui, policy);
  return 0;
}
