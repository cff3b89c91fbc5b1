/**
 * The one Backend interface behind both modes. It mirrors the API of the spec (policies,
 * collections, reports, settlements) plus premia's extensions (lists, explanations, the
 * virtual clock and the simulated bank). The CLI talks only to this interface;
 * backend/local implements it on the embedded store, backend/remote over HTTP.
 *
 * Shapes are the API's JSON bodies, with one difference: money fields hold integer cents
 * here and are written as two-decimal numbers on the wire (see domain/json.ts).
 */
import type { PolicyInput, PolicyStatus } from '../domain/policy.js';
import type { Cents } from '../domain/money.js';
import type { IsoDate, Period } from '../domain/period.js';
import type { PeriodState } from '../domain/period-state.js';
import { COLLECTION_STATUSES, type CollectionStatus } from '../domain/collection.js';
import { SETTLEMENT_STATUSES, type SettlementStatus } from '../domain/settlement.js';
import type { CaseMismatches } from '../domain/customer-case.js';

export type { PeriodState };

export type Mode = 'local' | 'remote';

export interface Target {
  mode: Mode;
  /** local: the store file. */
  db?: string;
  /** remote: the base URL, including /v1. */
  base_url?: string;
  profile?: string | null;
  /** remote: the key, redacted to its last 4 characters. */
  api_key?: string | null;
  /** The client (organisation) the commands act for. */
  client?: string | null;
  /** remote: the premia version the service reports (X-Premia-Version), null for another server. */
  server_version?: string | null;
}

// ---------------------------------------------------------------------------------------------
// Policies

export type { PolicyInput };

export interface Policy {
  id: string;
  policy_number: string;
  customer_id: string;
  external_customer_ref: string;
  product_code: string;
  /** The premium most recently set. */
  collection_amount: Cents;
  /** First period `collection_amount` applies to; null when it has applied since creation. */
  collection_amount_effective_period: Period | null;
  status: PolicyStatus;
  created_at: string;
  updated_at: string;
}

export interface AmountChange {
  effective_period: Period;
  old_amount: Cents;
  new_amount: Cents;
  changed_on: IsoDate;
}

export interface StatusChange {
  old_status: PolicyStatus;
  new_status: PolicyStatus;
  changed_on: IsoDate;
  reason: string;
}

export interface PolicyDetail extends Policy {
  amount_history: AmountChange[];
  status_history: StatusChange[];
}

export interface PolicyPatch {
  collection_amount?: Cents;
  status?: PolicyStatus;
}

/** What cancelling a policy would do, computed without changing anything. */
export interface CancellationPreview {
  policy_number: string;
  customer_id: string;
  status: PolicyStatus;
  collection_amount: Cents;
  /** Its collections in periods still open: each becomes CANCELLED (what was collected stays). */
  open_collections: Array<{ period_month: Period; amount_due: Cents; amount_collected: Cents; status: string }>;
  /** Debits already planned for them: withdrawn. */
  planned_debits: PlannedDebits;
}

export interface PolicyListQuery {
  status?: PolicyStatus;
  limit?: number;
  /** Return policies whose policy_number sorts after this one (keyset pagination). */
  after?: string;
}

export interface Page<T> {
  data: T[];
  /** Pass as `after` to read the next page; null on the last page. */
  next_after: string | null;
}

export interface ImportRowError {
  /** 1-based line number in the file where the record starts. */
  row: number;
  policy_number: string | null;
  field: string;
  code: string;
  message: string;
}

export interface ImportResult {
  imported: number;
  failed: number;
  /** The first 10,000 row errors by row. */
  errors: ImportRowError[];
  /** How many further errors were left out (only present when some were). */
  errors_omitted?: number;
  /**
   * Customers of the client's bank rows that no policy names but whose ids differ only in letter
   * case from a policy's customer id (only present when some do): a policy imported for C100001
   * where the bank rows say c100001.
   */
  case_mismatches?: CaseMismatches;
}

