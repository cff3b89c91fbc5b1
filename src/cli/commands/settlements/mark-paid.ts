import { validateMarkPaidRequest } from '../../../domain/requests.js';
import type { CommandEnv } from '../action.js';
import { printSettlement } from './show.js';

export default async function markPaid({ opts, ui, backend }: CommandEnv, ref: string): Promise<number> {
  // Checked as the service checks the request, so a bad reference reads the same in both modes.
  const input = validateMarkPaidRequest(opts.reference === undefined ? {} : { reference: opts.reference });
  const s = await (await backend()).markSettlementPaid(ref, input);
  if (!ui.json) ui.status(`${s.settlement_number} is paid (on ${s.paid_on}, reference ${s.paid_reference}).`);
  printSettlement(ui, s);
  return 0;
}
