/**
 * The Backend on the embedded store. Every operation runs inside a transaction of the store;
 * the clock, the bank and the collections engine live here too.
 */
import { PremiaError } from '../../domain/errors.js';
import { firstOpenPeriod, type IsoDate, type Period } from '../../domain/period.js';
import type { PolicyPatchInput } from '../../domain/policy.js';
import { validateClockSetRequest } from '../../domain/requests.js';
import { findClientById } from '../../store/repos/clients.js';
import { cancelPolicyCollections, repriceUnattempted } from '../../store/repos/collections.js';
import { getAllMeta, setMeta } from '../../store/repos/meta.js';
import { latestPolicyChangeDay } from '../../store/repos/policies.js';
import { commitsByOthers, openStore, rowsChanged, watchCommits, type Store } from '../../store/store.js';
import type { LockWaitHooks } from '../../lib/lock-wait.js';
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
  ReplayedWrite,
  ReportFormat,
  Settlement,
  SettlementListQuery,
  SettlementPreview,
  Target,
  Upload,
} from '../types.js';
import { LocalAdmin } from './admin.js';
import { findKeyRecord, STORE_SCOPE } from './idempotency.js';
import type { LocalContext } from './context.js';
import * as bank from './bank.js';
import * as collections from './collections.js';
import { advanceClock, advanceResultFor } from './engine.js';
import { engineOptionsFromEnv } from './memory.js';
import * as policies from './policies.js';
import * as previews from './previews.js';
import { importPolicies } from './policy-import.js';
import * as reports from './reports.js';
import * as settlements from './settlements.js';
import { initWorld, LOCAL_CLIENT_ID, readWorld, refuseWhileAdvancing } from './world.js';

export interface LocalBackendOptions {
  path: string;
  seed?: number;
  now?: () => Date;
  /** The client to act for (default: the local client). */
  clientId?: number;
  /** The bank the engine collects through (default: the simulated bank). */
  bank?: LocalContext['bank'];
  /** Create the store file if it does not exist (default true); false: a missing store is an error. */
  create?: boolean;
  /** See LocalContext.aloneOnThread (the CLI's one command, the server's job thread). */
  aloneOnThread?: boolean;
  /** See OpenStoreOptions.lockWait. */
  lockWait?: LockWaitHooks;
}

/** Open (creating it if needed and allowed) the store at `path` and return a backend on it. */
export async function openLocalBackend(options: LocalBackendOptions): Promise<LocalBackend> {
  const now = options.now ?? (() => new Date());
  const store = await openStore({ path: options.path, create: options.create, lockWait: options.lockWait });
  try {
    await initWorld(store, { realToday: now().toISOString().slice(0, 10), seed: options.seed, create: options.create });
  } catch (e) {
    await store.close();
    throw e;
  }
  const backend = new LocalBackend({ store, clientId: options.clientId ?? LOCAL_CLIENT_ID, now, bank: options.bank, aloneOnThread: options.aloneOnThread }, true);
  backend.rowsAtOpen = rowsChanged(store);
  return backend;
}

/**
 * A watch on a store `openLocalBackend` has just made ready: `untouched()` tells whether it is one
 * this connection made (it wrote the new store's schema: another process that made the file first,
 * two cron jobs starting together, wrote it instead) and nothing has been committed to it since:
 * by any connection from now on (a transaction rolled back, an import stopped by Ctrl-C, is no
 * commit), by any other since the connection opened (a new store a failed command made and nothing
 * else wrote: the CLI removes it). False where it cannot be told. `close()` comes before the
 * backend's.
 */
export function watchNewStore(backend: LocalBackend): { untouched: () => boolean; close: () => void } {
  const watch = watchCommits(backend.store);
  return {
    untouched() {
      const version = commitsByOthers(backend.store);
      const atOpen = backend.store.kind === 'sqlite' ? backend.store.versionAtOpen : null;
      return watch !== null && watch.committed() === false && backend.rowsAtOpen !== null && backend.rowsAtOpen > 0 && version !== null && version === atOpen;
    },
    close: () => watch?.close(),
  };
}

export class LocalBackend implements Backend {
  readonly mode = 'local' as const;

  servedByPremia(): boolean {
    return true;
  }