export interface BankImportRowError {
  row: number;
  customer_id: string | null;
  field: string;
  code: string;
  message: string;
}

export interface BankImportResult {
  imported: number;
  failed: number;
  /** The first 10,000 row errors by row. */
  errors: BankImportRowError[];
  /** How many further errors were left out (only present when some were). */
  errors_omitted?: number;
  /**
   * Customers of the imported rows that no policy names but whose ids differ only in letter case
   * from a policy's customer id, each with the row of its first (only present when some do).
   */
  case_mismatches?: CaseMismatches;
}

/** A file to import: a byte stream, never loaded whole. */
export interface Upload {
  name: string;
  stream: AsyncIterable<Uint8Array | string>;
  /** Size in bytes when known (for progress). */
  size?: number;
  /**
   * A fresh stream of the same bytes from the start, when the source can be read again (a file;
   * not stdin). The remote backend uses it to resend an upload whose connection failed.
   */
  reopen?: () => AsyncIterable<Uint8Array | string>;
}

export interface ImportProgress {
  bytes: number;
  rows: number;
}

export interface ImportOptions {
  onProgress?: (progress: ImportProgress) => void;
  /** Ctrl-C: stop reading, roll the import back whole, and fail with CANCELLED. */
  signal?: AbortSignal;
  /**
   * A bank import whose rows name customers that no policy names but whose ids differ only in
   * letter case from a policy's customer id: 'warn' (the default) stores them and lists them in
   * the answer (case_mismatches); 'refuse' stores nothing (CaseMismatchRefused, INVALID_FILE).
   */
  customerCase?: 'warn' | 'refuse';
}

// ---------------------------------------------------------------------------------------------
// Clock and bank (simulation extensions)

export interface ClockState {
  /** The last day whose business has run. */
  date: IsoDate;
  /** True once a collections run exists: from then on the clock only moves forward. */
  locked: boolean;
  seed: number;
}

export interface AdvanceTarget {
  days?: number;
  to?: IsoDate;
  to_month_end?: boolean;
  /** See domain/requests.ts AdvanceRequest: refuse an unsafe close once this advance's turn has come. */
  safe_close?: boolean;
}

export interface DaySummary {
  date: IsoDate;
  attempts: number;
  succeeded: number;
  failed: number;
  /** Cents (a plain number: the engine and the bank, which make it, do not use the Cents brand yet). */
  collected: number;
  /** The period that closed at the end of this day, if any. */
  closed_period: Period | null;
  lapsed_policies: number;
}

export interface AdvanceResult {
  from: IsoDate;
  to: IsoDate;
  days: DaySummary[];
}

export interface AdvanceOptions {
  /** Called after each day has been committed. */
  onDay?: (day: DaySummary, index: number, total: number) => void;
  /** Called once when another advance of the store is running and this one waits for it. */
  onWait?: (holder: { from: IsoDate; to: IsoDate; host: string; pid: number; since: string; givenUpAfterS?: number; otherPidNamespace?: boolean }) => void;
  /**
   * Local mode: once this advance holds the store, before its first day, the range it lives
   * (resolved from the clock then); it may not throw.
   */
  onRange?: (from: IsoDate, to: IsoDate) => Promise<void>;
  /**
   * Ctrl-C: local mode finishes the day being committed, lives no further day and returns the
   * days lived; remote mode stops waiting for the service (which may still finish the work).
   */
  signal?: AbortSignal;
}

/** Debits already submitted to the bank for days ahead (collections the engine would still debit). */
export interface PlannedDebits {
  count: number;
  /** At most this much, each capped at what its collection still owes. */
  amount: Cents;
  first_date: IsoDate | null;
  last_date: IsoDate | null;
}

