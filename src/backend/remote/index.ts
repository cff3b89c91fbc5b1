/**
 * The Backend over HTTP: every operation is one request to the /v1 API of a premia service (or
 * of any service that implements the spec), built from its row of the operations table
 * (backend/operations.ts: method, path, success status, Idempotency-Key, Prefer). The spec's own
 * operations use only the spec's endpoints and fields, so they work against any such server
 * when given ids; premia's extensions (lookups by number, lists, explanations, the clock and the
 * bank) say plainly when the server does not offer them (NOT_SUPPORTED, exit 1).
 */
import type {
  AdvanceOptions,
  AdvancePreview,
  AdvanceResult,
  AdvanceTarget,
  Backend,
  BankAccountView,
  BankImportResult,
  CancellationPreview,
  ClockState,
  Collection,
  DaySummary,
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
  ReplayedWrite,
  ReportFormat,
  Settlement,
  SettlementListQuery,
  SettlementPreview,
  Target,
  Upload,
} from '../types.js';
import { REPORT_COLUMNS, SETTLEMENT_EXPORT_COLUMNS } from '../types.js';
import type { IsoDate, Period } from '../../domain/period.js';
import { PremiaError } from '../../domain/errors.js';
import { stringifyJson } from '../../domain/json.js';
import { OPERATIONS, type AnyOperation, type ArgsOf } from '../operations.js';
import { buildRequest } from '../wire.js';
import { maskKey, notSupported, remoteError, wrongBaseUrl, type RouteInfo } from './errors.js';
import { HttpClient, PROBE_ID, refusalAnswer, type Call, type HttpOptions, type RawAnswer } from './http.js';


export interface RemoteBackendOptions extends HttpOptions {
  /** The profile the URL or key came from (shown by whoami). */
  profile?: string | null;
}

export function openRemoteBackend(options: RemoteBackendOptions): RemoteBackend {
  return new RemoteBackend(options);
}


/** An answer's JSON object (null for anything else: an array, a string, nothing). */
const objectOf = (answer: unknown): Record<string, unknown> | null =>
  answer !== null && typeof answer === 'object' && !Array.isArray(answer) ? (answer as Record<string, unknown>) : null;

/** A count of an import result: a whole number, 0 or more. */
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * The import's answer as the spec gives it (imported, failed, errors), from a server that may
 * leave `errors` out, send null or one string: those are read as no errors or that one. Counts
 * that are not there (a job id, another shape) are a REMOTE_ERROR saying the import's outcome is
 * unknown, never "Imported undefined policies" or a crash after the import took place.
 */
function importResultOf(answer: unknown, verify: string): ImportResult {
  const body = objectOf(answer);
  if (body === null || !isCount(body.imported) || !isCount(body.failed)) {
    const shown = stringifyJson(answer).slice(0, 200);
    throw new PremiaError(
      'REMOTE_ERROR',
      `The service answered the import with ${shown}, which is not an import result (imported, failed, errors): premia cannot tell what was imported. ${verify}.`,
    );
  }
  const errors = body.errors;
  const list = errors === undefined || errors === null ? [] : Array.isArray(errors) ? errors : [errors];
  return { ...(body as unknown as ImportResult), errors: list as ImportResult['errors'] };
}

/** An import result whose rows failed, some or all (a refusal that carries one). */
function failedRows(answer: unknown): boolean {
  const body = objectOf(answer) ?? {};
  return isCount(body.imported) && isCount(body.failed) && body.failed > 0;
}

/** What a field of a write's answer must be for premia to print it or rely on it. */
type FieldKind = 'string' | 'id' | 'amount' | 'count';

const KIND_WORDS: Record<FieldKind, string> = { string: 'a string', id: 'a string', amount: 'an amount', count: 'a whole number' };

function fieldIs(value: unknown, kind: FieldKind): boolean {
  if (kind === 'string') return typeof value === 'string';
  // An id: the spec's string, or another server's numeric key (read as its digits, below).
  if (kind === 'id') return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0);
  // Amounts arrive as cents (moneyToCents): a whole number of cents, which may be negative.
  if (kind === 'amount') return typeof value === 'number' && Number.isSafeInteger(value);
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * A write's answer, checked for the fields premia prints or relies on before it says the write
 * was done: an answer without them (another shape, a job id, a partial object) is a REMOTE_ERROR
 * naming what it lacks and what to check, never "Created policy undefined." with exit 0. Extra
 * fields, and fields the spec leaves optional, are accepted as they come.
 */
