/**
 * The simulated bank (the only bank premia has): accounts generated from the store's seed or
 * built from imported rows, brought up to the clock's date by replaying them from the last
 * balance kept, with premia's past debits, so each account stands exactly where the days
 * already lived left it. The replay re-checks every recorded outcome against the ledger.
 *
 * While an account is replayed, each day it lives is reported to the caller (`PostedDays`):
 * the engine keeps its own summary of the posted history from those facts. An account the
 * engine kept in its image (its balance at the end of the last day it lived, with the engine's
 * own summary: engine/image.ts) opens there in O(1), without a replay or its inputs.
 */
import { AccountSet, DrawnProfiles } from './accounts.js';
import type { Calendar } from '../domain/calendar.js';
import { ImportedAccount } from './imported.js';
import type { DayFacts, LedgerObserver, PremiaDebits } from './ledger.js';
import type { BalanceSnapshot, BankStore, ImportedRow, PastAttempt } from './ports.js';
import type { AccountSource, FailureReason } from './types.js';
import { CustomerMap, lazyCustomerFilter } from '../domain/customer.js';
import { PremiaError } from '../domain/errors.js';
import { formatCents } from '../domain/money.js';
import { dayNumber, firstDay, fromDayNumber, periodOf, shiftPeriod, type IsoDate } from '../domain/period.js';

/**
 * The day generated accounts open: the first day of the month three months before
 * `firstPeriod` — the earlier of the first collections period and the clock's month at the first
 * run (or, before any run, the clock's month).
 */
export function epochFor(firstPeriod: string): number {
  return dayNumber(firstDay(shiftPeriod(firstPeriod, -3)));
}

export function provisionalEpoch(today: IsoDate): number {
  return epochFor(periodOf(today));
}

/** The customers whose accounts are wanted: customer k is (clientId[k], customerId[k]). */
export interface CustomerRefs {
  readonly clientId: ArrayLike<number>;
  readonly customerId: readonly string[];
}

/** Told of each day an account lives while it is brought up to date. */
export interface PostedDays {
  /** The first day whose facts are wanted (earlier days may be reported too). */
  readonly from: number;
  /** Account i of `accounts` lived `day` (each account's days in order, one account after another). */
  day(accounts: AccountSet, i: number, day: number, facts: Readonly<DayFacts>): void;
  /**
   * Optional: account i lived the days first .. first + count - 1 with none of premia's debits,
   * their credits and posted debits in credits[k] and debits[k] (k = day - first): as `day`
   * told each in turn.
   */
  days?(accounts: AccountSet, i: number, first: number, count: number, credits: Float64Array, debits: Float64Array): void;
}

/** Scratch of a replay's runs of days (replayInto): the days' credits and posted debits. */
let runCredits = new Float64Array(512);
let runDebits = new Float64Array(512);

export interface AccountInputs {
  seed: number;
  /** The store's business-day calendar (generated paydays; premia's debits on business days only). */
  calendar: Calendar;
  epochDay: number;
  /** Imported rows by customer, in file order. */
  imported: CustomerMap<ImportedRow[]>;
  /** Latest usable snapshot by customer. */
  snapshots: CustomerMap<{ day: number; balance: number }>;
  /** premia's past attempts by customer, in (date, policy_number) order. */
  attempts: CustomerMap<PastAttempt[]>;
}

/** The imported source of a customer, or null when the customer has a generated account. */
export function importedSource(inputs: Pick<AccountInputs, 'imported'>, clientId: number, customerId: string): AccountSource | null {
  const rows = inputs.imported.get(clientId, customerId);
  return rows && rows.length > 0 ? new ImportedAccount(rows) : null;
}

/**
 * Add a customer's account to `set` and replay it to `today`; returns its index. It starts from
 * the latest snapshot before `posted.from` (none when `observer` wants every movement), else from
 * the account's first day.
 */
