/**
 * Writing a Download (a report or an export) to stdout or to a path: the one rule every option
 * that writes a file follows (`--output`, simulate's `--out`). What the path is decides how:
 *
 *   regular file      replaced atomically: the body is streamed into a temporary file in the same
 *                     directory, flushed to disk (fsync) and renamed over it; the file keeps its
 *                     mode, and its owner and group where permitted. A reader never sees a
 *                     half-written file, and a failed export (full disk, a store error halfway)
 *                     leaves the old file as it was and no temporary file behind.
 *   nothing there     created the same way, with mode 0666 & ~umask (what `>` would give).
 *   symlink           followed (a chain of them, relative or absolute, dangling or not) and its
 *                     final target treated by these rules; the link itself is left as it is.
 *   /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N
 *                     written through that descriptor of this process (the shell's pipe, file or
 *                     terminal), never opened anew or replaced.
 *   FIFO, character or block device
 *                     opened and written through (not replaced; fsynced only where possible).
 *   socket            connected to and written through.
 *   directory         where the option accepts one (`--output DIR`), the download's own file name
 *                     inside it, by the same rules; a directory there too is an error (exit 2).
 *
 * Every buffer is written whole (a write may take only part of it, for example when the disk is
 * nearly full), and a replaced file's size on disk is compared with the bytes streamed before the
 * rename.
 *
 * What an existing file may be replaced by (a tired operator's `--output premia.db`): never a
 * SQLite database or its WAL (a store, premia's or another's), even with `force`, nor (existing
 * or not) the -wal, -shm or -journal file of a SQLite database beside it; otherwise a
 * non-empty file only if it looks like a download of the same kind, that is its first line is the
 * new body's first line (last month's report, with the same header), or, for JSON, its rows are
 * under the same member (`results`, `attempts`), or, for an HTML page, its title is the same but
 * for the digits (last month's summary page), or with `force`. A file write-protected (for this
 * user, or for everyone: `chmod a-w` on a report kept as final) is never replaced, as `>` would
 * not write it either. A statement's export written into a directory under its own name
 * (`Download.oneDocument`) replaces only the same bytes: numbers count per client, so another
 * file of that name is another client's statement. The check on the first line is made once the body has been streamed into the
 * temporary file, so a refusal costs nothing but the time and leaves the old file as it was.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { constants, createReadStream, statSync, write as writeFd, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, realpath, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Writable } from 'node:stream';
import type { Download } from '../../backend/types.js';
import { ExitCode, PremiaError, validationError, type DetailCode } from '../../domain/errors.js';
import { printable } from '../../domain/identifiers.js';
import { isWriteProtected } from '../../lib/write-protected.js';
import { makeDirectories } from '../../lib/make-directories.js';
import { unexpandedTilde } from '../../lib/tilde.js';
import { isSqliteDatabase, sqliteDatabaseOwning } from '../../lib/sqlite-files.js';
import { catchCtrlC } from '../interrupt.js';
import type { CliContext } from '../context.js';

export interface Written {
  /** The path written (as named, a directory's download name joined), or null for stdout. */
  path: string | null;
  bytes: number;
}

/** The part of a FileHandle that writing a download uses. */
export type OutputFile = Pick<FileHandle, 'write' | 'sync' | 'stat' | 'close' | 'chmod' | 'chown'>;

/** How the temporary file is opened (tests inject files that write short or fail). */
export interface OutputFiles {
  open(path: string, flags: string, mode: number): Promise<OutputFile>;
}

const NODE_FILES: OutputFiles = { open };

/** Symlinks followed before giving up (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * Write the body to `output` (see the header for what each kind of path means), or to stdout
 * when `output` is undefined or `-`. `option` names the option in messages.
 */
