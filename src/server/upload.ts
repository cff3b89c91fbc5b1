/**
 * Uploads: the multipart part `file` is streamed to a temporary file (size-limited, hashed on the
 * way for idempotency) before anything touches the store, so the store's one connection is never
 * held while a slow client is still sending. The caller imports from the file, then removes it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import type { Upload } from '../backend/types.js';
import { PremiaError, validationError } from '../domain/errors.js';
import { uploadTooLarge } from './http.js';

export interface ReceivedFile {
  path: string;
  name: string;
  size: number;
  sha256: string;
  /** A fresh Upload reading the temporary file. */
  open(): Upload;
  remove(): Promise<void>;
}

export async function receiveFile(request: FastifyRequest, limit: number, tmpDir: string): Promise<ReceivedFile> {
  if (!request.isMultipart()) {
    throw new PremiaError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Send the file as multipart/form-data, in a part named file (curl -F file=@policies.csv).',
    );
  }
  // The whole form is read: a second file (any name) is refused rather than silently dropped
  // (files: 1 makes @fastify/multipart throw FST_FILES_LIMIT at it), and a body that breaks off
  // after the file is an incomplete upload. Other (non-file) fields are read and ignored.
  let received: ReceivedFile | undefined;
  try {
    // throwFileSizeLimit is read by @fastify/multipart for parts() too, but typed only for file().
    const options = { limits: { fileSize: limit, files: 1, fields: 20, parts: 25 }, throwFileSizeLimit: true };
    const parts = request.parts(options as Parameters<FastifyRequest['parts']>[0]);
    for await (const part of parts) {
      if (part.type !== 'file') continue;
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
      received = await spool(part.file, part.filename, limit, tmpDir);
    }
  } catch (e) {
    await received?.remove();
    throw e;
  }
  if (!received) {
    throw validationError('The form has no file: send it in a part named file.', [
      { field: 'file', code: 'REQUIRED', message: 'no file part in the form' },
    ]);
  }
  return received;
}

/** The refusal of a form with more than one file (FST_FILES_LIMIT is mapped to the same in http.ts). */
export function tooManyParts(): PremiaError {
  return validationError('Send exactly one file, in a part named file; nothing was imported.', [
    { field: 'file', code: 'TOO_MANY_PARTS', message: 'the form has more than one file or too many parts' },
  ]);
}

/** Stream one file part to a 0600 temporary file, hashing and counting on the way. */
async function spool(file: Readable & { truncated?: boolean }, filename: string | undefined, limit: number, tmpDir: string): Promise<ReceivedFile> {
  const path = join(tmpDir, `premia-upload-${randomUUID()}`);
  const hash = createHash('sha256');
  let size = 0;
  const remove = () => rm(path, { force: true });
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
      createWriteStream(path, { flags: 'wx', mode: 0o600 }),
    );
  } catch (e) {
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