function checkedAnswer<T>(answer: unknown, what: string, fields: Record<string, FieldKind>, verify: string, read = false): T {
  const body = objectOf(answer) ?? {};
  const lacking = Object.entries(fields)
    .filter(([name, kind]) => !fieldIs(body[name], kind))
    .map(([name, kind]) => (body[name] === undefined || body[name] === null ? name : `${name} as ${KIND_WORDS[kind]}`));
  if (lacking.length > 0) {
    const had = Object.keys(body);
    throw new PremiaError(
      'REMOTE_ERROR',
      `The service's answer to ${what} lacks ${lacking.join(', ')} (its fields: ${had.length > 0 ? had.slice(0, 20).join(', ') : 'none'}): ` +
        (read ? `it is not an answer premia understands (${verify}).` : `premia cannot tell what was done. ${verify}.`),
    );
  }
  // A numeric id is taken as the text it is sent back as (`policies update 17`): refused, the
  // write was done all the same and said not to be, and a retry could make it twice.
  for (const [name, kind] of Object.entries(fields)) if (kind === 'id' && typeof body[name] === 'number') body[name] = String(body[name]);
  return answer as T;
}

/** What a part of an extension's answer must be for premia to read it at all. */
type PartKind = 'list' | 'object';

/**
 * An answer to one of premia's own reads (a list, an explanation, an account), checked for the
 * parts premia walks through before printing: without them (another server's shape, a proxy's
 * `{}`) it is a REMOTE_ERROR saying so, not an internal error ("rows is not iterable").
 */
function shapedAnswer<T>(answer: unknown, what: string, parts: Record<string, PartKind>, baseUrl: string): T {
  const body = objectOf(answer);
  const lacking = Object.entries(parts)
    .filter(([name, kind]) => {
      const v = body?.[name];
      return kind === 'list' ? !Array.isArray(v) : !(v !== null && typeof v === 'object' && !Array.isArray(v));
    })
    .map(([name, kind]) => (body?.[name] === undefined || body[name] === null ? name : `${name} as ${kind === 'list' ? 'a list' : 'an object'}`));
  if (lacking.length > 0) {
    const had = body ? Object.keys(body) : [];
    throw new PremiaError(
      'REMOTE_ERROR',
      `The service's answer to ${what} lacks ${lacking.join(', ')} (${body ? `its fields: ${had.length > 0 ? had.slice(0, 20).join(', ') : 'none'}` : 'it is not a JSON object'}), ` +
        `so it is not an answer premia understands: is something other than a premia service answering at ${baseUrl}?`,
    );
  }
  return answer as T;
}

/** The fields of a statement premia prints after writing one (id is left out: the spec does not show it on create). */
const SETTLEMENT_FIELDS: Record<string, FieldKind> = {
  settlement_number: 'string',
  period_month: 'string',
  total_collections: 'amount',
  distribution_fee: 'amount',
  collections_fee: 'amount',
  total_fees: 'amount',
  vat: 'amount',
  net_amount: 'amount',
  payment_date: 'string',
  status: 'string',
};

/**
 * Where the spec puts money in the answers of its routes (sections 2 and 4; a statement's
 * previously_paid is premia's, read as money wherever it comes): another server's top-level
 * field of a money field's name elsewhere (`due: "2026-11-30"`, `debits: 2`) is its own, kept
 * as it came (Call.money).
 */
const POLICY_MONEY = ['collection_amount'] as const;
const COLLECTION_MONEY = ['collection_amount_due', 'collection_amount_collected', 'shortfall'] as const;
const STATEMENT_MONEY = ['total_collections', 'distribution_fee', 'collections_fee', 'total_fees', 'vat', 'net_amount', 'previously_paid'] as const;

/** The core of a collection (spec 2.2) premia shows: its status and amounts. */
const COLLECTION_FIELDS: Record<string, FieldKind> = { collection_status: 'string', collection_amount_due: 'amount', collection_amount_collected: 'amount' };

/** What to check after a write to settlement `ref` whose answer was not understood. */
const settlementVerify = (ref: string) => `Check settlement ${ref} at the service (premia settlements get ${ref})`;

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The base URL does not lead to the API (exit 1): nothing is saved, nothing is believed. */
function wrongUrl(baseUrl: string, why: string, answer: RawAnswer): PremiaError {
  return wrongBaseUrl(baseUrl, why, answer.requestId);
}

