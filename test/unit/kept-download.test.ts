/** simulation/kept-download.ts KeptDownload: a download passed on as it is, its bytes kept to be read again. */
import { describe, expect, it } from 'vitest';
import type { Download } from '../../src/backend/types.js';
import { KeptDownload } from '../../src/simulation/kept-download.js';

async function bytesOf(d: Download): Promise<string> {
  const parts: string[] = [];
  for await (const chunk of d.body) parts.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
  return parts.join('');
}

/** A download whose chunks are one buffer refilled each time, as a stream may hand them over. */
function refilled(texts: string[]): Download {
  const buffer = Buffer.alloc(16);
  return {
    filename: 'attempts-2026-11.csv',
    contentType: 'text/csv',
    body: (async function* () {
      for (const t of texts) {
        const n = buffer.write(t);
        yield buffer.subarray(0, n);
      }
    })(),
  };
}

describe('a download kept while it is read', () => {
  it('passes every byte on, then gives the same bytes again, as often as asked', async () => {
    const kept = new KeptDownload(refilled(['header\n', 'row 1\n', 'ünïcode\n']));
    expect(kept.passed.filename).toBe('attempts-2026-11.csv');
    expect(await bytesOf(kept.passed)).toBe('header\nrow 1\nünïcode\n');
    // The buffer was refilled after each chunk: what was kept is each chunk as it was.
    expect(await bytesOf(kept.again())).toBe('header\nrow 1\nünïcode\n');
    expect(await bytesOf(kept.again())).toBe('header\nrow 1\nünïcode\n');
    expect(kept.again().contentType).toBe('text/csv');
  });

  it('text chunks are kept as they are', async () => {
    const kept = new KeptDownload({ filename: 'r.csv', contentType: 'text/csv', body: ['a,b\n', '1,2\n'] as unknown as AsyncIterable<string> });
    expect(await bytesOf(kept.passed)).toBe('a,b\n1,2\n');
    expect(await bytesOf(kept.again())).toBe('a,b\n1,2\n');
  });

  it('refuses to be read again before it has been read to its end', async () => {
    const kept = new KeptDownload(refilled(['one\n', 'two\n']));
    expect(() => kept.again()).toThrow('attempts-2026-11.csv has not been read to its end: its bytes are not all kept');
    const it = kept.passed.body[Symbol.asyncIterator]();
    await it.next();
    expect(() => kept.again()).toThrow('has not been read to its end');
  });
});
