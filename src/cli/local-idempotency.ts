/**
 * `--idempotency-key` in local mode. A cron job that reruns a command with the same key must get
 * the same answer in both modes and act only once, so local mode keeps the same records the
 * service keeps (the idempotency table of the store, for the client acted for): a write whose
 * key was used before answers with the stored response (refusals are not stored), a different
 * request with the same key is IDEMPOTENCY_KEY_REUSED. The request identity (method, path, body
 * as it would be sent over HTTP, or the uploaded file's SHA-256) is the service's, so a key used
 * by a local command and by a request to `premia serve` on the same store means the same thing.
 *
 * The records are the local backend's (its admin object), given by context.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type {
  Admin,
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
} from '../backend/types.js';
import { PremiaError } from '../domain/errors.js';
import { requestHash } from '../backend/wire.js';
import { requestKey } from '../domain/idempotency.js';
import { moneyToCents, stringifyJson } from '../domain/json.js';
import type { IsoDate, Period } from '../domain/period.js';

export interface StoredResponse {
  status: number;
  body: string;
}

export interface IdempotencyRecords {
  hash(method: string, path: string, body: unknown, fileSha256?: string): string;
  claim(key: string, hash: string, method: string, path: string): Promise<{ kind: 'claimed' } | { kind: 'replay'; response: StoredResponse }>;
  complete(key: string, status: number, body: string): Promise<boolean>;
  release(key: string): Promise<boolean>;
}

const seg = (s: string) => encodeURIComponent(s);

/** `inner` with its writes done at most once per key of the invocation (`baseKey`, then `baseKey:2`…). */
export function withIdempotency(inner: Backend, baseKey: string, records: Admin['idempotency'], clientId: number, now: () => Date): Backend {
  return new IdempotentBackend(inner, baseKey, {
    hash: requestHash,
    claim: (key, hash, method, path) => records.claim({ clientId, key, hash, method, path, now: now().getTime() }),
    complete: (key, status, body) => records.complete(clientId, key, { status, contentType: 'application/json; charset=utf-8', body }),
    release: (key) => records.release(clientId, key),
  });
}

export class IdempotentBackend implements Backend {
  readonly mode = 'local' as const;
  private writes = 0;

  constructor(
    private readonly inner: Backend,
    private readonly baseKey: string,
    private readonly records: IdempotencyRecords,
  ) {}

  /** Run one write at most once for its key; `wire` is the JSON body the API would receive. */
  private async once<T>(method: string, path: string, status: number, wire: unknown, action: () => Promise<T>, fileSha256?: string): Promise<T> {
    const key = requestKey(this.baseKey, ++this.writes);
    const fullPath = `/v1${path}`;
    const body = fileSha256 !== undefined ? null : (JSON.parse(stringifyJson(wire ?? null)) as unknown);
    const claim = await this.records.claim(key, this.records.hash(method, fullPath, body, fileSha256), method, fullPath);
    if (claim.kind === 'replay') return replay<T>(claim.response);
    let value: T;
    try {
      value = await action();
    } catch (e) {
      // A refusal or failure is not kept, as the service does not keep it: the key stays free, so
      // a cron rerun after the state changed (a period that has closed since) is judged afresh.
      await this.records.release(key).catch(() => false);
      throw e;
    }
    try {
      await this.records.complete(key, status, stringifyJson(value));
    } catch (e) {
      await this.records.release(key).catch(() => false);
      throw e;
    }
    return value;
  }

  /** An upload at most once: identified by its file's SHA-256, read before the import (stdin is spooled). */
  private async onceUpload<T>(path: string, file: Upload, action: (file: Upload) => Promise<T>): Promise<T> {
    if (file.reopen) {
      const sha = await sha256Of(file.reopen());
      return this.once('POST', path, 200, null, () => action(file), sha);
    }
    const spooled = await spool(file);
    try {
      return await this.once('POST', path, 200, null, () => action(spooled.upload), spooled.sha256);
    } finally {
      await spooled.remove();
    }
  }

  describe(): Promise<Target> {
    return this.inner.describe();
  }

  createPolicy(input: PolicyInput): Promise<Policy> {
    return this.once('POST', '/policies', 201, input, () => this.inner.createPolicy(input));
  }

  importPolicies(file: Upload, options?: ImportOptions): Promise<ImportResult> {
    return this.onceUpload('/policies/import', file, (f) => this.inner.importPolicies(f, options));
  }

  updatePolicy(ref: string, patch: PolicyPatch): Promise<Policy> {
    return this.once('PATCH', `/policies/${seg(ref)}`, 200, patch, () => this.inner.updatePolicy(ref, patch));
  }

  previewCancellation(ref: string): Promise<CancellationPreview> {
    return this.inner.previewCancellation(ref);
  }

  getPolicy(ref: string): Promise<PolicyDetail> {
    return this.inner.getPolicy(ref);
  }

