/**
 * `--output FILE` through files that misbehave as a nearly full disk does: writes that take only
 * part of a buffer, a write that fails with ENOSPC, a file whose size on disk is not what was
 * written. The file is either complete or absent (the temporary file too), never truncated.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Download } from '../../src/backend/types.js';
import { createContext } from '../../src/cli/context.js';
import { writeDownload, type OutputFile, type OutputFiles } from '../../src/cli/output/download.js';
import { tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-download-')));
afterEach(() => cleanup());

const context = () => createContext({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: Readable.from([]), cwd: dir });

/** A CSV body of `rows` lines, in chunks of 10 lines. */
function body(rows: number): { text: string; download: () => Download } {
  const lines = Array.from({ length: rows }, (_, i) => `2026-11,C${100000 + i},POL-${i},149.50\n`);
  const chunks: string[] = [];
  for (let i = 0; i < lines.length; i += 10) chunks.push(lines.slice(i, i + 10).join(''));
  return {
    text: lines.join(''),
    download: () => ({
      filename: 'r.csv',
      contentType: 'text/csv; charset=utf-8',
      body: (async function* () {
        yield* chunks;
      })(),
    }),
  };
}

/** Real files whose handle is wrapped by `wrap`. */
function filesWith(wrap: (real: FileHandle) => OutputFile): OutputFiles {
  return { open: async (path, flags, mode) => wrap(await open(path, flags, mode)) };
}

/** A handle that writes at most `max` bytes per call, and fails with ENOSPC once `capacity` bytes are written. */
function shortWriting(real: FileHandle, max: number, capacity = Infinity): OutputFile {
  let written = 0;
  return {
    write: (async (buffer: Uint8Array, offset = 0, length = buffer.byteLength - offset) => {
      const room = capacity - written;
      if (room <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      const n = Math.min(length, max, room);
      const r = await real.write(buffer, offset, n);
      written += r.bytesWritten;
      return r;
    }) as FileHandle['write'],
    sync: () => real.sync(),
    stat: ((...a: []) => real.stat(...a)) as FileHandle['stat'],
    close: () => real.close(),
    chmod: (mode) => real.chmod(mode),
    chown: (uid, gid) => real.chown(uid, gid),
  };
}

describe('--output through short writes', () => {
  it('a file that takes 7 bytes per write still gets every byte', async () => {
    const { text, download } = body(100);
    const written = await writeDownload(context(), download(), 'r.csv', filesWith((real) => shortWriting(real, 7)));
    expect(written).toEqual({ path: join(dir, 'r.csv'), bytes: Buffer.byteLength(text) });
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toBe(text);
    expect(readdirSync(dir)).toEqual(['r.csv']);
  });

  it('a disk that fills halfway: INTERNAL with a clear message, no file, no temporary file, the old file kept', async () => {
    writeFileSync(join(dir, 'r.csv'), 'previous\n');
    const { download } = body(100);
    await expect(writeDownload(context(), download(), 'r.csv', filesWith((real) => shortWriting(real, 4096, 1000)))).rejects.toMatchObject({
      code: 'INTERNAL',
      exitCode: 1,
      message: `Writing --output r.csv failed: no space left on the device of ${dir}; no file was written.`,
    });
    expect(readdirSync(dir)).toEqual(['r.csv']);
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toBe('previous\n');
  });

  it('a write that takes nothing is an error, not an endless loop', async () => {
    const { download } = body(20);
    const files = filesWith((real) => ({ ...shortWriting(real, 1), write: (async () => ({ bytesWritten: 0, buffer: Buffer.alloc(0) })) as unknown as FileHandle['write'] }));
    await expect(writeDownload(context(), download(), 'r.csv', files)).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('no file was written') });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a file whose size on disk differs from the bytes written is not renamed into place', async () => {
    const { download } = body(20);
    // Reports every write as whole but keeps only the first 100 bytes of each.
    const files = filesWith((real) => ({
      ...shortWriting(real, 100),
      write: (async (buffer: Uint8Array, offset = 0, length = buffer.byteLength - offset) => {
        await real.write(buffer, offset, Math.min(length, 100));
        return { bytesWritten: length, buffer };
      }) as FileHandle['write'],
    }));
    await expect(writeDownload(context(), download(), 'r.csv', files)).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/^Writing --output r\.csv failed \(the file holds \d+ bytes after writing \d+\); no file was written\.$/),
    });
    expect(existsSync(join(dir, 'r.csv'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
