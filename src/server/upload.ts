/**
 * Uploads: the multipart part `file` is streamed to a temporary file (size-limited, hashed on the
 * way for idempotency) before anything touches the store, so the store's one connection is never
 * held while a slow client is still sending. The caller imports from the file, then removes it.
 *
 * The files live in a directory premia owns, one per store: `premia-uploads-<hash of the store's
 * real path>` under the temporary directory, mode 0700. Each is named
 * `upload-<pid>-<place>-<token>-<uuid>` (the server's process id, where that id means something:
 * placeTag of its host and PID namespace, and a random token of that process), so that a server
 * starting on the store can remove what a server killed mid-upload (kill -9, a power cut) left
 * behind. A file made in this place is removed when its process is gone, or is this one under
 * another token (the same pid reused). A file made in another place (another host, or another
 * container sharing TMPDIR, where premia may be pid 1 as well) cannot be judged by its pid here,
 * nor can one named `upload-<pid>-<token>-<uuid>` by earlier versions, which does not say where it
 * was made: those are removed only once nobody has written them for a day, as any file is. A file
 * of a live server on the same store is left alone.
 */
import { once } from 'node:events';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, realpathSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, basename, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import type { Upload } from '../backend/types.js';
import { PremiaError, validationError, type DetailCode } from '../domain/errors.js';
import { isDirectoryThere } from '../lib/make-directories.js';
import { malformedMultipart, unsupportedMediaType, uploadTooLarge } from './http.js';
import { HERE_TAG, PROCESS_TOKEN, processIsAlive } from '../lib/process.js';
import { RateLimited } from './auth.js';

/** `upload-<pid>-<place>-<token>-<uuid>`; without the place in files of earlier versions. */
const UPLOAD_NAME = /^upload-(\d{1,10})-(?:([0-9a-f]{8})-)?([0-9a-f]{16})-[0-9a-f-]{36}$/;
/** An upload file nobody has written for this long is no live upload's (an import reads it within minutes). */
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** The upload directory of the store at `storePath`, under `tmpDir`. */
export function uploadDirectory(tmpDir: string, storePath: string): string {
  let real = resolve(storePath);
  try {
    // The store's real path: two servers given the store by different paths share the directory.
    real = join(realpathSync(dirname(real)), basename(real));
  } catch {
    // a store that is not a file (:memory:) or a directory that is gone: the path as given
  }
  return join(tmpDir, `premia-uploads-${createHash('sha256').update(real).digest('hex').slice(0, 16)}`);
}

/**
 * Make the store's upload directory (0700; refused when something else has its name), and
 * remove the files that servers which stopped without cleaning up left in it. Returns its path.
 */
export async function prepareUploadDirectory(tmpDir: string, storePath: string, log: (line: string) => void): Promise<string> {
  const dir = uploadDirectory(tmpDir, storePath);
  try {
    await ensureDirectory(dir);
  } catch (e) {
    throw unusableTmpDir(e, tmpDir);
  }
  let removed = 0;
  const now = Date.now();
  for (const name of await readdir(dir)) {
    const m = UPLOAD_NAME.exec(name);
    if (!m) continue;
    const [, pidText, place, token] = m;
    const pid = Number(pidText);
    const mine = pid === process.pid && token === PROCESS_TOKEN;
    if (mine) continue;
    // Its pid names a process only in the place it was made in (an old name does not say where).
    let stale = place === HERE_TAG && (pid === process.pid || !processIsAlive(pid));
    if (!stale) {
      const mtime = await lstat(join(dir, name)).then((f) => f.mtimeMs, () => now);
      stale = now - mtime > STALE_AFTER_MS;
    }
    if (stale) {
      await rm(join(dir, name), { force: true });
      removed++;
    }
  }
  if (removed > 0) log(`${new Date().toISOString()} removed ${removed} upload file${removed === 1 ? '' : 's'} left by servers that stopped (in ${dir})`);
  return dir;
}

/**
 * The temporary directory cannot hold the upload directory (TMPDIR missing, a file, not
 * writable, too long, or on a file system that makes no directories): said so, naming TMPDIR,
 * where `premia serve` "failed unexpectedly: ENOENT: no such file or directory, mkdir …" (exit 1).
 */
