/**
 * The engine's working set, in memory for a whole advance: the open collections of every client
 * (those of periods whose last day has not run), the accounts of their customers as the bank
 * reports them, the engine's summary of each account, the strategies' planners and the scratch
 * a day reuses. Loaded through the ports in one day's unit of work (load.ts), and again whenever
 * something else wrote to the store in between.
 */
import type { FailureReason } from '../domain/debit-outcome.js';
import type { IsoDate } from '../domain/period.js';
import { Views, type CollectionSet } from './collection-set.js';
import { DayAttempts } from './day-rows.js';
import type { BankAccounts, PostedDay } from './ports.js';
import type { EngineSettings } from './settings.js';
import { planners, type DayDebit, type Planner } from './strategies.js';
import { AccountReads, AccountView, type AccountSummaries } from './summary.js';

export class EngineState {
  /** The clock's date the state stands at (the end of that day). */
  today: IsoDate;
  /** Accounts with open collections, in load order (client, customer). */
  readonly active: Int32Array;
  activeCount: number;
  /** Per account: its collections are colStart .. colStart + colCount - 1. */
  readonly colStart: Int32Array;
  readonly colCount: Uint16Array;
  /** Per account: whether a collection's planner takes debits on the day itself (the oracle). */
  readonly hasDayDebits: Uint8Array;
  /** Per account: ACTIVE (lived each day), the day a sleeping one wakes, or GONE (awake.ts). */
  readonly wakeDay: Int32Array;
  /** The sleeping accounts by the day they wake on. */
  readonly wakes = new Map<number, number[]>();
  /** Whether accounts may sleep (the bank tells the last day each has lived). */
  readonly canSleep: boolean;
  /** Collections changed since the last write. */
  readonly dirty: number[] = [];
  readonly reads: AccountReads;
  readonly view: AccountView;
  readonly views = new Views();
  /** This run's planner of each strategy, by code; those that take debits on the day. */
  readonly planners: Planner[] = planners();
  readonly dayPlanners: Planner[] = this.planners.filter((p) => p.debitsOnDay !== undefined);
  // Scratch reused by every day.
  /** planAll: per strategy code, whether one of the customer's collections wants planning. */
  readonly wants = new Uint8Array(this.planners.length);
  readonly dayDebits: DayDebit[] = [];
  readonly dayAttempts = new DayAttempts();
  readonly outcomes: Array<FailureReason | null> = [];
  readonly facts: PostedDay = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
  /** The tag the working set is kept under at the end of the advance (image.ts; '' when not kept). */
  imageTag = '';
  /** The image's blocks this state was loaded from: those waking by this day, or all (null). */
  consumed: number | null = null;
  /**
   * The store's engine inputs version when this state was loaded (image.ts): kept with the image,
   * so that anything changing the engine's inputs since (a lapse of the engine's own included)
   * makes the next advance read the collections.
   */
  inputsVersion = -1;
  /**
   * Whether the evening of `today` (its planning, its idle accounts put to sleep) is still to be
   * made, with the next day (a store taking a day's rows as they are made: advance.ts).
   */
  eveningPending = false;
  /** How many accounts were opened from the image (not replayed). */
  resumed = 0;
  /**
   * Whether the evening of `today` is already in this state: loaded from the image alone (the
   * only load that sets `consumed`), kept at the end of that day with its plans for tomorrow made
   * and its idle accounts asleep, so the load's own planning would add nothing.
   */
  get eveningDone(): boolean {
    return this.consumed !== null;
  }

  constructor(
    today: IsoDate,
    readonly settings: EngineSettings,
    readonly accounts: BankAccounts,
    readonly summaries: AccountSummaries,
    readonly cols: CollectionSet,
    /** How many accounts the working set has (all of them active at first). */
    n: number,
  ) {
    this.today = today;
    this.active = new Int32Array(n);
    for (let i = 0; i < n; i++) this.active[i] = i;
    this.activeCount = n;
    this.colStart = new Int32Array(Math.max(1, n));
    this.colCount = new Uint16Array(Math.max(1, n));
    this.hasDayDebits = new Uint8Array(Math.max(1, n));
    this.wakeDay = new Int32Array(Math.max(1, n));
    this.canSleep = accounts.lastLived !== undefined;
    this.reads = new AccountReads(accounts, summaries);
    this.view = new AccountView(this.reads, settings.calendar);
  }
}
