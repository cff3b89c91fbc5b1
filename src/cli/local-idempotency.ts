/**
 * `--idempotency-key` in local mode. A cron job that reruns a command with the same key must get
 * the same answer in both modes and act only once, so local mode keeps the same records the
 * service keeps (the idempotency table of the store, for the client acted for): a write whose
 * key was used before answers with the stored response (refusals are not stored), a different
 * request with the same key is IDEMPOTENCY_KEY_REUSED. The request identity (method, path, body
 * as it would be sent over HTTP, or the uploaded file's SHA-256) is the service's, so a key used
 * by a local command and by a request to `premia serve` on the same store means the same thing.
 *
 * Which backend methods are such writes, and their requests, come from the operations table:
 * every row that takes an Idempotency-Key (backend/operations.ts). The records are the local
 * backend's (its admin object), given by context.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OPERATION_LIST, type AnyOperation, type Operation } from '../backend/operations.js';
import type { AdvanceOptions, AdvanceResult, AdvanceTarget, Admin, Backend, IdempotencyClaimInput, KeyRole, ReplayedWrite, StoredResponse, Upload } from '../backend/types.js';
import { keyedAdvance } from '../domain/advance.js';
import { BANK_CSV_HEADER, POLICY_CSV_HEADER } from '../domain/csv-headers.js';
import { buildRequest, recordedRequest, requestHash } from '../backend/wire.js';
import { CaseMismatchRefused } from '../domain/customer-case.js';
import { PremiaError, receivedCode } from '../domain/errors.js';
import { CLI_METHOD, requestKey } from '../domain/idempotency.js';
import { moneyToCents, stringifyJson } from '../domain/json.js';
import { CsvFormatError, CsvReader, isBlankRecord, isHeaderOf } from '../lib/csv-reader.js';
import { HERE_TAG, processIsAlive } from '../lib/process.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The backend methods that are idempotent writes, with their rows. */
export const IDEMPOTENT_WRITES: ReadonlyMap<string, AnyOperation> = new Map(
  OPERATION_LIST.filter((row) => row.idempotent && row.backend !== null).map((row) => [row.backend!, row]),
);

/**
 * `inner` with its writes done at most once per key of the invocation (`baseKey`, then
 * `baseKey:2`…); those its keys answered with an earlier run's answer are its replayedWrites().
 */