function unusableTmpDir(e: unknown, tmpDir: string): unknown {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  const reason = TMPDIR_REASONS[code];
  if (reason === undefined) return e;
  // ENOENT under a directory that is there: its file system makes none (/proc).
  const why = code === 'ENOENT' && isDirectoryThere(tmpDir) ? 'its file system makes no directories there' : reason.why;
  return validationError(`Cannot keep uploads in ${tmpDir} (TMPDIR): ${why}. Nothing was served; set TMPDIR to a directory premia can write.`, [
    { field: 'TMPDIR', code: reason.detail, message: `${tmpDir}: ${why}` },
  ]);
}

/** Why the upload directory cannot be made in TMPDIR, by the error's code. */
const TMPDIR_REASONS: Record<string, { why: string; detail: DetailCode }> = {
  ENOENT: { why: 'there is no such directory', detail: 'DIRECTORY_NOT_FOUND' },
  ENOTDIR: { why: 'it is not a directory', detail: 'DIRECTORY_NOT_FOUND' },
  EACCES: { why: 'this user cannot write there', detail: 'PERMISSION_DENIED' },
  EPERM: { why: 'this user cannot write there', detail: 'PERMISSION_DENIED' },
  EROFS: { why: 'this user cannot write there', detail: 'PERMISSION_DENIED' },
  ENAMETOOLONG: { why: 'the path is too long', detail: 'INVALID_VALUE' },
};

/**
 * Uploads one client may hold at once: being received, or received and waiting for their import.
 * Each may be as large as --upload-limit (100 MiB by default) and is spooled to the temporary
 * directory all clients share, so without a bound one client sending many imports at once could
 * fill the disk the others' uploads (and the store's sorts) need.
 */
export const MAX_UPLOADS_PER_CLIENT = 4;
/** The seconds a client holding MAX_UPLOADS_PER_CLIENT is told to wait (an import takes seconds). */
const UPLOAD_RETRY_AFTER_S = 5;

/** The uploads each client holds, counted from before a file is received until it is removed. */
export class UploadSlots {
  private readonly held = new Map<number, number>();

  constructor(private readonly max = MAX_UPLOADS_PER_CLIENT) {}

  /** 429 RATE_LIMITED when `clientId` holds `max` uploads (asked before a body is read: its 100 Continue waits on it). */
  check(clientId: number): void {
    const n = this.held.get(clientId) ?? 0;
    if (n >= this.max) {
      throw new RateLimited(UPLOAD_RETRY_AFTER_S, `This API key's client has ${n} uploads being received or waiting for their import, the most it may have at once; nothing was read of this one`);
    }
  }

  /** Uploads held by every client together (for tests that wait for slots to come back). */
  get total(): number {
    let n = 0;
    for (const held of this.held.values()) n += held;
    return n;
  }

  /** A slot for an upload of `clientId`, to release once (when its file is gone); 429 RATE_LIMITED when the client holds `max`. */
  take(clientId: number): () => void {
    this.check(clientId);
    const n = this.held.get(clientId) ?? 0;
    this.held.set(clientId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(clientId) ?? 1) - 1;
      if (left > 0) this.held.set(clientId, left);
      else this.held.delete(clientId);
    };
  }
}

export interface ReceivedFile {
  path: string;
  name: string;
  size: number;
  sha256: string;
  /** A fresh Upload reading the temporary file. */
  open(): Upload;
  remove(): Promise<void>;
}

/**
 * Make the directory if it is missing (a cleaner of the temporary directory may remove it while
 * the server runs), and make sure it is ours: a directory, not a link, owned by this user, 0700.
 * On a shared /tmp another user could otherwise make it first and swap a spooled file.
 */
