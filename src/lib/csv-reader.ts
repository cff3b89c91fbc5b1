/**
 * A streaming RFC 4180 CSV reader, push-based and synchronous per chunk, written for the
 * million-row import paths. Lines without a quote character (nearly all of them) are split
 * with native string operations; a record containing quotes goes through a character-level
 * parser. The reader tracks the 1-based line on which each record starts.
 *
 * Fatal problems (the file is not CSV text at all) throw CsvFormatError: invalid UTF-8 or NUL
 * bytes (binary content, or UTF-16 text, which the message names), a quote left open at the end of the file, or a record longer than
 * `maxRecordLength` (which also bounds memory on hostile input). Problems confined to one record
 * (text after a closing quote) are passed to `onRecord` so the caller can reject just that row.
 *
 * Tolerated: a UTF-8 byte order mark, CRLF or LF line ends, and empty lines (skipped).
 */
import { SQLITE_MAGIC } from './sqlite-files.js';

export type CsvFatalReason = 'BINARY' | 'ENCODING' | 'UNCLOSED_QUOTE' | 'RECORD_TOO_LONG';

export class CsvFormatError extends Error {
  constructor(
    readonly reason: CsvFatalReason,
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'CsvFormatError';
  }
}

export type RecordHandler = (fields: string[], line: number, problem: string | null) => void;

export interface CsvReaderOptions {
  onRecord: RecordHandler;
  /**
   * Offered each line without a quote character first (line end removed): return true when it
   * was taken whole, false to have it split into fields and passed to `onRecord`. Lets a caller
   * check the common, plain line without allocating its fields.
   */
  onPlainLine?: (line: string, lineNo: number) => boolean;
  /**
   * Offered each whole line of a byte chunk after the first that is ASCII without a quote or a
   * NUL, as `bytes[start, end)` (line end removed): return true when it was taken whole, false to
   * have it read as text (onPlainLine, then onRecord). Lets a caller take the common line
   * without decoding it into a string. A line with anything else, and everything after it in
   * the chunk, is read as text: a file reads the same either way.
   */
  onPlainBytes?: (bytes: Uint8Array, start: number, end: number, lineNo: number) => boolean;
  /** Longest record accepted, in characters (default 1 MiB). */
  maxRecordLength?: number;
}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const NEED_MORE = -1;
/** The bytes a file's start is judged on: the longest magic number (SQLite's, 16) and UTF-16's alternating NULs. */
const SNIFF_BYTES = 64;