/** What a call adds to its row: how to read a 404 (the resource it names), what to check when a write's outcome is unknown. */
type Extras = Pick<RouteInfo, 'ref' | 'item' | 'verify'> & Pick<Call, 'signal' | 'follow' | 'money' | 'idFromLocation'>;

/** The call of `row`'s backend method with these arguments: the request its row builds. */
export function callOf<O extends AnyOperation>(row: O, args: ArgsOf<O>, extras: Extras = {}): Call {
  const request = buildRequest(row, ...(args as unknown[]));
  const { signal, follow, money, idFromLocation, ...route } = extras;
  const call: Call = {
    method: request.method,
    path: request.path,
    status: request.status,
    idempotencyKey: request.idempotencyKey,
    prefer: request.prefer,
    route: { ...request.route, ...route },
  };
  if (request.idempotencyKey) call.operation = row.name;
  if (request.query !== undefined) call.query = request.query;
  if (request.json !== undefined) call.json = request.json;
  if (signal !== undefined) call.signal = signal;
  if (follow !== undefined) call.follow = follow;
  if (money !== undefined) call.money = money;
  if (idFromLocation !== undefined) call.idFromLocation = idFromLocation;
  return call;
}

export class RemoteBackend implements Backend {
  readonly mode = 'remote' as const;

  servedByPremia(): boolean {
    return Boolean(this.http.premiaVersion);
  }

  replayedWrites(): readonly ReplayedWrite[] {
    return this.http.replayedWrites();
  }
  private readonly http: HttpClient;

  constructor(private readonly options: RemoteBackendOptions) {
    this.http = new HttpClient(options);
  }

  private json<T>(call: Call): Promise<T> {
    return this.http.json<T>(call);
  }
  /** A write's answer, checked for the fields premia prints or relies on (checkedAnswer). */
  private async checkedJson<T>(call: Call, what: string, fields: Record<string, FieldKind>, verify: string): Promise<T> {
    return checkedAnswer<T>(await this.json<unknown>(call), what, fields, verify);
  }


  /** One of premia's own reads, checked for the parts premia walks through (shapedAnswer). */
  private async shapedJson<T>(call: Call, parts: Record<string, PartKind>): Promise<T> {
    const base = new URL(this.options.baseUrl).pathname.replace(/\/+$/, '');
    return shapedAnswer<T>(await this.json<unknown>(call), `${call.method} ${base}${call.path}`, parts, this.options.baseUrl);
  }

  /**
   * Before sending an extension field to a spec route (which another server might silently
   * ignore), make sure the service is premia: its answers carry the marker header.
   */
  private async requirePremia(what: string): Promise<void> {
    if (this.http.premiaVersion === undefined) {
      try {
        await this.json(callOf(OPERATIONS.whoami, []));
      } catch (e) {
        if (!(e instanceof PremiaError) || e.code !== 'NOT_SUPPORTED') throw e;
      }
    }
    if (!this.http.premiaVersion) throw notSupported(what, null);
  }

  /** "<what> (METHOD /path)" of a row, as messages name it. */
  private static named(row: AnyOperation): string {
    return `${row.what} (${row.method} ${row.path})`;
  }

  /**
   * Who the key acts for, proving the key and the base URL: login and whoami must not accept a
   * wrong one of either.
   *
   * GET /whoami (premia's extension) answers on a premia service. A 404 there that carries
   * premia's marker means the URL is wrong (a premia service always has /whoami). Without
   * /whoami (another server), GET /collections/{id} with an id that cannot exist proves it: 401
   * is a refused key; any other answer is then checked by sending the same request without a
   * key: a server that implements the spec answers that with 401 (spec section 5), while at a
   * wrong URL nothing checks keys, so the answer does not change. Only then is the key taken as
   * accepted.
   */
  async describe(): Promise<Target> {
    let client: string | null = null;
    const whoami = callOf(OPERATIONS.whoami, []);
    const who = await this.http.probe(whoami);
    if (who.status >= 200 && who.status < 300 && who.premia) {
      const body = parseObject(who.text);
      if (!body) throw remoteError(`GET ${this.path('/whoami')} answered ${who.status} with ${who.contentType || 'no content type'} that is not a JSON object; is something other than the service answering at ${this.options.baseUrl}?`, who.requestId);
      client = typeof body.client === 'string' ? body.client : null;
    } else if (who.status === 401) {
      throw this.http.failure(whoami, who, who.text, who.attempts);
    } else if (who.premia && (who.status === 404 || who.status === 405)) {
      throw (await this.http.missingVersionHint()) ?? wrongUrl(this.options.baseUrl, `it is a premia service (X-Premia-Version ${who.premia}), but it has no GET ${this.path('/whoami')}`, who);
    } else if (who.status >= 300 && who.status < 400) {
      throw this.http.failure(whoami, who, who.text, who.attempts);
    } else if (who.status >= 500 && who.status !== 501) {
      throw this.http.failure(whoami, who, who.text, who.attempts);
    } else {
      await this.proveKey();
    }
    return {
      mode: 'remote',
      base_url: this.options.baseUrl,
      profile: this.options.profile ?? null,
      api_key: maskKey(this.options.apiKey.trim()),
      client,
      server_version: this.http.premiaVersion ?? null,
    };
  }

