/**
 * Bank accounts, column-wise: a set of a million accounts is a few typed arrays, not millions of
 * objects. Each account has a source of activity (imported rows, else a generated profile in the
 * set's book) and a ledger (balance, last day lived, the days its events take effect); living a
 * day applies the account rules of ledger.ts. Accounts are addressed by index (0 .. size-1, in
 * the order added) so that the engine can keep its own per-account state in typed arrays.
 *
 * What premia may read of an account is what a bank reports: the balance after the last day
 * lived, the credits that posted, whether debits are refused (closed, frozen, stopped). The
 * engine keeps its own summary of that history (src/engine/summary.ts).
 *
 * The set lives on the store's business-day calendar: generated paydays move over its
 * holidays, and premia's debits are processed on business days only (ledger.ts).
 */
import { GeneratedBook, PROFILE_INTS, PROFILE_REALS } from './generated.js';
import { applyDay, blockedReason, eventDays, type DayFacts, type LedgerObserver, type PremiaDebits } from './ledger.js';
import type { BankStore } from './ports.js';
import { DayActivity, type AccountSource, type Credit, type FailureReason } from './types.js';
import type { Calendar } from '../domain/calendar.js';
import { fromDayNumber } from '../domain/period.js';
import { PackedStrings } from '../domain/typed-arrays.js';

/**
 * The generated accounts' profiles of a set opened in another process (AccountSet.drawnProfiles'
 * bytes), for a set that opens the same accounts to copy rather than draw again: account j's
 * profile, or none for an account with a source of its own.
 */
export class DrawnProfiles {
  private readonly generated: Uint8Array;
  private readonly ints: Int32Array;
  private readonly reals: Float64Array;
  readonly size: number;

  constructor(bytes: Uint8Array) {
    const n = new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(0, true);
    const layout = profileLayout(n);
    if (bytes.byteLength !== layout.bytes || bytes.byteOffset % 8 !== 0) throw new Error('drawn profiles of an unexpected size');
    this.size = n;
    this.generated = bytes.subarray(8, 8 + n);
    this.ints = new Int32Array(bytes.buffer, bytes.byteOffset + layout.ints, n * PROFILE_INTS);
    this.reals = new Float64Array(bytes.buffer, bytes.byteOffset + layout.reals, n * PROFILE_REALS);
  }

  /** Add account j's profile to `book` for (seed, customer, epochDay), or -1 when it has none here. */
  addTo(book: GeneratedBook, j: number, seed: number, customerId: string, epochDay: number): number {
    if (j < 0 || j >= this.size || this.generated[j] !== 1) return -1;
    return book.addDrawn(seed, customerId, epochDay, this.ints, j * PROFILE_INTS, this.reals, j * PROFILE_REALS);
  }
}

/** Where DrawnProfiles' parts are for n accounts: a count, a flag each, then the integers and the doubles (each on a multiple of 8). */
function profileLayout(n: number): { ints: number; reals: number; bytes: number } {
  const ints = 8 + Math.ceil(n / 8) * 8;
  const reals = ints + Math.ceil((n * PROFILE_INTS * 4) / 8) * 8;
  return { ints, reals, bytes: reals + n * PROFILE_REALS * 8 };
}

export class AccountSet {
  private n = 0;
  private readonly cap: number;
  readonly book: GeneratedBook;
  // identity and source: an index into the book, else (-1) an imported source object, kept by
  // account only for those (a slot per account would hold a null for every generated account)
  readonly clientId: Int32Array;
  /** Customer ids, packed (PackedStrings: as JS strings they take over twice the heap, all advance). */
  private readonly customerIds = new PackedStrings();
  private readonly imported = new Map<number, AccountSource>();
  private readonly genIndex: Int32Array;
  // the ledger
  private readonly balanceOf: Float64Array;
  private readonly dayOf: Int32Array;
  private readonly closedFrom: Int32Array;
  private readonly frozenFrom: Int32Array;
  private readonly stoppedFrom: Int32Array;
  // scratch of `live`, reused for every account-day
  private readonly activity = new DayActivity();
  private readonly amounts: number[] = [];