export class CsvReader {
  private readonly onRecord: RecordHandler;
  private readonly onPlainLine: ((line: string, lineNo: number) => boolean) | undefined;
  private readonly onPlainBytes: CsvReaderOptions['onPlainBytes'];
  private readonly maxRecordLength: number;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true }); // strips a leading BOM
  private buf = '';
  private lineNo = 1;
  private started = false;
  /** The decoder holds no bytes of a character begun (the last it was given was ASCII). */
  private decoderClean = true;
  /**
   * The file's first bytes, held until there are enough to tell what the file is (a workbook, UTF-16
   * text): a pipe or an upload may hand them over a few at a time. null once they are read.
   */
  private head: Uint8Array | null = new Uint8Array(0);
  /** Characters consumed so far (for progress). */
  bytesIn = 0;

  constructor(options: CsvReaderOptions) {
    this.onRecord = options.onRecord;
    this.onPlainLine = options.onPlainLine;
    this.onPlainBytes = options.onPlainBytes;
    this.maxRecordLength = options.maxRecordLength ?? 1 << 20;
  }

  /** The line number the next record would start on. */
  get line(): number {
    return this.lineNo;
  }

  push(chunk: Uint8Array | string): void {
    if (this.head !== null) {
      if (typeof chunk !== 'string') {
        // The first bytes are judged together, however they were split (`(head -c1; …) | premia
        // bank import -` named a UTF-16 file a legacy encoding, an .xlsx not a workbook).
        const head = this.head.byteLength === 0 ? chunk : Buffer.concat([this.head, chunk]);
        // Judged before SNIFF_BYTES too once no more bytes can change the verdict: a whole first
        // line (of text that cannot still become a container's magic number) or a whole magic
        // number. A pipe's producer may pause after its first line (`(echo wrong,header; sleep 3;
        // …) |`): a short wrong header waited for the rest, or the end, before its refusal.
        if (head.byteLength < SNIFF_BYTES && !judgedEarly(head)) {
          this.head = head;
          return;
        }
        chunk = head;
      } else if (this.head.byteLength > 0) {
        this.take(this.head); // text after bytes held: those go first
      }
      this.head = null;
    }
    this.take(chunk);
  }

  /** Read `chunk` on from where the text stands (push's, once the file's first bytes are judged). */
  private take(chunk: Uint8Array | string): void {
    // The first chunk is read as text (what the file is, its byte order mark, its header).
    if (typeof chunk === 'string' || this.onPlainBytes === undefined || this.bytesIn === 0) {
      this.takeText(chunk);
      return;
    }
    this.bytesIn += chunk.byteLength;
    let from = 0;
    if (!this.started || this.buf.length > 0 || !this.decoderClean) {
      // A line begun in the chunk before (or a character), ended as text first.
      from = chunk.indexOf(LF) + 1;
      if (from > 0) this.decode(chunk.subarray(0, from), false);
      if (from === 0 || this.buf.length > 0) {
        // No line end in it, or a quoted cell running on past it: the rest as text too.
        this.decode(chunk.subarray(from), false);
        return;
      }
    }
    const to = this.plainLines(chunk, from);
    if (to < chunk.byteLength) this.decode(chunk.subarray(to), false);
  }

  /**
   * The whole lines of `chunk` from `from` (a line's start) offered to onPlainBytes, up to the
   * first that holds a byte above ASCII, a quote or a NUL, or runs past the chunk: where the
   * reading as text goes on.
   */
  private plainLines(chunk: Uint8Array, from: number): number {
    const n = chunk.byteLength;
    let pos = from;
    while (pos < n) {
      let i = pos;
      let c = 0;
      while (i < n && (c = chunk[i]!) !== LF && c < 0x80 && c !== QUOTE && c !== 0) i++;
      if (i === n || c !== LF) break;
      const end = i > pos && chunk[i - 1] === CR ? i - 1 : i;
      if (end > pos) {
        if (end - pos > this.maxRecordLength) this.tooLong(bareCrAt(chunk, pos, end));
        if (!this.onPlainBytes!(chunk, pos, end, this.lineNo)) this.plainLine(Buffer.from(chunk.buffer, chunk.byteOffset + pos, end - pos).toString('latin1'));
      }
      this.lineNo++;
      pos = i + 1;
    }
    return pos;
  }

  /** A line without quotes (its end removed): offered to onPlainLine, else split at its commas. */
  private plainLine(line: string): void {
    if (this.onPlainLine === undefined || !this.onPlainLine(line, this.lineNo)) this.onRecord(line.split(','), this.lineNo, null);
  }

  /** Read `chunk` as text (take's, for a string or a chunk read whole as text). */
  private takeText(chunk: Uint8Array | string): void {
    const atStart = this.bytesIn === 0;
    if (typeof chunk === 'string') {
      this.bytesIn += Buffer.byteLength(chunk);
      this.read(chunk, atStart);
      return;
    }
    this.bytesIn += chunk.byteLength;
    // A workbook or an archive given for its CSV: said as what it is, not as a text encoding.
    const container = atStart ? containerOf(chunk) : null;
    if (container !== null) throw new CsvFormatError('BINARY', 1, `line 1: the file is ${container}`);
    this.decode(chunk, atStart);
  }

  /** Decode `chunk` on from the decoder's state and read the text. */
  private decode(chunk: Uint8Array, atStart: boolean): void {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      // FF FE or FE FF, never UTF-8: what Excel's "Unicode Text" and many Windows tools write
      // (UTF-32's marks begin or end with the same two bytes).
      const unicode = atStart ? byteOrderMark(chunk) : null;
      if (unicode !== null) throw new CsvFormatError('ENCODING', 1, utfMessage(unicode, `it begins with a ${unicode} byte order mark`));
      // The line of the bad byte: the lines still buffered plus the line feeds before it.
      const at = this.lineNo + countNewlines(this.buf, 0) + newlinesBeforeInvalidUtf8(chunk);
      throw new CsvFormatError('ENCODING', at, `line ${at}: the file is not UTF-8 text (a legacy encoding such as Windows-1252, or binary content); ${SAVE_AS_UTF8}`);
    }
    if (chunk.byteLength > 0) this.decoderClean = chunk[chunk.byteLength - 1]! < 0x80;
    this.read(text, atStart);
  }

  /** Read text on from where the buffered text stands. */
  private read(text: string, atStart: boolean): void {
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text.indexOf('\u0000') !== -1) {
      if (atStart && looksLikeUtf16(text)) throw new CsvFormatError('BINARY', 1, utfMessage('UTF-16', 'every other byte is NUL'));
      const at = this.lineNo + countNewlines(this.buf + text.slice(0, text.indexOf('\u0000')), 0);
      throw new CsvFormatError('BINARY', at, `line ${at}: the file contains NUL bytes; it is binary, not CSV text`);
    }
    this.buf = this.buf.length === 0 ? text : this.buf + text;
    this.parse(false);
  }

  end(): void {
    // A file shorter than what its first bytes are judged on.
    if (this.head !== null && this.head.byteLength > 0) this.take(this.head);
    this.head = null;
    let rest: string;
    try {
      rest = this.decoder.decode();
    } catch {
      const at = this.lineNo + countNewlines(this.buf, 0);
      throw new CsvFormatError('ENCODING', at, `line ${at}: the file ends inside a UTF-8 character (binary content?)`);
    }
    if (rest) this.push(rest);
    this.parse(true);
  }

  private parse(final: boolean): void {
    const buf = this.buf;
    const n = buf.length;
    let pos = 0;
    let nextQuote = -2; // position of the next '"' at or after pos; -2 = not yet searched
    while (pos < n) {
      if (nextQuote !== -1 && nextQuote < pos) nextQuote = buf.indexOf('"', pos);
      let nl = buf.indexOf('\n', pos);
      if (nl === -1) {
        if (!final) {
          this.checkPending(buf, pos);
          break;
        }
        nl = n;
      }
      if (nextQuote === -1 || nextQuote >= nl) {
        // Fast path: a whole line without quotes.
        let end = nl;
        if (end > pos && buf.charCodeAt(end - 1) === CR) end--;
        if (end > pos) {
          if (end - pos > this.maxRecordLength) this.tooLong(bareCrAt(buf, pos, end));
          this.plainLine(buf.slice(pos, end));
        }
        this.lineNo++;
        pos = nl + 1;
        continue;
      }
      const next = this.parseQuotedRecord(buf, pos, final);
      if (next === NEED_MORE) {
        this.checkPending(buf, pos);
        break;
      }
      pos = next;
      nextQuote = -2;
    }
    this.buf = pos >= n ? '' : buf.slice(pos);
  }

  /** Parse one record that contains a quote. Returns the position after it, or NEED_MORE. */
  private parseQuotedRecord(buf: string, start: number, final: boolean): number {
    const n = buf.length;
    const fields: string[] = [];
    let problem: string | null = null;
    let newlines = 0;
    let i = start;
    for (;;) {
      let value: string;
      // Spaces or tabs before an opening quote surround a quoted cell (`a, "b"`): skipped.
      let lead = i;
      while (lead < n && (buf.charCodeAt(lead) === SPACE || buf.charCodeAt(lead) === TAB)) lead++;
      if (lead > i && lead >= n && !final) return NEED_MORE;
      if (lead > i && lead < n && buf.charCodeAt(lead) === QUOTE) i = lead;
      if (i < n && buf.charCodeAt(i) === QUOTE) {
        // Quoted field: runs to the next lone quote; "" is an escaped quote.
        let segStart = i + 1;
        let j = segStart;
        value = '';
        for (;;) {
          const q = buf.indexOf('"', j);
          if (q === -1) {
            if (!final) return NEED_MORE;
            throw new CsvFormatError('UNCLOSED_QUOTE', this.lineNo, `line ${this.lineNo}: a quoted field opened here is never closed`);
          }
          if (q + 1 >= n && !final) return NEED_MORE;
          if (buf.charCodeAt(q + 1) === QUOTE) {
            value += buf.slice(segStart, q + 1);
            j = q + 2;
            segStart = j;
            continue;
          }
          value += buf.slice(segStart, q);
          i = q + 1;
          break;
        }
        newlines += countNewlines(value, 0);
        // After the closing quote only a delimiter or a line end may follow.
        let k = i;
        while (k < n) {
          const c = buf.charCodeAt(k);
          if (c === COMMA || c === LF) break;
          k++;
        }
        if (k >= n && !final) return NEED_MORE;
        if (k > i) {
          const junk = buf.slice(i, k);
          // Spaces or tabs after the closing quote (`"a" ,`) surround the cell: not text of it; a
          // CR ends the line, before an LF or at the end of the file (as after an unquoted cell).
          if (!/^[ \t]*\r?$/.test(junk)) {
            problem ??= `unexpected text after a closing quote: ${JSON.stringify(junk.slice(0, 20))}`;
            value += junk.endsWith('\r') && k < n ? junk.slice(0, -1) : junk;
          }
        }
        i = k;
      } else {
        // Unquoted field: up to the next delimiter or line end (a quote inside is literal).
        let k = i;
        while (k < n) {
          const c = buf.charCodeAt(k);
          if (c === COMMA || c === LF) break;
          k++;
        }
        if (k >= n && !final) return NEED_MORE;
        let end = k;
        if (k < n && buf.charCodeAt(k) === LF && end > i && buf.charCodeAt(end - 1) === CR) end--;
        value = buf.slice(i, end);
        i = k;
      }
      fields.push(value);
      if (i >= n) break; // end of file
      const c = buf.charCodeAt(i);
      i++;
      if (c === LF) break;
      // c is a comma: another field follows (possibly empty, at end of line or file).
      if (i >= n) {
        if (!final) return NEED_MORE;
        fields.push('');
        break;
      }
    }
    // The record's length without its line end, measured like the fast path measures a line,
    // so the limit does not depend on how the input was cut into chunks.
    let end = i;
    if (end > start && buf.charCodeAt(end - 1) === LF) {
      end--;
      if (end > start && buf.charCodeAt(end - 1) === CR) end--;
    }
    if (end - start > this.maxRecordLength) this.tooLong(bareCrAt(buf, start, end));
    const line = this.lineNo;
    this.lineNo += 1 + newlines;
    this.onRecord(fields, line, problem);
    return i;
  }

  /**
   * The unfinished record at buf[pos..] is already over the limit. A trailing CR may be the
   * first half of a CRLF line end, so it does not count yet.
   */
  private checkPending(buf: string, pos: number): void {
    let length = buf.length - pos;
    if (length > 0 && buf.charCodeAt(buf.length - 1) === CR) length--;
    if (length > this.maxRecordLength) this.tooLong(bareCrAt(buf, pos, pos + length));
  }

  /**
   * A record over the limit. One that holds a carriage return alone is most often a whole file
   * whose lines end with CR alone (the old Mac format), run together: said as that.
   */
  private tooLong(bareCr: boolean): never {
    throw new CsvFormatError(
      'RECORD_TOO_LONG',
      this.lineNo,
      `line ${this.lineNo}: the record starting here is longer than ${this.maxRecordLength} characters` +
        (bareCr ? `. ${CR_LINE_ENDS}` : ' (a quote left open?)'),
    );
  }
}

