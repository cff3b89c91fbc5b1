/**
 * The one table of the /v1 API's operations: the spec's endpoints and premia's extensions, each
 * with its method, path, success status, request and response types, whether it takes an
 * Idempotency-Key and may be answered 202, the role it needs, whether it belongs to the
 * simulation, and the error codes of its own. Three readers build from it, and nothing else
 * lists the routes:
 *   - the server registers one route per row (src/server/routes/<resource>.ts holds a handler
 *     per operation name; authentication, the role, idempotency, the job thread, 202, the error
 *     body and the period-state header are applied from the row, in src/server/dispatch.ts);
 *   - the remote client builds each request from its row (backend/wire.ts `buildRequest`);
 *   - local --idempotency-key wraps exactly the rows that take an Idempotency-Key
 *     (cli/local-idempotency.ts), with the request identity the server uses.
 * openapi.yaml documents the same operations in prose; test/server/openapi.test.ts fails on any
 * drift between the two (operationId, method, path, success status, error statuses, the key,
 * Idempotency-Key, Prefer/202, the operator's 403, the simulation tag).
 *
 * Adding an endpoint touches four places:
 *   1. a row here (and its operation in openapi.yaml, which the test holds to the row);
 *   2. a handler in src/server/routes/<resource>.ts (the server refuses to start without one);
 *   3. a Backend method (backend/types.ts, backend/local, and in backend/remote a call of the row);
 *   4. a test.
 *
 * The error codes of a row are its own; every row may also answer VALIDATION_ERROR (400),
 * UNAUTHORIZED (401), RATE_LIMITED (429), INTERNAL (500) and STORE_BUSY (503), and by its kind:
 * a body PAYLOAD_TOO_LARGE (413) and UNSUPPORTED_MEDIA_TYPE (415), an Idempotency-Key
 * IDEMPOTENCY_IN_PROGRESS (409) and IDEMPOTENCY_KEY_REUSED (422), an operator row FORBIDDEN (403),
 * a simulation row NOT_FOUND (404, under --no-simulation). `impliedErrors` lists them.
 */
import type { ErrorCode } from '../domain/errors.js';
import type { IsoDate, Period } from '../domain/period.js';
import type {
  AdvanceOptions,
  AdvancePreview,
  AdvanceResult,
  AdvanceTarget,
  AsyncOperation,
  Backend,
  BankAccountView,
  BankImportResult,
  CancellationPreview,
  ClockState,
  Collection,
  CollectionListQuery,
  Download,
  Execution,
  ExecutionAccepted,
  ExecuteInput,
  Explanation,
  IdempotencyRecord,
  ImportOptions,
  KeyedOperation,
  ImportResult,
  Page,
  Policy,
  PolicyDetail,
  PolicyInput,
  PolicyListQuery,
  PolicyPatch,
  ReportFormat,
  Settlement,
  SettlementListQuery,
  SettlementPreview,
  Upload,
  WhoAmI,
} from './types.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH';

/** The route plugin an operation belongs to (src/server/routes/<resource>.ts). */
export type Resource = 'policies' | 'collections' | 'reports' | 'settlements' | 'clock' | 'bank' | 'meta' | 'operations';

export type Role = 'client' | 'operator';

/**
 * What the request carries: a JSON object body (`json-optional`: an absent body counts as {}), a
 * file (multipart/form-data, the part `file`), or nothing.
 */
export type BodyKind = 'json' | 'json-optional' | 'upload' | 'none';

/**
 * Its query parameters: `none` refuses any (premia's extensions: a mistyped filter is an error,
 * not an unfiltered answer); `all` hands them all to the handler's validator; a list names the
 * ones a spec endpoint defines, any other being ignored (a spec-only client may add a
 * cache-buster such as `_=1`).
 */
export type QueryKind = 'none' | 'all' | readonly string[];

export type QueryValues = Record<string, string | number | boolean | undefined>;

/** How one call of a backend method travels: path parameters, query, a JSON body or a file. */
export interface Wire {
  params?: Record<string, string>;
  query?: QueryValues;
  json?: unknown;
  /** An upload row's file: always its backend method's first argument. */
  upload?: Upload;
}

