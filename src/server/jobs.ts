/**
 * The server's writes, run off the thread that answers requests.
 *
 * SQLite has one writer at a time, and better-sqlite3 waits for the write lock synchronously: a
 * write on the request thread while another connection writes (a clock advance living its days,
 * a 100 MB import) would block every request for as long as that write takes. So every request
 * that changes the store becomes a job — the backend operation, its Idempotency-Key claim and
 * its stored response — and jobs run one at a time on one worker thread with its own connection
 * to the store (job-worker.ts). The request thread keeps only reads, which WAL lets run beside the
 * writer, and so answers other clients while the engine works.
 *
 * The clients take turns: each client's jobs run in the order they came, and a client with jobs
 * waiting goes to the back of the line after each of its jobs. So one client's twenty queued
 * 100 MB imports hold up another client's write by the one running and the next in line, not by
 * twenty (the cron job behind them would time out); with at most one job waiting per client this
 * is arrival order.
 *
 * One queue rather than a thread per job: two writers would only take turns on SQLite's lock
 * (each commit of one making the engine of the other reload its month), and a write waiting for
 * that lock is no faster than a write waiting in the queue.
 *
 * A store that is not a file (:memory:), a backend with a bank of its own, or a server told so
 * (`offload: false`, for tests that substitute backend methods) runs its jobs on the request
 * thread instead, exactly as before.
 */
import { createReadStream } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { workerModule } from '../lib/worker-module.js';
import type { LocalBackend } from '../backend/local/index.js';
import type { AdvanceResult, AdvanceTarget, DaySummary, IdempotencyOwner, Upload } from '../backend/types.js';
import { keyedAdvance } from '../domain/advance.js';
import type { IsoDate } from '../domain/period.js';
import { PremiaError, type ExitCode } from '../domain/errors.js';
import { moneyToCents, stringifyJson } from '../domain/json.js';
import { plural } from '../domain/words.js';

/** The backend operations a job may run (each a write). */
export const JOB_ACTIONS = [
  'createPolicy',
  'updatePolicy',
  'importPolicies',
  'executeCollections',
  'createSettlement',
  'markSettlementPaid',
  'disputeSettlement',
  'setClock',
  'advanceClock',
  'seedBank',
  'importBankTransactions',
] as const;
export type JobAction = (typeof JOB_ACTIONS)[number];

export interface JobSpec {
  clientId: number;
  action: JobAction;
  /** The operation's arguments (for an import: those after the file). */
  args: unknown[];
  /** The uploaded file an import reads (its first argument). */
  upload?: { path: string; name: string; size: number };
  /** The backend's wall clock when the request came (ms): the worker stamps with it. */
  now: number;
  /** The status of a success. */
  status: number;
  /** `scope`: the client whose keys it is one of (the store's own client for a store-wide operation). */
  idempotency?: { key: string; scope: number; hash: string; method: string; path: string; now: number; owner: IdempotencyOwner; inParts: boolean };
}

export interface JobOutcome {
  status: number;
  /** The response body (JSON text). */
  body: string;
  /** The stored response of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
  /** False when the key was taken over by a retry while this ran (the retry's response is kept). */
  kept: boolean;
}

/** How far a long job has got: the days an advance has lived, the bytes an import has read. */
export type JobProgress = { unit: 'days'; done: number; total: number; day: DaySummary } | { unit: 'bytes'; done: number; total: number; rows: number };

export interface JobHooks {
  /** The job left the queue and started. */
  onStart?: () => void;
  onProgress?: (progress: JobProgress) => void;
}

export interface Jobs {
  /** Whether jobs run on a thread of their own. */
  readonly offloaded: boolean;
  run(spec: JobSpec, hooks?: JobHooks): Promise<JobOutcome>;
  /** Wait for the jobs queued and running, then stop. */
  close(): Promise<void>;
}

/**
 * Run one job: claim its Idempotency-Key (or replay the stored response), run the operation,
 * store its response. A refusal or failure frees the key, so a retry runs again.
 */