/** Whether s[from..to) (a string's UTF-16 units or an array's bytes) holds a CR not followed by LF. */
function bareCrAt(s: string | Uint8Array, from: number, to: number): boolean {
  const text = typeof s === 'string';
  for (let i = text ? s.indexOf('\r', from) : s.indexOf(CR, from); i !== -1 && i < to; i = text ? s.indexOf('\r', i + 1) : s.indexOf(CR, i + 1)) {
    const next = text ? s.charCodeAt(i + 1) : s[i + 1];
    if (next !== LF) return true;
  }
  return false;
}

const SAVE_AS_UTF8 = 'save it as UTF-8 ("CSV UTF-8" in Excel)';

/** The first bytes of the files most often given for a CSV by mistake, and what to say of each. */
const CONTAINERS: ReadonlyArray<readonly [readonly number[], string]> = [
  [[0x50, 0x4b, 0x03, 0x04], 'a ZIP archive (such as an Excel .xlsx or OpenDocument .ods workbook), not CSV text; save the sheet as "CSV UTF-8" (comma-separated)'],
  [[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], 'an old Excel workbook (.xls), not CSV text; save the sheet as "CSV UTF-8" (comma-separated)'],
  [[0x1f, 0x8b], 'compressed with gzip, not CSV text; decompress it first (gunzip)'],
  [[0x25, 0x50, 0x44, 0x46, 0x2d], 'a PDF document, not CSV text'],
  // `premia policies import premia.db`: the store given for the CSV beside it.
  [[...SQLITE_MAGIC], 'an SQLite database (such as a premia store), not CSV text; give the CSV file'],
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG image, not CSV text'],
];

