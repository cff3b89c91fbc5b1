/**
 * What the engine needs from outside, declared by the engine (it depends on these, never on an
 * implementation):
 *  - the store (`EngineStore`, `DayUnit`): the clock and settings, the working set of open
 *    collections and their submitted debits, and a day's writes, in one unit of work per day.
 *    SQLite implements it in src/store/repos/engine.ts, PostgreSQL in engine-pg.ts (issue 14).
 *  - the bank (`Bank`, `BankAccounts`): open the accounts of the working set's customers, live a
 *    day of an account with premia's debits, read what the bank reports of an account (balance,
 *    posted credits, whether debits are refused). The simulated bank (src/bank/) implements it.
 *
 * Calls to the store are bulk (a working set, a day's rows), never one per collection or account;
 * calls to the bank are per account and synchronous while a day is lived (it is in memory).
 * Rows cross the store port as the engine names things; the store maps them to its tables.
 */
import type { FailureReason } from '../domain/debit-outcome.js';
import type { IsoDate, Period } from '../domain/period.js';
import type { SubmittedDebit } from '../domain/plan-reason.js';

// -------------------------------------------------------------------------------------------
// The store

export interface EngineStore {
  /** The clock's date. */
  readClock(): Promise<IsoDate>;
  /**
   * One advance at a time per store: wait (telling `onWait` once who holds it) until no other
   * advance runs, then in one unit read the clock, resolve the target from it (`resolve` may
   * throw: nothing is then taken) and take the right to advance from there to the target.
   */
  claimAdvance(resolve: (today: IsoDate) => IsoDate, onWait?: (holder: AdvanceHolder) => void): Promise<AdvanceClaim>;
  /** Give the right back (when it is still this advance's). */
  releaseAdvance(claim: AdvanceClaim): Promise<void>;
  /**
   * Around a run of days: the store may trade per-day durability for speed, since a day lost in
   * a crash is recomputed exactly on resume (SQLite: synchronous = NORMAL and a larger page cache).
   * With `pipeline` the store may also take the `days` over before they commit (a store may keep
   * a single light day to itself: starting a writer costs more than it saves there): it then answers true,
   * `runDay` resolves once a day's writes are handed over (its reads are served at once), the
   * days commit in order, each as one unit, and `settle` tells how many did. A day handed over
   * after something else wrote to the store does not commit, nor do those after it: the next unit
   * then has `changedSinceLastDay` and reads the clock of the last day that did.
   */
  beginDays(days: number, pipeline: boolean): Promise<boolean>;
  endDays(): Promise<void>;
  /**
   * While days are handed over (`beginDays`): how many of them committed since the last call,
   * in the order handed over, once: at once ('now'), when few enough are still in flight
   * ('room'), or when one more has committed or none is left in flight ('one'). Rejects with the
   * error that stopped a day. A day commits only after the engine has reported the one before
   * (`reported`), so that a stop asked for while a day is reported leaves the store at that day.
   */
  settle?(mode: 'now' | 'room' | 'one'): Promise<number>;
  /** The days settled so far are reported; with `stop`, no day handed over after them commits. */
  reported?(stop: boolean): void;
  /** Run `fn` as one unit of work: everything it writes commits together, or none of it does. */
  runDay<T>(fn: (unit: DayUnit) => Promise<T>): Promise<T>;
  /**
   * The ids of the open collections (UNPAID or PAID_PARTIAL) of periods after `period` whose
   * policies the close of `period` lapsed (on its last day), as committed: the working set blocks
   * them, as a load after that close does (docs/engine.md, "Lapse").
   */
  lapsedCollections(period: Period): Promise<number[]>;
  /** Days lived in customer shards by several processes (engine/shards.ts); optional. */
  readonly shards?: ShardedDays;
}

/**
 * A day lived in customer shards (PostgreSQL). The advance opens the day after the clock's date
 * in S shards; any process (the advance itself, `premia engine work`) claims a pending shard and
 * lives that shard's customers through the day in one unit, which marks the shard done as it
 * commits; once every shard is done the advance closes the day (the period's close, the clock)
 * in one unit. From the day's opening to its closing no other write reaches the store, so every
 * shard sees the same inputs.
 */