  /** None: the store's own methods act; a key's replays are --idempotency-key's (cli/local-idempotency.ts) or the server's. */
  replayedWrites(): readonly ReplayedWrite[] {
    return [];
  }
  private adminObject: LocalAdmin | undefined;
  readonly ctx: LocalContext;
  /** Rows changed through the store's connection once it was ready: above 0 when it made the store (watchNewStore). */
  rowsAtOpen: number | null = null;

  constructor(
    ctx: LocalContext,
    /** Whether close() closes the store (false when the server shares one store). */
    private readonly ownsStore: boolean,
  ) {
    // The engine's edge options come from the environment once, here, unless given.
    this.ctx = ctx.engine ? ctx : { ...ctx, engine: engineOptionsFromEnv(process.env) };
  }

  get store(): Store {
    return this.ctx.store;
  }

  /** The operator's functions on this store: keys, clients, settings, idempotency records. */
  get admin(): LocalAdmin {
    this.adminObject ??= new LocalAdmin(this.ctx.store, this.ctx.now, this.ctx.bank !== undefined);
    return this.adminObject;
  }

  /**
   * The same store, acting for another client (the server makes one per request). `now`: another
   * wall clock (the server's job thread stamps with the request's). `ownsStore`: the new backend
   * closes the store, instead of this one (local mode's --as-client). `aloneOnThread`: see
   * LocalContext (as this one when not given).
   */
  forClient(clientId: number, options: { now?: () => Date; ownsStore?: boolean; aloneOnThread?: boolean } = {}): LocalBackend {
    const aloneOnThread = options.aloneOnThread ?? this.ctx.aloneOnThread;
    return new LocalBackend({ ...this.ctx, clientId, now: options.now ?? this.ctx.now, aloneOnThread }, options.ownsStore === true);
  }

  async describe(): Promise<Target> {
    const client = await findClientById(this.store.db, this.ctx.clientId);
    return { mode: 'local', db: this.store.path, client: client?.name ?? null };
  }

  // -- policies ------------------------------------------------------------------------------

  createPolicy(input: PolicyInput): Promise<Policy> {
    return policies.createPolicy(this.ctx, input);
  }

  importPolicies(file: Upload, options?: ImportOptions): Promise<ImportResult> {
    return importPolicies(this.ctx, file, options);
  }

  updatePolicy(ref: string, patch: PolicyPatchInput): Promise<Policy> {
    return policies.updatePolicy(this.ctx, ref, patch, POLICY_HOOKS);
  }

  updatePolicies(updates: ReadonlyArray<{ ref: string; patch: PolicyPatchInput }>): Promise<Policy[]> {
    return policies.updatePolicies(this.ctx, updates, POLICY_HOOKS);
  }

  previewCancellation(ref: string): Promise<CancellationPreview> {
    return previews.previewCancellation(this.ctx, ref);
  }

  getPolicy(ref: string): Promise<PolicyDetail> {
    return policies.getPolicy(this.ctx, ref);
  }

  listPolicies(query: PolicyListQuery): Promise<Page<Policy>> {
    return policies.listPolicies(this.ctx, query);
  }

  // -- clock and bank ------------------------------------------------------------------------

  async getClock(): Promise<ClockState> {
    const world = await readWorld(this.store.db);
    return { date: world.today, locked: world.locked, seed: world.seed };
  }

  async setClock(dateInput: IsoDate): Promise<ClockState> {
    const { date } = validateClockSetRequest({ date: dateInput });
    return this.store.transaction(async (trx) => {
      const world = await readWorld(trx);
      if (world.locked) {
        throw new PremiaError(
          'CLOCK_LOCKED',
          `The clock is at ${world.today} and a collections run exists, so it can no longer be set; ` +
            `move it forward with 'premia clock advance'.`,
        );
      }
      await refuseWhileAdvancing(this.store, trx, await getAllMeta(trx), 'the clock');
      // Before the first run the clock moves freely, but not back past dated policy history: a
      // premium change recorded on a later day would then apply out of order with new ones.
      const last = await latestPolicyChangeDay(trx);
      if (last !== null && date < last) {
        throw new PremiaError(
          'CLOCK_BACKWARDS',
          `Policy changes were recorded on ${last} (premium or status); the clock cannot be set back before that day, or their history would run out of order.`,
        );
      }
      await setMeta(trx, 'clock_date', date);
      return { date, locked: false, seed: world.seed };
    });
  }

