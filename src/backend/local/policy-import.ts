/**
 * Bulk policy import (spec 4.2). The file is streamed; each row is validated as it arrives
 * (policy-rows.ts); valid rows are inserted in batches inside ONE transaction (the store's
 * inPolicyImport, with its prepared multi-row inserts), so an
 * interrupted import leaves nothing behind and a file that is not the expected CSV at all is
 * rolled back whole. Row problems are reported ({row, policy_number, field, code, message})
 * and the row skipped. `failed` counts rows; a row with several bad fields has several errors.
 *
 * Two threads share a large import: a worker parses and validates while this thread inserts
 * the batches already validated (on two cores the import takes about as long as the inserts
 * alone). Files under 4 MiB, every file under PREMIA_IMPORT_THREADS=0, and any setup where the
 * worker's module is not there are read on this thread; the result is the same.
 */
import { importStopped, RowErrors, stoppable } from './row-errors.js';
import { Worker } from 'node:worker_threads';
import { workerModule } from '../../lib/worker-module.js';
import { PremiaError } from '../../domain/errors.js';
import { inPolicyImport, type DuplicatePolicyRow, type PolicyImportSink } from '../../store/repos/policies.js';
import { bankCaseMismatches } from '../../store/repos/bank.js';
import { caseMismatches } from '../../domain/customer-case.js';
import type { ImportOptions, ImportResult, ImportRowError, Upload } from '../types.js';
import type { LocalContext } from './context.js';
import { PolicyRowParser, type PolicyBatch } from './policy-rows.js';
import { readWorld, stamp } from './world.js';

export { POLICY_CSV_HEADER } from './policy-rows.js';

const PROGRESS_EVERY = 20_000;
/** Files up to this size are read on the importing thread: a worker's start-up would cost more. */
const INLINE_MAX_BYTES = 4 << 20;
/** Pieces of the file sent to the worker, and how many may be waiting there. */
const CHUNK_BYTES = 1 << 20;
const CHUNKS_IN_FLIGHT = 4;

export async function importPolicies(ctx: LocalContext, file: Upload, options: ImportOptions = {}): Promise<ImportResult> {
  let result: ImportResult;
  try {
    const { idSalt } = await readWorld(ctx.store.db); // set once, when the store is made
    result = await inPolicyImport(ctx.store, ctx.clientId, async (session) => {
      const sink = new BatchSink(options);
      sink.into(session.sink(stamp(session.today, ctx.now()), (d) => sink.duplicate(d)));
      await read(file, sink, options.signal, idSalt);
      return sink.result();
    }, { signal: options.signal, error: importStopped });
  } catch (e) {
    // A failure before the file was read (no such client) must not leave it open.
    (file.stream as { destroy?: () => void }).destroy?.();
    throw e;
  }
  // Bank rows imported before these policies, under an id that differs from a policy's customer
  // id only in letter case: said (the policies' customers would be collected from generated accounts).
  if (result.imported === 0) return result;
  const mismatches = caseMismatches(await bankCaseMismatches(ctx.store, ctx.clientId));
  return mismatches ? { ...result, case_mismatches: mismatches } : result;
}

/**
 * Receives validated batches and hands them to the store's import sink. A policy number the
 * client already has is not imported and is reported: DUPLICATE_POLICY when it was there
 * before the import, DUPLICATE_IN_FILE (with the row that took it) when an earlier row of this
 * file did.
 */
class BatchSink {
  private failed = 0;
  private rows = 0;
  private bytes = 0;
  private nextProgress = PROGRESS_EVERY;
  private readonly errors = new RowErrors<ImportRowError>();
  private store!: PolicyImportSink;

  constructor(private readonly options: ImportOptions) {}

  into(store: PolicyImportSink): void {
    this.store = store;
  }

  take(batch: PolicyBatch): void {
    for (const e of batch.errors) this.errors.push(e);
    this.failed += batch.failed;
    this.store.insert(batch);
    this.read(batch.rowsRead, batch.bytesRead);
  }