  listPolicies(query: PolicyListQuery): Promise<Page<Policy>> {
    return this.inner.listPolicies(query);
  }

  getClock(): Promise<ClockState> {
    return this.inner.getClock();
  }

  setClock(date: IsoDate): Promise<ClockState> {
    return this.inner.setClock(date);
  }

  advanceClock(target: AdvanceTarget, options?: AdvanceOptions): Promise<AdvanceResult> {
    return this.once('POST', '/clock/advance', 200, target, () => this.inner.advanceClock(target, options));
  }

  previewAdvance(target: AdvanceTarget): Promise<AdvancePreview> {
    return this.inner.previewAdvance(target);
  }

  seedBank(seed: number): Promise<ClockState> {
    return this.once('POST', '/bank/seed', 200, { seed }, () => this.inner.seedBank(seed));
  }

  importBankTransactions(file: Upload, options?: ImportOptions): Promise<BankImportResult> {
    return this.onceUpload('/bank/import', file, (f) => this.inner.importBankTransactions(f, options));
  }

  showBankAccount(customerId: string): Promise<BankAccountView> {
    return this.inner.showBankAccount(customerId);
  }

  executeCollections(input: ExecuteInput): Promise<ExecutionAccepted> {
    const wire: Record<string, unknown> = { period_month: input.period_month };
    if (input.policy_ids !== undefined) wire.policy_ids = input.policy_ids;
    if (input.strategy !== undefined) wire.strategy = input.strategy;
    return this.once('POST', '/collections/execute', 202, wire, () => this.inner.executeCollections(input));
  }

  getCollection(id: string): Promise<Collection> {
    return this.inner.getCollection(id);
  }

  listCollections(query: CollectionListQuery): Promise<Page<Collection>> {
    return this.inner.listCollections(query);
  }

  exportAttempts(period: Period, format: ReportFormat): Promise<Download> {
    return this.inner.exportAttempts(period, format);
  }

  explainCollection(id: string): Promise<Explanation> {
    return this.inner.explainCollection(id);
  }

  getExecution(id: string): Promise<Execution> {
    return this.inner.getExecution(id);
  }

  collectionsReport(period: Period, format: ReportFormat): Promise<Download> {
    return this.inner.collectionsReport(period, format);
  }

  createSettlement(period: Period): Promise<Settlement> {
    return this.once('POST', '/settlements', 201, { period_month: period }, () => this.inner.createSettlement(period));
  }

  previewSettlement(period: Period): Promise<SettlementPreview> {
    return this.inner.previewSettlement(period);
  }

  getSettlement(ref: string): Promise<Settlement> {
    return this.inner.getSettlement(ref);
  }

  exportSettlement(ref: string, options?: { lines?: boolean }): Promise<Download> {
    return this.inner.exportSettlement(ref, options);
  }

  listSettlements(query: SettlementListQuery): Promise<Page<Settlement>> {
    return this.inner.listSettlements(query);
  }

  markSettlementPaid(ref: string, options?: { reference?: string }): Promise<Settlement> {
    const wire = options?.reference === undefined ? {} : { reference: options.reference };
    return this.once('POST', `/settlements/${seg(ref)}/mark-paid`, 200, wire, () => this.inner.markSettlementPaid(ref, options));
  }

  disputeSettlement(ref: string, reason: string): Promise<Settlement> {
    return this.once('POST', `/settlements/${seg(ref)}/dispute`, 200, { reason }, () => this.inner.disputeSettlement(ref, reason));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The stored answer again: the value, or the stored refusal as the same error. */
function replay<T>(response: StoredResponse): T {
  const parsed = JSON.parse(response.body) as unknown;
  if (response.status >= 400) {
    const error = (parsed as { error: { code: string; message: string; details?: Record<string, unknown>[] } }).error;
    throw new PremiaError(error.code, error.message, { status: response.status, details: error.details });
  }
  return moneyToCents(parsed) as T;
}

async function sha256Of(stream: AsyncIterable<Uint8Array | string>): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk);
  return hash.digest('hex');
}

/** Copy a one-time stream (stdin) to a private temporary file, hashing it on the way. */
async function spool(file: Upload): Promise<{ upload: Upload; sha256: string; remove: () => Promise<void> }> {
  const path = join(tmpdir(), `premia-stdin-${randomBytes(8).toString('hex')}`);
  const remove = () => rm(path, { force: true });
  const hash = createHash('sha256');
  let size = 0;
  try {
    await pipeline(
      Readable.from(file.stream),
      async function* (source: AsyncIterable<Buffer | string>) {
        for await (const chunk of source) {
          const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
          hash.update(buf);
          size += buf.length;
          yield buf;
        }
      },
      createWriteStream(path, { flags: 'wx', mode: 0o600 }),
    );
  } catch (e) {
    await remove();
    throw e;
  }
  return {
    upload: { name: file.name, size, stream: createReadStream(path), reopen: () => createReadStream(path) },
    sha256: hash.digest('hex'),
    remove,
  };
}
