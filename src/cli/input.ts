/** Opening input files for commands: `-` is stdin; a missing file is a validation error. */
import { constants, createReadStream, openSync } from 'node:fs';
import { open as openFile, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { Socket } from 'node:net';
import { basename } from 'node:path';
import { resolve } from 'node:path';
import type { Upload } from '../backend/types.js';
import { CsvFormatError, CsvReader, isBlankRecord } from '../lib/csv-reader.js';
import { deviceKind, fileKind } from '../lib/file-kind.js';
import { unexpandedTilde } from '../lib/tilde.js';
import { PremiaError, usageError, validationError } from '../domain/errors.js';
import { printable } from '../domain/identifiers.js';
import type { CliContext } from './context.js';

/**
 * A path given on the command line, refused when it is empty (or only blanks), as an empty --db
 * is: `--output "$DIR"` with DIR unset resolves to the working directory (a cron job's is its
 * home), where the file would be written without a word, and `fixtures copy ""` would fill it.
 * `name` is the option or argument (`--output`, `DIR`), `what` what to give instead.
 */
export function givenPath<T extends string | undefined>(value: T, name: string, what: string): T {
  if (value !== undefined && value.trim() === '') throw usageError(`${name} is empty; give ${what}.`);
  return value;
}

export async function openUpload(ctx: CliContext, file: string): Promise<Upload> {
  givenPath(file, 'The file name', 'a CSV file, or - for stdin');
  if (file === '-') {
    // Typed or pasted at a terminal: say how the input ends, or premia seems to hang.
    if (ctx.stdinIsTTY) ctx.stderr.write('Reading CSV from the terminal: type or paste it, then press Ctrl-D at the start of a line to end it (Ctrl-C stops).\n');
    return { name: 'stdin', stream: ctx.stdin as AsyncIterable<Uint8Array> };
  }
  const path = resolve(ctx.cwd, file);
  let info: Stats;
  let pipe: Socket | null = null;
  try {
    info = await stat(path);
    const kind = fileKind(info);
    if (kind === 'a directory') throw validationError(`${printable(file, 200)} is a directory; give a CSV file.`);
    // A socket cannot be opened as a file (ENXIO): its stream's 'error' came with nothing
    // listening yet, and the process died with Node's own trace (exit 1).
    if (kind === 'a socket') throw validationError(`${printable(file, 200)} is a socket, not a file; give a CSV file.`);
    // A device (/dev/kmsg, /dev/tty, a link to one; /dev/stdin when standard input is a terminal)
    // was read in a thread of libuv's pool, whose read waits for input that may never come: premia
    // hung, and Ctrl-C said "Stopped" and went on waiting, as the process cannot exit past that
    // thread. /dev/zero and /dev/urandom never end. Standard input itself is read as `-`.
    if (kind === 'a device') {
      const which = deviceKind(info);
      throw validationError(`${printable(file, 200)} is a device${which === null ? '' : ` (${which})`}, not a file: give a CSV file, a named pipe, or - for standard input.`);
    }
    // A file this user may not read is refused now: the stream below opens it only later, and
    // its failure to open was then an 'error' event nothing listened to yet (a crash, exit 1).
    // (Not a pipe: opening and closing one could end its writer's output.)
    if (kind === 'a file') await (await openFile(path, 'r')).close();
    // A named pipe (a FIFO, `<(command)`) is opened without waiting for its writer, and read as a
    // socket, which waits for one on the event loop. Opened as a file, the open waited in a thread
    // of libuv's pool, which a process cannot exit past: Ctrl-C while no writer had come said
    // "Stopped" and premia went on waiting, until a second Ctrl-C killed it.
    else pipe = new Socket({ fd: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false });
  } catch (e) {
    throw unreadable(e, file);
  }
  // The name every message about the file shows: a control or bidirectional character in it
  // (`evil\u202Ecsv.txt`) escaped, never written to the terminal to act or reorder the line.
  const name = printable(basename(path), 200);
  // A pipe is read once, like stdin, and its size is not known.
  if (pipe !== null) return { name, stream: pipe };
  const open = () => unchangedFile(path, name, info, file);
  // A file can be read again from the start (a remote upload whose connection failed is resent).
  return { name, stream: open(), size: info.size, reopen: open };
}

/**
 * A regular file's bytes, failing at its end (INVALID_FILE) when the file changed while it was
 * read: more or fewer bytes than it held when opened, or written to meanwhile. A file still being
 * written (an export in progress, a copy not yet done) was imported as far as it had got, its last
 * row cut wherever the writer was: `100.00` read as `10`, a premium a tenth of the one meant. The
 * failure comes before the stream ends, so the import it feeds stores nothing (nor is a remote
 * upload's last part ever sent).
 */
function unchangedFile(path: string, name: string, opened: Stats, given: string): AsyncIterable<Uint8Array> & { destroy: () => void } {
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  async function* read(): AsyncGenerator<Uint8Array> {
    let bytes = 0;
    let how: string | null = null;
    for await (const chunk of readOrSay(stream, given)) {
      bytes += chunk.byteLength;
      // Refused before these bytes go on: a remote upload's body would outgrow its Content-Length.
      if (bytes > opened.size) {
        how = `it held ${opened.size} bytes when opened, and more when read`;
        break;
      }
      yield chunk;
    }
    if (how === null) {
      const now = await stat(path).catch(() => null);
      if (bytes < opened.size) how = `it held ${opened.size} bytes when opened and ${bytes} when read to its end`;
      else if (now === null) how = 'it was removed or renamed meanwhile';
      else if (now.size !== opened.size) how = `it held ${opened.size} bytes when opened and ${now.size} once read`;
      else if (now.mtimeMs !== opened.mtimeMs) how = 'it was written to meanwhile';
      else return;
    }
    const reason = `the file changed while it was read (${how}): it may still be being written; import it once it is complete`;
    throw new PremiaError('INVALID_FILE', `${name}: ${reason}. Nothing was imported.`, { details: [{ field: 'file', code: 'INVALID_FILE', message: reason }] });
  }
  return Object.assign(read(), { destroy: () => void stream.destroy() });
}

/**
 * The stream's bytes; a read that fails once the file is open (EIO of a failing disk or of
 * /proc/self/mem, EINVAL of a file of the kernel's that takes no read) said so, naming the file:
 * it was "premia failed unexpectedly: EIO: i/o error, read", exit 1, with no file named. The
 * import it feeds stores nothing (it fails before the stream ends).
 */
async function* readOrSay(stream: AsyncIterable<Buffer>, given: string): AsyncGenerator<Buffer> {
  try {
    yield* stream;
  } catch (e) {
    const { code, syscall } = e as NodeJS.ErrnoException;
    if (syscall !== 'read' || code === undefined) throw e;
    throw validationError(`Cannot read ${printable(given, 200)}: reading it failed (${(e as Error).message}). Nothing was imported.`);
  }
}

/** Why an input file cannot be read, as a validation error for the causes a person can fix; anything else as it is. */
function unreadable(e: unknown, given: string): unknown {
  const file = printable(given, 200);
  switch ((e as NodeJS.ErrnoException).code) {
    case 'ENOENT': {
      const tilde = unexpandedTilde(given);
      return validationError(`Cannot read ${file}: no such file${tilde === null ? '' : ` ${tilde}`}.`);
    }
    case 'ENOTDIR':
      return validationError(`Cannot read ${file}: a part of the path before the file name is not a directory.`);
    case 'EACCES':
    case 'EPERM':
      return validationError(`Cannot read ${file}: permission denied.`);
    case 'ELOOP':
      return validationError(`Cannot read ${file}: it is a loop of symbolic links.`);
    case 'ENAMETOOLONG':
      return validationError(`Cannot read ${file}: the path is too long (a name of more than 255 bytes, or a path of more than 4096).`);
    default:
      return e;
  }
}

/**
 * `upload` with its data rows counted as it is sent, read the way premia reads a CSV (records that
 * are not blank, after the header): `rows()` gives that count once the file has been sent whole
 * and read as CSV, else null. For a remote import, whose answer another server counts its own way
 * (the spec does not say how a duplicate or a bad row is counted). A resent upload is counted anew.
 * A stream of no known size that shows binary content fails there as not being `what` (`a policy
 * CSV file`), with the message local mode gives, before its upload is complete.
 */
export function countedUpload(upload: Upload, what: string): { upload: Upload; rows: () => number | null } {
  let counted: number | null = null;
  async function* tap(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array | string> {
    counted = null;
    let records = 0;
    let readable = true;
    const reader = new CsvReader({ onRecord: (fields) => void (isBlankRecord(fields) || records++) });
    for await (const chunk of source) {
      if (readable) {
        try {
          reader.push(chunk);
        } catch (e) {
          readable = false; // not CSV premia reads: the server's answer is all there is
          // Binary content from a stream of no known end (`- < /dev/zero`, a pipe of /dev/urandom): the
          // upload was sent on without end, the service waiting for its end to answer (local mode
          // refuses it at once). Stopped here, before the upload is complete, so nothing is imported.
          if (upload.size === undefined && e instanceof CsvFormatError && (e.reason === 'BINARY' || e.reason === 'ENCODING')) {
            throw new PremiaError('INVALID_FILE', `${upload.name} is not ${what}: ${e.message}. Nothing was imported.`, {
              details: [{ field: 'file', code: 'INVALID_FILE', message: e.message }],
            });
          }
        }
      }
      yield chunk;
    }
    try {
      if (readable) reader.end();
    } catch {
      readable = false;
    }
    if (readable) counted = Math.max(0, records - 1);
  }
  const reopen = upload.reopen;
  return {
    upload: { ...upload, stream: tap(upload.stream), ...(reopen && { reopen: () => tap(reopen()) }) },
    rows: () => counted,
  };
}