export async function runJob(
  base: LocalBackend,
  backendFor: (clientId: number) => LocalBackend,
  spec: JobSpec,
  onProgress?: (progress: JobProgress) => void,
): Promise<JobOutcome> {
  const idem = spec.idempotency;
  const records = base.admin.idempotency;
  const action = (advance?: AdvanceResume) => invoke(backendFor(spec.clientId), spec, onProgress, advance);
  if (!idem) return { status: spec.status, body: stringifyJson(await action()), replayed: false, kept: true };
  const claim = await records.claim({ clientId: idem.scope, key: idem.key, hash: idem.hash, method: idem.method, path: idem.path, now: idem.now, owner: idem.owner, inParts: idem.inParts });
  if (claim.kind === 'replay') {
    // An advance's key is the store's (operations.ts storeWide): its answer is replayed with the
    // figures of the client asking, never those of the client whose request stored it.
    const body =
      spec.action === 'advanceClock' && claim.response.status < 400
        ? stringifyJson(await backendFor(spec.clientId).advanceResultFor(moneyToCents(JSON.parse(claim.response.body) as AdvanceResult)))
        : claim.response.body;
    return { status: claim.response.status, body, replayed: true, kept: true };
  }
  let value: unknown;
  try {
    // An advance records the date it resolved to reach, and a retry that took its key over from a
    // process that stopped part way runs to that date (advanceResume).
    value = await action(spec.action === 'advanceClock' ? { resumeTo: claim.resumeTo, note: (to) => records.noteTarget(idem.scope, idem.key, to, idem.owner) } : undefined);
  } catch (e) {
    await records.release(idem.scope, idem.key, idem.owner).catch(() => {});
    throw e;
  }
  const body = stringifyJson(value);
  let kept: boolean;
  try {
    kept = await records.complete(idem.scope, idem.key, { status: spec.status, contentType: 'application/json; charset=utf-8', body }, idem.owner);
  } catch (e) {
    await records.release(idem.scope, idem.key, idem.owner).catch(() => {});
    throw e;
  }
  return { status: spec.status, body, replayed: false, kept };
}

/** Progress of an import is passed on at most this often. */
const PROGRESS_EVERY_MS = 100;

/** An advance under an Idempotency-Key: the date to resume to (a takeover), and where to record the date it resolves. */
interface AdvanceResume {
  resumeTo?: IsoDate;
  note: (to: IsoDate) => Promise<unknown>;
}

function invoke(b: LocalBackend, spec: JobSpec, onProgress?: (progress: JobProgress) => void, advance?: AdvanceResume): Promise<unknown> {
  switch (spec.action) {
    case 'importPolicies':
    case 'importBankTransactions': {
      const file = spec.upload!;
      let last = 0;
      const options = {
        onProgress: (p: { bytes: number; rows: number }) => {
          const at = Date.now();
          if (!onProgress || at - last < PROGRESS_EVERY_MS) return;
          last = at;
          onProgress({ unit: 'bytes', done: p.bytes, total: file.size, rows: p.rows });
        },
      };
      return spec.action === 'importPolicies' ? b.importPolicies(openUpload(file), options) : b.importBankTransactions(openUpload(file), options);
    }
    case 'advanceClock': {
      const target = spec.args[0] as AdvanceTarget;
      const options = { onDay: (day: DaySummary, index: number, total: number) => onProgress?.({ unit: 'days', done: index, total, day }) };
      return advance ? b.advanceClock(...keyedAdvance(target, options, advance.resumeTo, advance.note)) : b.advanceClock(target, options);
    }
    default: {
      if (!(JOB_ACTIONS as readonly string[]).includes(spec.action)) throw new PremiaError('INTERNAL', `Unknown job '${String(spec.action)}'.`);
      // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to b on the next line
      const method = b[spec.action] as (...args: unknown[]) => Promise<unknown>;
      return method.apply(b, spec.args);
    }
  }
}

function openUpload(file: { path: string; name: string; size: number }): Upload {
  return { name: file.name, size: file.size, stream: createReadStream(file.path, { highWaterMark: 1 << 20 }) };
}

// -- on the request thread ---------------------------------------------------------------------

/** Jobs run where the request is answered (no worker). */
export class InlineJobs implements Jobs {
  readonly offloaded = false;
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly base: LocalBackend) {}

  run(spec: JobSpec, hooks: JobHooks = {}): Promise<JobOutcome> {
    hooks.onStart?.();
    // Other requests share this thread (and the store's connection) while a job runs.
    const job = runJob(this.base, (clientId) => this.base.forClient(clientId, { aloneOnThread: false }), spec, hooks.onProgress);
    this.running.add(job);
    void job.catch(() => {}).finally(() => this.running.delete(job));
    return job;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}

// -- on the job thread ---------------------------------------------------------------------------

/** A job's error as it crosses threads. */
export type SentError =
  | { premia: true; code: PremiaError['code']; message: string; status: number; exitCode: number; details?: unknown[] }
  | { premia: false; message: string; stack?: string; code?: string };

export function sendableError(e: unknown): SentError {
  if (e instanceof PremiaError) {
    return { premia: true, code: e.code, message: e.message, status: e.status, exitCode: e.exitCode, details: e.details as unknown[] | undefined };
  }
  const err = e as { message?: unknown; stack?: unknown; code?: unknown };
  return {
    premia: false,
    message: typeof err?.message === 'string' ? err.message : String(e),
    stack: typeof err?.stack === 'string' ? err.stack : undefined,
    code: typeof err?.code === 'string' ? err.code : undefined,
  };
}