export function replayInto(
  set: AccountSet,
  inputs: AccountInputs,
  clientId: number,
  customerId: string,
  today: number,
  posted: PostedDays | null,
  observer?: LedgerObserver,
): number {
  const source = importedSource(inputs, clientId, customerId);
  const startDay = source ? source.startDay : inputs.epochDay;
  const snap = observer ? undefined : inputs.snapshots.get(clientId, customerId);
  const usable = snap && posted && snap.day < posted.from ? snap : undefined;
  // Without a snapshot the account lives from its first day, or from the first day the caller
  // wants when that is earlier: an account whose first row comes after `today` (or after the
  // start of the caller's window) lives the same calendar days, reported the same way, whichever
  // day it is opened on. (Before its first row an account posts nothing and its balance is 0.)
  const lastDay = usable ? usable.day : Math.min(startDay, posted ? posted.from : startDay, today + 1) - 1;
  const i = set.add(clientId, customerId, source, inputs.seed, inputs.epochDay, lastDay, usable ? usable.balance : 0);
  const replay = new Replay(inputs.attempts.get(clientId, customerId) ?? [], lastDay, customerId);
  const facts: DayFacts = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
  const report = posted === null ? null : (day: number, f: DayFacts) => posted.day(set, i, day, f);
  while (set.day(i) < today) {
    // The days before premia's next debit in one run (a generated account's fast path), those
    // before the first the caller wants not reported.
    const quietTo = Math.min(today, replay.nextDay() - 1);
    if (observer === undefined && quietTo > set.day(i)) {
      const unreported = posted === null ? quietTo : Math.min(quietTo, posted.from - 1);
      const first = set.day(i) + 1;
      if (unreported >= first) {
        if (runCredits.length < unreported - first + 1) growRun(unreported - first + 1);
        if (set.liveQuietlyInto(i, unreported, runCredits, runDebits)) continue;
      }
      if (posted?.days !== undefined) {
        if (runCredits.length < quietTo - first + 1) growRun(quietTo - first + 1);
        if (set.liveQuietlyInto(i, quietTo, runCredits, runDebits)) {
          posted.days(set, i, first, quietTo - first + 1, runCredits, runDebits);
          continue;
        }
      }
      if (set.liveQuietly(i, quietTo, facts, report)) continue;
    }
    set.live(i, replay, replay.outcomes, facts, observer);
    replay.check();
    posted?.day(set, i, set.day(i), facts);
  }
  return i;
}

function growRun(days: number): void {
  runCredits = new Float64Array(Math.max(days, 2 * runCredits.length));
  runDebits = new Float64Array(runCredits.length);
}

/** The simulated bank on the store that keeps its inputs (src/store/repos/bank.ts). */
export class SimulatedBank {
  /** Opens an account kept by the engine where it stands (engine/ports.ts). */
  readonly resumes = true;

  constructor(private readonly store: BankStore) {}

  /**
   * The accounts of `customers` (index k of the result is customer k), each brought up to the
   * end of `today` (a day number), the days from `posted.from` on reported as they are lived.
   */
  async openAccounts(customers: CustomerRefs, today: number, posted: PostedDays, kept?: KeptAccounts): Promise<AccountSet> {
    const n = customers.customerId.length;
    const settings = await this.store.settings();
    const accounts = new AccountSet(n, this.store, settings.calendar);
    if (n === 0) return accounts;
    // Every customer's imported rows (an account's source); the replay's inputs (snapshots,
    // premia's past debits) only for the accounts that are replayed. Customers the engine may
    // still get from elsewhere (kept.pending) have theirs read only if it does not: a month's
    // past debits are a million rows at a million policies.
    const keys = lazyCustomerFilter(customers.clientId, customers.customerId);
    const pendingFrom = kept?.pending?.from ?? n;
    const epochDay = settings.epoch ? dayNumber(settings.epoch) : provisionalEpoch(fromDayNumber(today));
    const imported = await this.store.importedRows(keys);
    const inputs: AccountInputs = {
      seed: settings.seed,
      calendar: settings.calendar,
      epochDay,
      imported,
      ...(await this.replayInputs(customers, (k) => k < pendingFrom && !isKept(kept, k), today, posted)),
    };
    // The profiles of the accounts another process opened (the engine's helper), from `pendingFrom` on.
    let drawn: DrawnProfiles | null = null;
    for (let k = 0; k < n; k++) {
      const clientId = customers.clientId[k]!;
      const customerId = customers.customerId[k]!;
      if (k === pendingFrom && kept?.pending) {
        if (await kept.pending.ready(accounts)) drawn = drawnProfiles(kept.pending.bankState?.() ?? null);
        else Object.assign(inputs, await this.replayInputs(customers, (j) => j >= pendingFrom && !isKept(kept, j), today, posted));
      }
      if (isKept(kept, k)) {
        // Kept by the engine as of the last day it lived: the account stands there, nothing to replay.
        accounts.add(clientId, customerId, importedSource(inputs, clientId, customerId), inputs.seed, epochDay, kept!.lastLived[k]!, kept!.balance[k]!, drawn, k - pendingFrom);
      } else replayInto(accounts, inputs, clientId, customerId, today, posted);
    }
    return accounts;
  }

