import type { CommandEnv } from '../action.js';
import { printSettlement } from './show.js';

export default async function get({ ui, backend }: CommandEnv, ref: string): Promise<number> {
  printSettlement(ui, await (await backend()).getSettlement(ref));
  return 0;
}