/** A period an advance would close, with this client's collections in it as they stand now. */
export interface PeriodClosing {
  period_month: Period;
  last_day: IsoDate;
  /** Collections queued for the period. */
  collections: number;
  /** Not fully paid yet (UNPAID or PAID_PARTIAL): collected until the last day, then final. */
  open: number;
  /** Of those, with nothing collected yet (UNPAID). */
  nothing_collected: number;
  /** What the open ones still owe. */
  amount_remaining: Cents;
  /**
   * The client's active policies with no collection of the period although it was run (added
   * after the run, or left out of it): closing it leaves them uncollected for it. 0 for a period
   * never run (`collections` 0 says that).
   */
  policies_not_queued: number;
  /**
   * The store's other clients (the clock is the store's: an advance closes the period for every
   * one of them) with an active policy and no collection queued for the period, by name.
   */
  other_clients_not_run: string[];
}

/** What `clock advance` would do, computed without changing anything (`--dry-run`, confirmations). */
export interface AdvancePreview {
  from: IsoDate;
  to: IsoDate;
  /** Days that would be lived. */
  days: number;
  /** Whether a collections run exists: before the first one, `clock set` can still move the clock back. */
  locked: boolean;
  /** Periods whose last day would run, oldest first. */
  periods_closed: PeriodClosing[];
  /** Debits already planned for the days from the day after `from` to `to`. */
  planned_debits: PlannedDebits;
}

export type AccountState = 'open' | 'closed' | 'frozen' | 'payment_stopped';

export interface BankTransactionView {
  date: IsoDate;
  /** Cents (a plain number: the engine and the bank, which make it, do not use the Cents brand yet). */
  amount: number;
  description: string;
  /** posted, or declined for want of balance. */
  outcome: 'posted' | 'declined';
  /** Cents (a plain number: the engine and the bank, which make it, do not use the Cents brand yet). */
  balance: number;
}

export interface IncomePatternView {
  pattern: string;
  confidence: number;
  typical_amount: Cents;
  next_income_dates: IsoDate[];
  description: string;
}

export interface BankAccountView {
  customer_id: string;
  source: 'imported' | 'generated';
  as_of: IsoDate;
  /** Cents (a plain number: the engine and the bank, which make it, do not use the Cents brand yet). */
  balance: number;
  state: AccountState;
  recent_transactions: BankTransactionView[];
  income: IncomePatternView;
}

// ---------------------------------------------------------------------------------------------
// Collections

export { COLLECTION_STATUSES, type CollectionStatus };

export interface ExecuteInput {
  period_month: Period;
  /** Policy ids or policy numbers; omitted: every active policy. */
  policy_ids?: string[];
  strategy?: string;
}

export interface ExecutionAccepted {
  execution_id: string;
  status: 'processing';
  policies_queued: number;
}

export interface Execution {
  execution_id: string;
  period_month: Period;
  status: 'processing' | 'completed';
  strategy: string;
  policies_queued: number;
  created_at: string;
  completed_at: string | null;
  counts: Record<CollectionStatus, number>;
}

/** The 13 fields of a report row (spec 4.6), in report order. */
export interface CollectionReportRow {
  period_month: Period;
  customer_id: string;
  external_customer_ref: string;
  policy_number: string;
  product_code: string;
  collection_amount_due: Cents;
  collection_amount_collected: Cents;
  shortfall: Cents;
  collection_status: CollectionStatus;
  first_attempt_date: IsoDate | null;
  last_attempt_date: IsoDate | null;
  number_of_attempts: number;
  last_failure_reason: string | null;
}

export const REPORT_COLUMNS = [
  'period_month',
  'customer_id',
  'external_customer_ref',
  'policy_number',
  'product_code',
  'collection_amount_due',
  'collection_amount_collected',
  'shortfall',
  'collection_status',
  'first_attempt_date',
  'last_attempt_date',
  'number_of_attempts',
  'last_failure_reason',
] as const satisfies ReadonlyArray<keyof CollectionReportRow>;

export interface Collection extends CollectionReportRow {
  id: string;
  policy_id: string;
  execution_id: string;
}

export interface CollectionListQuery {
  period_month: Period;
  status?: CollectionStatus;
  /** A policy id or policy number. */
  policy?: string;
  limit?: number;
  after?: string;
}

