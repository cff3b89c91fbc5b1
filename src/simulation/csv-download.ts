/**
 * Reading a period's CSV downloads (the collections report, the attempts export) through the
 * Backend interface: record by record, the header checked, money read into integer cents
 * (month-figures.ts); and keeping a download's bytes as it is saved, so that simulate's month
 * figures read what it has just saved instead of asking for it again (scenario.ts).
 */
import type { Download } from '../backend/types.js';
import { PremiaError } from '../domain/errors.js';
import { centsFromJsonNumber } from '../domain/money.js';
import { CsvReader } from '../lib/csv-reader.js';

/** "149.50" → 14950 (read by character, no expression: 3 million a month at 1M); other decimal forms through the strict money parser. */
export function moneyCents(text: string, field: string): number {
  const n = text.length;
  const negative = text.charCodeAt(0) === 45;
  const from = negative ? 1 : 0;
  // 1 to 13 digits, a point, two digits.
  if (n - from >= 4 && n - from <= 16 && text.charCodeAt(n - 3) === 46) {
    let v = 0;
    let k = from;
    for (; k < n; k++) {
      if (k === n - 3) continue;
      const d = text.charCodeAt(k) - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (k === n) return negative ? -v : v;
  }
  return centsFromJsonNumber(text, field);
}

/**
 * Stream a CSV download through the reader, checking its header, calling `onRow` with each
 * record's fields. A body that is not the expected CSV is an error naming the download.
 */
export async function readCsvDownload(d: Download, what: string, columns: readonly string[], onRow: (fields: string[]) => void): Promise<void> {
  let header = true;
  const failed: { error: PremiaError | null } = { error: null };
  const reader = new CsvReader({
    onRecord: (fields, line, problem) => {
      if (failed.error !== null) return;
      try {
        if (problem !== null) throw new Error(problem);
        if (header) {
          header = false;
          if (fields.join(',') !== columns.join(',')) throw new Error(`its header is not ${columns.join(',')}`);
          return;
        }
        if (fields.length !== columns.length) throw new Error(`${fields.length} fields instead of ${columns.length}`);
        onRow(fields);
      } catch (e) {
        failed.error = new PremiaError('INTERNAL', `The ${what} could not be read (line ${line}: ${(e as Error).message}).`, { cause: e });
      }
    },
  });
  for await (const chunk of d.body) {
    reader.push(chunk);
    if (failed.error !== null) throw failed.error;
  }
  reader.end();
  if (failed.error !== null) throw failed.error;
}

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