export interface ShardedDays {
  /** The day open (the day after the clock's date) and its shard count, or null. */
  openDay(): Promise<{ day: IsoDate; shards: number } | null>;
  /** The stored settings by key (a read of its own: settings.ts checks them). */
  readSettings(): Promise<ReadonlyMap<string, string>>;
  /**
   * For the advance holding `claim`: open `day` in `shards` shards, or take over the day left
   * open by an advance that stopped (its shard count stands). Returns the day's shard count.
   */
  beginDay(claim: AdvanceClaim, day: IsoDate, shards: number): Promise<number>;
  /**
   * Join the workers as `worker` (until `leave`): while it is joined, the shards it lived the day
   * before are left to it (it holds their working sets), unless it holds more than its share.
   */
  join(worker: string): Promise<{ leave(): Promise<void> }>;
  /**
   * Claim a pending shard of the open day for `worker` (joined) and run `fn` on it in one unit:
   * what `fn` writes, and the shard done with the summary it returns, commit together. The shards
   * it lived the day before come first, then those whose worker of the day before has left, then
   * (to even the load) one of a worker that lived more of them than this one. Null when none of
   * these is pending (the others are being lived, or left to their workers).
   */
  workShard<T>(worker: string, fn: (unit: ShardUnit) => Promise<{ result: T; summary: string }>): Promise<{ result: T } | null>;
  /** How many shards of `day` are not done yet (pending or being lived). */
  unfinished(day: IsoDate): Promise<number>;
  /**
   * Close `day` for the advance holding `claim`: `fn` runs in one unit with the shards'
   * summaries (the period's close, the clock's move), the shards become closed, and other
   * writes reach the store again.
   */
  endDay<T>(claim: AdvanceClaim, day: IsoDate, fn: (unit: DayUnit, summaries: readonly string[]) => Promise<T>): Promise<T>;
  /** Give the day's hold back without closing it (the advance stopped): the day stays open. */
  abandonDay(claim: AdvanceClaim): Promise<void>;
}

/** One shard of a day: a unit whose open collections are the shard's customers' only. */
export interface ShardUnit extends DayUnit {
  /** The day being lived (the day after the clock's date). */
  readonly day: IsoDate;
  readonly shard: number;
  readonly shards: number;
  /** The store's engine inputs version now (image.ts): a state kept in memory is current while it stands. */
  inputsVersion(): Promise<number>;
}

export interface AdvanceClaim {
  readonly from: IsoDate;
  readonly to: IsoDate;
}

/** Who holds the right to advance, as the waiting side is told. */
export interface AdvanceHolder {
  from: IsoDate;
  to: IsoDate;
  host: string;
  pid: number;
  since: string;
  /**
   * Seconds after which a holder that stopped answering (killed, frozen, its machine lost) loses
   * the right to advance, where the store bounds it; pid 0: the holder is not known yet.
   */
  givenUpAfterS?: number;
  /** The holder runs on a host of this name in another PID namespace (a container): `pid` is that namespace's. */
  otherPidNamespace?: boolean;
}