export interface Attempt {
  collection_id: string;
  policy_number: string;
  customer_id: string;
  date: IsoDate;
  amount: Cents;
  outcome: 'SUCCESS' | 'FAILED';
  failure_reason: string | null;
}

export const ATTEMPT_COLUMNS = [
  'collection_id',
  'policy_number',
  'customer_id',
  'date',
  'amount',
  'outcome',
  'failure_reason',
] as const satisfies ReadonlyArray<keyof Attempt>;

export interface ExplainedAttempt extends Attempt {
  why: string;
}

export interface Explanation {
  collection: Collection;
  strategy: string;
  income: IncomePatternView;
  plan: string[];
  attempts: ExplainedAttempt[];
  summary: string;
}

// ---------------------------------------------------------------------------------------------
// Settlements

export { SETTLEMENT_STATUSES, type SettlementStatus };

export interface Settlement {
  id: string;
  settlement_number: string;
  period_month: Period;
  total_collections: Cents;
  distribution_fee: Cents;
  collections_fee: Cents;
  total_fees: Cents;
  vat: Cents;
  net_amount: Cents;
  payment_date: IsoDate;
  status: SettlementStatus;
  payment_reference: string;
  created_at: string;
  collections_count: number;
  paid_on: IsoDate | null;
  paid_reference: string | null;
  disputed_on: IsoDate | null;
  dispute_reason: string | null;
  /**
   * What earlier statements of the period were paid (0 on a first statement). net_amount is the
   * amount due now: total_collections − total_fees − vat − previously_paid (negative: owed back).
   */
  previously_paid: Cents;
  /** The settlement_number of the statement this one replaces (regenerated after a dispute), or null. */
  supersedes: string | null;
  /** The settlement_number of the statement that replaced this one, or null. */
  superseded_by: string | null;
}

export const SETTLEMENT_EXPORT_COLUMNS = [
  'settlement_number',
  'period_month',
  'total_collections',
  'distribution_fee',
  'collections_fee',
  'total_fees',
  'vat',
  'net_amount',
  'payment_date',
  'payment_reference',
] as const satisfies ReadonlyArray<keyof Settlement>;

/** The statement `settlements create` would make now (nothing stored; it has no id yet). */
export type SettlementPreview = Omit<Settlement, 'id' | 'created_at'>;

export interface SettlementListQuery {
  status?: SettlementStatus;
  period_month?: Period;
}

// ---------------------------------------------------------------------------------------------
// Downloads (reports and exports): streamed, never built whole in memory.

export type ReportFormat = 'csv' | 'json';

export interface Download {
  filename: string;
  contentType: string;
  body: AsyncIterable<Uint8Array | string>;
  /**
   * The collections report only: the period's state when it was read (is it final?). Absent
   * from a server that does not send the Premia-Period-State header.
   */
  periodState?: PeriodState;
  /**
   * The settlement export from another server: its data row's cells by column, once the body has
   * all come (what premia checks the figures of); absent when the row could not be read.
   */
  statementRow?: Record<string, string>;
  /**
   * Its file name names one document whose bytes never change (a statement's export: numbers
   * count per client, a statement's figures are fixed). Written into a directory under that name,
   * it replaces only the same bytes, never another client's statement of the same number.
   */
  oneDocument?: boolean;
}

// ---------------------------------------------------------------------------------------------
// The service itself (no Backend method: answered by the server from the request's key and its
// own state).

/** GET /whoami: the client and role of the key, and whether the service runs the simulation. */
export interface WhoAmI {
  client: string;
  key_id: string;
  role: KeyRole;
  simulation: boolean;
}

/**
 * GET /operations/{id}: a request answered 202 (Prefer: respond-async), how far it has got, and
 * once ended the response it would have had (`result.body` the response body itself).
 */