/** What the file starting with `head` is, when it is one of CONTAINERS, else null. */
function containerOf(head: Uint8Array): string | null {
  for (const [magic, what] of CONTAINERS) {
    if (head.byteLength >= magic.length && magic.every((b, i) => head[i] === b)) return what;
  }
  return null;
}

/**
 * Whether a file's first bytes, fewer than SNIFF_BYTES, already say what it is: they hold a whole
 * container magic number, or a line feed and no NUL byte (a UTF-16 or UTF-32 file's alternating
 * NULs are judged on more bytes) and are no magic number's beginning (a PNG's has a line feed).
 */
function judgedEarly(head: Uint8Array): boolean {
  if (containerOf(head) !== null) return true;
  if (head.indexOf(LF) === -1 || head.indexOf(0) !== -1) return false;
  return !CONTAINERS.some(([magic]) => head.byteLength < magic.length && head.every((b, i) => magic[i] === b));
}

function utfMessage(encoding: 'UTF-16' | 'UTF-32', why: string): string {
  return `line 1: the file is ${encoding} text (${why}), not UTF-8; ${SAVE_AS_UTF8}`;
}

/** The encoding a file's byte order mark names (FF FE 00 00 is UTF-32's, FF FE alone UTF-16's), or null. */
function byteOrderMark(head: Uint8Array): 'UTF-16' | 'UTF-32' | null {
  const at = (i: number) => (i < head.byteLength ? head[i]! : -1);
  if ((at(0) === 0xff && at(1) === 0xfe && at(2) === 0 && at(3) === 0) || (at(0) === 0 && at(1) === 0 && at(2) === 0xfe && at(3) === 0xff)) return 'UTF-32';
  if ((at(0) === 0xff && at(1) === 0xfe) || (at(0) === 0xfe && at(1) === 0xff)) return 'UTF-16';
  return null;
}