async function ensureDirectory(dir: string): Promise<void> {
  await mkdir(dir, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  });
  const st = await lstat(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) {
    throw new PremiaError(
      'INTERNAL',
      `${dir} is not a directory premia made (${st.isDirectory() ? 'it belongs to another user' : 'it is not a directory'}); ` +
        'uploads are not spooled there. Remove it, or point TMPDIR elsewhere.',
    );
  }
  if ((st.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
}

/** Receive the upload of a request into `dir`, in a slot of its client's (released once the file is removed). */
export async function receiveHeldFile(request: FastifyRequest, clientId: number, slots: UploadSlots, limit: number, dir: string): Promise<ReceivedFile> {
  const release = slots.take(clientId);
  try {
    const file = await receiveFile(request, limit, dir);
    return { ...file, remove: () => file.remove().finally(release) };
  } catch (e) {
    release();
    throw e;
  }
}

/** Receive the upload of a request into `dir` (the store's upload directory). */
export async function receiveFile(request: FastifyRequest, limit: number, dir: string): Promise<ReceivedFile> {
  if (!request.isMultipart()) {
    throw unsupportedMediaType('upload');
  }
  // The whole form is read: a second file (any name) is refused rather than silently dropped
  // (files: 1 makes @fastify/multipart throw FST_FILES_LIMIT at it), and a body that breaks off
  // after the file is an incomplete upload. Other (non-file) fields are read and ignored.
  let received: ReceivedFile | undefined;
  // A part named file without a filename is a plain form field to the parser (curl -F 'file=<x.csv',
  // FormData.append('file', text), requests' files={'file': (None, text)}): RFC 7578 makes the
  // filename a SHOULD, and the part holds the file all the same, so it is imported as the file when
  // no part with a filename came. The parser keeps such a value in memory: up to PLAIN_FILE_MAX.
  let plainFile: { value: string; truncated: boolean } | undefined;
  let plainFiles = 0;
  // The body's first bytes, to say why a form could not be read (see formProblem).
  const head = watchHead(request.raw);
  try {
    // throwFileSizeLimit is read by @fastify/multipart for parts() too, but typed only for file().
    const options = { limits: { fileSize: limit, fieldSize: PLAIN_FILE_MAX, files: 1, fields: 20, parts: 25 }, throwFileSizeLimit: true };
    const parts = request.parts(options);
    for await (const part of parts) {
      if (part.type !== 'file') {
        if (part.fieldname === 'file') {
          plainFiles += 1;
          plainFile = { value: typeof part.value === 'string' ? part.value : String(part.value), truncated: part.valueTruncated };
        }
        continue;
      }
      if (received) {
        part.file.resume();
        throw tooManyParts();
      }
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw validationError(`The file part must be named file; got '${part.fieldname.slice(0, 64)}'.`, [
          { field: 'file', code: 'REQUIRED', message: `the file part is named '${part.fieldname.slice(0, 64)}', not file` },
        ]);
      }
      await ensureDirectory(dir);
      received = await spool(part.file, part.filename, limit, dir);
    }
  } catch (e) {
    await received?.remove();
    throw formProblem(e, head.seen(), request.headers['content-type']) ?? e;
  } finally {
    head.stop();
  }
  if (!received && plainFile) {
    if (plainFiles > 1) throw tooManyParts();
    received = await plainFileUpload(plainFile, limit, dir);
  }
  if (!received) {
    throw validationError('The form has no file: send it in a part named file.', [
      { field: 'file', code: 'REQUIRED', message: 'no file part in the form' },
    ]);
  }
  return received;
}

/** The most a part named file without a filename may hold (the parser keeps it in memory). */
const PLAIN_FILE_MAX = 1024 * 1024;

/** Spool the value of a part named file that came without a filename, as the file it holds. */
async function plainFileUpload(plain: { value: string; truncated: boolean }, limit: number, dir: string): Promise<ReceivedFile> {
  const bytes = Buffer.from(plain.value, 'utf8');
  if (bytes.length > limit) throw uploadTooLarge(limit);
  if (plain.truncated) {
    const message = `the part named file has no filename, and such a part holds at most ${PLAIN_FILE_MAX} bytes`;
    throw validationError(
      `The form's part named file has no filename and is over ${PLAIN_FILE_MAX} bytes: send the file as a file part ` +
        "(curl -F file=@policies.csv, or FormData.append('file', blob, 'policies.csv')); nothing was imported.",
      [{ field: 'file', code: 'TOO_LARGE', message }],
    );
  }
  // The parser has decoded the value as UTF-8 (or the part's charset): bytes that were not UTF-8
  // became U+FFFD, which is refused as a file that is not UTF-8 is, never imported in their place.
  if (plain.value.includes('\uFFFD')) {
    const message = 'the part named file is not UTF-8 text';
    throw validationError(
      "The form's part named file is not UTF-8 text (a legacy encoding such as Windows-1252, or binary content); save it as UTF-8, " +
        'or name its charset in the part\'s Content-Type; nothing was imported.',
      [{ field: 'file', code: 'INVALID_ENCODING', message }],
    );
  }
  await ensureDirectory(dir);
  return spool(Readable.from([bytes]), undefined, limit, dir);
}

/** How much of a form's beginning is kept to explain a form that could not be read. */
const HEAD_BYTES = 64 * 1024;

