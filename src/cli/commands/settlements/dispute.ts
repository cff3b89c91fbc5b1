import { validateDisputeRequest } from '../../../domain/requests.js';
import type { CommandEnv } from '../action.js';
import { printSettlement } from './show.js';

export default async function dispute({ opts, ui, backend }: CommandEnv, ref: string): Promise<number> {
  const input = validateDisputeRequest({ reason: opts.reason });
  const s = await (await backend()).disputeSettlement(ref, input.reason);
  if (!ui.json) {
    ui.status(`${s.settlement_number} is disputed. 'premia settlements create --period ${s.period_month}' generates a new statement for the period.`);
  }
  printSettlement(ui, s);
  return 0;
}
