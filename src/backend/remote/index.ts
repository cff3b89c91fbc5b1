/**
 * The Backend over HTTP: every operation is one request to the /v1 API of a premia service (or
 * of any service that implements the spec). The spec's own operations use only the spec's
 * endpoints and fields, so they work against any such server when given ids; premia's
 * extensions (lookups by number, lists, explanations, the clock and the bank) say plainly when
 * the server does not offer them (NOT_SUPPORTED, exit 1).
 */
import type {
  AdvanceOptions,
  AdvanceResult,
  AdvanceTarget,
  Backend,
  BankAccountView,
  BankImportResult,
  ClockState,
  Collection,
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
  Target,
  Upload,
} from '../types.js';
import type { IsoDate, Period } from '../../domain/period.js';
import { PremiaError } from '../../domain/errors.js';
import { notSupported, type RouteInfo } from './errors.js';
import { HttpClient, type Call, type HttpOptions } from './http.js';

export { parseBaseUrl } from './http.js';

export interface RemoteBackendOptions extends HttpOptions {
  /** The profile the URL or key came from (shown by whoami). */
  profile?: string | null;
}

export function openRemoteBackend(options: RemoteBackendOptions): RemoteBackend {
  return new RemoteBackend(options);
}

/** A placeholder id that no service has: used to prove a key works on a server without /whoami. */
const PROBE_ID = '00000000-0000-4000-8000-000000000000';

const seg = (s: string) => encodeURIComponent(s);

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

  async describe(): Promise<Target> {
    let client: string | null = null;
    try {
      const who = await this.json<{ client?: unknown }>({ method: 'GET', path: '/whoami', route: EXT('whoami (GET /whoami)', { idless: true }) });
      client = typeof who.client === 'string' ? who.client : null;
    } catch (e) {
      if (!(e instanceof PremiaError) || e.code !== 'NOT_SUPPORTED') throw e;
      // No /whoami: a spec GET of an id that cannot exist proves the key (404) or refutes it (401).
      try {
        await this.json({ method: 'GET', path: `/collections/${PROBE_ID}`, route: SPEC('a collection (GET /collections/{id})') });
      } catch (probe) {
        if (!(probe instanceof PremiaError) || probe.code !== 'NOT_FOUND') throw probe;
      }
    }
    return {
      mode: 'remote',
      base_url: this.options.baseUrl,
      profile: this.options.profile ?? null,
      api_key: `…${this.options.apiKey.slice(-4)}`,
      client,
      server_version: this.http.premiaVersion ?? null,
    };
  }

  // -- policies (spec 4.1–4.3; get and list are extensions) ---------------------------------

  createPolicy(input: PolicyInput): Promise<Policy> {
    return this.json({ method: 'POST', path: '/policies', json: input, route: SPEC('creating a policy (POST /policies)') });
  }

  importPolicies(file: Upload, options?: ImportOptions): Promise<ImportResult> {
    return this.json({
      method: 'POST',
      path: '/policies/import',
      upload: { file, onProgress: options?.onProgress },
      route: SPEC('the policy import (POST /policies/import)'),
    });
  }

  updatePolicy(ref: string, patch: PolicyPatch): Promise<Policy> {
    return this.json({
      method: 'PATCH',
      path: `/policies/${seg(ref)}`,
      json: patch,
      route: SPEC('updating a policy (PATCH /policies/{id})', { ref: { noun: 'policy', value: ref } }),
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
    const result = await this.json<AdvanceResult>({
      method: 'POST',
      path: '/clock/advance',
      json: target,
      route: EXT('advancing the virtual clock (POST /clock/advance)', { idless: true }),
    });
    // One answer for the whole advance: report its days afterwards.
    result.days.forEach((day, i) => options?.onDay?.(day, i + 1, result.days.length));
    return result;
  }

  seedBank(seed: number): Promise<ClockState> {
    return this.json({ method: 'POST', path: '/bank/seed', json: { seed }, route: EXT('the simulated bank (POST /bank/seed)', { idless: true }) });
  }

  importBankTransactions(file: Upload, options?: ImportOptions): Promise<BankImportResult> {
    return this.json({
      method: 'POST',
      path: '/bank/import',
      upload: { file, onProgress: options?.onProgress },
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
    return this.json({ method: 'POST', path: '/collections/execute', json: body, route: SPEC('the collections run (POST /collections/execute)') });
  }

  getCollection(id: string): Promise<Collection> {
    return this.json({ method: 'GET', path: `/collections/${seg(id)}`, route: SPEC('a collection (GET /collections/{id})') });
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
    return this.json({ method: 'POST', path: '/settlements', json: { period_month: period }, route: SPEC('settlements (POST /settlements)') });
  }

  getSettlement(ref: string): Promise<Settlement> {
    return this.json({
      method: 'GET',
      path: `/settlements/${seg(ref)}`,
      route: SPEC('a settlement (GET /settlements/{id})', { ref: { noun: 'settlement', value: ref } }),
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
        route: SPEC('the settlement export (GET /settlements/{id}/export)', { ref: { noun: 'settlement', value: ref } }),
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