export async function writeDownload(
  ctx: CliContext,
  download: Download,
  output?: string,
  files: OutputFiles = NODE_FILES,
  option = '--output',
  force = false,
): Promise<Written> {
  if (output === undefined || output === '-') return { path: null, bytes: await toStream(ctx.stdout, download) };
  const named = resolve(ctx.cwd, output);
  let place = await placeOf(named, { output, option });
  let path = named;
  // `--output reports/` names a directory (resolve() drops the slash): never a file called
  // `reports`, nor an existing file `reports` replaced.
  if (output.endsWith('/') && place.kind !== 'directory') {
    if (place.kind === 'file' && place.existing === null) {
      throw validationError(`Cannot write ${option} ${output}: the directory ${named} ${missingDirectory(named)}`, [
        { field: option, code: 'DIRECTORY_NOT_FOUND', message: `${named} does not exist` },
      ]);
    }
    throw validationError(`Cannot write ${option} ${output}: ${named} is not a directory.`, [
      { field: option, code: 'NOT_A_DIRECTORY', message: `${named} is not a directory` },
    ]);
  }
  if (place.kind === 'directory') {
    path = join(named, download.filename);
    place = await placeOf(path, { output, option });
    if (place.kind === 'directory') {
      throw validationError(`Cannot write ${option} ${output}: ${path} is a directory. Give a file name, or remove the directory.`, [
        { field: option, code: 'IS_A_DIRECTORY', message: `${path} is a directory` },
      ]);
    }
  }
  // Under the download's own name in a directory, a document that never changes replaces only itself.
  const where: Where = { output, option, force, sameBytes: download.oneDocument === true && path !== named };
  switch (place.kind) {
    case 'file':
      return { path, bytes: await replaceFile(download, place.path, place.existing, files, where, ctx.signals) };
    case 'descriptor':
      return { path, bytes: await toDescriptor(ctx, download, place.fd, where) };
    case 'through':
      return { path, bytes: await throughFile(download, place.path, where) };
    case 'socket':
      return { path, bytes: await throughSocket(download, place.path, where) };
  }
}

/**
 * For an option that names a directory to write files into (simulate's `--out`): `dir` must be a
 * directory (a symlink to one will do) or not exist yet, short of a directory named '~' (lib/tilde.ts);
 * with `create` it is made, with its parents.
 */
export async function outputDirectory(dir: string, where: Where, create: boolean): Promise<void> {
  try {
    if ((await stat(dir)).isDirectory()) return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw outputError(e, where, join(dir, '.'));
    if (code === 'ENOENT') {
      // Never a directory named '~' made (nor, by `create` false, one to be made later): that is
      // a home directory no shell expanded.
      const missing = await firstMissing(dir);
      if (basename(missing) === '~') {
        throw validationError(`Cannot write ${where.option} ${where.output}: the directory ${missing} ${missingDirectory(missing)}`, [
          { field: where.option, code: 'DIRECTORY_NOT_FOUND', message: `${missing} does not exist` },
        ]);
      }
      if (!create) return;
      try {
        await makeDirectories(dir);
        return;
      } catch (e2) {
        const code2 = (e2 as NodeJS.ErrnoException).code;
        if (code2 === 'ENOENT') {
          const why = await mkdirFailure(dir);
          if (why !== null) throw outputError(why.error, where, why.missing);
        }
        // Named by the directory it could not make (its parent is where it failed: a read-only
        // file system under month/ for month/a/b says month), not by the one asked for.
        if (code2 !== 'ENOTDIR' && code2 !== 'EEXIST') throw outputError(e2, where, (e2 as NodeJS.ErrnoException).path ?? join(dir, '.'));
      }
    }
  }
  throw validationError(`Cannot write ${where.option} ${where.output}: ${dir} is not a directory (or lies under a file). Give a directory, or a path that does not exist yet.`, [
    { field: where.option, code: 'NOT_A_DIRECTORY', message: `${dir} is not a directory` },
  ]);
}

/**
 * Why making `dir` and its parents failed with ENOENT: Node answers ENOENT for any directory it
 * cannot make in a parent that exists (a read-only file system, a full disk: EROFS, ENOSPC),
 * which read as "the directory does not exist; create it first". The first missing directory,
 * made alone, gives the real reason, with that directory (whose parent exists) to name it by;
 * null when it was made after all (a race: the caller's ENOENT stands).
 */
async function mkdirFailure(dir: string): Promise<{ error: unknown; missing: string } | null> {
  const missing = await firstMissing(dir);
  try {
    await mkdir(missing);
  } catch (error) {
    return { error, missing };
  }
  await rmdir(missing).catch(() => undefined);
  return null;
}

/** The outermost directory of `dir` (a path that does not exist) that does not exist. */
async function firstMissing(dir: string): Promise<string> {
  let missing = dir;
  for (let parent = dirname(missing); parent !== missing; missing = parent, parent = dirname(missing)) {
    try {
      await stat(parent);
      break;
    } catch {
      // missing too: look further up
    }
  }
  return missing;
}

