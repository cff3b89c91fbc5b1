/**
 * The Backend over HTTP: every operation is one request to the /v1 API of a premia service (or
 * of any service that implements the spec). The spec's own operations use only the spec's
 * endpoints and fields, so they work against any such server when given ids; premia's
 * extensions (lookups by number, lists, explanations, the clock and the bank) say plainly when
 * the server does not offer them (NOT_SUPPORTED, exit 1).
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
  ImportOptions,
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
  Target,
  Upload,
} from '../types.js';
import type { IsoDate, Period } from '../../domain/period.js';
import { PremiaError } from '../../domain/errors.js';
import { maskKey, notSupported, remoteError, type RouteInfo } from './errors.js';
import { HttpClient, PROBE_ID, type Call, type HttpOptions, type RawAnswer } from './http.js';

export { parseBaseUrl } from './http.js';

export interface RemoteBackendOptions extends HttpOptions {
  /** The profile the URL or key came from (shown by whoami). */
  profile?: string | null;
}

export function openRemoteBackend(options: RemoteBackendOptions): RemoteBackend {
  return new RemoteBackend(options);
}


const seg = (s: string) => encodeURIComponent(s);

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
  return new PremiaError(
    'REMOTE_ERROR',
    `The base URL ${baseUrl} does not lead to the API: ${why}. Check the base URL: it includes the version, e.g. http://host:8080/v1.`,
    { requestId: answer.requestId ?? undefined },
  );
}

const SPEC = (what: string, extra: Partial<RouteInfo> = {}): RouteInfo => ({ what, extension: false, ...extra });
const EXT = (what: string, extra: Partial<RouteInfo> = {}): RouteInfo => ({ what, extension: true, ...extra });

export class RemoteBackend implements Backend {
  readonly mode = 'remote' as const;
  private readonly http: HttpClient;

  constructor(private readonly options: RemoteBackendOptions) {
    this.http = new HttpClient(options);
  }

  private json<T>(call: Call): Promise<T> {
    return this.http.json<T>(call);
  }