export interface AsyncOperation {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  request: { method: string; path: string };
  created_at: string;
  completed_at: string | null;
  progress: { unit: 'days' | 'bytes'; done: number; total: number; rows?: number } | null;
  /** An advance: the days it has lived so far. */
  days?: DaySummary[];
  result: { status: number; replayed: boolean; body: unknown } | null;
}

// ---------------------------------------------------------------------------------------------

export interface Backend {
  readonly mode: Mode;
  /**
   * Whether premia's extensions are there to read: always locally; remote, once an answer has
   * shown the server to be a premia service (its X-Premia-Version), never for another server.
   */
  servedByPremia(): boolean;
  /**
   * The writes of this backend (of this invocation) that were answered by repeating the answer
   * kept for their Idempotency-Key, given by an earlier request with it: nothing was done by them.
   * Known from the write's own answer: locally from the key's record (cli/local-idempotency.ts);
   * remotely from a premia service's `idempotent-replayed: true` (or the `replayed` of an
   * operation's result). Empty for a server that does not say so (one implementing only the
   * spec), and for a replay that answered a resend of this invocation's own request after its
   * first attempt may have been acted on (that answer may be this run's own).
   */
  replayedWrites(): readonly ReplayedWrite[];
  describe(): Promise<Target>;

  createPolicy(input: PolicyInput): Promise<Policy>;
  importPolicies(file: Upload, options?: ImportOptions): Promise<ImportResult>;
  updatePolicy(ref: string, patch: PolicyPatch): Promise<Policy>;
  /**
   * Several policies updated, in the order given, each as updatePolicy does: locally in one
   * transaction (all or none); remotely one request each (the API updates one policy at a time),
   * stopping at the first refused.
   */
  updatePolicies(updates: ReadonlyArray<{ ref: string; patch: PolicyPatch }>): Promise<Policy[]>;
  previewCancellation(ref: string): Promise<CancellationPreview>;
  getPolicy(ref: string): Promise<PolicyDetail>;
  listPolicies(query: PolicyListQuery): Promise<Page<Policy>>;

  getClock(): Promise<ClockState>;
  setClock(date: IsoDate): Promise<ClockState>;
  advanceClock(target: AdvanceTarget, options?: AdvanceOptions): Promise<AdvanceResult>;
  previewAdvance(target: AdvanceTarget): Promise<AdvancePreview>;
  seedBank(seed: number): Promise<ClockState>;
  importBankTransactions(file: Upload, options?: ImportOptions): Promise<BankImportResult>;
  showBankAccount(customerId: string): Promise<BankAccountView>;

  executeCollections(input: ExecuteInput): Promise<ExecutionAccepted>;
  getCollection(id: string): Promise<Collection>;
  listCollections(query: CollectionListQuery): Promise<Page<Collection>>;
  exportAttempts(period: Period, format: ReportFormat): Promise<Download>;
  explainCollection(id: string): Promise<Explanation>;
  getExecution(id: string): Promise<Execution>;

  collectionsReport(period: Period, format: ReportFormat): Promise<Download>;

  createSettlement(period: Period): Promise<Settlement>;
  previewSettlement(period: Period): Promise<SettlementPreview>;
  getSettlement(ref: string): Promise<Settlement>;
  exportSettlement(ref: string, options?: { lines?: boolean }): Promise<Download>;
  listSettlements(query: SettlementListQuery): Promise<Page<Settlement>>;
  markSettlementPaid(ref: string, options?: { reference?: string }): Promise<Settlement>;
  disputeSettlement(ref: string, reason: string): Promise<Settlement>;

  /**
   * What is on record for this client's Idempotency-Key `key` (premia's extension,
   * GET /idempotency-keys?key=), or null: never used, refused or failed (a refusal keeps
   * nothing), or expired. What the CLI reads before a question, so that a rerun its key answers
   * with an earlier run's answer asks nothing about acting. With `operation`, the key as that
   * operation would be sent with it: the store's for a store-wide one (an advance's, a seed's).
   */
  idempotencyRecord(key: string, operation?: KeyedOperation): Promise<IdempotencyRecord | null>;