/** "does not exist", and what to do about it, for a directory an output file was to go in. */
function missingDirectory(dir: string): string {
  const tilde = unexpandedTilde(dir);
  return tilde === null ? 'does not exist. Create it first or choose another path.' : `does not exist ${tilde}.`;
}

export interface Where {
  output: string;
  option: string;
  /** Replace an existing file that does not look like a download of the same kind (never a database). */
  force?: boolean;
  /** Replace an existing file only by the same bytes (Download.oneDocument under its own name), unless force. */
  sameBytes?: boolean;
}

/** The first bytes of a SQLite WAL file (a database's: lib/sqlite-files.ts). */
const WAL_MAGICS = [0x377f0682, 0x377f0683];
/** How much of each file's start is compared. */
const HEAD_BYTES = 4096;

/** The first HEAD_BYTES bytes of the file at `path` (fewer if it is shorter). */
async function headOf(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The first line of `head` (without its line end), or all of it when it has none. */
function firstLine(head: Buffer): string {
  const end = head.indexOf(10);
  return head.subarray(0, end < 0 ? head.length : end).toString('utf8').replace(/\r$/, '');
}

/** Refuse to replace `target` (existing, `head` its first bytes) when it is a SQLite database or WAL: never, even with force. */
function refuseDatabase(where: Where, target: string, head: Buffer): void {
  const isDatabase = isSqliteDatabase(head) || (head.length >= 4 && WAL_MAGICS.includes(head.readUInt32BE(0)));
  if (!isDatabase) return;
  throw validationError(
    `Cannot write ${where.option} ${where.output}: ${target} is a SQLite database (a premia store?), and a report is never written over one. Nothing was written; give another file name.`,
    [{ field: where.option, code: 'WOULD_OVERWRITE', message: `${target} is a SQLite database` }],
  );
}

/**
 * Refuse to write `target` when it is the -wal, -shm or -journal file of a SQLite database beside
 * it (the store this command has open, or any other), whether or not it exists yet, even with
 * force (lib/sqlite-files.ts): a report renamed over the open store's WAL or shared memory is
 * deleted with them when the store closes (after "Wrote …").
 */
async function refuseDatabaseCompanion(where: Where, target: string): Promise<void> {
  const owner = await sqliteDatabaseOwning(target);
  if (owner === null) return;
  throw validationError(
    `Cannot write ${where.option} ${where.output}: ${target} is the -${owner.kind} file of the SQLite database ${owner.database} (a premia store?), ` +
      `which SQLite alone writes and removes, and a report is never written there. Nothing was written; give another file name.`,
    [{ field: where.option, code: 'WOULD_OVERWRITE', message: `${target} belongs to the SQLite database ${owner.database}` }],
  );
}

/**
 * What kind of JSON download `head` begins: `[` for a list, else the name of the top-level member
 * whose value is the first list (`results` of a collections report, `attempts` of the attempts
 * export), however the JSON is spaced: a package.json (`files`, or none) or the summary's figures
 * (`by_day`) are of other kinds. Null when the head shows none, which no download replaces
 * without force.
 */
function jsonKind(head: Buffer): string | null {
  const text = head.toString('utf8');
  let i = text.search(/\S/);
  if (i < 0) return null;
  if (text[i] === '[') return '[';
  if (text[i] !== '{') return null;
  let depth = 0;
  let key: string | null = null;
  let lastString: string | null = null;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) return null;
      lastString = text.slice(i + 1, j);
      i = j;
    } else if (c === ':' && depth === 1) {
      key = lastString;
    } else if (c === ',' && depth === 1) {
      key = null;
    } else if (c === '{' || c === '[') {
      if (c === '[' && depth === 1 && key !== null) return key;
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth <= 0) return null;
    }
  }
  return null;
}

/** An HTML page's kind: its `<title>` with the digits (a period's) left out; null without one. */
function htmlTitle(head: Buffer): string | null {
  const m = /<title>([^<]*)<\/title>/i.exec(head.toString('utf8'));
  return m ? m[1]!.trim() : null;
}
const htmlKind = (head: Buffer): string | null => htmlTitle(head)?.replace(/[0-9]/g, '#') ?? null;

