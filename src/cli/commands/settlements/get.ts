import { verb, type CommandDeps } from '../../command.js';
import { feeRuleWarnings, printSettlement } from './show.js';

export interface GetOptions extends CommandDeps {
  /** A settlement id or settlement number. */
  ref: string;
}

export async function getRun({ ui, backend, ref }: GetOptions): Promise<number> {
  const s = await (await backend()).getSettlement(ref);
  printSettlement(ui, s);
  // Read before paying it: figures that do not follow the fee rule are not shown as if they did.
  for (const w of feeRuleWarnings(s)) ui.warn(w);
  return 0;
}

export default verb<unknown, GetOptions>((deps, _flags, [ref]) => ({ ...deps, ref: ref! }), getRun);
