/**
 * The shapes of the bank's reads and imports shared by the SQLite store (bank.ts) and the
 * PostgreSQL one (bank-pg.ts).
 */
import type { ImportedRow, PastAttempt } from '../../bank/ports.js';
import type { Calendar } from '../../domain/calendar.js';
import type { CustomerMap } from '../../domain/customer.js';
import type { IsoDate } from '../../domain/period.js';

/** One customer's replay inputs, read in one consistent view (bank show, collections explain). */
export interface CustomerBankInputs {
  /** Whether the client knows the customer: a policy (any status) names it, or it has imported rows. */
  known: boolean;
  epoch: IsoDate | null;
  /** The store's business-day calendar. */
  calendar: Calendar;
  imported: CustomerMap<ImportedRow[]>;
  attempts: CustomerMap<PastAttempt[]>;
}

/** What a bank import checks its rows against, and where it writes them: one write transaction. */
export interface BankImportUnit {
  today: IsoDate;
  /** A collections run exists (the clock only moves forward). */
  locked: boolean;
  /** Customers of the client with imported rows before this import. */
  imported: ReadonlySet<string>;
  /**
   * Customers the engine is collecting from, when locked (else empty): it has read their generated
   * history, so importing rows would replace that history under it.
   */
  collecting: ReadonlySet<string>;
  /** What the customer's rows stored by earlier imports move in all (the sum of their amounts, either way), in cents. */
  turnoverBefore(customerId: string): number;
  /**
   * Whether the same row was stored by an earlier import and not yet matched by an earlier row of
   * this file: each stored row matches one row of the file (two equal rows of the file, where one
   * was stored before, are that one and a new one).
   */
  storedBefore(customerId: string, date: IsoDate, amount: number, description: string): boolean;
  insert(customerId: string, date: IsoDate, amount: number, description: string): void;
  /**
   * The customer ids of the client's policies (one per policy, in no order), read in batches in
   * the import's transaction. Only after the last insert: PostgreSQL's COPY ends first.
   */
  policyCustomerIds(): AsyncIterable<readonly string[]>;
  /** Resolves once the store can take more rows (PostgreSQL's COPY stream has drained); undefined: at once. */
  ready?(): Promise<void> | undefined;
}