/** Refuse to replace `target` when it is write-protected (lib/write-protected.ts); force does not override it. */
async function refuseWriteProtected(where: Where, target: string, existing: Stats): Promise<void> {
  if (!(await isWriteProtected(target, existing.mode))) return;
  const mode = (existing.mode & 0o7777).toString(8).padStart(4, '0');
  throw validationError(
    `Cannot write ${where.option} ${where.output}: ${target} is write-protected (mode ${mode}), and premia does not replace a file it may not write. ` +
      `Nothing was written; give another file name, or make it writable first (chmod u+w ${target}).`,
    [{ field: where.option, code: 'PERMISSION_DENIED', message: `${target} is write-protected` }],
  );
}

/**
 * Refuse to replace `target` (`head` its first bytes) with other bytes than its own (`sha256` of
 * the new `bytes`): under a statement's own name, another statement of the same number, which is
 * another client's or another store's (numbers count per client).
 */
async function checkSameBytes(where: Where, target: string, head: Buffer, sha256: string, bytes: number): Promise<void> {
  const existing = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of createReadStream(target)) {
      existing.update(chunk as Buffer);
      size += (chunk as Buffer).byteLength;
    }
  } catch (e) {
    throw outputError(e, where, target);
  }
  if (size === bytes && existing.digest('hex') === sha256) return;
  const lines = head.toString('utf8').split('\n');
  const row = (lines[1] ?? '').replace(/\r$/, '').replace(/[^\x20-\x7e]/g, '?');
  const shown = row.length > 80 ? `${row.slice(0, 80)}…` : row;
  throw validationError(
    `Cannot write ${where.option} ${where.output}: ${target} already holds another statement's export under that name (its first row is '${shown}'): ` +
      `statement numbers count per client, so it is another client's statement (or another store's). Nothing was written; ` +
      `give a file name of its own (${where.option} FILE), or --force to replace it.`,
    [{ field: where.option, code: 'WOULD_OVERWRITE', message: `${target} holds another statement's export` }],
  );
}

/** Refuse to replace `target` (`head` its first bytes) with a file starting `fresh`, unless it looks like the same kind of download (or force). */
function checkSameKind(where: Where, target: string, head: Buffer, fresh: Buffer, contentType: string): void {
  const { output, option } = where;
  if (where.force === true) return;
  // CSV: the same header line. JSON: the rows under the same member (any JSON file is no report).
  // HTML: the same title but for the period (`<!DOCTYPE html>` begins every page, not only ours).
  const kindOf = /html/i.test(contentType) ? htmlKind : /json/i.test(contentType) ? jsonKind : firstLine;
  const kind = kindOf(head);
  if (kind !== null && kind === kindOf(fresh)) return;
  const title = kindOf === htmlKind ? htmlTitle(head) : null;
  const line = (kindOf === htmlKind ? (title ?? '') : firstLine(head)).replace(/[^\x20-\x7e]/g, '?');
  const shown = line.length > 80 ? `${line.slice(0, 80)}…` : line;
  const what = kindOf !== htmlKind ? `its first line is '${shown}'` : title === null ? 'a page without a title' : `a page titled '${shown}'`;
  throw validationError(
    `Cannot write ${option} ${output}: ${target} already exists and is not a download of this kind (${what}). ` +
      `Nothing was written; give another file name, or --force to replace it.`,
    [{ field: option, code: 'WOULD_OVERWRITE', message: `${target} exists and holds something else` }],
  );
}

type Place =
  | { kind: 'file'; path: string; existing: Stats | null }
  | { kind: 'directory'; path: string }
  | { kind: 'descriptor'; fd: number }
  | { kind: 'through'; path: string }
  | { kind: 'socket'; path: string };

/** What `path` is once symlinks are followed (see the header). */
async function placeOf(path: string, where: Where): Promise<Place> {
  let current = path;
  for (let hops = 0; ; hops++) {
    const fd = ownDescriptor(current);
    if (fd !== null) return { kind: 'descriptor', fd };
    // The directory holding `current`, without symlinks, so that a relative link is read the way
    // the kernel reads it and the temporary file lands beside the file it replaces.
    let dir: string;
    try {
      dir = await realpath(dirname(current));
    } catch (e) {
      throw outputError(e, where, current);
    }
    current = join(dir, basename(current));
    if (ownDescriptor(current) !== null) continue; // /proc/self/fd/N reached through a link
    let info: Stats;
    try {
      info = await lstat(current);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { kind: 'file', path: current, existing: null };
      throw outputError(e, where, current);
    }
    if (info.isSymbolicLink()) {
      if (hops >= MAX_LINKS) {
        throw validationError(`Cannot write ${where.option} ${where.output}: ${path} is a loop of symbolic links (or more than ${MAX_LINKS} of them).`, [
          { field: where.option, code: 'SYMLINK_LOOP', message: `more than ${MAX_LINKS} symbolic links` },
        ]);
      }
      try {
        current = resolve(dir, await readlink(current));
      } catch (e) {
        throw outputError(e, where, current);
      }
      continue;
    }
    if (info.isFile()) return { kind: 'file', path: current, existing: info };
    if (info.isDirectory()) return { kind: 'directory', path: current };
    if (info.isSocket()) return { kind: 'socket', path: current };
    return { kind: 'through', path: current }; // FIFO, character or block device
  }
}

