/**
 * A multipart/form-data body with one file part named `file`, generated while the file is read:
 * the file is never held in memory, whatever its size.
 */
import { randomBytes } from 'node:crypto';
import type { ImportProgress } from '../types.js';

export interface BodyState {
  /** Whether reading the file has begun (after that, stdin cannot be sent again). */
  started: boolean;
  bytes: number;
  lines: number;
}

export function newBoundary(): string {
  return `----premia-${randomBytes(18).toString('hex')}`;
}

/** A file name safe inside the quoted filename parameter. */
function quotedName(name: string): string {
  return name.replace(/["\\\r\n]/g, '_');
}

/** What comes before the file's bytes, and after them. */
function partHead(boundary: string, name: string): Buffer {
  return Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quotedName(name)}"\r\nContent-Type: text/csv\r\n\r\n`, 'utf8');
}
const partTail = (boundary: string): Buffer => Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');

/**
 * The length of the body around a file of `size` bytes: sent as Content-Length, since a server may
 * refuse a chunked request (411 Length Required).
 */
export function multipartLength(boundary: string, name: string, size: number): number {
  return partHead(boundary, name).length + size + partTail(boundary).length;
}

export async function* multipartBody(
  boundary: string,
  name: string,
  source: AsyncIterable<Uint8Array | string>,
  state: BodyState,
  onProgress?: (p: ImportProgress) => void,
): AsyncGenerator<Buffer> {
  yield partHead(boundary, name);
  // From here on the source may have been consumed (and a failed request destroys it): a one-time
  // stream such as stdin can no longer be sent again.
  state.started = true;
  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    state.bytes += buf.length;
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) state.lines++;
    onProgress?.({ bytes: state.bytes, rows: Math.max(0, state.lines - 1) });
    yield buf;
  }
  yield partTail(boundary);
}
