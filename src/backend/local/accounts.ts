/**
 * One customer's account as `bank show` and `collections explain` present it: the simulated
 * bank replays it to the clock's date (every movement told to `observer`) and the engine's
 * summary of its posted history gives the income analysis.
 */
import { AccountSet } from '../../bank/accounts.js';
import type { LedgerObserver } from '../../bank/ledger.js';
import { replayInto, type AccountInputs } from '../../bank/simulated.js';
import type { FailureReason } from '../../bank/types.js';
import type { Calendar } from '../../domain/calendar.js';
import type { IncomeAnalysis } from '../../engine/income.js';
import { AccountSummaries, analysisDay } from '../../engine/summary.js';

export interface CustomerAccount {
  readonly balance: number;
  readonly analysis: IncomeAnalysis;
  readonly sourceKind: 'imported' | 'generated';
  /** The business-day calendar it lived on. */
  readonly calendar: Calendar;
  blockedOn(day: number): FailureReason | null;
}

/** One customer's account replayed to `today` (a day number). */
export function openAccount(inputs: AccountInputs, clientId: number, customerId: string, today: number, observer?: LedgerObserver): CustomerAccount {
  const set = new AccountSet(1, null, inputs.calendar);
  const summaries = new AccountSummaries(1, analysisDay(today), inputs.calendar);
  const i = replayInto(set, inputs, clientId, customerId, today, summaries.postedDays(today), observer);
  return {
    balance: set.balance(i),
    analysis: summaries.analysis(set, i, {} as IncomeAnalysis),
    sourceKind: set.sourceKind(i),
    calendar: inputs.calendar,
    blockedOn: (day) => set.blockedOn(i, day),
  };
}