export function withIdempotency(
  inner: Backend,
  baseKey: string,
  records: Admin['idempotency'],
  clientId: number,
  now: () => Date,
  view: { advanceResultFor?: (stored: AdvanceResult) => Promise<AdvanceResult> } = {},
): Backend {
  let writes = 0;
  /** The writes answered with an earlier request's answer (Backend.replayedWrites). */
  const replayed: ReplayedWrite[] = [];

  /** Run one write at most once for its key. */
  async function once<T>(row: AnyOperation, args: unknown[], action: (args: unknown[]) => Promise<T>): Promise<T> {
    const request = buildRequest(row as Operation<unknown, unknown, unknown[]>, ...args);
    const key = requestKey(baseKey, ++writes);
    let file: { upload: Upload; sha256: string; remove?: () => Promise<void> } | null = null;
    if (request.upload) file = await identify(request.upload, UPLOAD_HEADERS.get(row.name));
    try {
      // The JSON body as the API would receive it (money as two-decimal numbers), or the file's hash.
      const { path, hash } = recordedRequest(request, file?.sha256);
      // A store-wide operation's key is the store's, as the service keeps it (operations.ts storeWide).
      const scope = row.storeWide === true ? records.storeScope : clientId;
      const claim = await records.claim({ clientId: scope, key, hash, method: request.method, path, now: now().getTime(), inParts: row.commitsInParts === true });
      if (claim.kind === 'replay') {
        const value = replay<T>(claim.response);
        // (A stored refusal, kept by earlier versions, is thrown above: a failure, not an answer.)
        replayed.push({ operation: row.name, key });
        // An advance's key is the store's: replayed with this client's own figures (the server does the same).
        return row.name === 'advanceClock' && view.advanceResultFor ? ((await view.advanceResultFor(value as AdvanceResult)) as T) : value;
      }
      // An upload is read from its spooled copy (stdin can be read once only).
      let actual = file ? [file.upload, ...args.slice(1)] : args;
      if (row.name === 'advanceClock') {
        // The advance records the date it resolved to reach; one that takes the key over from a
        // process that stopped part way runs to that date.
        const [target, options] = actual as [AdvanceTarget, AdvanceOptions | undefined];
        actual = keyedAdvance(target, options ?? {}, claim.resumeTo, (to) => records.noteTarget(scope, key, to));
      }
      let value: T;
      try {
        // A write done in one transaction stores its answer in it (a kill after its commit loses
        // neither), and the key is then complete: nothing more to record.
        const done = await records.answerInWork(scope, key, { status: request.status, contentType: JSON_TYPE }, () => action(actual));
        if (done.stored) return done.value;
        value = done.value;
      } catch (e) {
        // A refusal or failure is not kept, as the service does not keep it: the key stays free, so
        // a cron rerun after the state changed (a period that has closed since) is judged afresh.
        await records.release(scope, key).catch(() => false);
        // A bank import refused for its customer ids' case is asked about and sent again: the same
        // write, under the same key. Counted as a second, its answer was kept under K:2, and a
        // rerun under K imported the file again instead of repeating that answer.
        if (e instanceof CaseMismatchRefused) writes -= 1;
        throw e;
      }
      // Stopped by Ctrl-C part way (an advance answers with the days it lived): not the answer to
      // the request, which a rerun with the key must finish rather than be told it was done.
      if (args.some((a) => (a as { signal?: AbortSignal } | null)?.signal?.aborted === true)) {
        await records.release(scope, key).catch(() => false);
        return value;
      }
      try {
        await records.complete(scope, key, { status: request.status, contentType: JSON_TYPE, body: stringifyJson(value) });
      } catch (e) {
        await records.release(scope, key).catch(() => false);
        throw e;
      }
      return value;
    } finally {
      await file?.remove?.();
    }
  }

  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'replayedWrites') return () => [...target.replayedWrites(), ...replayed];
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      const row = typeof prop === 'string' ? IDEMPOTENT_WRITES.get(prop) : undefined;
      if (!row) return method.bind(target);
      return (...args: unknown[]) => once(row, args, (actual) => method.apply(target, actual));
    },
  });
}

/** The request `keys create` is recorded as (with method CLI): the command's words. */
const KEY_CREATION_PATH = 'premia keys create';

/**
 * The claim of `keys create` under `baseKey`: its only write. No endpoint makes keys, so the
 * request is named by the command (method CLI, path `premia keys create`) and is the client
 * named and the role; its key is the store's (records.storeScope), as a store-wide operation's
 * is, whichever client --as-client names. What is stored is the admin's (Admin.keys.createOnce).
 */
export function keyCreationClaim(baseKey: string, records: Admin['idempotency'], client: string | null, role: KeyRole, now: () => Date): IdempotencyClaimInput {
  const path = KEY_CREATION_PATH;
  return {
    clientId: records.storeScope,
    key: requestKey(baseKey, 1),
    hash: requestHash(CLI_METHOD, path, { client: client === null ? null : client.trim(), role }),
    method: CLI_METHOD,
    path,
    now: now().getTime(),
  };
}

/** The stored answer again: the value, or the stored refusal as the same error. */
function replay<T>(response: StoredResponse): T {
  const parsed = JSON.parse(response.body) as unknown;
  if (response.status >= 400) {
    const error = (parsed as { error: { code: string; message: string; details?: Record<string, unknown>[] } }).error;
    throw new PremiaError(receivedCode(error.code), error.message, { status: response.status, details: error.details });
  }
  return moneyToCents(parsed) as T;
}

