/**
 * The engine's working set, in memory for a whole advance: the open collections of every client
 * (those of periods whose last day has not run), the accounts of their customers as the bank
 * reports them, the engine's summary of each account, the strategies' planners and the scratch
 * a day reuses. Loaded through the ports in one day's unit of work, and again whenever something
 * else wrote to the store in between.
 */
import { isRetryable, type FailureReason } from '../domain/debit-outcome.js';
import { dayNumber, firstOpenPeriod, fromDayNumber, type IsoDate } from '../domain/period.js';
import { CollectionSet, dayOrNone, FAILURE_CODES, STATUS_CODES, Views } from './collection-set.js';
import type { Bank, BankAccounts, DayUnit, PostedDay } from './ports.js';
import { engineSettings, type EngineSettings } from './settings.js';
import { planners, strategyCode, type DayDebit, type Planner } from './strategies.js';
import { ResumeReader, resumeTag } from './resume.js';
import { AccountReads, AccountSummaries, analysisDay, AccountView } from './summary.js';

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
  readonly outcomes: Array<FailureReason | null> = [];
  readonly facts: PostedDay = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
  /** The tag the working set is kept under at the end of the advance (resume.ts). */
  resumeTag = '';
  /** How many accounts were opened from the state kept by the last advance (not replayed). */
  resumed = 0;

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

/** Load the working set as of the clock's date, in `unit`. */
export async function loadState(unit: DayUnit, bank: Bank): Promise<EngineState> {
  const world = await unit.readWorld();
  const today = world.today;
  const settings = engineSettings(world.settings);
  const todayDay = dayNumber(today);
  // Open collections: those of periods whose last day has not run.
  const firstOpen = firstOpenPeriod(today);
  const cols = new CollectionSet(await unit.countOpenCollections(firstOpen));

  // The open collections, in (client, customer, policy_number) order, into the columns; the
  // distinct customers in the same order.
  const customerClient: number[] = [];
  const customerIds: string[] = [];
  const firstCol: number[] = [];
  let prevClient = -1;
  let prevCustomer = '';
  await unit.loadOpenCollections(firstOpen, (r) => {
    const c = cols.n++;
    if (r.clientId !== prevClient || r.customerId !== prevCustomer) {
      prevClient = r.clientId;
      prevCustomer = r.customerId;
      customerClient.push(r.clientId);
      customerIds.push(r.customerId);
      firstCol.push(c);
    }
    cols.rowid[c] = r.id;
    cols.account[c] = customerIds.length - 1;
    cols.policyNumber[c] = r.policyNumber;
    cols.period[c] = cols.periodIndex(r.period);
    cols.strategy[c] = strategyCode(r.strategy);
    cols.due[c] = r.due;
    cols.collected[c] = r.collected;
    cols.status[c] = STATUS_CODES.indexOf(r.status);
    cols.firstDay[c] = dayOrNone(r.firstAttempt);
    cols.lastDay[c] = dayOrNone(r.lastAttempt);
    cols.attempts[c] = r.attempts;
    cols.failed[c] = r.failed;
    cols.failure[c] = Math.max(0, FAILURE_CODES.indexOf(r.lastFailure));
    cols.blocked[c] = r.status === 'CANCELLED' || r.policyStatus !== 'active' || (r.lastFailure !== null && !isRetryable(r.lastFailure)) ? 1 : 0;
  });

  // Debits submitted for the days after today (planned at most leadDays + 1 days ago). Read
  // before the accounts are opened: the rowid map and the replay's temporaries never coexist.
  if (cols.n > 0) {
    // Collections were read in customer order, not rowid order: find them by rowid.
    const byRowid = new Map<number, number>();
    for (let c = 0; c < cols.n; c++) byRowid.set(cols.rowid[c]!, c);
    await unit.loadSubmittedDebits(fromDayNumber(todayDay - 1 - Math.max(2, settings.leadDays)), (p) => {
      if (p.day <= todayDay) return;
      const c = byRowid.get(p.collection);
      if (c !== undefined) cols.addPending(c, p.day, p.amount);
    });
    byRowid.clear();
  }

  // Account k is customer k (client customerClient[k], customer customerIds[k]).
  const summaries = new AccountSummaries(customerIds.length, analysisDay(todayDay), settings.calendar);
  // The accounts kept by the last advance as of today (resume.ts) open from there; the others
  // (or all, when nothing usable is kept) are replayed by the bank.
  const tag = resumeTag(world.settings, summaries);
  const customers = { clientId: customerClient, customerId: customerIds };
  let resumed: ResumeReader | null = null;
  if (bank.resumes === true && unit.readResumeState && customerIds.length > 0) {
    const reader = new ResumeReader(customers, summaries);
    await unit.readResumeState(today, tag, (block) => reader.block(block));
    if (reader.found > 0) resumed = reader;
  }
  const accounts = await bank.openAccounts(customers, todayDay, summaries.postedDays(todayDay), resumed?.balances);
  const state = new EngineState(today, settings, accounts, summaries, cols, customerIds.length);
  state.resumeTag = bank.resumes === true ? tag : '';
  state.resumed = resumed?.found ?? 0;
  if (cols.n === 0) return state;

  for (let k = 0; k < customerIds.length; k++) {
    const start = firstCol[k]!;
    const end = k + 1 < firstCol.length ? firstCol[k + 1]! : cols.n;
    state.colStart[k] = start;
    state.colCount[k] = end - start;
    for (let c = start; c < end; c++) if (state.planners[cols.strategy[c]!]!.debitsOnDay !== undefined) state.hasDayDebits[k] = 1;
  }
  return state;
}