  /** Resolves once the store can take more batches (undefined: at once). */
  ready(): Promise<void> | undefined {
    return this.store.ready();
  }

  duplicate({ line, policyNumber: number, firstLine }: DuplicatePolicyRow): void {
    this.failed++;
    this.errors.push(
      firstLine === null
        ? {
            row: line,
            policy_number: number,
            field: 'policy_number',
            code: 'DUPLICATE_POLICY',
            message: `policy ${number} already exists; update it instead of importing it again`,
          }
        : {
            row: line,
            policy_number: number,
            field: 'policy_number',
            code: 'DUPLICATE_IN_FILE',
            message: `policy ${number} already appears on row ${firstLine} of this file`,
          },
    );
  }

  /** Progress: rows read so far and bytes of the file taken in. */
  read(rows: number, bytes: number): void {
    this.rows = Math.max(this.rows, rows);
    this.bytes = Math.max(this.bytes, bytes);
    if (this.options.onProgress && this.rows >= this.nextProgress) {
      this.options.onProgress({ bytes: this.bytes, rows: this.rows });
      this.nextProgress = this.rows + PROGRESS_EVERY;
    }
  }

  async result(): Promise<ImportResult> {
    const imported = await this.store.finish();
    this.options.onProgress?.({ bytes: this.bytes, rows: this.rows });
    return { imported, failed: this.failed, ...this.errors.result() };
  }
}

/**
 * Read the file into the sink: on this thread when it is small (by its size when known, else
 * by reading up to INLINE_MAX_BYTES before deciding), else through the worker.
 */
async function read(file: Upload, sink: BatchSink, signal: AbortSignal | undefined, idSalt: number): Promise<void> {
  const url = importWorkerModule();
  // Known to be large: start the worker at once, while the first pieces are read.
  if (url !== null && file.size !== undefined && file.size > INLINE_MAX_BYTES) return readInWorker([], file.stream, file.name, sink, url, signal, idSalt);
  const iterator = stoppable(file.stream, signal)[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  // The pieces held while deciding are read up to the header meanwhile: a pipe whose first line
  // is no policy CSV's header is refused then, not once 4 MiB or its end came (its producer may
  // pause, or never end). Only so far: the rows are read once, by the reader chosen.
  const header = new PolicyRowParser(file.name, () => undefined, idSalt);
  try {
    while (url !== null && size <= INLINE_MAX_BYTES) {
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        break;
      }
      if (signal?.aborted) throw importStopped();
      const piece = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      head.push(piece);
      size += piece.byteLength;
      if (!header.headerRead) header.push(piece);
    }
    const rest: AsyncIterable<Uint8Array | string> = {
      [Symbol.asyncIterator]: () => ({
        next: () => (ended ? Promise.resolve({ done: true as const, value: undefined }) : iterator.next()),
        return: async () => {
          await iterator.return?.();
          return { done: true as const, value: undefined };
        },
      }),
    };
    if (url === null || ended) await readInline(head, rest, file.name, sink, signal, idSalt);
    else await readInWorker(head, rest, file.name, sink, url, signal, idSalt);
  } catch (e) {
    await iterator.return?.().catch(() => undefined);
    throw e;
  }
}

async function readInline(
  head: Uint8Array[],
  rest: AsyncIterable<Uint8Array | string>,
  name: string,
  sink: BatchSink,
  signal: AbortSignal | undefined,
  idSalt: number,
): Promise<void> {
  const parser = new PolicyRowParser(name, (batch) => sink.take(batch), idSalt);
  for (const chunk of head) parser.push(chunk);
  sink.read(0, parser.bytesRead);
  for await (const chunk of rest) {
    if (signal?.aborted) throw importStopped();
    parser.push(chunk);
    sink.read(0, parser.bytesRead);
    await sink.ready();
  }
  parser.end();
  sink.read(0, parser.bytesRead);
}