  /** On a server without /whoami: a spec GET of an id that cannot exist, with the key and then without. */
  private async proveKey(): Promise<void> {
    const call = callOf(OPERATIONS.getCollection, [PROBE_ID]);
    const withKey = await this.http.probe(call);
    if (withKey.status === 401 || (withKey.status >= 300 && withKey.status < 400) || (withKey.status >= 500 && withKey.status !== 501)) {
      throw this.http.failure(call, withKey, withKey.text, withKey.attempts);
    }
    const without = await this.http.probe({ ...call, noKey: true });
    if (without.status === 401) return; // the API checks keys here, and it took ours
    throw (await this.http.missingVersionHint()) ?? wrongUrl(
      this.options.baseUrl,
      `GET ${this.path(`/collections/${PROBE_ID}`)} answered HTTP ${withKey.status}${withKey.contentType ? ` with ${withKey.contentType}` : ''} with the API key and HTTP ${without.status} without one, ` +
        'where a service implementing the spec answers 401 to a request without a key',
      withKey,
    );
  }

  private path(p: string): string {
    return `${new URL(this.options.baseUrl).pathname.replace(/\/+$/, '')}${p}`;
  }

  // -- policies (spec 4.1–4.3; get and list are extensions) ---------------------------------

  async createPolicy(input: PolicyInput): Promise<Policy> {
    const verify = `Check whether policy ${input.policy_number} exists at the service (a second create may be refused as a duplicate or make a second policy)`;
    // Spec 4.1: id, policy_number, status, created_at.
    return this.checkedJson(callOf(OPERATIONS.createPolicy, [input], { verify, money: POLICY_MONEY }), 'the policy creation', { id: 'id', policy_number: 'string', status: 'string', created_at: 'string' }, verify);
  }

  async importPolicies(file: Upload, options?: ImportOptions): Promise<ImportResult> {
    const verify = `Check which policies of ${file.name} exist at the service (an import sent twice may be refused as duplicates or make every policy twice)`;
    let answer: unknown;
    try {
      answer = await this.json<unknown>({
        ...callOf(OPERATIONS.importPolicies, [file, options], { signal: options?.signal, follow: {}, verify, money: [] }),
        upload: { file, onProgress: options?.onProgress },
      });
    } catch (e) {
      // Another server may refuse a file with bad rows (400, 422) and still give the import's
      // result: its counts say what was imported (perhaps some rows) and what failed (exit 3).
      const refused = e instanceof PremiaError && [400, 409, 422].includes(e.status) ? refusalAnswer(e) : undefined;
      if (refused === undefined || !failedRows(refused)) throw e;
      answer = refused;
    }
    return importResultOf(answer, verify);
  }

  async updatePolicy(ref: string, patch: PolicyPatch): Promise<Policy> {
    const verify = `Check policy ${ref} at the service (its amount and status)`;
    const call = callOf(OPERATIONS.updatePolicy, [ref, patch], { ref: { noun: 'policy', value: ref }, item: { noun: 'policy', value: ref }, verify, money: POLICY_MONEY });
    // Spec 4.3: id, policy_number, collection_amount, status, updated_at.
    return this.checkedJson(call, 'the policy update', { id: 'id', policy_number: 'string', collection_amount: 'amount', status: 'string', updated_at: 'string' }, verify);
  }

  async updatePolicies(updates: ReadonlyArray<{ ref: string; patch: PolicyPatch }>): Promise<Policy[]> {
    const out: Policy[] = [];
    for (const u of updates) out.push(await this.updatePolicy(u.ref, u.patch));
    return out;
  }

