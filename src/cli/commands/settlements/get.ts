import { verb, type CommandDeps } from '../../command.js';
import { printSettlement } from './show.js';

export interface GetOptions extends CommandDeps {
  /** A settlement id or settlement number. */
  ref: string;
}

export async function getRun({ ui, backend, ref }: GetOptions): Promise<number> {
  printSettlement(ui, await (await backend()).getSettlement(ref));
  return 0;
}

export default verb<unknown, GetOptions>((deps, _flags, [ref]) => ({ ...deps, ref: ref! }), getRun);