  /**
   * `store`: where `keepBalances` keeps them (none for a set opened only to be looked at);
   * `calendar`: the business days (the store's calendar).
   */
  constructor(
    capacity: number,
    private readonly store: BankStore | null,
    readonly calendar: Calendar,
  ) {
    this.cap = Math.max(1, capacity);
    this.book = new GeneratedBook(this.cap, calendar);
    const c = this.cap;
    this.clientId = new Int32Array(c);
    this.genIndex = new Int32Array(c);
    this.balanceOf = new Float64Array(c);
    this.dayOf = new Int32Array(c);
    this.closedFrom = new Int32Array(c);
    this.frozenFrom = new Int32Array(c);
    this.stoppedFrom = new Int32Array(c);
  }

  get size(): number {
    return this.n;
  }

  /**
   * Add an account that has lived through `lastDay` with `balance`: a generated one (source
   * null: it is added to the book, its profile copied from `drawn`'s account `at` when that is
   * its own) or one with its own source (imported rows).
   */
  add(
    clientId: number,
    customerId: string,
    source: AccountSource | null,
    seed: number,
    epochDay: number,
    lastDay: number,
    balance: number,
    drawn: DrawnProfiles | null = null,
    at = -1,
  ): number {
    if (this.n === this.cap) throw new Error('AccountSet is full');
    const i = this.n++;
    this.clientId[i] = clientId;
    this.customerIds.push(customerId);
    if (source !== null) this.imported.set(i, source);
    let events;
    if (source === null) {
      // Copied when another process drew it (the engine's helper), else drawn here.
      const copied = drawn === null ? -1 : drawn.addTo(this.book, at, seed, customerId, epochDay);
      const g = copied >= 0 ? copied : this.book.add(seed, customerId, epochDay);
      this.genIndex[i] = g;
      events = eventDays({ events: () => this.book.events(g) } as AccountSource);
    } else {
      this.genIndex[i] = -1;
      events = eventDays(source);
    }
    this.closedFrom[i] = events.closed;
    this.frozenFrom[i] = events.frozen;
    this.stoppedFrom[i] = events.stopped;
    this.balanceOf[i] = balance;
    this.dayOf[i] = lastDay;
    return i;
  }

  /** The generated accounts' profiles, for DrawnProfiles in another process (the engine's helper). */
  drawnProfiles(): Uint8Array<ArrayBuffer> {
    const n = this.n;
    const layout = profileLayout(n);
    const bytes = new Uint8Array(layout.bytes);
    new DataView(bytes.buffer).setUint32(0, n, true);
    const ints = new Int32Array(bytes.buffer, layout.ints, n * PROFILE_INTS);
    const reals = new Float64Array(bytes.buffer, layout.reals, n * PROFILE_REALS);
    for (let i = 0; i < n; i++) {
      const g = this.genIndex[i]!;
      if (g < 0) continue;
      bytes[8 + i] = 1;
      this.book.profileInto(g, ints, i * PROFILE_INTS, reals, i * PROFILE_REALS);
    }
    return bytes;
  }

  customerIdOf(i: number): string {
    return this.customerIds.get(i);
  }

  customerIdInto(i: number, out: Uint8Array, at: number): number {
    return this.customerIds.asciiInto(i, out, at);
  }

  sourceKind(i: number): 'imported' | 'generated' {
    return this.genIndex[i]! < 0 ? 'imported' : 'generated';
  }

  /** The first day of account i's statement: its first imported row, or the day a generated account's history starts. */
  startDay(i: number): number {
    const g = this.genIndex[i]!;
    return g < 0 ? this.imported.get(i)!.startDay : this.book.startDay(g);
  }

  /** The credits of account i posted on the days from..to inclusive, in day order. */
  credits(i: number, from: number, to: number): Credit[] {
    const g = this.genIndex[i]!;
    return g < 0 ? this.imported.get(i)!.credits(from, to) : this.book.credits(g, from, to);
  }

  /** The balance after the last day lived. */
  balance(i: number): number {
    return this.balanceOf[i]!;
  }

  /** The last day account i has lived. */
  day(i: number): number {
    return this.dayOf[i]!;
  }