/** Whether text read as UTF-8 is UTF-16 of ASCII: its first characters alternate NUL and not NUL (either byte order). */
function looksLikeUtf16(text: string): boolean {
  const n = Math.min(text.length, 64) & ~1;
  if (n === 0) return false;
  const nulAt = text.charCodeAt(0) === 0 ? 0 : 1;
  for (let i = 0; i < n; i++) if ((text.charCodeAt(i) === 0) !== (i % 2 === nulAt)) return false;
  return true;
}

function countNewlines(s: string, from: number): number {
  let count = 0;
  let i = s.indexOf('\n', from);
  while (i !== -1) {
    count++;
    i = s.indexOf('\n', i + 1);
  }
  return count;
}

/**
 * Line feeds in a chunk before the byte the UTF-8 decoder refused (error path only). A line
 * feed byte is never part of a multibyte character, so counting raw 0x0A bytes is exact.
 */
function newlinesBeforeInvalidUtf8(chunk: Uint8Array): number {
  // Up to three leading continuation bytes may finish a character begun in the previous chunk.
  let start = 0;
  while (start < 3 && start < chunk.length && (chunk[start]! & 0xc0) === 0x80) start++;
  const refused = (end: number): boolean => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(chunk.subarray(start, end), { stream: true });
      return false;
    } catch {
      return true;
    }
  };
  let bad = start; // the problem is at the start of the chunk unless a later prefix is refused
  if (refused(chunk.length)) {
    // The shortest refused prefix ends just after the byte that made it invalid.
    let lo = start + 1;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (refused(mid)) hi = mid;
      else lo = mid + 1;
    }
    bad = lo - 1;
  }
  let count = 0;
  for (let i = 0; i < bad; i++) if (chunk[i] === LF) count++;
  return count;
}