/** The header each keyed upload's CSV begins with (a copy or hash of it stops at a first line that is not it). */
const UPLOAD_HEADERS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ['importPolicies', POLICY_CSV_HEADER],
  ['importBankTransactions', BANK_CSV_HEADER],
]);

/** An upload identified by its file's SHA-256: a file is hashed where it is; stdin is spooled first. */
async function identify(file: Upload, header: readonly string[] | undefined): Promise<{ upload: Upload; sha256: string; remove?: () => Promise<void> }> {
  if (file.reopen) return { upload: file, sha256: await sha256Of(file.reopen(), header) };
  return spool(file, header);
}

/**
 * The file's SHA-256, or that of its start up to the chunk that shows it is no CSV text (see
 * notCsvText): a 1 TB sparse file or a disk image given by mistake was hashed whole, minutes to
 * hours, before the import refused it at its first bytes. The import refuses it all the same,
 * and a refusal leaves the key free.
 */
async function sha256Of(stream: AsyncIterable<Uint8Array | string>, header: readonly string[] | undefined): Promise<string> {
  const hash = createHash('sha256');
  const notCsv = notCsvText(header);
  for await (const chunk of stream) {
    hash.update(chunk);
    if (notCsv(chunk)) break;
  }
  return hash.digest('hex');
}

/**
 * A line of more bytes than this holds more than the 1 MiB of characters (UTF-16 code units) a
 * record may have: UTF-8 takes at most 3 bytes for each code unit (4 for a surrogate pair's two).
 */
const MAX_LINE_BYTES = 3 * (1 << 20) + 4;

/**
 * A check of a stream's chunks in order: true from the chunk on which it shows it is no CSV text
 * (a NUL byte, or a line longer than any record the import takes), or, given the `header` the
 * import takes, no such CSV (a first record that is not that header, or text the CSV reader
 * refuses), after which the import is sure to refuse it whatever follows, with the same message.
 * A search of each chunk for two bytes, and the reader only up to the header, so no cost per row:
 * a producer that pauses after a wrong first line (`(echo wrong,header; sleep 60; …) |`) was copied
 * to its end before the import read that line.
 */
function notCsvText(header?: readonly string[]): (chunk: Uint8Array | string) => boolean {
  let sinceLineEnd = 0;
  let headerRight: boolean | null = null;
  let reader: CsvReader | null =
    header === undefined
      ? null
      : new CsvReader({
          onRecord: (fields) => {
            if (headerRight === null && !isBlankRecord(fields)) headerRight = isHeaderOf(fields, header);
          },
        });
  return (chunk) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (bytes.indexOf(0) !== -1) return true;
    if (reader !== null) {
      try {
        reader.push(bytes);
      } catch (e) {
        if (e instanceof CsvFormatError) return true;
        throw e;
      }
      if (headerRight === false) return true;
      if (headerRight === true) reader = null; // read no further: the rows are the import's
    }
    const lf = bytes.lastIndexOf(10);
    sinceLineEnd = lf === -1 ? sinceLineEnd + bytes.length : bytes.length - lf - 1;
    return sinceLineEnd > MAX_LINE_BYTES;
  };
}

