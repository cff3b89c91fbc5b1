import type { Backend, SettlementPreview } from '../../../backend/types.js';
import { PremiaError } from '../../../domain/errors.js';
import type { Period } from '../../../domain/period.js';
import { verb, type CommandDeps } from '../../command.js';
import { askOrCancel, confirmMode } from '../../confirm.js';
import { money } from '../../output/format.js';
import { plainSettlementQuestion, settlementQuestion } from '../../questions.js';
import { printSettlement } from './show.js';
import { checkPeriodOption } from '../../../domain/requests.js';

interface Flags {
  period: string;
}

export interface CreateOptions extends CommandDeps {
  period: Period;
}

export function createOptions(deps: CommandDeps, flags: Flags): CreateOptions {
  const period = checkPeriodOption(flags.period);
  return { ...deps, period };
}

export async function createRun(opts: CreateOptions): Promise<number> {
  const { ui, backend, period } = opts;
  const b = await backend();
  if (confirmMode(opts) === 'ask') {
    const preview = await previewOf(b, period);
    await askOrCancel(opts, preview ? settlementQuestion(preview) : plainSettlementQuestion(period));
  }
  const s = await b.createSettlement(period);
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

/** The statement as it would be made; null from a server that cannot say. A refusal (the period open...) is reported at once. */
async function previewOf(b: Backend, period: Period): Promise<SettlementPreview | null> {
  try {
    return await b.previewSettlement(period);
  } catch (e) {
    if (e instanceof PremiaError && e.code === 'NOT_SUPPORTED') return null;
    throw e;
  }
}

export default verb(createOptions, createRun);