  close(): Promise<void>;
}

/** A write answered with the answer kept for its Idempotency-Key (Backend.replayedWrites). */
export interface ReplayedWrite {
  /** Its row of backend/operations.ts (`importPolicies`). */
  readonly operation: string;
  /** The key it was sent with: the invocation's key, or `KEY:2`… for its later writes. */
  readonly key: string;
}

/**
 * The operation a key is looked up for (its row of backend/operations.ts): the key of a
 * store-wide one (an advance, the bank's seed) is the store's, shared by every operator key;
 * any other's is the client's own.
 */
export interface KeyedOperation {
  /** Its operationId (`advanceClock`), sent as GET /idempotency-keys?operation=. */
  readonly name: string;
  readonly storeWide?: boolean;
}

/** The record of an Idempotency-Key of one client, or of the store's (GET /idempotency-keys). */
export interface IdempotencyRecord {
  key: string;
  /** The request it was first used for (the path with /v1). */
  method: string;
  path: string;
  /**
   * requestHash of that request (backend/wire.ts): another request with the key is refused,
   * IDEMPOTENCY_KEY_REUSED. Null for a command of the CLI (method `CLI`: `premia keys create`),
   * whose hash is of a client's name, and which no request with the key can be.
   */
  request_hash: string | null;
  /** `answered`: its response is kept and replayed to the same request; `running`: the first request has not been answered (yet). */
  state: 'answered' | 'running';
  /** The status of the kept response; null while running. */
  status: number | null;
  created_at: string;
  expires_at: string;
}

/** A store-wide engine setting (`premia settings`, local mode only). */
export interface SettingView {
  key: string;
  /** The value in force (the default when unset): a number, or a name for `calendar`. */
  value: number | string;
  default: number | string;
  /** A numeric setting's range. */
  min?: number;
  max?: number;
  /** A setting chosen by name: the names. */
  choices?: string[];
  description: string;
}

/** A holiday of the business-day calendar (`premia calendar`). */
export interface HolidayView {
  date: IsoDate;
  weekday: string;
  name: string;
  /** `za`: a South African public holiday; `imported`: imported with `premia calendar import`. */
  source: 'za' | 'imported';
}

/** The business-day calendar of a store and the holidays of a year. */
export interface CalendarView {
  /** The base: `za` (South African public holidays) or `none` (weekends only). */
  calendar: 'za' | 'none';
  /** How many dates were imported (of every year). */
  imported_dates: number;
  /** Once a collections run exists: the last day whose calendar can no longer change; else null. */
  fixed_until: IsoDate | null;
  year: number;
  holidays: HolidayView[];
}

export interface CalendarImportResult {
  calendar: 'za' | 'none';
  /** Dates new to the calendar. */
  added: number;
  /** Imported dates no longer in it (`--replace`). */
  removed: number;
  /** Imported dates the calendar holds now. */
  imported_dates: number;
}

// ---------------------------------------------------------------------------------------------
// The operator's functions on a local store (`LocalBackend.admin`): API keys and their clients,
// engine settings, and the idempotency records both the server and local --idempotency-key
// keep. They act on the whole store, for every client, so they exist only in local mode; the
// CLI reaches them through its context, the server through the backend it is given.

export type KeyRole = 'client' | 'operator';

/** A key just made: the only time the key itself is shown. */
export interface CreatedApiKey {
  id: string;
  client: string;
  /** Whether the client was made with this key (its first). */
  new_client: boolean;
  role: KeyRole;
  key: string;
}

/** A key as listed: redacted to its prefix and last 4 characters. */
export interface ApiKeyView {
  id: string;
  client: string;
  role: KeyRole;
  key: string;
  created_at: string;
  revoked_at: string | null;
}

/**
 * A key made by an earlier `keys create` with the same idempotency key: described as listed
 * (`key` redacted, `revoked_at` as it is now), never with its secret, which was shown once, to
 * that run, and is kept nowhere.
 */
export interface ReplayedApiKey extends ApiKeyView {
  new_client: boolean;
}

