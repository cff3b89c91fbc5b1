/**
 * The bank as the collections engine sees it: the seam a real bank could be put behind. (Here
 * in backend/, the layer that may see both the engine's and the bank's types.)
 *
 * premia ships one implementation, the simulated bank (backend/local/accounts.ts: generated and
 * imported accounts living by the account rules of bank/ledger.ts). A real one would implement
 * the same two interfaces over a bank's services: `live` is the day's debit-order batch for an
 * account and the bank's response file (one outcome per debit, in order), `endOfDay` takes in
 * the day's statement lines, and the read methods answer from what premia has observed of the
 * account (balance as last reported, recent income, outgoing statistics, the income analysis);
 * `openAccounts` is where such a bank would fetch the accounts' history.
 *
 * Accounts are addressed by index (0 .. size-1, in the order opened) so the engine can keep
 * per-account state in typed arrays; nothing here allocates per account-day.
 */
import type { MonthInfo } from '../domain/calendar.js';
import type { IncomeAnalysis } from '../engine/income.js';
import type { DayFacts, PremiaDebits } from '../bank/ledger.js';
import type { FailureReason } from '../bank/types.js';

export interface BankAccounts {
  readonly size: number;
  /** The client and customer of account i. */
  readonly clientId: Int32Array;
  readonly customerId: readonly string[];
  /** The balance after the last day lived (what the bank last reported). */
  balance(i: number): number;
  /** Why premia's debits fail on `day` whatever the balance (closed, frozen, stopped), or null. */
  blockedOn(i: number, day: number): FailureReason | null;
  /**
   * Live account i through its next day: its credits post, then premia's debits for the day
   * (from `premia`, in policy_number order) are attempted, outcomes written to `outcomes` in the
   * same order (null: paid), then the day's other debits. Returns the day's facts.
   */
  live(i: number, premia: PremiaDebits | null, outcomes: Array<FailureReason | null>, facts: DayFacts): DayFacts;
  /** Take in the day just lived for planning (statistics; the income analysis when `analyse`). */
  endOfDay(i: number, day: number, facts: DayFacts, analyse: boolean, month: MonthInfo): void;
  /** The income analysis of account i (written into `into` when given). */
  analysis(i: number, into?: IncomeAnalysis): IncomeAnalysis;
  /** Income observed on a recent day, or 0. */
  incomeOn(i: number, day: number): number;
  /** Expected other debits on the k-th day after income. */
  expectedDebits(i: number, k: number): number;
  /** A cheap test: could the smart strategy plan for account i on action day A (see accounts.ts)? */
  smartMayPlan(i: number, D: number, A: number, periodLast: number): boolean;
}

/** The customers whose accounts the engine needs: customer k is (clientId[k], customerId[k]). */
export interface AccountRefs {
  readonly clientId: ArrayLike<number>;
  readonly customerId: readonly string[];
}

export interface Bank<Reader = unknown> {
  /**
   * The accounts of `customers` (index k of the result is customer k), each brought up to the end
   * of `today` (a day number) with the history the engine reads. `reader` gives access to what the
   * implementation needs from the store (the simulated bank: imported rows, snapshots, attempts).
   */
  openAccounts(reader: Reader, customers: AccountRefs, today: number, settings: { seed: number; epochDay: number }): BankAccounts;
}
