import { validateDisputeRequest } from '../../../domain/requests.js';
import { askOrCancel, confirmMode } from '../../confirm.js';
import { disputeQuestion } from '../../questions.js';
import type { CommandEnv } from '../action.js';
import { printSettlement } from './show.js';

export default async function dispute(env: CommandEnv, ref: string): Promise<number> {
  const { opts, ui, backend } = env;
  const input = validateDisputeRequest({ reason: opts.reason });
  const b = await backend();
  if (confirmMode(env) === 'ask') {
    // A statement already disputed is refused by the dispute itself: nothing to ask.
    const current = await b.getSettlement(ref);
    if (current.status !== 'disputed') await askOrCancel(env, disputeQuestion(current, input.reason));
  }
  const s = await b.disputeSettlement(ref, input.reason);
  if (!ui.json) {
    ui.status(`${s.settlement_number} is disputed. 'premia settlements create --period ${s.period_month}' generates a new statement for the period.`);
  }
  printSettlement(ui, s);
  return 0;
}