export function receivedError(s: SentError): Error {
  if (s.premia) {
    return new PremiaError(s.code, s.message, { status: s.status, exitCode: s.exitCode as ExitCode, details: s.details as Record<string, unknown>[] | undefined });
  }
  const e = new Error(s.message) as Error & { code?: string };
  if (s.stack) e.stack = s.stack;
  if (s.code) e.code = s.code;
  return e;
}

export type ToWorker = { type: 'job'; id: number; spec: JobSpec } | { type: 'close' };
export type FromWorker =
  | { type: 'start'; id: number }
  | { type: 'progress'; id: number; progress: JobProgress }
  | { type: 'done'; id: number; outcome: JobOutcome }
  | { type: 'error'; id: number; error: SentError };

interface Pending {
  resolve: (outcome: JobOutcome) => void;
  reject: (e: Error) => void;
  hooks: JobHooks;
  done: Promise<unknown>;
}

/**
 * Jobs run one at a time on a worker thread with its own connection to the store, the clients
 * taking turns. The worker is given one job at a time; the others wait here, in one line per
 * client, the clients in the order of their turns (a Map keeps insertion order).
 */
export class WorkerJobs implements Jobs {
  readonly offloaded = true;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private readonly waiting = new Map<number, Array<{ id: number; spec: JobSpec }>>();
  /** The job the worker was given and has not ended, or null. */
  private given: number | null = null;
  private nextId = 1;

  constructor(
    private readonly module: URL,
    private readonly storePath: string,
    private readonly log: (line: string) => void,
  ) {}

  run(spec: JobSpec, hooks: JobHooks = {}): Promise<JobOutcome> {
    const id = this.nextId++;
    let resolve!: (outcome: JobOutcome) => void;
    let reject!: (e: Error) => void;
    const done = new Promise<JobOutcome>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.pending.set(id, { resolve, reject, hooks, done: done.catch(() => {}) });
    const line = this.waiting.get(spec.clientId);
    if (line) line.push({ id, spec });
    else this.waiting.set(spec.clientId, [{ id, spec }]);
    this.giveNext();
    return done;
  }

  /** Give the worker the next job, when it has none: the first of the client whose turn it is. */
  private giveNext(): void {
    if (this.given !== null) return;
    const first = this.waiting.entries().next();
    if (first.done) return;
    const [clientId, line] = first.value;
    const job = line.shift()!;
    // The client's turn is over: to the back of the line if it has more waiting.
    this.waiting.delete(clientId);
    if (line.length > 0) this.waiting.set(clientId, line);
    let worker: Worker;
    try {
      worker = this.ensureWorker();
    } catch (e) {
      const p = this.pending.get(job.id)!;
      this.pending.delete(job.id);
      p.reject(e instanceof Error ? e : new Error(String(e)));
      return this.giveNext();
    }
    this.given = job.id;
    worker.postMessage({ type: 'job', id: job.id, spec: job.spec } satisfies ToWorker);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.pending.values()].map((p) => p.done));
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    // The worker closes its connection and ends; terminated if it has not within 10 s.
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref(); // the process waits for the store to be closed
    worker.postMessage({ type: 'close' } satisfies ToWorker);
    const timer = setTimeout(() => void worker.terminate(), 10_000);
    await exited;
    clearTimeout(timer);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.module, { workerData: { storePath: this.storePath } });
    // The HTTP server keeps the process alive; an idle job thread must not.
    worker.unref();
    worker.on('message', (m: FromWorker) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.type === 'start') p.hooks.onStart?.();
      else if (m.type === 'progress') p.hooks.onProgress?.(m.progress);
      else {
        this.pending.delete(m.id);
        if (this.given === m.id) this.given = null;
        if (m.type === 'done') p.resolve(m.outcome);
        else p.reject(receivedError(m.error));
        this.giveNext();
      }
    });
    const fail = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      if (this.pending.size > 0) this.log(`${new Date().toISOString()} error: the job thread stopped (${why}); ${plural(this.pending.size, 'job')} failed`);
      // The jobs waiting their turn fail too, as they did when the worker held them all.
      this.waiting.clear();
      this.given = null;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new Error(`The job thread stopped: ${why}`));
      }
    };
    worker.on('error', (e) => fail(e instanceof Error ? (e.stack ?? e.message) : String(e)));
    worker.on('exit', (code) => fail(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }
}

/**
 * The job worker's compiled module, or null when it is not there. Running from TypeScript sources
 * (the test runner) it is taken from dist/, which `npm test` builds first.
 */
export function jobWorkerModule(): URL | null {
  return workerModule(import.meta.url, 'server', 'job-worker.js', 'PREMIA_SERVER_THREADS');
}

/** The jobs of a server on this backend. */
export function createJobs(base: LocalBackend, options: { offload?: boolean; log: (line: string) => void }): Jobs {
  const file = base.admin.sharedStoreFile;
  const module = jobWorkerModule();
  if (options.offload === false || file === null || module === null) return new InlineJobs(base);
  return new WorkerJobs(module, file, options.log);
}