  /**
   * Before sending an extension field to a spec route (which another server might silently
   * ignore), make sure the service is premia: its answers carry the marker header.
   */
  private async requirePremia(what: string): Promise<void> {
    if (this.http.premiaVersion === undefined) {
      try {
        await this.json({ method: 'GET', path: '/whoami', route: EXT('whoami (GET /whoami)', { idless: true }) });
      } catch (e) {
        if (!(e instanceof PremiaError) || e.code !== 'NOT_SUPPORTED') throw e;
      }
    }
    if (!this.http.premiaVersion) throw notSupported(what, null);
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
    const whoamiRoute = EXT('whoami (GET /whoami)', { idless: true });
    const who = await this.http.probe({ method: 'GET', path: '/whoami', route: whoamiRoute });
    if (who.status >= 200 && who.status < 300 && who.premia) {
      const body = parseObject(who.text);
      if (!body) throw remoteError(`GET ${this.path('/whoami')} answered ${who.status} with ${who.contentType || 'no content type'} that is not a JSON object; is something other than the service answering at ${this.options.baseUrl}?`, who.requestId);
      client = typeof body.client === 'string' ? body.client : null;
    } else if (who.status === 401) {
      throw this.http.failure({ method: 'GET', path: '/whoami', route: whoamiRoute }, who, who.text);
    } else if (who.premia && (who.status === 404 || who.status === 405)) {
      throw (await this.http.missingVersionHint()) ?? wrongUrl(this.options.baseUrl, `it is a premia service (X-Premia-Version ${who.premia}), but it has no GET ${this.path('/whoami')}`, who);
    } else if (who.status >= 300 && who.status < 400) {
      throw this.http.failure({ method: 'GET', path: '/whoami', route: whoamiRoute }, who, who.text);
    } else if (who.status >= 500 && who.status !== 501) {
      throw this.http.failure({ method: 'GET', path: '/whoami', route: whoamiRoute }, who, who.text);
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
    const call: Call = { method: 'GET', path: `/collections/${PROBE_ID}`, route: SPEC('a collection (GET /collections/{id})') };
    const withKey = await this.http.probe(call);
    if (withKey.status === 401 || (withKey.status >= 300 && withKey.status < 400) || (withKey.status >= 500 && withKey.status !== 501)) {
      throw this.http.failure(call, withKey, withKey.text);
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

  createPolicy(input: PolicyInput): Promise<Policy> {
    return this.json({
      method: 'POST',
      path: '/policies',
      json: input,
      route: SPEC('creating a policy (POST /policies)', {
        verify: `Check whether policy ${input.policy_number} exists at the service (a second create may be refused as a duplicate or make a second policy)`,
      }),
    });
  }

  importPolicies(file: Upload, options?: ImportOptions): Promise<ImportResult> {
    return this.json({
      method: 'POST',
      path: '/policies/import',
      upload: { file, onProgress: options?.onProgress },
      signal: options?.signal,
      follow: {},
      route: SPEC('the policy import (POST /policies/import)', {
        verify: `Check which policies of ${file.name} exist at the service (an import sent twice may be refused as duplicates or make every policy twice)`,
      }),
    });
  }

  updatePolicy(ref: string, patch: PolicyPatch): Promise<Policy> {
    return this.json({
      method: 'PATCH',
      path: `/policies/${seg(ref)}`,
      json: patch,
      route: SPEC('updating a policy (PATCH /policies/{id})', {
        ref: { noun: 'policy', value: ref },
        item: { noun: 'policy', value: ref },
        verify: `Check policy ${ref} at the service (its amount and status)`,
      }),
    });
  }

  async previewCancellation(ref: string): Promise<CancellationPreview> {
    // Under a spec path: never sent to another server, which could read 'cancel-preview' its own way.
    await this.requirePremia('cancellation previews (GET /policies/{id}/cancel-preview)');
    return this.json({
      method: 'GET',
      path: `/policies/${seg(ref)}/cancel-preview`,
      route: EXT('cancellation previews (GET /policies/{id}/cancel-preview)', { item: { noun: 'policy', value: ref } }),
    });
  }

  getPolicy(ref: string): Promise<PolicyDetail> {
    return this.json({ method: 'GET', path: `/policies/${seg(ref)}`, route: EXT('reading a policy (GET /policies/{id})') });
  }

  listPolicies(query: PolicyListQuery): Promise<Page<Policy>> {
    return this.json({
      method: 'GET',
      path: '/policies',
      query: { status: query.status, limit: query.limit, after: query.after },
      route: EXT('policy lists (GET /policies)', { idless: true }),
    });
  }

  // -- the clock and the bank (simulation extensions) ---------------------------------------

  getClock(): Promise<ClockState> {
    return this.json({ method: 'GET', path: '/clock', route: EXT('the virtual clock (GET /clock)', { idless: true }) });
  }

  setClock(date: IsoDate): Promise<ClockState> {
    return this.json({ method: 'PUT', path: '/clock', json: { date }, route: EXT('setting the virtual clock (PUT /clock)', { idless: true }) });
  }

  async advanceClock(target: AdvanceTarget, options?: AdvanceOptions): Promise<AdvanceResult> {
    // A long advance is answered 202 and followed: its days are told as the service lives them.
    let told = 0;
    const tell = (days: DaySummary[], total: number) => {
      for (; told < days.length; told++) options?.onDay?.(days[told]!, told + 1, total);
    };
    const result = await this.json<AdvanceResult>({
      method: 'POST',
      path: '/clock/advance',
      json: target,
      route: EXT('advancing the virtual clock (POST /clock/advance)', { idless: true }),
      signal: options?.signal,
      follow: { onProgress: (op) => tell((op.days ?? []) as DaySummary[], op.progress?.total ?? 0) },
    });
    tell(result.days, result.days.length);
    return result;
  }

  previewAdvance(target: AdvanceTarget): Promise<AdvancePreview> {
    return this.json({
      method: 'GET',
      path: '/clock/preview',
      query: { days: target.days, to: target.to, to_month_end: target.to_month_end },
      route: EXT('advance previews (GET /clock/preview)', { idless: true }),
    });
  }

  seedBank(seed: number): Promise<ClockState> {
    return this.json({ method: 'POST', path: '/bank/seed', json: { seed }, route: EXT('the simulated bank (POST /bank/seed)', { idless: true }) });
  }

  importBankTransactions(file: Upload, options?: ImportOptions): Promise<BankImportResult> {
    return this.json({
      method: 'POST',
      path: '/bank/import',
      upload: { file, onProgress: options?.onProgress },
      signal: options?.signal,
      follow: {},
      route: EXT('the simulated bank (POST /bank/import)', { idless: true }),
    });
  }

  showBankAccount(customerId: string): Promise<BankAccountView> {
    return this.json({ method: 'GET', path: `/bank/accounts/${seg(customerId)}`, route: EXT('the simulated bank (GET /bank/accounts/{customer_id})') });
  }

  // -- collections (spec 4.4, 4.5; the rest are extensions) ---------------------------------

  async executeCollections(input: ExecuteInput): Promise<ExecutionAccepted> {
    if (input.strategy !== undefined) await this.requirePremia('collection strategies (--strategy)');
    const body: Record<string, unknown> = { period_month: input.period_month };
    if (input.policy_ids !== undefined) body.policy_ids = input.policy_ids;
    if (input.strategy !== undefined) body.strategy = input.strategy;
    return this.json({
      method: 'POST',
      path: '/collections/execute',
      json: body,
      route: SPEC('the collections run (POST /collections/execute)', {
        verify: `Check whether the ${input.period_month} run was queued (premia reports collections --period ${input.period_month})`,
      }),
    });
  }

  getCollection(id: string): Promise<Collection> {
    return this.json({ method: 'GET', path: `/collections/${seg(id)}`, route: SPEC('a collection (GET /collections/{id})', { item: { noun: 'collection', value: id } }) });
  }

  listCollections(query: CollectionListQuery): Promise<Page<Collection>> {
    return this.json({
      method: 'GET',
      path: '/collections',
      query: { period_month: query.period_month, status: query.status, policy: query.policy, limit: query.limit, after: query.after },
      route: EXT('collection lists (GET /collections)'),
    });
  }

  exportAttempts(period: Period, format: ReportFormat): Promise<Download> {
    return this.http.download(
      {
        method: 'GET',
        path: '/reports/attempts',
        query: { period_month: period, format },
        route: EXT('the attempts export (GET /reports/attempts)', { idless: true }),
      },
      format,
      `attempts-${period}.${format}`,
    );
  }

  explainCollection(id: string): Promise<Explanation> {
    return this.json({ method: 'GET', path: `/collections/${seg(id)}/explain`, route: EXT('collection explanations (GET /collections/{id}/explain)') });
  }

  getExecution(id: string): Promise<Execution> {
    return this.json({ method: 'GET', path: `/executions/${seg(id)}`, route: EXT('execution status (GET /executions/{id})') });
  }

  // -- reports (spec 4.6) ----------------------------------------------------------------

  collectionsReport(period: Period, format: ReportFormat): Promise<Download> {
    return this.http.download(
      { method: 'GET', path: '/reports/collections', query: { period_month: period, format }, route: SPEC('the collections report (GET /reports/collections)') },
      format,
      `collections-${period}.${format}`,
    );
  }

  // -- settlements (spec 4.7–4.9; list, mark-paid and dispute are extensions) ---------------

  createSettlement(period: Period): Promise<Settlement> {
    return this.json({
      method: 'POST',
      path: '/settlements',
      json: { period_month: period },
      route: SPEC('settlements (POST /settlements)', { verify: `Check whether a settlement for ${period} exists at the service` }),
    });
  }

  async previewSettlement(period: Period): Promise<SettlementPreview> {
    await this.requirePremia('settlement previews (GET /settlements/preview)');
    return this.json({
      method: 'GET',
      path: '/settlements/preview',
      query: { period_month: period },
      route: EXT('settlement previews (GET /settlements/preview)', { idless: true }),
    });
  }

  getSettlement(ref: string): Promise<Settlement> {
    return this.json({
      method: 'GET',
      path: `/settlements/${seg(ref)}`,
      route: SPEC('a settlement (GET /settlements/{id})', { ref: { noun: 'settlement', value: ref }, item: { noun: 'settlement', value: ref } }),
    });
  }

  async exportSettlement(ref: string, options?: { lines?: boolean }): Promise<Download> {
    const lines = options?.lines === true;
    // Another server would ignore ?lines=true and send the plain statement: ask first.
    if (lines) await this.requirePremia('settlement lines (export --lines)');
    return this.http.download(
      {
        method: 'GET',
        path: `/settlements/${seg(ref)}/export`,
        query: lines ? { lines: 'true' } : undefined,
        route: SPEC('the settlement export (GET /settlements/{id}/export)', { ref: { noun: 'settlement', value: ref }, item: { noun: 'settlement', value: ref } }),
      },
      'csv',
      lines ? `${ref}-lines.csv` : `${ref}.csv`,
    );
  }

  listSettlements(query: SettlementListQuery): Promise<Page<Settlement>> {
    return this.json({
      method: 'GET',
      path: '/settlements',
      query: { status: query.status, period_month: query.period_month },
      route: EXT('settlement lists (GET /settlements)', { idless: true }),
    });
  }

  markSettlementPaid(ref: string, options?: { reference?: string }): Promise<Settlement> {
    return this.json({
      method: 'POST',
      path: `/settlements/${seg(ref)}/mark-paid`,
      json: options?.reference === undefined ? {} : { reference: options.reference },
      route: EXT('recording payments (POST /settlements/{id}/mark-paid)'),
    });
  }

  disputeSettlement(ref: string, reason: string): Promise<Settlement> {
    return this.json({
      method: 'POST',
      path: `/settlements/${seg(ref)}/dispute`,
      json: { reason },
      route: EXT('disputes (POST /settlements/{id}/dispute)'),
    });
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