/** The descriptor of this process that `path` names, if it names one (/dev/stdout, /dev/fd/3, /proc/self/fd/1). */
function ownDescriptor(path: string): number | null {
  const std = /^\/dev\/(stdin|stdout|stderr)$/.exec(path);
  if (std) return ['stdin', 'stdout', 'stderr'].indexOf(std[1]!);
  const fd = /^\/dev\/fd\/(\d+)$/.exec(path) ?? /^\/proc\/(?:self|thread-self|(\d+)(?:\/task\/\d+)?)\/fd\/(\d+)$/.exec(path);
  if (!fd) return null;
  if (fd.length === 2) return Number(fd[1]);
  if (fd[1] !== undefined && Number(fd[1]) !== process.pid) return null; // another process's: open it like any path
  return Number(fd[2]);
}

async function toStream(stream: Writable, download: Download, name = 'standard output'): Promise<number> {
  let bytes = 0;
  for await (const chunk of download.body) {
    if (chunk.length === 0) continue;
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    try {
      if (!stream.write(chunk)) await once(stream, 'drain');
    } catch (e) {
      // The reader left (premia reports … | head): it has what it wanted; the rest is not made.
      if ((e as NodeJS.ErrnoException).code === 'EPIPE') return bytes;
      throw streamError(e, name);
    }
  }
  return bytes;
}

const writeToFd = promisify(writeFd);

/** Write through one of this process's descriptors: 1 and 2 are the command's own stdout and stderr. */
async function toDescriptor(ctx: CliContext, download: Download, fd: number, where: Where): Promise<number> {
  if (fd === 1) return toStream(ctx.stdout, download);
  if (fd === 2) return toStream(ctx.stderr, download, 'standard error');
  let bytes = 0;
  try {
    for await (const chunk of download.body) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let offset = 0;
      while (offset < buf.byteLength) {
        try {
          offset += (await writeToFd(fd, buf, offset, buf.byteLength - offset, null)).bytesWritten ?? 0;
        } catch (e) {
          // A descriptor inherited in non-blocking mode (a pipe or socket) that is full for now.
          if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
          await new Promise((r) => setTimeout(r, 5));
        }
      }
      bytes += buf.byteLength;
    }
  } catch (e) {
    throw e instanceof PremiaError ? e : outputError(e, where, `descriptor ${fd}`, 'through');
  }
  return bytes;
}

/** A FIFO or a device: opened (without creating or truncating anything) and written through. */
async function throughFile(download: Download, path: string, where: Where): Promise<number> {
  let file: FileHandle;
  try {
    // O_WRONLY alone: no O_CREAT (a device that vanished is not replaced by a file), no O_TRUNC.
    file = await open(path, constants.O_WRONLY);
  } catch (e) {
    throw outputError(e, where, path);
  }
  let bytes = 0;
  try {
    for await (const chunk of download.body) {
      if (chunk.length === 0) continue;
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      await writeAll(file, buf);
      bytes += buf.byteLength;
    }
    await file.sync().catch(() => undefined); // a FIFO or a terminal cannot be fsynced
  } catch (e) {
    throw e instanceof PremiaError ? e : outputError(e, where, path, 'through');
  } finally {
    await file.close().catch(() => undefined);
  }
  return bytes;
}

/** A Unix socket: connected to, written through and closed. */
async function throughSocket(download: Download, path: string, where: Where): Promise<number> {
  const socket = createConnection(path);
  let bytes = 0;
  try {
    await once(socket, 'connect');
    for await (const chunk of download.body) {
      if (chunk.length === 0) continue;
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      if (!socket.write(chunk)) await once(socket, 'drain');
    }
    socket.end();
    await once(socket, 'close');
  } catch (e) {
    socket.destroy();
    throw e instanceof PremiaError ? e : outputError(e, where, path, 'through');
  }
  return bytes;
}