/** One day's unit of work. */
export interface DayUnit {
  /**
   * Whether anything but this engine's own days wrote to the store since the last day it ran
   * (true for the first): a working set kept in memory must then be loaded again.
   */
  readonly changedSinceLastDay: boolean;
  /** Check that `claim` is still this advance's (else throw CONFLICT) and renew it. */
  renewClaim(claim: AdvanceClaim): Promise<void>;
  /** The clock's date and the stored settings by key (settings.ts checks them). */
  readWorld(): Promise<{ today: IsoDate; settings: ReadonlyMap<string, string> }>;
  /** How many collections of the periods from `firstOpen` on there are (of every client). */
  countOpenCollections(firstOpen: Period): Promise<number>;
  /**
   * Optional: the strategies (as stored) of the runs of periods from `firstOpen` on (of every
   * client), each once. Without it every advance loads its working set, quiet days or not
   * (load.ts loadCanWait).
   */
  openStrategies?(firstOpen: Period): Promise<string[]>;
  /** Those collections, in any order (the engine groups them by customer). */
  loadOpenCollections(firstOpen: Period, sink: (row: OpenCollection) => void): Promise<void>;
  /** The debits submitted at the end of `fromPlanDay` or later (of every client). */
  loadSubmittedDebits(fromPlanDay: IsoDate, sink: (debit: SubmittedDebit) => void): Promise<void>;
  /**
   * The day's rows come as columns (a million-policy month's first business day makes ~900,000
   * attempts, updates and plans: as objects they would take hundreds of MB at once).
   * The day's attempts, stored in the order given (rowid order is report order).
   */
  insertAttemptColumns(date: IsoDate, rows: AttemptColumns): Promise<void>;
  /** Collections as they stand after the day. */
  updateCollectionColumns(rows: UpdateColumns): Promise<void>;
  /**
   * Optional, for a store that writes a day on another thread: the day's attempts and
   * collection updates that are final before the day is lived to its end (no later attempt
   * comes before these, no later update touches these collections), to begin writing now; the
   * rest comes through the two methods above. With it the engine loads its working set in a unit
   * of its own (a unit that loads calls nothing else), and a day's unit may hold the evening
   * before it (its planning, with `insertPlanColumns` of the day before).
   */
  handPart?(date: IsoDate, attempts: AttemptColumns, updates: UpdateColumns): void;
  /** With handPart: about how many accounts to live between parts (a default otherwise). */
  readonly partAccounts?: number;
  /** A client's debits submitted at the end of `planDay`, in order (a client's day may come in several calls). */
  insertPlanColumns(planDay: IsoDate, clientId: number, rows: PlanColumns): Promise<void>;
  /** The period's runs still processing become completed. */
  completeExecutions(period: Period, stampMs: number): Promise<void>;
  /**
   * The lapse rule's inputs: the active policies whose collection of `periods[0]` is UNPAID, in
   * (client, policy_number) order, each with its collections' statuses in `periods`.
   */
  lapseCandidates(periods: readonly Period[]): Promise<LapseCandidate[]>;
  /** Lapse these policies (those still active) on `day`, recording `reason` in their history. */
  lapsePolicies(policies: readonly LapseCandidate[], day: IsoDate, stampMs: number, reason: string): Promise<void>;
  /**
   * Optional, for a store that hands a day over before it commits: close `period` in this
   * unit's writes (its runs complete, the lapse rule over `lapseAfter` periods runs as of `day`),
   * the lapsed policies per client once the day has committed. Without it the engine runs the
   * rule through the three methods above.
   */
  closePeriod?(period: Period, lapseAfter: number, day: IsoDate, stampMs: number): Promise<Map<number, number>>;
  moveClock(date: IsoDate): Promise<void>;
  /**
   * The engine's image (engine/image.ts): its head, and the store's engine inputs version now (a
   * value the store changes whenever a policy, an execution or a collection's fixed fields change
   * other than by the engine's own days). Optional: without it every advance loads its working set
   * from the open collections and replays the accounts.
   */
  readImageHead?(): Promise<{ head: ImageHead | null; inputs: number }>;
  /** How many customers and collections the image's blocks whose wake day is at most `maxWake` hold (every block when null). */
  countImage?(maxWake: number | null): Promise<{ customers: number; collections: number }>;
  /** Those blocks, each to `sink` (bytes valid during the call). */
  readImageBlocks?(maxWake: number | null, sink: (block: Uint8Array) => void): Promise<void>;
  /**
   * Replace the image's blocks whose wake day is at most `consumed` (every block when null) by
   * `blocks` (taken one at a time: a block's bytes are valid until the next is asked for), and
   * keep the head as of `asOf` under `tag`, having seen the store's engine inputs version `inputs`.
   */
  writeImage?(asOf: IsoDate, tag: string, inputs: number, consumed: number | null, blocks: Iterable<ImageBlock>): Promise<void>;
}

/** The image's head (engine/image.ts). */
export interface ImageHead {
  /** The clock's date it was kept as of. */
  asOf: IsoDate;
  tag: string;
  /** The store's engine inputs version it saw. */
  inputs: number;
}

/** A block of the image: customers of one client and one wake day (day number), opaque bytes to the store. */
export interface ImageBlock {
  clientId: number;
  wake: number;
  customers: number;
  collections: number;
  data: Uint8Array;
}

export type CollectionStatus = 'UNPAID' | 'PAID_PARTIAL' | 'PAID_FULL' | 'CANCELLED';

/** An open collection as stored, with its run's strategy and its policy's status. */
export interface OpenCollection {
  id: number;
  clientId: number;
  customerId: string;
  policyNumber: string;
  period: Period;
  due: number;
  collected: number;
  status: CollectionStatus;
  firstAttempt: IsoDate | null;
  lastAttempt: IsoDate | null;
  attempts: number;
  failed: number;
  lastFailure: string | null;
  strategy: string;
  policyStatus: string;
}

/**
 * A day's attempts as columns, in the order they are stored. A failure code is an index into
 * domain/debit-outcome.ts FAILURE_BY_CODE (0: none, a success).
 */