  /** The last day account i has lived (the engine's name for it: engine/ports.ts). */
  lastLived(i: number): number {
    return this.dayOf[i]!;
  }

  /** Why premia's debits fail on `day` whatever the balance (closed, frozen, stopped), or null. */
  blockedOn(i: number, day: number): FailureReason | null {
    return blockedReason(day, this.closedFrom[i]!, this.frozenFrom[i]!, this.stoppedFrom[i]!);
  }

  /**
   * Live account i through its next day (the account rules: ledger.ts applyDay): its credits
   * post, then premia's debits for the day (from `premia`, in policy_number order; none on a
   * day that is not a business day) are attempted with their outcomes written to `outcomes` in
   * the same order (null: paid), then the day's other debits. Returns the day's facts in `facts`.
   */
  live(i: number, premia: PremiaDebits | null, outcomes: Array<FailureReason | null>, facts: DayFacts, observer?: LedgerObserver): DayFacts {
    const day = this.dayOf[i]! + 1;
    this.dayOf[i] = day;
    const blocked = blockedReason(day, this.closedFrom[i]!, this.frozenFrom[i]!, this.stoppedFrom[i]!);
    const debits = this.calendar.isBusinessDay(day) ? premia : null;
    const source = this.genIndex[i]! < 0 ? this.imported.get(i)! : null;
    if (!source && observer === undefined) {
      // A generated account: its day and the account rules in one step (generated.ts liveDays).
      this.balanceOf[i] = this.book.liveDays(this.genIndex[i]!, day, day, this.balanceOf[i]!, blocked, debits, outcomes, facts, this.amounts, null);
      return facts;
    }
    if (source) source.dayActivity(day, this.activity);
    else this.book.dayActivity(this.genIndex[i]!, day, this.activity);
    this.balanceOf[i] = applyDay(this.activity, day, this.balanceOf[i]!, blocked, debits, outcomes, facts, this.amounts, observer);
    return facts;
  }

  /**
   * Live generated account i through its days up to `to` with none of premia's debits, in one run
   * (generated.ts liveDays), `onDay` told each day's facts (written into `facts`). False, having
   * done nothing, for an account of imported rows.
   */
  liveQuietly(i: number, to: number, facts: DayFacts, onDay: ((day: number, facts: DayFacts) => void) | null): boolean {
    const g = this.genIndex[i]!;
    if (g < 0) return false;
    this.balanceOf[i] = this.book.liveDays(g, this.dayOf[i]! + 1, to, this.balanceOf[i]!, null, null, [], facts, this.amounts, onDay);
    this.dayOf[i] = to;
    return true;
  }

  /**
   * As liveQuietly, each day's credits and posted debits written into credits[k] and debits[k]
   * (k = day - the first day lived) instead of told one by one (generated.ts quietDays).
   */
  liveQuietlyInto(i: number, to: number, credits: Float64Array, debits: Float64Array): boolean {
    const g = this.genIndex[i]!;
    if (g < 0) return false;
    this.balanceOf[i] = this.book.quietDays(g, this.dayOf[i]! + 1, to, this.balanceOf[i]!, credits, debits);
    this.dayOf[i] = to;
    return true;
  }

  /**
   * The first day after `after`, up to `until`, on which a credit posts to account i (until + 1
   * when none does): what a bank's feed of accounts with activity tells, asked ahead.
   */
  nextCreditDay(i: number, after: number, until: number): number {
    if (this.genIndex[i]! < 0) {
      for (const c of this.imported.get(i)!.credits(after + 1, until)) if (c.amount > 0) return c.day;
      return until + 1;
    }
    return this.book.nextCreditDay(this.genIndex[i]!, after + 1, until);
  }

  /** Keep the balances of `accounts` as of `day` (they have lived through it): a later replay starts there. */
  async keepBalances(day: number, accounts: readonly number[]): Promise<void> {
    if (this.store === null || accounts.length === 0) return;
    await this.store.keepBalances(fromDayNumber(day), accounts, { clientId: this.clientId, customerIdOf: (i) => this.customerIds.get(i), balance: this.balanceOf });
  }
}
