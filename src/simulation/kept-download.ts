/**
 * A download's bytes kept as it is saved, so that simulate's month figures (month-figures.ts)
 * read what it has just saved instead of asking for it again (scenario.ts).
 */
import type { Download } from '../backend/types.js';

/**
 * A download passed on (`passed`, to be written out) whose bytes are kept as they go by, to be
 * read again (`again`) once it has been read to its end, as many times as wanted.
 */
export class KeptDownload {
  readonly passed: Download;
  private readonly chunks: Array<Uint8Array | string> = [];
  private whole = false;

  constructor(private readonly download: Download) {
    this.passed = { ...download, body: this.keep(download.body) };
  }

  private async *keep(source: AsyncIterable<Uint8Array | string>): AsyncIterable<Uint8Array | string> {
    for await (const chunk of source) {
      // A copy: a stream may hand the same buffer over again, refilled.
      this.chunks.push(typeof chunk === 'string' ? chunk : new Uint8Array(chunk));
      yield chunk;
    }
    this.whole = true;
  }

  /** The same download again, from the bytes kept (refused before the first was read to its end). */
  again(): Download {
    if (!this.whole) throw new Error(`${this.download.filename} has not been read to its end: its bytes are not all kept`);
    const chunks = this.chunks;
    return {
      ...this.download,
      body: (async function* () {
        yield* chunks;
      })(),
    };
  }
}