  async previewCancellation(ref: string): Promise<CancellationPreview> {
    // Under a spec path: never sent to another server, which could read 'cancel-preview' its own way.
    await this.requirePremia(RemoteBackend.named(OPERATIONS.previewCancellation));
    return this.json(callOf(OPERATIONS.previewCancellation, [ref], { item: { noun: 'policy', value: ref } }));
  }

  getPolicy(ref: string): Promise<PolicyDetail> {
    return this.json(callOf(OPERATIONS.getPolicy, [ref]));
  }

  listPolicies(query: PolicyListQuery): Promise<Page<Policy>> {
    return this.shapedJson(callOf(OPERATIONS.listPolicies, [query]), { data: 'list' });
  }

  // -- the clock and the bank (simulation extensions) ---------------------------------------

  getClock(): Promise<ClockState> {
    return this.json(callOf(OPERATIONS.getClock, []));
  }

  setClock(date: IsoDate): Promise<ClockState> {
    return this.json(callOf(OPERATIONS.setClock, [date]));
  }

  async advanceClock(target: AdvanceTarget, options?: AdvanceOptions): Promise<AdvanceResult> {
    // A long advance is answered 202 and followed: its days are told as the service lives them.
    let told = 0;
    const tell = (days: DaySummary[], total: number) => {
      for (; told < days.length; told++) options?.onDay?.(days[told]!, told + 1, total);
    };
    const result = await this.json<AdvanceResult>(
      callOf(OPERATIONS.advanceClock, [target, options], {
        signal: options?.signal,
        follow: { onProgress: (op) => tell((op.days ?? []), op.progress?.total ?? 0) },
      }),
    );
    tell(result.days, result.days.length);
    return result;
  }

  previewAdvance(target: AdvanceTarget): Promise<AdvancePreview> {
    return this.json(callOf(OPERATIONS.previewAdvance, [target]));
  }

  seedBank(seed: number): Promise<ClockState> {
    return this.json(callOf(OPERATIONS.seedBank, [seed]));
  }

  importBankTransactions(file: Upload, options?: ImportOptions): Promise<BankImportResult> {
    return this.json({
      ...callOf(OPERATIONS.importBankTransactions, [file, options], { signal: options?.signal, follow: {} }),
      upload: { file, onProgress: options?.onProgress },
    });
  }

  showBankAccount(customerId: string): Promise<BankAccountView> {
    return this.shapedJson(callOf(OPERATIONS.showBankAccount, [customerId]), { income: 'object', recent_transactions: 'list' });
  }

  // -- collections (spec 4.4, 4.5; the rest are extensions) ---------------------------------

  async executeCollections(input: ExecuteInput): Promise<ExecutionAccepted> {
    if (input.strategy !== undefined) await this.requirePremia('collection strategies (--strategy)');
    const verify = `Check whether the ${input.period_month} run was queued (premia reports collections --period ${input.period_month})`;
    // Spec 4.4: execution_id, status, policies_queued.
    return this.checkedJson(callOf(OPERATIONS.executeCollections, [input], { verify, money: [] }), 'the collections run', { execution_id: 'id', status: 'string', policies_queued: 'count' }, verify);
  }

  async getCollection(id: string): Promise<Collection> {
    const call = callOf(OPERATIONS.getCollection, [id], { item: { noun: 'collection', value: id }, money: COLLECTION_MONEY });
    // Spec 4.5: all of 2.2; an answer without a collection's core (wrapped in `data`, `{}`) is not shown as one of dashes.
    return checkedAnswer(await this.json<unknown>(call), `GET ${this.path(call.path)}`, COLLECTION_FIELDS, this.notTheApi(), true);
  }

  listCollections(query: CollectionListQuery): Promise<Page<Collection>> {
    return this.shapedJson(callOf(OPERATIONS.listCollections, [query]), { data: 'list' });
  }

  exportAttempts(period: Period, format: ReportFormat): Promise<Download> {
    return this.http.download(callOf(OPERATIONS.attemptsReport, [period, format]), format, `attempts-${period}.${format}`, { nameHolds: period });
  }

  explainCollection(id: string): Promise<Explanation> {
    return this.shapedJson(callOf(OPERATIONS.explainCollection, [id]), { collection: 'object', income: 'object', plan: 'list', attempts: 'list' });
  }

  getExecution(id: string): Promise<Execution> {
    return this.shapedJson(callOf(OPERATIONS.getExecution, [id]), { counts: 'object' });
  }

