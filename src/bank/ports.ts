/**
 * What the simulated bank keeps in premia's store, declared here and implemented by the store
 * (src/store/repos/bank.ts). The bank stores no transaction of a generated account: an account
 * is a function of the seed, its imported rows and premia's debits, replayed from the last
 * balance it kept. Customers are keyed by (clientId, customerId): CustomerMap (domain/customer.ts).
 *
 * The reads run in the caller's unit of work: the engine opens accounts inside a day's
 * transaction, and the store serves both ports on the same connection.
 */
import type { Calendar } from '../domain/calendar.js';
import type { CustomerFilter, CustomerMap } from '../domain/customer.js';
import type { IsoDate } from '../domain/period.js';

export interface ImportedRow {
  day: number;
  amount: number;
  description: string;
}

/** One of premia's past debits on an account, as the bank executed it. */
export interface PastAttempt {
  day: number;
  amount: number;
  /** null for a success. */
  failure: string | null;
  policyNumber: string;
}

/** An account's balance at the end of a day, kept so that a replay can start there. */
export interface BalanceSnapshot {
  day: number;
  balance: number;
}

/** Accounts column-wise: account i is (clientId[i], customerIdOf(i)) with balance[i]. */
export interface BalanceColumns {
  readonly clientId: ArrayLike<number>;
  customerIdOf(i: number): string;
  readonly balance: ArrayLike<number>;
}

export interface BankStore {
  /**
   * The seed of generated accounts, the day they open (null while no run fixed it) and the
   * business-day calendar (the `calendar` setting and imported holidays).
   */
  settings(): Promise<{ seed: number; epoch: IsoDate | null; calendar: Calendar }>;
  /** Imported rows by customer, in file order (only those of `keys` when given). */
  importedRows(keys: CustomerFilter | null): Promise<CustomerMap<ImportedRow[]>>;
  /** The latest balance kept on or before `notAfter`, by customer. */
  snapshots(keys: CustomerFilter | null, notAfter: IsoDate): Promise<CustomerMap<BalanceSnapshot>>;
  /** premia's debits dated after `after`, by customer, in (date, policy_number) order. */
  pastAttempts(keys: CustomerFilter | null, after: IsoDate): Promise<CustomerMap<PastAttempt[]>>;
  /** Keep the balances of `accounts` (indices into `columns`) as of `asOf`, replacing any kept for that customer and day. */
  keepBalances(asOf: IsoDate, accounts: readonly number[], columns: BalanceColumns): Promise<void>;
}