/** Copy a one-time stream (stdin) to a private temporary file, hashing it on the way. */
async function spool(file: Upload, header: readonly string[] | undefined): Promise<{ upload: Upload; sha256: string; remove: () => Promise<void> }> {
  await removeAbandonedSpools(tmpdir());
  // The process id and its place in the name tell a copy left by a process killed outright from a live one's.
  const path = join(tmpdir(), `premia-stdin-${process.pid}-${HERE_TAG}-${randomBytes(8).toString('hex')}`);
  const remove = () => rm(path, { force: true });
  const hash = createHash('sha256');
  let size = 0;
  try {
    await pipeline(
      Readable.from(file.stream),
      async function* (source: AsyncIterable<Buffer | string>) {
        // Checked on the way, to stop at the first sign it is no CSV text: /dev/zero or a binary
        // stream was copied to TMPDIR whole before the import refused it at its first bytes, and
        // an endless one filled the disk. The copy ends with the chunk that showed it, and the
        // import refuses that copy with the message it gives of the stream.
        const notCsv = notCsvText(header);
        for await (const chunk of source) {
          const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
          hash.update(buf);
          size += buf.length;
          yield buf;
          if (notCsv(buf)) return;
        }
      },
      createWriteStream(path, { flags: 'wx', mode: 0o600 }),
    );
  } catch (e) {
    await remove().catch(() => undefined); // none was made (TMPDIR a file: rm's lstat is ENOTDIR)
    throw spoolError(e, path) ?? e;
  }
  return {
    upload: { name: file.name, size, stream: createReadStream(path), reopen: () => createReadStream(path) },
    sha256: hash.digest('hex'),
    remove,
  };
}

/** `premia-stdin-<pid>-<place>-<random>`; without the place in copies made by earlier versions. */
const SPOOL_NAME = /^premia-stdin-(\d+)-(?:([0-9a-f]{8})-)?[0-9a-f]{16}$/;
/**
 * A copy nobody has written for this long is no running import's, wherever it was made: the one
 * rule that can judge a copy whose pid means nothing here (another place's, or an old name's).
 * A day, as for the server's upload files (server/upload.ts): a copy is written at the start of
 * its command and read by its import within minutes, so a day is far beyond any live one, and
 * bounds how long a book copied by a killed container's run stays in a shared TMPDIR.
 */
const SPOOL_STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * The copies of stdin of processes that are gone: one killed outright (SIGKILL, SIGTERM, a power
 * cut) cannot remove its own, and each held a whole book. A copy made in this place (placeTag:
 * this host and PID namespace) is judged by its pid; one made in another (a container sharing
 * TMPDIR, where that pid is another process, or this one: each premia may be pid 1), or named by
 * an earlier version without its place, only by its age. Best effort: a TMPDIR that cannot be
 * read is reported by the spool itself. (Exported for its test.)
 */
export async function removeAbandonedSpools(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const now = Date.now();
  for (const name of names) {
    const m = SPOOL_NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const here = m[2] === HERE_TAG;
    if (here && pid === process.pid) continue; // this process's own
    let stale = here && !processIsAlive(pid);
    if (!stale) stale = await lstat(join(dir, name)).then((f) => now - f.mtimeMs > SPOOL_STALE_AFTER_MS, () => false);
    if (stale) await rm(join(dir, name), { force: true }).catch(() => undefined);
  }
}

/**
 * The spool file could not be made or written (TMPDIR missing, a file, not writable, full): said
 * so, naming TMPDIR, where it was "premia failed unexpectedly: ENOENT …" (exit 1). Nothing was
 * imported and the key was not used. An error of stdin itself (not about the spool file) is null.
 */
function spoolError(e: unknown, path: string): PremiaError | null {
  const { code, path: about } = e as NodeJS.ErrnoException;
  if (about === undefined || !about.startsWith(dirname(path))) return null;
  const dir = dirname(path);
  const fix = "Nothing was imported; set TMPDIR to a directory premia can write, or give the file's path instead of '-'.";
  const where = `Cannot keep a copy of standard input for --idempotency-key in ${dir} (TMPDIR)`;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new PremiaError('INTERNAL', `${where}: no space left on its device. ${fix}`, { cause: e });
  const why =
    code === 'ENOENT' ? 'there is no such directory' : code === 'ENOTDIR' ? 'it is not a directory' : code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'this user cannot write there' : null;
  if (why === null) return null;
  return new PremiaError('VALIDATION_ERROR', `${where}: ${why}. ${fix}`, { cause: e, details: [{ field: 'TMPDIR', code: code === 'ENOENT' || code === 'ENOTDIR' ? 'DIRECTORY_NOT_FOUND' : 'PERMISSION_DENIED', message: `${dir}: ${why}` }] });
}