  /**
   * The replay's inputs of the customers `which` picks: their balance snapshots before the days
   * reported, and premia's debits since the oldest snapshot used (all of them when an account
   * has none).
   */
  private async replayInputs(
    customers: CustomerRefs,
    which: (k: number) => boolean,
    today: number,
    posted: PostedDays,
  ): Promise<Pick<AccountInputs, 'snapshots' | 'attempts'>> {
    const n = customers.customerId.length;
    let count = 0;
    for (let k = 0; k < n; k++) if (which(k)) count++;
    if (count === 0) return { snapshots: new CustomerMap<BalanceSnapshot>(), attempts: new CustomerMap() };
    const replayed = lazyCustomerFilter(customers.clientId, customers.customerId, which);
    const snapshots = await this.store.snapshots(replayed, fromDayNumber(posted.from - 1));
    let oldest = fromDayNumber(today);
    for (let k = 0; k < n; k++) {
      if (!which(k)) continue;
      const snap = snapshots.get(customers.clientId[k]!, customers.customerId[k]!);
      if (!snap) {
        oldest = '0000-00-00';
        break;
      }
      const d = fromDayNumber(snap.day);
      if (d < oldest) oldest = d;
    }
    return { snapshots, attempts: await this.store.pastAttempts(replayed, oldest) };
  }
}

/** The profiles in `bytes` (AccountSet.drawnProfiles), or null (none, or not readable: drawn here then). */
function drawnProfiles(bytes: Uint8Array | null): DrawnProfiles | null {
  if (bytes === null) return null;
  try {
    return new DrawnProfiles(bytes);
  } catch {
    return null;
  }
}

function isKept(kept: KeptAccounts | undefined, k: number): boolean {
  return kept !== undefined && !Number.isNaN(kept.balance[k]!);
}

/**
 * Accounts the engine kept: customer k's balance at the end of lastLived[k] (NaN: not kept);
 * from `pending.from` on, known once `pending.ready` (given the accounts opened so far) resolves
 * true (false: not kept after all).
 */
export interface KeptAccounts {
  readonly balance: Float64Array;
  readonly lastLived: Int32Array;
  readonly pending?: { from: number; ready(opened: AccountSet): Promise<boolean>; bankState?(): Uint8Array | null };
}

/** Feeds a ledger premia's past attempts of each day, then checks the outcomes match. */
class Replay implements PremiaDebits {
  readonly outcomes: Array<FailureReason | null> = [];
  private next = 0;
  private first = 0;
  private count = 0;

  constructor(
    private readonly past: PastAttempt[],
    startDay: number,
    private readonly customerId: string,
  ) {
    while (this.next < past.length && past[this.next]!.day <= startDay) this.next++;
  }

  /** The day of premia's next past debit (Infinity when none is left). */
  nextDay(): number {
    return this.next < this.past.length ? this.past[this.next]!.day : Number.POSITIVE_INFINITY;
  }

  debitsFor(_balance: number, day: number, amounts: number[]): number {
    this.first = this.next;
    let n = 0;
    while (this.next < this.past.length && this.past[this.next]!.day === day) amounts[n++] = this.past[this.next++]!.amount;
    this.count = n;
    return n;
  }

  check(): void {
    for (let i = 0; i < this.count; i++) {
      const a = this.past[this.first + i]!;
      if (this.outcomes[i] !== a.failure) {
        throw new PremiaError(
          'INTERNAL',
          `Replaying the account of customer ${this.customerId} gave a different outcome for premia's debit of ` +
            `${formatCents(a.amount)} on ${fromDayNumber(a.day)} (policy ${a.policyNumber}): recorded ` +
            `${a.failure ?? 'SUCCESS'}, replayed ${this.outcomes[i] ?? 'SUCCESS'}. The bank history changed after it was used.`,
        );
      }
    }
    this.count = 0;
  }
}