export interface Operation<Req = unknown, Res = unknown, Args extends unknown[] = never> {
  /** The operationId of openapi.yaml, and the name of the route handler. */
  readonly name: string;
  readonly method: HttpMethod;
  /** Below /v1, with {parameters} as in openapi.yaml. */
  readonly path: string;
  /** The status of a success (202 for the collections run: queued, not done). */
  readonly status: 200 | 201 | 202;
  readonly resource: Resource;
  /** One of the spec's endpoints (false: a premia extension, which another server may lack). */
  readonly spec: boolean;
  /** The operation in words, for messages ("This server does not offer policy lists (GET /policies)"). */
  readonly what: string;
  readonly body: BodyKind;
  readonly query: QueryKind;
  /** A JSON body, or a file streamed as it is read (CSV or JSON reports and exports). */
  readonly response: 'json' | 'download';
  /** Takes an Idempotency-Key: the first 2xx response is kept and replayed (POST and PATCH). */
  readonly idempotent: boolean;
  /** Changes the store: run as a job, on the server's job thread where it has one. */
  readonly job: boolean;
  /** May be answered 202 with a Location to follow, when asked with `Prefer: respond-async`. */
  readonly async: boolean;
  readonly role: Role;
  /** The virtual clock or the simulated bank: not served under --no-simulation (404). */
  readonly simulation: boolean;
  /**
   * Acts on the whole store, not on one client's data (the clock, the bank's seed): its
   * Idempotency-Key is one key of the store's, whichever operator key (of whichever client) sends it.
   */
  readonly storeWide?: boolean;
  /**
   * Commits in parts (an advance: day by day): one cut off part way has done some of its work,
   * and the same request run again would do it from where the first stopped (`days` counted from
   * the later clock). Its key's claim is not taken over at once after a failed release
   * (backend/local/idempotency.ts), and a 5xx to it is reported, not resent (remote/http.ts).
   */
  readonly commitsInParts?: boolean;
  /**
   * Fields of its body that say how to act, not what: left out of the request's identity for its
   * Idempotency-Key (wire.ts requestHash), so that the same request with and without them is
   * answered once, not refused IDEMPOTENCY_KEY_REUSED.
   */
  readonly notIdentity?: readonly string[];
  /** The collections report: says in a header whether the period is final (Premia-Period-State). */
  readonly periodState?: boolean;
  /** The error codes of its own (see the header for those every row may answer). */
  readonly errors: readonly ErrorCode[];
  /** The Backend method it calls; null for what the server answers itself (whoami, operations, the document). */
  readonly backend: keyof Backend | null;
  /** The backend method's arguments on the wire (for the remote client and local idempotency). */
  readonly encode: (...args: Args) => Wire;
  /** Phantom, never set: the request (JSON body or query) and the response body as TypeScript types. */
  readonly types?: { request: Req; response: Res };
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the types of one row, read back */
export type AnyOperation = Operation<any, any, any>;
export type RequestOf<O> = O extends Operation<infer R, any, any> ? R : never;
export type ResponseOf<O> = O extends Operation<any, infer R, any> ? R : never;
export type ArgsOf<O> = O extends Operation<any, any, infer A> ? A : never;
/* eslint-enable @typescript-eslint/no-explicit-any */

type Defaults = 'query' | 'body' | 'response' | 'idempotent' | 'job' | 'async' | 'role' | 'simulation' | 'errors' | 'spec';

/**
 * A row: `op<Request, Response>()({...})`. Reads take no body and refuse unknown query
 * parameters unless told otherwise; a write (POST, PATCH) is idempotent and a job.
 */
function op<Req, Res>() {
  return <Args extends unknown[]>(row: Omit<Operation<Req, Res, Args>, Defaults | 'types'> & Partial<Pick<Operation<Req, Res, Args>, Defaults>>): Operation<Req, Res, Args> => {
    const write = row.method === 'POST' || row.method === 'PATCH';
    return {
      spec: false,
      body: write || row.method === 'PUT' ? 'json' : 'none',
      query: 'none',
      response: 'json',
      idempotent: write,
      job: write || row.method === 'PUT',
      async: false,
      role: 'client',
      simulation: false,
      errors: [],
      ...row,
    };
  };
}

const id = (value: string) => ({ id: value });

export const OPERATIONS = {
  // -- policies (spec 4.1–4.3; reading and listing are extensions) -----------------------------
  createPolicy: op<PolicyInput, Policy>()({
    name: 'createPolicy',
    method: 'POST',
    path: '/policies',
    status: 201,
    resource: 'policies',
    spec: true,
    what: 'creating a policy',
    query: [],
    errors: ['DUPLICATE_POLICY'],
    backend: 'createPolicy',
    encode: (input: PolicyInput) => ({ json: input }),
  }),
  importPolicies: op<Upload, ImportResult>()({
    name: 'importPolicies',
    method: 'POST',
    path: '/policies/import',
    status: 200,
    resource: 'policies',
    spec: true,
    what: 'the policy import',
    body: 'upload',
    query: [],
    async: true,
    errors: ['INVALID_FILE'],
    backend: 'importPolicies',
    encode: (file: Upload, _options?: ImportOptions) => ({ upload: file }),
  }),
  listPolicies: op<PolicyListQuery, Page<Policy>>()({
    name: 'listPolicies',
    method: 'GET',
    path: '/policies',
    status: 200,
    resource: 'policies',
    what: 'policy lists',
    query: 'all',
    backend: 'listPolicies',
    encode: (q: PolicyListQuery) => ({ query: { status: q.status, limit: q.limit, after: q.after } }),
  }),
  getPolicy: op<void, PolicyDetail>()({
    name: 'getPolicy',
    method: 'GET',
    path: '/policies/{id}',
    status: 200,
    resource: 'policies',
    what: 'reading a policy',
    errors: ['NOT_FOUND'],
    backend: 'getPolicy',
    encode: (ref: string) => ({ params: id(ref) }),
  }),
  updatePolicy: op<PolicyPatch, Policy>()({
    name: 'updatePolicy',
    method: 'PATCH',
    path: '/policies/{id}',
    status: 200,
    resource: 'policies',
    spec: true,
    what: 'updating a policy',
    query: [],
    errors: ['NOT_FOUND', 'INVALID_TRANSITION'],
    backend: 'updatePolicy',
    encode: (ref: string, patch: PolicyPatch) => ({ params: id(ref), json: patch }),
  }),
  previewCancellation: op<void, CancellationPreview>()({
    name: 'previewCancellation',
    method: 'GET',
    path: '/policies/{id}/cancel-preview',
    status: 200,
    resource: 'policies',
    what: 'cancellation previews',
    errors: ['NOT_FOUND'],
    backend: 'previewCancellation',
    encode: (ref: string) => ({ params: id(ref) }),
  }),

  // -- collections (spec 4.4, 4.5; the rest are extensions) ------------------------------------
  executeCollections: op<ExecuteInput, ExecutionAccepted>()({
    name: 'executeCollections',
    method: 'POST',
    path: '/collections/execute',
    status: 202,
    resource: 'collections',
    spec: true,
    what: 'the collections run',
    query: [],
    errors: ['PERIOD_CLOSED'],
    backend: 'executeCollections',
    encode: (input: ExecuteInput) => {
      const json: Record<string, unknown> = { period_month: input.period_month };
      if (input.policy_ids !== undefined) json.policy_ids = input.policy_ids;
      if (input.strategy !== undefined) json.strategy = input.strategy;
      return { json };
    },
  }),
  listCollections: op<CollectionListQuery, Page<Collection>>()({
    name: 'listCollections',
    method: 'GET',
    path: '/collections',
    status: 200,
    resource: 'collections',
    what: 'collection lists',
    query: 'all',
    // A policy filter naming no policy of the client.
    errors: ['NOT_FOUND'],
    backend: 'listCollections',
    encode: (q: CollectionListQuery) => ({ query: { period_month: q.period_month, status: q.status, policy: q.policy, limit: q.limit, after: q.after } }),
  }),
  getCollection: op<void, Collection>()({
    name: 'getCollection',
    method: 'GET',
    path: '/collections/{id}',
    status: 200,
    resource: 'collections',
    spec: true,
    what: 'a collection',
    query: [],
    errors: ['NOT_FOUND'],
    backend: 'getCollection',
    encode: (ref: string) => ({ params: id(ref) }),
  }),
  explainCollection: op<void, Explanation>()({
    name: 'explainCollection',
    method: 'GET',
    path: '/collections/{id}/explain',
    status: 200,
    resource: 'collections',
    what: 'collection explanations',
    errors: ['NOT_FOUND'],
    backend: 'explainCollection',
    encode: (ref: string) => ({ params: id(ref) }),
  }),
  getExecution: op<void, Execution>()({
    name: 'getExecution',
    method: 'GET',
    path: '/executions/{id}',
    status: 200,
    resource: 'collections',
    what: 'execution status',
    errors: ['NOT_FOUND'],
    backend: 'getExecution',
    encode: (ref: string) => ({ params: id(ref) }),
  }),

  // -- reports (spec 4.6; the attempts export is an extension) ---------------------------------
  collectionsReport: op<{ period_month: Period; format?: ReportFormat }, Download>()({
    name: 'collectionsReport',
    method: 'GET',
    path: '/reports/collections',
    status: 200,
    resource: 'reports',
    spec: true,
    what: 'the collections report',
    query: ['period_month', 'format'],
    response: 'download',
    periodState: true,
    backend: 'collectionsReport',
    encode: (period: Period, format: ReportFormat) => ({ query: { period_month: period, format } }),
  }),
  attemptsReport: op<{ period_month: Period; format?: ReportFormat }, Download>()({
    name: 'attemptsReport',
    method: 'GET',
    path: '/reports/attempts',
    status: 200,
    resource: 'reports',
    what: 'the attempts export',
    query: 'all',
    response: 'download',
    backend: 'exportAttempts',
    encode: (period: Period, format: ReportFormat) => ({ query: { period_month: period, format } }),
  }),

  // -- settlements (spec 4.7–4.9; list, preview, mark-paid and dispute are extensions) ---------
  createSettlement: op<{ period_month: Period }, Settlement>()({
    name: 'createSettlement',
    method: 'POST',
    path: '/settlements',
    status: 201,
    resource: 'settlements',
    spec: true,
    what: 'settlements',
    query: [],
    errors: ['PERIOD_OPEN', 'SETTLEMENT_EXISTS', 'NO_COLLECTIONS', 'CONFLICT'],
    backend: 'createSettlement',
    encode: (period: Period) => ({ json: { period_month: period } }),
  }),
  listSettlements: op<SettlementListQuery, Page<Settlement>>()({
    name: 'listSettlements',
    method: 'GET',
    path: '/settlements',
    status: 200,
    resource: 'settlements',
    what: 'settlement lists',
    query: 'all',
    backend: 'listSettlements',
    encode: (q: SettlementListQuery) => ({ query: { status: q.status, period_month: q.period_month } }),
  }),
  previewSettlement: op<{ period_month: Period }, SettlementPreview>()({
    name: 'previewSettlement',
    method: 'GET',
    path: '/settlements/preview',
    status: 200,
    resource: 'settlements',
    what: 'settlement previews',
    query: 'all',
    errors: ['PERIOD_OPEN', 'SETTLEMENT_EXISTS', 'NO_COLLECTIONS', 'CONFLICT'],
    backend: 'previewSettlement',
    encode: (period: Period) => ({ query: { period_month: period } }),
  }),
  getSettlement: op<void, Settlement>()({
    name: 'getSettlement',
    method: 'GET',
    path: '/settlements/{id}',
    status: 200,
    resource: 'settlements',
    spec: true,
    what: 'a settlement',
    query: [],
    errors: ['NOT_FOUND'],
    backend: 'getSettlement',
    encode: (ref: string) => ({ params: id(ref) }),
  }),
  exportSettlement: op<{ lines?: boolean }, Download>()({
    name: 'exportSettlement',
    method: 'GET',
    path: '/settlements/{id}/export',
    status: 200,
    resource: 'settlements',
    spec: true,
    what: 'the settlement export',
    query: ['lines'],
    response: 'download',
    errors: ['NOT_FOUND'],
    backend: 'exportSettlement',
    encode: (ref: string, options?: { lines?: boolean }) => ({ params: id(ref), query: options?.lines === true ? { lines: 'true' } : undefined }),
  }),
  markSettlementPaid: op<{ reference?: string }, Settlement>()({
    name: 'markSettlementPaid',
    method: 'POST',
    path: '/settlements/{id}/mark-paid',
    status: 200,
    resource: 'settlements',
    what: 'recording payments',
    body: 'json-optional',
    errors: ['NOT_FOUND', 'INVALID_TRANSITION'],
    backend: 'markSettlementPaid',
    encode: (ref: string, options?: { reference?: string }) => ({
      params: id(ref),
      json: options?.reference === undefined ? {} : { reference: options.reference },
    }),
  }),
  disputeSettlement: op<{ reason: string }, Settlement>()({
    name: 'disputeSettlement',
    method: 'POST',
    path: '/settlements/{id}/dispute',
    status: 200,
    resource: 'settlements',
    what: 'disputes',
    errors: ['NOT_FOUND', 'INVALID_TRANSITION', 'DISPUTE_WINDOW_CLOSED'],
    backend: 'disputeSettlement',
    encode: (ref: string, reason: string) => ({ params: id(ref), json: { reason } }),
  }),

  // -- the service itself -------------------------------------------------------------------
  whoami: op<void, WhoAmI>()({
    name: 'whoami',
    method: 'GET',
    path: '/whoami',
    status: 200,
    resource: 'meta',
    what: 'whoami',
    backend: null,
    encode: () => ({}),
  }),
  openapi: op<void, unknown>()({
    name: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    status: 200,
    resource: 'meta',
    what: 'the OpenAPI document',
    backend: null,
    encode: () => ({}),
  }),
  getOperation: op<void, AsyncOperation>()({
    name: 'getOperation',
    method: 'GET',
    path: '/operations/{id}',
    status: 200,
    resource: 'operations',
    what: 'operations',
    errors: ['NOT_FOUND'],
    backend: null,
    encode: (operationId: string) => ({ params: id(operationId) }),
  }),
  // What is on record for one of the client's Idempotency-Keys (or, with `operation` naming a
  // store-wide one, the store's key as that operation is sent with it): asked by the CLI before
  // a question, so that a rerun the key answers with an earlier answer asks nothing about acting.
  listIdempotencyKeys: op<{ key: string; operation?: string }, { data: IdempotencyRecord[] }>()({
    name: 'listIdempotencyKeys',
    method: 'GET',
    path: '/idempotency-keys',
    status: 200,
    resource: 'meta',
    what: 'idempotency records',
    query: 'all',
    // The store's keys (operation=advanceClock, seedBank) to an operator key only.
    errors: ['FORBIDDEN'],
    backend: 'idempotencyRecord',
    encode: (key: string, operation?: KeyedOperation) => ({ query: { key, operation: operation?.name } }),
  }),

  // -- the simulation: the virtual clock and the simulated bank ---------------------------------
  // Reading the clock is open to every key (a client needs the date to know which periods are
  // open); moving it, and the simulated bank, act on the whole store: operator keys only.
  getClock: op<void, ClockState>()({
    name: 'getClock',
    method: 'GET',
    path: '/clock',
    status: 200,
    resource: 'clock',
    what: 'the virtual clock',
    simulation: true,
    backend: 'getClock',
    encode: () => ({}),
  }),
  setClock: op<{ date: IsoDate }, ClockState>()({
    name: 'setClock',
    method: 'PUT',
    path: '/clock',
    status: 200,
    resource: 'clock',
    what: 'setting the virtual clock',
    role: 'operator',
    simulation: true,
    storeWide: true,
    errors: ['CLOCK_LOCKED', 'CLOCK_BACKWARDS'],
    backend: 'setClock',
    encode: (date: IsoDate) => ({ json: { date } }),
  }),
  previewAdvance: op<AdvanceTarget, AdvancePreview>()({
    name: 'previewAdvance',
    method: 'GET',
    path: '/clock/preview',
    status: 200,
    resource: 'clock',
    what: 'advance previews',
    query: 'all',
    role: 'operator',
    simulation: true,
    errors: ['CLOCK_BACKWARDS'],
    backend: 'previewAdvance',
    encode: (target: AdvanceTarget) => ({ query: { days: target.days, to: target.to, to_month_end: target.to_month_end } }),
  }),
  advanceClock: op<AdvanceTarget, AdvanceResult>()({
    name: 'advanceClock',
    method: 'POST',
    path: '/clock/advance',
    status: 200,
    resource: 'clock',
    what: 'advancing the virtual clock',
    async: true,
    role: 'operator',
    simulation: true,
    storeWide: true,
    commitsInParts: true,
    // safe_close (sent by an unattended CLI) asks the store to refuse an unsafe close: a cron job's
    // advance under a key and the same advance rerun by hand under it are one request.
    notIdentity: ['safe_close'],
    // CONFLICT: another advance took the store over, judging this one abandoned.
    errors: ['CLOCK_BACKWARDS', 'CONFLICT'],
    backend: 'advanceClock',
    encode: (target: AdvanceTarget, _options?: AdvanceOptions) => ({ json: target }),
  }),
  seedBank: op<{ seed: number }, ClockState>()({
    name: 'seedBank',
    method: 'POST',
    path: '/bank/seed',
    status: 200,
    resource: 'bank',
    what: 'the simulated bank',
    role: 'operator',
    simulation: true,
    storeWide: true,
    errors: ['SEED_LOCKED'],
    backend: 'seedBank',
    encode: (seed: number) => ({ json: { seed } }),
  }),
  importBankTransactions: op<Upload, BankImportResult>()({
    name: 'importBankTransactions',
    method: 'POST',
    path: '/bank/import',
    status: 200,
    resource: 'bank',
    what: 'the simulated bank',
    body: 'upload',
    async: true,
    role: 'operator',
    simulation: true,
    errors: ['INVALID_FILE'],
    backend: 'importBankTransactions',
    encode: (file: Upload, _options?: ImportOptions) => ({ upload: file }),
  }),
  showBankAccount: op<void, BankAccountView>()({
    name: 'showBankAccount',
    method: 'GET',
    path: '/bank/accounts/{customer_id}',
    status: 200,
    resource: 'bank',
    what: 'the simulated bank',
    role: 'operator',
    simulation: true,
    errors: ['NOT_FOUND'],
    backend: 'showBankAccount',
    encode: (customerId: string) => ({ params: { customer_id: customerId } }),
  }),
} as const;

export type Operations = typeof OPERATIONS;
export type OperationName = keyof Operations;

/** Every row, in the table's order. */
export const OPERATION_LIST: readonly AnyOperation[] = Object.values(OPERATIONS);

/** The names of a resource's operations. */
export type OperationsOf<R extends Resource> = { [N in OperationName]: Operations[N]['resource'] extends R ? N : never }[OperationName];

/** The codes every operation of this kind may answer besides its own (see the header). */
export function impliedErrors(row: AnyOperation): ErrorCode[] {
  const codes: ErrorCode[] = ['VALIDATION_ERROR', 'UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL', 'STORE_BUSY'];
  if (row.body !== 'none') codes.push('PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  if (row.idempotent) codes.push('IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED');
  if (row.role === 'operator') codes.push('FORBIDDEN');
  if (row.simulation) codes.push('NOT_FOUND');
  return codes;
}

/**
 * Whether a 404 on this row can only mean the route itself is missing: no resource is named in
 * its path and it answers NOT_FOUND for nothing of its own (the remote client then says "this
 * server does not offer …" instead of "not found").
 */
export function idless(row: AnyOperation): boolean {
  return !row.path.includes('{') && !row.errors.includes('NOT_FOUND');
}