  // -- reports (spec 4.6) ----------------------------------------------------------------

  collectionsReport(period: Period, format: ReportFormat): Promise<Download> {
    return this.http.download(callOf(OPERATIONS.collectionsReport, [period, format]), format, `collections-${period}.${format}`, { columns: REPORT_COLUMNS, nameHolds: period, period });
  }

  // -- settlements (spec 4.7–4.9; list, mark-paid and dispute are extensions) ---------------

  async createSettlement(period: Period): Promise<Settlement> {
    const verify = `Check whether a settlement for ${period} exists at the service`;
    // Spec 4.7: the statement's figures and status; whether it carries id is not shown (the
    // Location header of a 201 may give it; without either, a warning says so).
    return this.checkedJson(callOf(OPERATIONS.createSettlement, [period], { verify, money: STATEMENT_MONEY, idFromLocation: true }), 'the settlement creation', SETTLEMENT_FIELDS, verify);
  }

  async previewSettlement(period: Period): Promise<SettlementPreview> {
    await this.requirePremia(RemoteBackend.named(OPERATIONS.previewSettlement));
    return this.json(callOf(OPERATIONS.previewSettlement, [period]));
  }

  async getSettlement(ref: string): Promise<Settlement> {
    const call = callOf(OPERATIONS.getSettlement, [ref], { ref: { noun: 'settlement', value: ref }, item: { noun: 'settlement', value: ref }, money: STATEMENT_MONEY });
    // Spec 4.8: the statement read on the day it is paid; one without its figures is not shown as dashes.
    return checkedAnswer(await this.json<unknown>(call), `GET ${this.path(call.path)}`, SETTLEMENT_FIELDS, this.notTheApi(), true);
  }

  /** What a read's answer premia cannot understand may mean. */
  private notTheApi(): string {
    return `is something other than the service answering at ${this.options.baseUrl}?`;
  }

  async exportSettlement(ref: string, options?: { lines?: boolean }): Promise<Download> {
    const lines = options?.lines === true;
    // Another server would ignore ?lines=true and send the plain statement: ask first.
    if (lines) await this.requirePremia('settlement lines (export --lines)');
    return this.http.download(
      callOf(OPERATIONS.exportSettlement, [ref, options], { ref: { noun: 'settlement', value: ref }, item: { noun: 'settlement', value: ref } }),
      'csv',
      lines ? `${ref}-lines.csv` : `${ref}.csv`,
      lines ? {} : { columns: SETTLEMENT_EXPORT_COLUMNS, dataRows: 1 },
    );
  }

  listSettlements(query: SettlementListQuery): Promise<Page<Settlement>> {
    return this.shapedJson(callOf(OPERATIONS.listSettlements, [query]), { data: 'list' });
  }

  async markSettlementPaid(ref: string, options?: { reference?: string }): Promise<Settlement> {
    const fields: Record<string, FieldKind> = { ...SETTLEMENT_FIELDS, paid_on: 'string', paid_reference: 'string' };
    return this.checkedJson(callOf(OPERATIONS.markSettlementPaid, [ref, options]), 'the payment record', fields, settlementVerify(ref));
  }

  async disputeSettlement(ref: string, reason: string): Promise<Settlement> {
    return this.checkedJson(callOf(OPERATIONS.disputeSettlement, [ref, reason]), 'the dispute', SETTLEMENT_FIELDS, settlementVerify(ref));
  }

  async idempotencyRecord(key: string, operation?: KeyedOperation): Promise<IdempotencyRecord | null> {
    await this.requirePremia(RemoteBackend.named(OPERATIONS.listIdempotencyKeys));
    let page: { data: IdempotencyRecord[] };
    try {
      page = await this.shapedJson<{ data: IdempotencyRecord[] }>(callOf(OPERATIONS.listIdempotencyKeys, [key, operation]), { data: 'list' });
    } catch (e) {
      // A premia service of a version before `operation` (it showed the client's own keys only)
      // cannot say what is on record for the key as this operation sends it: not known.
      if (operation !== undefined && e instanceof PremiaError && (e.details ?? []).some((d) => (d as { field?: unknown }).field === 'operation')) {
        throw new PremiaError('NOT_SUPPORTED', 'This server looks up Idempotency-Keys (GET /idempotency-keys) without an operation: only the client\'s own.');
      }
      throw e;
    }
    return page.data.find((r) => r.key === key) ?? null;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