/** The first HEAD_BYTES of a request's body as it streams past, and whether there was more. */
function watchHead(raw: Readable): { seen: () => { bytes: Buffer; whole: boolean }; stop: () => void } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let whole = true;
  const onData = (chunk: Buffer) => {
    if (kept >= HEAD_BYTES) {
      whole = false;
      return;
    }
    const part = chunk.subarray(0, HEAD_BYTES - kept);
    if (part.length < chunk.length) whole = false;
    chunks.push(Buffer.from(part));
    kept += part.length;
  };
  raw.on('data', onData);
  return { seen: () => ({ bytes: Buffer.concat(chunks), whole }), stop: () => raw.removeListener('data', onData) };
}

/** The boundary parameter of a multipart Content-Type, unquoted, or null. */
function boundaryOf(contentType: string | undefined): string | null {
  const m = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^\s;]+))/i.exec(contentType ?? '');
  const boundary = m ? (m[1] ?? m[2] ?? '') : '';
  return boundary === '' ? null : boundary;
}

/**
 * A clearer refusal for a form busboy found cut short, when its beginning shows why: its lines
 * end with LF alone (multipart needs CRLF, RFC 2046; a form written by hand with '\n'), or it
 * holds no line with the boundary the Content-Type names (another boundary, or no form at all).
 * Null when the body looks like a form that really ended early (or the error is another).
 */
function formProblem(e: unknown, head: { bytes: Buffer; whole: boolean }, contentType: string | undefined): PremiaError | null {
  if (malformedMultipart(e)?.details?.[0]?.code !== 'INCOMPLETE') return null;
  const boundary = boundaryOf(contentType);
  if (boundary === null) return null;
  const text = head.bytes.toString('latin1');
  const delimiter = `--${boundary}`;
  if (text.includes(`${delimiter}\r\n`)) return null;
  const shown = boundary.length > 70 ? `${boundary.slice(0, 70)}…` : boundary;
  if (text.includes(`${delimiter}\n`)) {
    const message = 'the lines of the multipart body end with LF alone; multipart/form-data needs CRLF (\\r\\n) after each boundary and part header';
    return validationError(`The upload is not a readable form: ${message} (curl -F file=@policies.csv writes them so); nothing was imported.`, [
      { field: 'file', code: 'MALFORMED_MULTIPART', message },
    ]);
  }
  if (!head.whole || text.includes(delimiter)) return null;
  const message = `the body has no line --${shown}, the boundary its Content-Type names: the body is not a form, or its boundary is not the Content-Type's`;
  return validationError(`The upload is not a readable form: ${message}; nothing was imported.`, [{ field: 'file', code: 'INCOMPLETE', message }]);
}

/** The refusal of a form with more than one file (FST_FILES_LIMIT is mapped to the same in http.ts). */
export function tooManyParts(): PremiaError {
  return validationError('Send exactly one file, in a part named file; nothing was imported.', [
    { field: 'file', code: 'TOO_MANY_PARTS', message: 'the form has more than one file or too many parts' },
  ]);
}

/** Stream one file part to a 0600 temporary file, hashing and counting on the way (exported for its test). */
export async function spool(file: Readable & { truncated?: boolean }, filename: string | undefined, limit: number, dir: string): Promise<ReceivedFile> {
  const path = join(dir, `upload-${process.pid}-${HERE_TAG}-${PROCESS_TOKEN}-${randomUUID()}`);
  const hash = createHash('sha256');
  let size = 0;
  const remove = () => rm(path, { force: true });
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  // At the limit the part's stream stops short but ends only with the part, and the parser's
  // error waits behind it: a chunked body past the limit was received without end and never
  // answered (gigabytes a minute from a client that never stops). Refused at the limit instead.
  file.once('limit', () => file.destroy(uploadTooLarge(limit)));
  try {
    await pipeline(
      file,
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          size += chunk.length;
          callback(null, chunk);
        },
      }),
      out,
    );
  } catch (e) {
    // A form that breaks off at once can fail the pipeline before the file is even open: the
    // stream opens it after that (and then closes it), so removing it sooner left it behind.
    if (!out.closed) await once(out, 'close').catch(() => undefined);
    await remove();
    throw e;
  }
  if (file.truncated || size > limit) {
    await remove();
    throw uploadTooLarge(limit);
  }
  const name = safeName(filename);
  return {
    path,
    name,
    size,
    sha256: hash.digest('hex'),
    open: () => ({ name, size, stream: createReadStream(path, { highWaterMark: 1 << 20 }) }),
    remove,
  };
}

/** The client's file name, for messages only: base name, printable, short. */
function safeName(filename: string | undefined): string {
  const base = (filename ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 100);
  return clean === '' ? 'upload' : clean;
}
