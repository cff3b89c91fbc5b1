/** Opening input files for commands: `-` is stdin; a missing file is a validation error. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { resolve } from 'node:path';
import type { Upload } from '../backend/types.js';
import { validationError } from '../domain/errors.js';
import type { CliContext } from './context.js';

export async function openUpload(ctx: CliContext, file: string): Promise<Upload> {
  if (file === '-') {
    // Typed or pasted at a terminal: say how the input ends, or premia seems to hang.
    if (ctx.stdinIsTTY) ctx.stderr.write('Reading CSV from the terminal: type or paste it, then press Ctrl-D at the start of a line to end it (Ctrl-C stops).\n');
    return { name: 'stdin', stream: ctx.stdin as AsyncIterable<Uint8Array> };
  }
  const path = resolve(ctx.cwd, file);
  let regular: boolean;
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw validationError(`${file} is a directory; give a CSV file.`);
    regular = info.isFile();
    size = info.size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw validationError(`Cannot read ${file}: no such file.`);
    if ((e as NodeJS.ErrnoException).code === 'EACCES') throw validationError(`Cannot read ${file}: permission denied.`);
    throw e;
  }
  const open = () => createReadStream(path, { highWaterMark: 1 << 20 });
  // A pipe (`<(command)`, a FIFO) is read once, like stdin, and its size is not known.
  if (!regular) return { name: basename(path), stream: open() };
  // A file can be read again from the start (a remote upload whose connection failed is resent).
  return { name: basename(path), stream: open(), size, reopen: open };
}
