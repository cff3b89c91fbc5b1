import { verb, type CommandDeps } from '../../command.js';
import { showPolicy } from './show.js';

export interface GetOptions extends CommandDeps {
  /** A policy id or policy number. */
  ref: string;
}

export async function getRun({ ui, backend, ref }: GetOptions): Promise<number> {
  const policy = await (await backend()).getPolicy(ref);
  if (ui.json) ui.printJson(policy);
  else showPolicy(ui, policy);
  return 0;
}

export default verb<unknown, GetOptions>((deps, _flags, [ref]) => ({ ...deps, ref: ref! }), getRun);