export interface AttemptColumns {
  n: number;
  clientId: Int32Array;
  collectionId: Int32Array;
  /** Index into `periods`. */
  period: Uint8Array;
  periods: Period[];
  amount: Float64Array;
  /** The failure code of the outcome. */
  reason: Uint8Array;
}

/** Collections as they stand after a day, as columns, by row id. */
export interface UpdateColumns {
  n: number;
  id: Int32Array;
  collected: Float64Array;
  /** Index into domain/collection.ts STATUS_BY_CODE. */
  status: Uint8Array;
  /** Day numbers, NO_DAY (-0x7fffffff) for none. */
  first: Int32Array;
  last: Int32Array;
  attempts: Int32Array;
  failed: Int32Array;
  /** The failure code of the last failure. */
  failure: Uint8Array;
}

/** A client's submitted debits of one planning evening: how many, and packed batches of them in collection id order (domain/plan-reason.ts). */
export interface PlanColumns {
  readonly n: number;
  /**
   * The batches as the store keeps them (domain/plan-reason.ts storedBatch), taken once: their
   * buffers may then be handed on.
   */
  batches(): Promise<Uint8Array[]>;
}

export interface LapseCandidate {
  policyId: number;
  clientId: number;
  /** The status of its collection in each period asked for (null: none). */
  statuses: Array<string | null>;
  /** The day it was last reinstated (lapsed → active), or null: periods ended before it do not count. */
  reinstatedOn?: IsoDate | null;
}

// -------------------------------------------------------------------------------------------
// The bank

/** premia's debits of one account-day, asked for once the day's credits have posted. */
export interface DebitSource {
  /**
   * Write the day's debits (amounts in policy_number order) into `amounts` and return how many.
   * `balance` is the balance at that moment; only a strategy reading the future may use it.
   */
  debitsFor(balance: number, day: number, amounts: number[]): number;
}

/** What the bank reports of a day an account lived. */
export interface PostedDay {
  /** Sum of the day's credits. */
  credits: number;
  /** Sum of the other debits that posted. */
  postedDebits: number;
  /** Sum of premia's successful debits. */
  collected: number;
  /** How many of premia's debits were attempted (their outcomes are in the outcomes list). */
  premiaDebits: number;
}

export interface Credit {
  day: number;
  amount: number;
}

/** An account's posted history, as far as the engine reads it. */
export interface PostedHistory {
  /** The credits of account i posted on the days from..to inclusive, in day order. */
  credits(i: number, from: number, to: number): readonly Credit[];
}

/** The accounts of a working set, addressed by index (customer k of the refs is account k). */
export interface BankAccounts extends PostedHistory {
  readonly size: number;
  readonly clientId: ArrayLike<number>;
  customerIdOf(i: number): string;
  /**
   * Optional: customer i's id's length in bytes when the ids are ASCII (a byte a character), its
   * bytes copied into `out` from `at` when they fit; -1 when they are not (customerIdOf then).
   */
  customerIdInto?(i: number, out: Uint8Array, at: number): number;
  /** The balance after the last day lived (what the bank last reported). */
  balance(i: number): number;
  /** The last day account i has lived (optional: without it the working set is not kept for the next advance). */
  lastLived?(i: number): number;
  /** Why premia's debits fail on `day` whatever the balance (closed, frozen, stopped), or null. */
  blockedOn(i: number, day: number): FailureReason | null;
  /**
   * The first day of account i's statement (its first movement: an account opened later has
   * nothing posted before it). Optional: without it every account counts as one with a past.
   */
  startDay?(i: number): number;
  /**
   * Live account i through its next day: its credits post, then premia's debits for the day
   * (from `debits`, in policy_number order) are attempted with their outcomes written to
   * `outcomes` in the same order (null: paid), then the day's other debits. Returns `facts`.
   */
  live(i: number, debits: DebitSource, outcomes: Array<FailureReason | null>, facts: PostedDay): PostedDay;
  /**
   * Optional: live account i through its days up to `to` with none of premia's debits, `onDay`
   * told each day's facts (written into `facts`) — as `live` day by day would, in one run. False
   * (nothing done) when the bank cannot for this account: the engine then lives it day by day.
   */
  liveQuietly?(i: number, to: number, facts: PostedDay, onDay: (day: number, facts: PostedDay) => void): boolean;
  /**
   * Optional: the first day after `after`, up to `until`, on which a credit posts to account i
   * (until + 1 when none does): what a bank's feed of the accounts with activity tells, asked
   * ahead. The engine only wakes a sleeping account on that day with it (awake.ts): what it
   * plans is what it would plan without.
   */
  nextCreditDay?(i: number, after: number, until: number): number;
  /** A period closed: the bank may keep these accounts' balances as of `day` (a replay starts there). */
  keepBalances(day: number, accounts: readonly number[]): Promise<void>;
}