type FromWorker =
  | { type: 'batch'; batch: PolicyBatch }
  | { type: 'ack'; spare?: ArrayBuffer }
  | { type: 'done' }
  | { type: 'error'; error: { premia: boolean; code: PremiaError['code']; message: string; details?: PremiaError['details'] } };

/**
 * Stream the file to a worker that parses and validates it, inserting the batches it sends
 * back as they come. At most CHUNKS_IN_FLIGHT pieces wait in the worker, so memory stays flat
 * however large the file; the first error on either side stops both.
 */
async function readInWorker(
  head: Uint8Array[],
  rest: AsyncIterable<Uint8Array | string>,
  name: string,
  sink: BatchSink,
  url: URL,
  signal: AbortSignal | undefined,
  idSalt: number,
): Promise<void> {
  const worker = new Worker(url, { workerData: { fileName: name, idSalt } });
  let failure: unknown = null;
  let finished = false;
  let inFlight = 0;
  // The pieces' arrays, given back by the worker once read, to copy the next pieces into: each
  // piece in a fresh array touched ~14,000 new pages of memory at a million rows, ~0.1 s of this
  // thread's time, which the inserts wait on.
  const spare: ArrayBuffer[] = [];
  let wake: (() => void) | null = null;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const fail = (e: unknown) => {
    if (failure === null) failure = e;
    poke();
  };
  worker.on('message', (m: FromWorker) => {
    if (failure !== null) return;
    try {
      if (m.type === 'batch') sink.take(m.batch);
      else if (m.type === 'ack') {
        inFlight--;
        if (m.spare !== undefined) spare.push(m.spare);
      } else if (m.type === 'done') finished = true;
      else fail(m.error.premia ? new PremiaError(m.error.code, m.error.message, { details: m.error.details }) : new Error(`policy import: ${m.error.message}`));
    } catch (e) {
      fail(e);
    }
    poke();
  });
  worker.on('error', (e) => fail(e));
  worker.on('exit', () => {
    if (!finished) fail(new Error('policy import: the reading thread stopped before the end of the file'));
  });
  const onAbort = () => fail(importStopped());
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const until = async (ready: () => boolean) => {
    while (failure === null && !ready()) await new Promise<void>((resolve) => (wake = resolve));
  };
  const send = async (pieces: Uint8Array[], size: number) => {
    const kept = spare.pop();
    const data = kept !== undefined && kept.byteLength >= size ? new Uint8Array(kept, 0, size) : new Uint8Array(size);
    let at = 0;
    for (const p of pieces) {
      data.set(p, at);
      at += p.byteLength;
    }
    inFlight++;
    worker.postMessage({ type: 'chunk', data }, [data.buffer]);
    await until(() => inFlight < CHUNKS_IN_FLIGHT);
    // The store's side too (PostgreSQL's COPY stream): at most a few pieces of rows wait there.
    await sink.ready();
  };

  try {
    let pieces: Uint8Array[] = [];
    let size = 0;
    for (const piece of head) {
      pieces.push(piece);
      size += piece.byteLength;
    }
    // Progress counts the bytes the worker has parsed (its batches), not the bytes read ahead of
    // it (up to CHUNKS_IN_FLIGHT chunks): a percentage by bytes then agrees with the rows counted.
    for await (const chunk of rest) {
      const piece = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      pieces.push(piece);
      size += piece.byteLength;
      if (size >= CHUNK_BYTES) {
        await send(pieces, size);
        pieces = [];
        size = 0;
      }
      if (failure !== null) break;
    }
    if (failure === null) {
      if (size > 0) await send(pieces, size);
      worker.postMessage({ type: 'end' });
      await until(() => finished);
    }
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what was caught, as it was
    if (failure !== null) throw failure;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    finished = true;
    await worker.terminate();
  }
}

/**
 * The worker's compiled module, or null when it is not there. Running from TypeScript sources
 * (the test runner) it is taken from dist/, which `npm test` builds first.
 */
function importWorkerModule(): URL | null {
  return workerModule(import.meta.url, 'backend/local', 'policy-import-worker.js', 'PREMIA_IMPORT_THREADS');
}
