/**
 * The row errors an import reports: the first MAX_REPORTED_ERRORS by row, whatever order they
 * are found in. A hostile file of a million bad rows must not hold a million error objects (and
 * answer with a response of hundreds of megabytes); `failed` still counts every row, and
 * `errors_omitted` says how many errors were left out.
 */
import { ExitCode, PremiaError } from '../../domain/errors.js';
import { printable } from '../../domain/identifiers.js';
import { spreadsheetNumber } from '../../domain/money.js';
import { trimCell } from '../../lib/csv-reader.js';

export const MAX_REPORTED_ERRORS = 10_000;

export class RowErrors<T extends { row: number }> {
  private list: T[] = [];
  private omitted = 0;
  private sorted = true;

  constructor(private readonly limit = MAX_REPORTED_ERRORS) {}

  push(e: T): void {
    const last = this.list[this.list.length - 1];
    if (last !== undefined && e.row < last.row) this.sorted = false;
    this.list.push(e);
    // Keep at most twice the limit in hand: sort and drop the highest rows.
    if (this.list.length >= 2 * this.limit) this.trim();
  }

  private trim(): void {
    if (!this.sorted) this.list.sort((a, b) => a.row - b.row);
    this.sorted = true;
    if (this.list.length > this.limit) {
      this.omitted += this.list.length - this.limit;
      this.list.length = this.limit;
    }
  }

  /** The reported errors in row order (stable for errors of one row) and how many were left out. */
  result(): { errors: T[]; errors_omitted?: number } {
    this.trim();
    return this.omitted > 0 ? { errors: this.list, errors_omitted: this.omitted } : { errors: this.list };
  }

  /**
   * These errors and `rest`'s (of other rows) together, in row order, within this one's limit:
   * these first (the first by row), then the first of `rest` by row in the room left. For errors
   * an answer must never leave out for others, as a bank statement's unreadable rows, which
   * refuse it whole, for the rows it already holds.
   */
  resultBefore(rest: RowErrors<T>): { errors: T[]; errors_omitted?: number } {
    const first = this.result();
    const then = rest.result();
    const taken = then.errors.slice(0, Math.max(0, this.limit - first.errors.length));
    const errors = [...first.errors, ...taken].sort((a, b) => a.row - b.row);
    const omitted = (first.errors_omitted ?? 0) + (then.errors_omitted ?? 0) + then.errors.length - taken.length;
    return omitted > 0 ? { errors, errors_omitted: omitted } : { errors };
  }
}

/** Ctrl-C during an import (ImportOptions.signal): the import's transaction is rolled back whole. */
export function importStopped(): PremiaError {
  return new PremiaError('CANCELLED', 'Stopped by Ctrl-C: nothing was imported (the import was rolled back whole).', { exitCode: ExitCode.CANCELLED });
}

/**
 * A file refused whole (`what`: "a policy CSV file"): its name as given (controls escaped: the name
 * is the operator's or an uploader's), the reason, and that nothing was imported.
 */
export function invalidCsvFile(name: string, what: string, reason: string): PremiaError {
  const sentence = /[.!?]$/.test(reason) ? reason : `${reason}.`;
  return new PremiaError('INVALID_FILE', `${printable(name, 200)} is not ${what}: ${sentence} Nothing was imported.`, {
    details: [{ field: 'file', code: 'INVALID_FILE', message: reason }],
  });
}

/**
 * An import's input, failing with importStopped() as soon as `signal` aborts, even while a read
 * is waiting: a terminal (`policies import -` with nothing typed yet) or a stalled pipe sends no
 * chunk, and a check made only between chunks would wait for the next one (Ctrl-C seemed
 * ignored, and a second one killed the process without a word). A read left waiting is
 * abandoned, not awaited: the stream is destroyed by whoever owns it, or the process exits.
 */
export function stoppable<T>(source: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncIterable<T> {
  if (signal === undefined) return source;
  return {
    [Symbol.asyncIterator]: () => {
      const iterator = source[Symbol.asyncIterator]();
      let onAbort = () => {};
      const stopped = new Promise<never>((_resolve, reject) => {
        onAbort = () => reject(importStopped());
      });
      stopped.catch(() => undefined); // rejected with nobody waiting yet: not an unhandled rejection
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      const forget = () => signal.removeEventListener('abort', onAbort);
      return {
        next: async () => {
          try {
            const next = await Promise.race([iterator.next(), stopped]);
            if (next.done) forget();
            return next;
          } catch (e) {
            forget();
            throw e;
          }
        },
        return: async () => {
          forget();
          // After Ctrl-C a read may still be waiting, and a stream's iterator answers return()
          // only after it: let it go.
          if (signal.aborted) void iterator.return?.()?.catch(() => undefined);
          else await iterator.return?.();
          return { done: true as const, value: undefined };
        },
      };
    },
  };
}

/**
 * For a row of more fields than `columns` whose fields from `at` (the amount's) on, as many as it
 * has too many plus one, make an amount with thousands separators (`1,234.50` unquoted, as a
 * spreadsheet formats money) or a decimal comma (`149,50`, `1.234,50`, as one does where the
 * comma is the decimal mark): what to add to its message (naming the column `name`), or ''.
 */
export function amountSplitHint(fields: readonly string[], columns: number, at: number, name: string): string {
  const extra = fields.length - columns;
  if (extra <= 0) return '';
  const amount = fields.slice(at, at + 1 + extra).map((f) => trimCell(f)).join(',');
  const sign = /^[+-]/.exec(amount)?.[0] ?? '';
  const n = spreadsheetNumber(amount.slice(sign.length));
  if (n === null) return '';
  const what = n.grouped && n.decimalComma ? 'has a thousands separator and a decimal comma' : n.grouped ? 'has thousands separators' : 'has a decimal comma';
  const how = n.grouped && !n.decimalComma ? 'write it without them, like' : 'write it as';
  return `: the ${name} '${printable(amount, 40)}' ${what}, which split it into fields; ${how} ${sign}${n.plain}`;
}