/** Trim spaces and tabs around a cell, allocating only when there is something to trim. */
export function trimCell(s: string): string {
  const n = s.length;
  if (n === 0) return s;
  // String.prototype.trim's own spaces, so that a cell is trimmed the same whichever of them
  // comes first (an ideographic space, a byte order mark, a non-breaking space).
  if (!trimmable(s.charCodeAt(0)) && !trimmable(s.charCodeAt(n - 1))) return s;
  return s.trim();
}

/** Whether String.prototype.trim removes code unit `c` (ECMAScript WhiteSpace and LineTerminator), or it is another control character. */
function trimmable(c: number): boolean {
  if (c <= 32) return true;
  if (c < 160) return false;
  return c === 160 || c === 0xfeff || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/**
 * A record that holds no data: a line of only spaces and tabs, or of only separators and empty
 * cells (`,,,,`: the rows a spreadsheet writes where cells were cleared or only formatted). A
 * blank line to the imports, like an empty one.
 */
export function isBlankRecord(fields: readonly string[]): boolean {
  for (const f of fields) if (trimCell(f) !== '') return false;
  return true;
}

/** For a header that holds a carriage return: the whole file ran together. */
export const CR_LINE_ENDS =
  "The file's lines end with a carriage return alone (the old Mac format), which CSV does not take as a line end; save it with LF or CRLF line ends.";

/**
 * For a header that is one cell holding semicolons or tabs: a spreadsheet saved the file with
 * another list separator (as Excel does where the decimal mark is a comma). A sentence, or ''.
 */
export function separatorHint(header: readonly string[]): string {
  if (header.length !== 1) return '';
  const by = header[0]!.includes(';') ? "';'" : header[0]!.includes('\t') ? 'tabs' : null;
  return by === null ? '' : `Its columns are separated by ${by}, not commas (a spreadsheet's list separator); save the file as comma-separated CSV.`;
}

/** Whether a record is `columns` (names trimmed, compared without case): the header, or the header again. */
export function isHeaderOf(fields: readonly string[], columns: readonly string[]): boolean {
  return fields.length === columns.length && fields.every((f, i) => trimCell(f).toLowerCase() === columns[i]);
}

/** For a header that is Excel's `sep=,` line (a list separator for Excel, no part of CSV): a sentence, or ''. */
export function excelSepHint(found: readonly string[]): string {
  return found.length <= 2 && /^sep=.?$/i.test(found.join(',').trim()) ? "It is Excel's 'sep=' line, which only Excel reads; delete that line." : '';
}

/**
 * For a header that is `columns` with spaces or hyphens where the names have underscores
 * (`Customer ID`, as a person or a spreadsheet titles a column): a sentence, or ''.
 */
export function underscoreHint(found: readonly string[], columns: readonly string[]): string {
  const underscored = found.map((f) => trimCell(f).replace(/[\s-]+/g, '_'));
  if (isHeaderOf(found, columns) || !isHeaderOf(underscored, columns)) return '';
  return `Its names are written with spaces or hyphens; write them with underscores, as '${columns.join(',')}'.`;
}

const TRAILING_COMMA = '(a trailing comma, as a spreadsheet writes a column it kept)';

/** Whether `fields` go past the `columns` and those past them are all blank: a spreadsheet's stray columns. */
function emptyColumnsPast(fields: readonly string[], columns: readonly string[]): boolean {
  return fields.length > columns.length && fields.slice(columns.length).every((f) => trimCell(f) === '');
}

/** For a header of the expected `columns` followed by empty ones: a sentence, or ''. */
export function emptyColumnsHeaderHint(found: readonly string[], columns: readonly string[]): string {
  return emptyColumnsPast(found, columns) ? `It ends with empty columns after ${columns.at(-1)} ${TRAILING_COMMA}; delete them.` : '';
}

/** For a row of too many fields, those past the `columns` empty: what to add to its message, or ''. */
export function emptyColumnsRowHint(fields: readonly string[], columns: readonly string[]): string {
  return emptyColumnsPast(fields, columns) ? `, the ones after ${columns.at(-1)} empty ${TRAILING_COMMA}; delete them` : '';
}

/**
 * For a header that holds every one of `columns` and named columns besides (a bank's export with
 * its running balance, a sheet with a notes column): a sentence naming them, or ''. Names are
 * shown only when plain ASCII text (this module escapes nothing); else they are counted.
 */
export function extraColumnsHint(found: readonly string[], columns: readonly string[]): string {
  const names = found.map((f) => trimCell(f));
  const lower = names.map((f) => f.toLowerCase());
  if (names.length <= columns.length || !columns.every((c) => lower.includes(c))) return '';
  const extra = names.filter((n, i) => n !== '' && !columns.includes(lower[i]!));
  if (extra.length === 0) return '';
  const plain = extra.length <= 5 && extra.every((n) => /^[\x20-\x7e]{1,40}$/.test(n));
  const one = extra.length === 1;
  const what = plain ? `${one ? 'a column' : 'columns'} premia does not read (${extra.map((n) => `'${n}'`).join(', ')})` : `${extra.length} ${one ? 'column' : 'columns'} premia does not read`;
  const inOrder = lower.filter((n) => columns.includes(n)).join(',') === columns.join(',');
  return `It has ${what}; delete ${one ? 'it' : 'them'}${inOrder ? '' : `, and put the others in the order '${columns.join(',')}'`}.`;
}

/**
 * For a header that names most of `columns` but is not them (a column deleted, one given twice,
 * one misspelt): a sentence naming what is missing, repeated or unknown, or ''. A line that names
 * half of them or fewer (no header at all, another import's file) gets none: it is no near miss.
 */
export function missingColumnsHint(found: readonly string[], columns: readonly string[]): string {
  const names = found.map((f) => trimCell(f));
  const lower = names.map((f) => f.toLowerCase());
  if (columns.filter((c) => lower.includes(c)).length * 2 <= columns.length) return '';
  const quoted = (list: readonly string[]) => list.map((n) => `'${n}'`).join(', ');
  const twice = columns.filter((c) => lower.indexOf(c) !== lower.lastIndexOf(c));
  const missing = columns.filter((c) => !lower.includes(c));
  const unknown = names.filter((n, i) => n !== '' && !columns.includes(lower[i]!));
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`lacks ${missing.length === 1 ? 'the column' : 'the columns'} ${quoted(missing)}`);
  if (twice.length > 0) parts.push(`has ${twice.length === 1 ? 'the column' : 'the columns'} ${quoted(twice)} more than once`);
  if (unknown.length > 0) {
    const plain = unknown.length <= 5 && unknown.every((n) => /^[\x20-\x7e]{1,40}$/.test(n));
    const one = unknown.length === 1;
    parts.push(`has ${plain ? `${one ? 'a column' : 'columns'} premia does not read (${quoted(unknown)})` : `${unknown.length} ${one ? 'column' : 'columns'} premia does not read`}`);
  }
  if (parts.length === 0) return '';
  const last = parts.pop()!;
  return `It ${parts.length === 0 ? last : `${parts.join('; ')}; and ${last}`}.`;
}