/** What `keys create` under an idempotency key did: made a key, or found the one made before. */
export type KeyCreation = { created: CreatedApiKey } | { replayed: ReplayedApiKey };

/** Who a presented key acts for. */
export interface Principal {
  /** The key's row id (for rate limiting) and public id. */
  keyRowId: number;
  keyId: string;
  clientId: number;
  clientName: string;
  role: KeyRole;
}

/** The process that runs the first request of an Idempotency-Key (its host, pid and a random token). */
export interface IdempotencyOwner {
  host: string;
  pid: number;
  token: string;
  /** The PID namespace its process runs in (Linux; null elsewhere, or not known). */
  pidNamespace?: string | null;
}

export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
}

/**
 * `resumeTo`: the claim was taken over from a request that commits in parts (an advance) whose
 * process stopped after it had resolved its range: the date it was to reach, which the retry
 * runs to (`days` counted again from the later clock would go past it).
 */
export type IdempotencyClaim = { kind: 'claimed'; resumeTo?: IsoDate } | { kind: 'replay'; response: StoredResponse };

export interface IdempotencyClaimInput {
  clientId: number;
  key: string;
  /** requestHash of method, path and body (domain/idempotency.ts). */
  hash: string;
  method: string;
  path: string;
  now: number;
  /** Who runs the request (default: this process). */
  owner?: IdempotencyOwner;
  /** Whether a process of this host is alive (default: a signal-0 probe). */
  isAlive?: (pid: number) => boolean;
  /** The request commits in parts (operations.ts commitsInParts). */
  inParts?: boolean;
}

export interface EngineWorkOptions {
  /** Stop once the clock's date is this date or later and no shard is pending. */
  until?: string;
  signal?: AbortSignal;
  /** Told once the store is known to take workers, before the first shard. */
  onStart?: () => void;
  /** Told of each shard lived. */
  onShard?: () => void;
}

