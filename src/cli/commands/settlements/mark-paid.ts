import type { CommandEnv } from '../action.js';
import { printSettlement } from './show.js';

export default async function markPaid({ opts, ui, backend }: CommandEnv, ref: string): Promise<number> {
  const s = await (await backend()).markSettlementPaid(ref, { reference: opts.reference as string | undefined });
  if (!ui.json) ui.status(`${s.settlement_number} is paid (on ${s.paid_on}, reference ${s.paid_reference}).`);
  printSettlement(ui, s);
  return 0;
}