/**
 * For a header that is not `columns`: what to add after its message (a space and a sentence), or
 * ''. The right columns in another order; lines ended by CR alone; another list separator,
 * Excel's `sep=` line, empty columns after the last, columns besides the expected ones, names
 * with spaces for underscores, or columns missing, repeated or misspelt.
 */
export function wrongHeaderHint(found: readonly string[], columns: readonly string[]): string {
  const sameSet = found.length === columns.length && found.map((f) => f.toLowerCase()).sort().join(',') === [...columns].sort().join(',');
  if (sameSet) return ' The columns are right but in the wrong order.';
  if (bareCrHint(found)) return ` ${CR_LINE_ENDS}`;
  const separated =
    excelSepHint(found) ||
    separatorHint(found) ||
    emptyColumnsHeaderHint(found, columns) ||
    extraColumnsHint(found, columns) ||
    underscoreHint(found, columns) ||
    missingColumnsHint(found, columns);
  return separated && ` ${separated}`;
}

/** A hint for a row whose unquoted text holds a carriage return: lines ended by CR alone ran together. */
export function bareCrHint(fields: readonly string[]): string {
  return fields.some((f) => f.includes('\r')) ? ' (the line holds carriage returns: lines ended by CR alone ran together; save the file with LF or CRLF line ends)' : '';
}