export interface Admin {
  readonly keys: {
    /**
     * A key for a client (made when new); `client` null: an operator key of the Local client. A
     * new client whose name is close to an existing one's is refused (CONFLICT, CLOSE_CLIENT: a
     * typo would make a client of its own) unless `closeName` says it is meant.
     */
    create(client: string | null, role: KeyRole, options?: { closeName?: boolean }): Promise<CreatedApiKey>;
    /**
     * `create` at most once for an idempotency key (local --idempotency-key): the key is claimed
     * as `idempotency.claim` does; the key made and the record of the request commit together,
     * and the record holds the key's description (redacted), never its secret. A repeat of the
     * same request gets that key described (`replayed`), a different one IDEMPOTENCY_KEY_REUSED;
     * a refusal keeps nothing (the idempotency key stays free).
     */
    createOnce(client: string | null, role: KeyRole, claim: IdempotencyClaimInput, options?: { closeName?: boolean }): Promise<KeyCreation>;
    list(): Promise<ApiKeyView[]>;
    /** Revoking a revoked key changes nothing (`changed` false). */
    revoke(keyId: string): Promise<{ key: ApiKeyView; changed: boolean }>;
    /** The principal of a presented key; 401 UNAUTHORIZED when missing, unknown or revoked. */
    authenticate(presented: unknown): Promise<Principal>;
  };
  readonly clients: {
    /** The client with exactly this name (spaces around it aside), or null. */
    byName(name: string): Promise<{ id: number; name: string } | null>;
    /** The name of the client a name that is none looks like (case, spacing, a typo), or null. */
    like(name: string): Promise<string | null>;
    /** The clients with collections in `period`, by id; `own` marks the store's own (whom local mode acts for without --as-client). */
    withCollections(period: Period): Promise<Array<{ id: number; name: string; own: boolean }>>;
  };
  readonly settings: {
    list(): Promise<SettingView[]>;
    /** Checked first: nothing is written for an unknown key or a bad value. */
    set(key: string, value: string): Promise<{ setting: SettingView; previous: number | string }>;
  };
  /** The business-day calendar (its base is the `calendar` setting). */
  readonly calendar: {
    /** The calendar in force and the holidays of `year`. */
    show(year: number): Promise<CalendarView>;
    /** Add holidays from a CSV `date,name` (`replace`: instead of the imported ones); checked whole. */
    import(file: Upload, options?: { replace?: boolean }): Promise<CalendarImportResult>;
  };
  /** The engine's days in customer shards (engine/shards.ts). */
  readonly engine: {
    /**
     * Live the shards of the days other processes open on this store (PostgreSQL), until `signal`
     * aborts or, with `until`, the clock has reached that date. Returns the shards lived.
     */
    work(options: EngineWorkOptions): Promise<number>;
  };
  /** The records of Idempotency-Key (see backend/local/idempotency.ts). */
  readonly idempotency: {
    /** This process, as the owner of the claims it makes. */
    readonly owner: IdempotencyOwner;
    /** The scope of a store-wide operation's keys: the store's own, no client's (not even Local's). */
    readonly storeScope: number;
    /** Claim the key for a request, or get the stored response to replay. */
    claim(input: IdempotencyClaimInput): Promise<IdempotencyClaim>;
    /** Store the response of a claimed request; false when the claim was taken over meanwhile. */
    complete(clientId: number, key: string, response: StoredResponse, owner?: IdempotencyOwner): Promise<boolean>;
    /** Forget a claimed key (the request was refused or failed: a retry may run again). */
    release(clientId: number, key: string, owner?: IdempotencyOwner): Promise<boolean>;
    /**
     * Run `fn`, the work of a claimed request, so that a write doing it in one transaction stores
     * `response` with its answer in that transaction: work and record commit together. `stored`:
     * whether it did (else the key is still to be completed).
     */
    answerInWork<T>(clientId: number, key: string, response: Omit<StoredResponse, 'body'>, fn: () => Promise<T>, owner?: IdempotencyOwner): Promise<{ value: T; stored: boolean }>;
    /** Record on a claimed key the date its advance resolved to reach (IdempotencyClaim `resumeTo`). */
    noteTarget(clientId: number, key: string, to: IsoDate, owner?: IdempotencyOwner): Promise<boolean>;
  };
  /** The store file (':memory:' for a store in memory). */
  readonly storePath: string;
  /**
   * The store file another thread may open to act exactly as this backend does (the server's
   * job thread); null for a store in memory or a backend given a bank of its own.
   */
  readonly sharedStoreFile: string | null;
}

// -- premia db copy: one store copied into another and verified (store/copy.ts) -----------------

/** Row count and money total (integer cents) of one table, as decimal text; money null: none. */
export interface StoreTableTotals {
  table: string;
  rows: string;
  money: string | null;
}

export interface StoreCopyReport {
  /** The stores as shown (a PostgreSQL URL with its password as ***). */
  from: string;
  to: string;
  tables: Array<{ table: string; from: StoreTableTotals; to: StoreTableTotals; same: boolean }>;
  /** Every count and total the same: committed. False: rolled back, the target unchanged. */
  identical: boolean;
  /** What the target held and the copy replaced (empty for an empty target). */
  replaced: Array<{ table: string; rows: number }>;
}

export interface StoreCopyRequest {
  from: string;
  to: string;
  /** A target holding rows may be replaced (after `confirm`); false: CONFLICT, nothing copied. */
  replace: boolean;
  /** Told what a non-empty target holds before anything is replaced; throws to stop. */
  confirm?: (what: { target: string; tables: Array<{ table: string; rows: number }> }) => Promise<void>;
  /** Told as each table is copied. */
  onTable?: (table: string, rows: number) => void;
  /** Ctrl-C: the copy stops at its next batch and rolls back (CANCELLED); while it waits for another process's write lock on the target, at once. */
  signal?: AbortSignal;
  /** Told when the copy has waited half a second for another process's write lock on a target file. */
  onWait?: () => void;
}
