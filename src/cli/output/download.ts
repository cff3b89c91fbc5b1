/**
 * Writing a Download (a report or an export) to stdout, or atomically to a file: the body is
 * streamed into a temporary file in the target's directory, flushed to disk (fsync) and renamed
 * into place, so a reader never sees a half-written file and a failed export (bad directory,
 * full disk, a store error halfway) leaves no file behind, not even the temporary one.
 *
 * Every buffer is written whole (a write may take only part of it, for example when the disk is
 * nearly full), and the file's size on disk is compared with the bytes streamed before the rename.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Download } from '../../backend/types.js';
import { PremiaError, usageError } from '../../domain/errors.js';
import type { CliContext } from '../context.js';

export interface Written {
  /** The file written, or null for stdout. */
  path: string | null;
  bytes: number;
}

/** The part of a FileHandle that writing a download uses. */
export type OutputFile = Pick<FileHandle, 'write' | 'sync' | 'stat' | 'close'>;

/** How the temporary file is opened (tests inject files that write short or fail). */
export interface OutputFiles {
  open(path: string, flags: string, mode: number): Promise<OutputFile>;
}

const NODE_FILES: OutputFiles = { open };

/** Write the body to `output` (a file, or an existing directory: the download's own name in it), or stdout. */
export async function writeDownload(ctx: CliContext, download: Download, output?: string, files: OutputFiles = NODE_FILES): Promise<Written> {
  if (output === undefined || output === '-') return { path: null, bytes: await toStdout(ctx, download) };
  return toFile(ctx, download, output, files);
}

async function toStdout(ctx: CliContext, download: Download): Promise<number> {
  let bytes = 0;
  for await (const chunk of download.body) {
    if (chunk.length === 0) continue;
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (!ctx.stdout.write(chunk)) await once(ctx.stdout, 'drain');
  }
  return bytes;
}

async function toFile(ctx: CliContext, download: Download, output: string, files: OutputFiles): Promise<Written> {
  let target = resolve(ctx.cwd, output);
  if (await isDirectory(target)) target = join(target, download.filename);
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);

  let file: OutputFile | undefined;
  try {
    file = await files.open(temp, 'wx', 0o644);
  } catch (e) {
    throw outputError(e, output, target);
  }
  let bytes = 0;
  try {
    for await (const chunk of download.body) {
      if (chunk.length === 0) continue;
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      bytes += buf.byteLength;
      await writeAll(file, buf);
    }
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
    throw e instanceof PremiaError ? e : outputError(e, output, target);
  }
  await syncDirectory(dirname(target));
  return { path: target, bytes };
}

/** Write the whole buffer, however many calls it takes. */
async function writeAll(file: OutputFile, buf: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < buf.byteLength) {
    const { bytesWritten } = await file.write(buf, offset, buf.byteLength - offset);
    if (!(bytesWritten > 0)) {
      throw Object.assign(new Error(`a write took no bytes at offset ${offset} of a ${buf.byteLength}-byte chunk`), { code: 'EIO' });
    }
    offset += bytesWritten;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
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

function outputError(e: unknown, output: string, target: string): PremiaError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return usageError(`Cannot write --output ${output}: the directory ${dirname(target)} does not exist. Create it first or choose another path.`);
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return usageError(`Cannot write --output ${output}: permission denied in ${dirname(target)}.`);
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new PremiaError('INTERNAL', `Writing --output ${output} failed: no space left on the device of ${dirname(target)}; no file was written.`, { cause: e });
  }
  return new PremiaError('INTERNAL', `Writing --output ${output} failed (${(e as Error).message}); no file was written.`, { cause: e });
}