/** Stream into a temporary file beside `target`, fsync it and rename it over `target`. */
async function replaceFile(download: Download, target: string, existing: Stats | null, files: OutputFiles, where: Where, signals?: CliContext['signals']): Promise<number> {
  const dir = dirname(target);
  await refuseDatabaseCompanion(where, target); // before any work
  let head: Buffer | null = null;
  if (existing && existing.size > 0) {
    try {
      head = await headOf(target);
    } catch (e) {
      throw outputError(e, where, target);
    }
    refuseDatabase(where, target, head); // before any work
  }
  if (existing) await refuseWriteProtected(where, target, existing);
  const fresh: Buffer[] = [];
  let freshBytes = 0;
  const temp = join(dir, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  let file: OutputFile | undefined;
  try {
    // A new file: 0666 less the umask, as `>` gives. A replaced one: private until its own mode is set.
    file = await files.open(temp, 'wx', existing ? 0o600 : 0o666);
  } catch (e) {
    throw outputError(e, where, target);
  }
  let bytes = 0;
  // Hashed only where it is compared (a statement's export under its own name): a report of a
  // million rows is not hashed for nothing.
  const digest = head !== null && where.sameBytes === true && where.force !== true ? createHash('sha256') : null;
  // Ctrl-C while the file is written: its default effect ended the process at once and left the
  // hidden partial copy beside the target (the size of the report so far). Stop at the next piece,
  // remove it and say so, exit 130. Not where a command already listens for Ctrl-C (simulate).
  const ctrlC = signals !== undefined && signals.listenerCount('SIGINT') === 0 ? catchCtrlC({ signals }, () => {}) : null;
  try {
    if (existing) {
      // Owner first: chown clears set-id bits, chmod then restores the exact mode.
      await file.chown(existing.uid, existing.gid).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EPERM' && e.code !== 'EINVAL') throw e;
      });
      await file.chmod(existing.mode & 0o7777);
    }
    for await (const chunk of download.body) {
      if (ctrlC?.signal.aborted) throw writeStopped(target, existing !== null);
      if (chunk.length === 0) continue;
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      bytes += buf.byteLength;
      digest?.update(buf);
      if (head !== null && freshBytes < HEAD_BYTES) {
        fresh.push(Buffer.from(buf.subarray(0, HEAD_BYTES - freshBytes)));
        freshBytes += Math.min(buf.byteLength, HEAD_BYTES - freshBytes);
      }
      await writeAll(file, buf);
    }
    if (ctrlC?.signal.aborted) throw writeStopped(target, existing !== null);
    if (head !== null) checkSameKind(where, target, head, Buffer.concat(fresh), download.contentType);
    if (head !== null && digest !== null) await checkSameBytes(where, target, head, digest.digest('hex'), bytes);
    await file.sync();
    const size = (await file.stat()).size;
    if (size !== bytes) {
      throw new Error(`the file holds ${size} bytes after writing ${bytes}`);
    }
    await file.close();
    file = undefined;
    await rename(temp, target);
  } catch (e) {
    if (file) await file.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw e instanceof PremiaError ? e : outputError(e, where, target);
  } finally {
    ctrlC?.release();
  }
  await syncDirectory(dir);
  await removeAbandonedTemps(dir, basename(target));
  return bytes;
}

/** Ctrl-C while a file was written: nothing of it is kept. */
function writeStopped(target: string, existed: boolean): PremiaError {
  return new PremiaError('CANCELLED', `Stopped by Ctrl-C: nothing was written; ${target} ${existed ? 'is as it was' : 'was not made'}.`, {
    exitCode: ExitCode.CANCELLED,
  });
}

/** A temporary file nobody has written for this long is no live export's (one writes as it streams). */
const ABANDONED_TEMP_MS = 10 * 60 * 1000;

/**
 * The temporary files of earlier exports to the same name that were killed before they could
 * remove their own (SIGKILL, a power cut): partial copies of a report, left hidden beside it.
 */
async function removeAbandonedTemps(dir: string, name: string): Promise<void> {
  const prefix = `.${name}.`;
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const entry of entries) {
    if (!entry.startsWith(prefix) || !/^[0-9a-f]{12}\.tmp$/.test(entry.slice(prefix.length))) continue;
    const path = join(dir, entry);
    const st = await lstat(path).catch(() => null);
    if (st?.isFile() && now - st.mtimeMs > ABANDONED_TEMP_MS) await rm(path, { force: true }).catch(() => undefined);
  }
}