/** The customers whose accounts are wanted: customer k is (clientId[k], customerId[k]). */
export interface CustomerRefs {
  readonly clientId: ArrayLike<number>;
  readonly customerId: readonly string[];
}

/** Told of each day an account lives while the bank brings it up to date. */
export interface PostedDays {
  /** The first day whose facts the engine needs (earlier ones may be reported too). */
  readonly from: number;
  /** Account i lived `day` (each account's days in order); `history` reads its posted credits. */
  day(history: PostedHistory, i: number, day: number, facts: Readonly<PostedDay>): void;
  /**
   * Optional: account i lived the days first .. first + count - 1 with none of premia's debits,
   * their credits and posted debits in credits[k] and debits[k] (k = day - first): as `day`
   * told each in turn.
   */
  days?(history: PostedHistory, i: number, first: number, count: number, credits: Float64Array, debits: Float64Array): void;
}

/** Accounts the engine kept (engine/image.ts): customer k's balance at the end of lastLived[k] (NaN: not kept). */
export interface KeptAccounts {
  readonly balance: Float64Array;
  readonly lastLived: Int32Array;
  /**
   * Customers from `from` on are kept too, their balances known once `ready` (given the
   * accounts opened so far, which it may live on: the bank's set) resolves true: the bank opens
   * the others first, then waits for it (false: they are not kept after all, and the bank opens
   * them itself).
   */
  readonly pending?: {
    from: number;
    ready(opened: BankAccounts): Promise<boolean>;
    /**
     * Once `ready` said true: what the bank that opened those accounts in the other process gave
     * of them for this one (HelperAnswer.bank), taken once, or null.
     */
    bankState?(): Uint8Array | null;
  };
}

/** What a helper answers (EngineHelper.openLaterHalf). */
export interface HelperAnswer {
  /** The customers it found (n): it opened those from n >> 1 on. */
  readonly customers: number;
  /** Image blocks (image.ts) of the accounts it opened, customers in order, without collections. */
  readonly blocks: Uint8Array[];
  /**
   * What the bank that opened them there keeps of them itself, for the bank here (opaque to the
   * engine: the simulated bank's generated profiles, copied rather than drawn again), if anything.
   */
  readonly bank?: Uint8Array;
  /** How many of them it opened from the engine's image (not replayed). */
  readonly resumed?: number;
}

/** A helper's work under way: its answer (which rejects when it fails), and a way to stop it. */
export interface HelperJob {
  readonly answer: Promise<HelperAnswer>;
  /** The answer is not wanted (a no-op once it came). */
  cancel(): void;
}

/** Work the engine may give another process while it loads its working set (the wiring's). */
export interface EngineHelper {
  /** Open collections from which the helper is worth its start (default: the engine's choice). */
  readonly minCollections?: number;
  /**
   * Start opening the later half of the working set's accounts on the store as it stands: of
   * the n customers of the collections of periods from `firstOpen` on, in the order the first
   * of each comes (by id: the order the load reads them in), customers n >> 1 to n - 1, opened
   * as the bank opens them to the end of `today` (a day number), with the engine's summaries of
   * them (`AccountSummaries.postedDays`) and their income analyses made. It starts before the
   * engine has read its collections; the engine checks that the customers are the ones it read.
   * With `fromImage`, the accounts the engine's image holds open from there, brought up to the
   * end of `today` as the engine brings a sleeping account up (awake.ts catchUpAccount); the
   * others are replayed.
   */
  openLaterHalf(firstOpen: Period, today: number, fromImage?: boolean): HelperJob;
}

export interface Bank {
  /**
   * Whether `openAccounts` opens an account from `kept` without replaying it (without it the
   * engine neither keeps its image nor passes `kept`).
   */
  readonly resumes?: boolean;
  /**
   * The accounts of `customers`, each brought up to the end of `today` (a day number) with the
   * days from `posted.from` reported as they are lived — but for customer k with a balance in
   * `kept`: that account opens as the engine kept it, at the end of kept.lastLived[k] (on or before
   * `today`), without a replay (and reports no days).
   */
  openAccounts(customers: CustomerRefs, today: number, posted: PostedDays, kept?: KeptAccounts): Promise<BankAccounts>;
}
