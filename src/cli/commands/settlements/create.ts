import { validationError } from '../../../domain/errors.js';
import { isPeriod } from '../../../domain/period.js';
import { money } from '../../output/format.js';
import type { CommandEnv } from '../action.js';
import { printSettlement } from './show.js';

export default async function create({ opts, ui, backend }: CommandEnv): Promise<number> {
  const period = String(opts.period);
  if (!isPeriod(period)) throw validationError(`--period '${period}' is not a period; write it as YYYY-MM, e.g. 2026-11.`);
  const s = await (await backend()).createSettlement(period);
  if (!ui.json) {
    const replaces = s.supersedes ? ` (supersedes ${s.supersedes}; ${money(s.previously_paid ?? 0)} already paid for ${s.period_month})` : '';
    if (s.net_amount < 0) {
      const reference = s.payment_reference ? `, reference ${s.payment_reference}` : '';
      ui.status(`Created ${s.settlement_number}${replaces}: net ${money(s.net_amount)}: the client owes ${money(-s.net_amount)} back by ${s.payment_date}${reference}.`);
    } else {
      const reference = s.payment_reference ? ` with reference ${s.payment_reference}` : '';
      ui.status(`Created ${s.settlement_number}${replaces}: net ${money(s.net_amount)} to pay by ${s.payment_date}${reference}.`);
    }
  }
  printSettlement(ui, s);
  return 0;
}