/** Write the whole buffer, however many calls it takes. */
async function writeAll(file: Pick<OutputFile, 'write'>, buf: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < buf.byteLength) {
    const { bytesWritten } = await file.write(buf, offset, buf.byteLength - offset);
    if (!(bytesWritten > 0)) {
      throw Object.assign(new Error(`a write took no bytes at offset ${offset} of a ${buf.byteLength}-byte chunk`), { code: 'EIO' });
    }
    offset += bytesWritten;
  }
}

/** Make the rename itself durable. Best effort: not every platform can open a directory. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // ignored: the file is complete either way
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * The error for a failure writing the stream `name` (standard output, or error) other than its
 * reader leaving: what was written there is incomplete, and the command must not pass for done.
 */
export function streamError(e: unknown, name: string): PremiaError {
  const code = (e as NodeJS.ErrnoException).code;
  const why = code === 'ENOSPC' || code === 'EDQUOT' ? 'no space left on the device' : (e as Error).message;
  return new PremiaError('INTERNAL', `Writing to ${name} failed: ${why}; what was written there is incomplete.`, { cause: e });
}

/**
 * The error for a failure writing `target`. `through`: bytes may already have reached a pipe or
 * device, so the message does not claim that nothing was written.
 */
function outputError(e: unknown, where: Where, target: string, mode: 'file' | 'through' = 'file'): PremiaError {
  const { output, option } = where;
  let code = (e as NodeJS.ErrnoException).code;
  const nothing = mode === 'file' ? '; no file was written' : '';
  const detail = (c: DetailCode, message: string) => [{ field: option, code: c, message }];
  let parent: Stats | undefined;
  if (code === 'ENOENT') {
    try {
      parent = statSync(dirname(target), { throwIfNoEntry: false });
    } catch (e2) {
      // realpath answers ENOENT for a path too long whose directories do not exist; the stat
      // threw, and premia "failed unexpectedly: ENAMETOOLONG" (exit 1).
      if ((e2 as NodeJS.ErrnoException).code === 'ENAMETOOLONG') code = 'ENAMETOOLONG';
    }
  }
  if (code === 'ENAMETOOLONG') {
    const why = 'the path is too long (a name of more than 255 bytes, or a path of more than 4096)';
    return validationError(`Cannot write ${option} ${printable(output, 200)}: ${why}.`, detail('INVALID_VALUE', why));
  }
  // A directory that is there answers ENOENT too when its file system makes no files (/proc):
  // "does not exist" would send the user to create what exists.
  if (code === 'ENOENT' && parent?.isDirectory() === true) {
    return validationError(
      `Cannot write ${option} ${output}: ${dirname(target)} takes no new files (its file system refused to make one there). Choose another directory.`,
      detail('PERMISSION_DENIED', `no file can be made in ${dirname(target)}`),
    );
  }
  if (code === 'ENOENT') {
    return validationError(
      `Cannot write ${option} ${output}: the directory ${dirname(target)} ${missingDirectory(dirname(target))}`,
      detail('DIRECTORY_NOT_FOUND', `${dirname(target)} does not exist`),
    );
  }
  if (code === 'ENOTDIR') {
    return validationError(`Cannot write ${option} ${output}: ${dirname(target)} is not a directory.`, detail('NOT_A_DIRECTORY', `${dirname(target)} is not a directory`));
  }
  // A disk remounted read-only (after an I/O error) or a read-only mount: no permission fixes it.
  if (code === 'EROFS') {
    return validationError(`Cannot write ${option} ${output}: ${dirname(target)} is on a read-only file system.`, detail('PERMISSION_DENIED', `${dirname(target)} is on a read-only file system`));
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return validationError(`Cannot write ${option} ${output}: permission denied in ${dirname(target)}.`, detail('PERMISSION_DENIED', `cannot write in ${dirname(target)}`));
  }
  if (code === 'ELOOP') {
    return validationError(`Cannot write ${option} ${output}: ${target} is a loop of symbolic links.`, detail('SYMLINK_LOOP', 'a loop of symbolic links'));
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new PremiaError('INTERNAL', `Writing ${option} ${output} failed: no space left on the device of ${dirname(target)}${nothing}.`, { cause: e });
  }
  return new PremiaError('INTERNAL', `Writing ${option} ${output} failed (${(e as Error).message})${nothing}.`, { cause: e });
}