  advanceClock(target: AdvanceTarget, options?: AdvanceOptions): Promise<AdvanceResult> {
    return advanceClock(this.ctx, target, options);
  }

  /** A stored advance result (a replayed Idempotency-Key's) with this client's own figures (engine.ts). */
  advanceResultFor(stored: AdvanceResult): Promise<AdvanceResult> {
    return advanceResultFor(this.ctx, stored);
  }

  previewAdvance(target: AdvanceTarget): Promise<AdvancePreview> {
    return previews.previewAdvance(this.ctx, target);
  }

  seedBank(seed: number): Promise<ClockState> {
    return bank.seedBank(this.ctx, seed);
  }

  importBankTransactions(file: Upload, options?: ImportOptions): Promise<BankImportResult> {
    return bank.importBankTransactions(this.ctx, file, options);
  }

  showBankAccount(customerId: string): Promise<BankAccountView> {
    return bank.showBankAccount(this.ctx, customerId);
  }

  // -- collections ---------------------------------------------------------------------------

  executeCollections(input: ExecuteInput): Promise<ExecutionAccepted> {
    return collections.executeCollections(this.ctx, input);
  }

  getCollection(id: string): Promise<Collection> {
    return collections.getCollection(this.ctx, id);
  }

  listCollections(query: CollectionListQuery): Promise<Page<Collection>> {
    return collections.listCollections(this.ctx, query);
  }

  exportAttempts(period: Period, format: ReportFormat): Promise<Download> {
    return collections.exportAttempts(this.ctx, period, format);
  }

  explainCollection(id: string): Promise<Explanation> {
    return collections.explainCollection(this.ctx, id);
  }

  getExecution(id: string): Promise<Execution> {
    return collections.getExecution(this.ctx, id);
  }

  collectionsReport(period: Period, format: ReportFormat): Promise<Download> {
    return reports.collectionsReport(this.ctx, period, format);
  }

  // -- settlements ---------------------------------------------------------------------------

  createSettlement(period: Period): Promise<Settlement> {
    return settlements.createSettlement(this.ctx, period);
  }

  previewSettlement(period: Period): Promise<SettlementPreview> {
    return previews.previewSettlement(this.ctx, period);
  }

  getSettlement(ref: string): Promise<Settlement> {
    return settlements.getSettlement(this.ctx, ref);
  }

  exportSettlement(ref: string, options?: { lines?: boolean }): Promise<Download> {
    return settlements.exportSettlement(this.ctx, ref, options);
  }

  listSettlements(query: SettlementListQuery): Promise<Page<Settlement>> {
    return settlements.listSettlements(this.ctx, query);
  }

  markSettlementPaid(ref: string, options?: { reference?: string }): Promise<Settlement> {
    return settlements.markSettlementPaid(this.ctx, ref, options);
  }

  disputeSettlement(ref: string, reason: string): Promise<Settlement> {
    return settlements.disputeSettlement(this.ctx, ref, reason);
  }

  idempotencyRecord(key: string, operation?: KeyedOperation): Promise<IdempotencyRecord | null> {
    // A store-wide operation's key is the store's (local-idempotency.ts and the server claim it so).
    return findKeyRecord(this.store, operation?.storeWide === true ? STORE_SCOPE : this.ctx.clientId, key, this.ctx.now().getTime());
  }

  async close(): Promise<void> {
    if (this.ownsStore) await this.store.close();
  }
}

/** How open collections follow policy changes. */
const POLICY_HOOKS: policies.PolicyChangeHooks = {
  async onStatusChange(trx, ctx, policy, _from, to, today) {
    if (to !== 'cancelled') return; // lapsed / reinstated policies are skipped / resumed by the engine
    // Attempts stop at once (debits already submitted for later days are skipped by the engine:
    // the collection is CANCELLED); what was collected stays collected.
    await cancelPolicyCollections(trx, ctx.clientId, policy.id, firstOpenPeriod(today));
  },
  async onAmountChange(trx, ctx, policy, effective, amount) {
    // Collections already queued for the periods the new amount applies to, not yet attempted.
    await repriceUnattempted(trx, ctx.clientId, policy.id, effective, amount);
  },
};

/** `premia db copy`: one store copied into another and verified (store/copy.ts). */
export { copyStore } from '../../store/copy.js';
