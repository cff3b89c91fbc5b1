/**
 * The reading half of the policy import: CSV text in, validated rows out in batches. It does
 * no IO and touches no store, so it runs either on the importing thread (small files) or in a
 * worker thread beside it (large ones; see policy-import.ts).
 *
 * Each row is checked field by field; a row with problems is reported ({row, policy_number,
 * field, code, message}, several errors for several bad fields) and left out; duplicates are
 * found by the insert (policy-import.ts). A file that is not the expected CSV at
 * all (wrong header, binary, an unclosed quote) throws INVALID_FILE: nothing is imported.
 */
import type { PremiaError } from '../../domain/errors.js';
import {
  API_KEY_LENGTH,
  apiKeyProblem,
  ASCII_CHAR_CLASS,
  checkIdentifier,
  checkProductCode,
  endpointNameProblem,
  IDENTIFIER_CHAR,
  IDENTIFIER_MAX,
  printable,
  PRODUCT_CODE_CHAR,
  PRODUCT_CODE_MAX,
} from '../../domain/identifiers.js';
import { POLICY_CSV_HEADER } from '../../domain/csv-headers.js';
import { policyNumberIdProblem } from '../../domain/ids.js';
import { parsePremium, plainPremiumCents } from '../../domain/money.js';
import { bareCrHint, CsvFormatError, CsvReader, emptyColumnsRowHint, isBlankRecord, isHeaderOf, trimCell, wrongHeaderHint } from '../../lib/csv-reader.js';
import { redactKeysIn } from '../../lib/key-text.js';
import type { ImportRowError } from '../types.js';
import { invalidCsvFile, amountSplitHint } from './row-errors.js';

export { POLICY_CSV_HEADER };

/**
 * Valid rows, and the problems found since the previous batch. The rows travel as bytes: a
 * valid row is ASCII throughout (identifiers, product codes and amounts allow nothing else),
 * so `bytes` holds each row's text (its five fields, trimmed and unquoted, joined by commas)
 * one after another, and `offsets` gives per row where its customer_id starts and where each
 * of its four commas is (OFFSETS_PER_ROW numbers, byte positions in `bytes`). The importing
 * thread hands these to SQLite as is, never making strings of them.
 */
export interface PolicyBatch {
  count: number;
  bytes: Uint8Array;
  offsets: Int32Array;
  /** collection_amount in cents, per row. */
  amounts: Int32Array;
  /** The file line of each row. */
  lines: Int32Array;
  errors: ImportRowError[];
  /** Rows rejected since the previous batch. */
  failed: number;
  /** Data rows read so far, and bytes taken in so far. */
  rowsRead: number;
  bytesRead: number;
}

export const OFFSETS_PER_ROW = 5;

export class PolicyRowParser {
  private readonly reader: CsvReader;
  private header: string[] | null = null;
  private rowsRead = 0;
  /** The valid rows' text, one after another; `at` is where the next row's starts. */
  private bytes = new Uint8Array(1 << 16);
  private at = 0;
  private readonly commas = new Int32Array(4);
  private offsets: Int32Array;
  private amounts: Int32Array;
  private lines: Int32Array;
  private count = 0;
  private errors: ImportRowError[] = [];
  private failed = 0;

  constructor(
    private readonly fileName: string,
    private readonly onBatch: (batch: PolicyBatch) => void,
    /** The store's id key: a policy number written as one of its policy ids is refused (policyNumberIdProblem). */
    private readonly idSalt: number | null = null,
    private readonly batchRows = 4096,
  ) {
    this.offsets = new Int32Array(batchRows * OFFSETS_PER_ROW);
    this.amounts = new Int32Array(batchRows);
    this.lines = new Int32Array(batchRows);
    this.reader = new CsvReader({
      onRecord: (fields, line, problem) => this.onRecord(fields, line, problem),
      onPlainLine: (line, lineNo) => this.onPlainLine(line, lineNo),
      onPlainBytes: (bytes, start, end, lineNo) => this.onPlainBytes(bytes, start, end, lineNo),
    });
  }

  get bytesRead(): number {
    return this.reader.bytesIn;
  }

  /** Whether the header has been read (and found right: a wrong one throws). */
  get headerRead(): boolean {
    return this.header !== null;
  }

  /** Take in the next piece of the file. Throws INVALID_FILE when it is not a policy CSV. */
  push(chunk: Uint8Array | string): void {
    this.guard(() => this.reader.push(chunk));
  }

  /** The file is over: check it was whole and hand over the last batch. */
  end(): void {
    this.guard(() => this.reader.end());
    if (this.header === null) throw invalidFile(this.fileName, 'the file is empty; expected a header line and policy rows');
    this.flush();
  }

  private guard(read: () => void): void {
    try {
      read();
    } catch (e) {
      if (e instanceof CsvFormatError) throw invalidFile(this.fileName, e.message);
      throw e;
    }
  }

  private flush(): void {
    if (this.count === 0 && this.failed === 0 && this.errors.length === 0) return;
    const n = this.count;
    this.onBatch({
      count: n,
      // A buffer of its own (sent to the importing thread, where it may be transferred).
      bytes: this.bytes.slice(0, this.at),
      offsets: this.offsets.slice(0, n * OFFSETS_PER_ROW),
      amounts: this.amounts.slice(0, n),
      lines: this.lines.slice(0, n),
      errors: this.errors,
      failed: this.failed,
      rowsRead: this.rowsRead,
      bytesRead: this.reader.bytesIn,
    });
    this.at = 0;
    this.count = 0;
    this.errors = [];
    this.failed = 0;
  }

  private onRecord(fields: string[], line: number, problem: string | null): void {
    if (isBlankRecord(fields)) return;
    if (this.header === null) {
      this.header = fields.map((f) => trimCell(f));
      const wrong = headerProblem(this.header, line);
      if (wrong) throw invalidFile(this.fileName, wrong);
      return;
    }
    this.rowsRead++;
    const rowErrors = validateRow(fields, line, problem, this.idSalt);
    if (rowErrors !== null) {
      this.failed++;
      for (const e of rowErrors) this.errors.push(e);
      return;
    }
    const policyNumber = trimCell(fields[2]!);
    const customerId = trimCell(fields[0]!);
    const externalRef = trimCell(fields[1]!);
    const productCode = trimCell(fields[3]!);
    const amount = trimCell(fields[4]!);
    const c1 = customerId.length;
    const c2 = c1 + 1 + externalRef.length;
    const c3 = c2 + 1 + policyNumber.length;
    const c4 = c3 + 1 + productCode.length;
    const text = `${customerId},${externalRef},${policyNumber},${productCode},${amount}`;
    this.room(text.length);
    for (let i = 0; i < text.length; i++) this.bytes[this.at + i] = text.charCodeAt(i); // ASCII: the fields are valid
    const commas = this.commas;
    commas[0] = c1;
    commas[1] = c2;
    commas[2] = c3;
    commas[3] = c4;
    this.add(text.length, parsePremium(amount) as number, line);
  }

  /** Room in `bytes` for a row of `length` bytes after `at`. */
  private room(length: number): void {
    if (this.at + length <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.at + length));
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
  }

  /** A valid row, its `length` bytes of text at `at` with its four commas at `commas` (from its start): its cents and line. */
  private add(length: number, cents: number, line: number): void {
    const o = this.count * OFFSETS_PER_ROW;
    const at = this.at;
    const commas = this.commas;
    this.offsets[o] = at;
    this.offsets[o + 1] = at + commas[0]!;
    this.offsets[o + 2] = at + commas[1]!;
    this.offsets[o + 3] = at + commas[2]!;
    this.offsets[o + 4] = at + commas[3]!;
    this.at = at + length;
    this.amounts[this.count] = cents;
    this.lines[this.count] = line;
    if (++this.count === this.batchRows) this.flush();
  }

  /**
   * The common row, checked in one pass over its characters without splitting it: five plain
   * fields, each valid as it stands. Anything else (spaces to trim, quotes, a bad field, the
   * header) is left to onRecord, which words the problem. Its text is written after the rows
   * (where it stays, if valid) and checked there.
   */
  private onPlainLine(line: string, lineNo: number): boolean {
    if (this.header === null) return false;
    const n = line.length;
    this.room(n);
    const bytes = this.bytes;
    const at = this.at;
    for (let i = 0; i < n; i++) {
      const c = line.charCodeAt(i);
      if (c >= 128) return false;
      bytes[at + i] = c;
    }
    const cents = this.plainRow(bytes, at, at + n);
    if (cents < 0) return false;
    this.rowsRead++;
    this.add(n, cents, lineNo);
    return true;
  }

  /** onPlainLine for a line of ASCII bytes, `bytes[start, end)` (CsvReader's onPlainBytes): copied after the rows once found valid. */
  private onPlainBytes(bytes: Uint8Array, start: number, end: number, lineNo: number): boolean {
    if (this.header === null) return false;
    const cents = this.plainRow(bytes, start, end);
    if (cents < 0) return false;
    const n = end - start;
    this.room(n);
    const to = this.bytes;
    const at = this.at - start;
    for (let i = start; i < end; i++) to[at + i] = bytes[i]!;
    this.rowsRead++;
    this.add(n, cents, lineNo);
    return true;
  }

  /** The cents of the plain row `b[start, end)` (onPlainLine's), its commas in `commas` (from `start`); -1 when it is not one. */
  private plainRow(b: Uint8Array, start: number, end: number): number {
    const commas = this.commas;
    let from = start;
    for (let field = 0; field < 4; field++) {
      const mask = field === 3 ? PRODUCT_CODE_CHAR : IDENTIFIER_CHAR;
      // Up to the comma, each character one the field allows (a comma is in neither class).
      let comma = from;
      for (let c = b[comma]; comma < end && c !== 44 /* , */; c = b[++comma]) {
        if (c! >= 128 || (CHAR_CLASS[c!]! & mask) === 0) return -1;
      }
      if (comma === end) return -1;
      commas[field] = comma - start;
      const width = comma - from;
      if (width === 0 || width > (field === 3 ? PRODUCT_CODE_MAX : IDENTIFIER_MAX) || b[from] === 45 /* - */) return -1;
      if (field === 2) {
        // A policy number as long as an id: onRecord checks it is not one of this store's.
        if (width === 36 && this.idSalt !== null) return -1;
        // A policy number that may be an endpoint's name ('import') or a dot segment: onRecord refuses it.
        if ((width === 6 && isImport(b, from)) || (width <= 2 && b[from] === 46 /* . */)) return -1;
      }
      // A field that may hold an API key (pmk_ and 40 more): onRecord refuses one.
      if (width >= API_KEY_LENGTH && keyPrefixIn(b, from, comma - API_KEY_LENGTH)) return -1;
      from = comma + 1;
    }
    return plainPremiumCents(b, from, end);
  }
}

const IMPORT = [105, 109, 112, 111, 114, 116]; // 'import'

function isImport(b: Uint8Array, at: number): boolean {
  for (let i = 0; i < IMPORT.length; i++) if (b[at + i] !== IMPORT[i]) return false;
  return true;
}

/** Whether 'pmk_' starts anywhere in `b[from, last]`. */
function keyPrefixIn(b: Uint8Array, from: number, last: number): boolean {
  for (let i = from; i <= last; i++) if (b[i] === 112 && b[i + 1] === 109 && b[i + 2] === 107 && b[i + 3] === 95) return true;
  return false;
}

/** Local alias: the fast path's per-character lookup stays a plain module constant. */
const CHAR_CLASS = ASCII_CHAR_CLASS;

/** Why the header (on file line `line`: blank lines may come first) is not the spec's, or null when it is (names compared without case). */
function headerProblem(found: string[], line: number): string | null {
  const expected = POLICY_CSV_HEADER.join(',');
  const same = isHeaderOf(found, POLICY_CSV_HEADER);
  if (same) return null;
  const foundText = printable(found.join(','), 200);
  return `line ${line}: the header must be '${expected}'; found '${foundText}'.${wrongHeaderHint(found, POLICY_CSV_HEADER)}`;
}

const HEADER_AGAIN =
  'this row is the header again (files joined into one?); it is skipped and the rows around it are read as usual; delete the line to import the file without this error';

/** Validate one data row. Returns null when it is valid, else every problem found. */
function validateRow(fields: string[], line: number, problem: string | null, idSalt: number | null): ImportRowError[] | null {
  if (fields.length !== POLICY_CSV_HEADER.length) {
    const policyNumber = fields.length > 2 ? numberForError(trimCell(fields[2]!)) : null;
    return [
      {
        row: line,
        policy_number: policyNumber,
        field: 'row',
        code: 'WRONG_FIELD_COUNT',
        message: `expected ${POLICY_CSV_HEADER.length} fields, found ${fields.length}${bareCrHint(fields) || emptyColumnsRowHint(fields, POLICY_CSV_HEADER) || amountSplitHint(fields, POLICY_CSV_HEADER.length, POLICY_CSV_HEADER.length - 1, 'collection_amount')}`,
      },
    ];
  }
  const customerId = trimCell(fields[0]!);
  const externalRef = trimCell(fields[1]!);
  const policyNumber = trimCell(fields[2]!);
  const productCode = trimCell(fields[3]!);
  const amountText = trimCell(fields[4]!);
  const p1 = checkIdentifier(customerId, 'customer_id') ?? apiKeyProblem(customerId, 'customer_id');
  const p2 = checkIdentifier(externalRef, 'external_customer_ref') ?? apiKeyProblem(externalRef, 'external_customer_ref');
  const p3 =
    checkIdentifier(policyNumber, 'policy_number') ??
    apiKeyProblem(policyNumber, 'policy_number') ??
    endpointNameProblem(policyNumber) ??
    (idSalt === null ? null : policyNumberIdProblem(policyNumber, idSalt));
  const p4 = checkProductCode(productCode);
  const amount = parsePremium(amountText);
  if (p1 === null && p2 === null && p3 === null && p4 === null && typeof amount === 'number' && problem === null) return null;

  const number = numberForError(policyNumber);
  // The header again (files joined with cat).
  if (isHeaderOf(fields, POLICY_CSV_HEADER)) return [{ row: line, policy_number: number, field: 'row', code: 'MALFORMED_ROW', message: HEADER_AGAIN }];
  const out: ImportRowError[] = [];
  // Redacted: the import's answer is a 200 body, which the service's error-body redaction does not see.
  const add = (field: string, code: string, message: string) => out.push({ row: line, policy_number: number, field, code, message: redactKeysIn(message) });
  if (problem !== null) add('row', 'MALFORMED_ROW', problem);
  if (p1) add('customer_id', p1.code, p1.message);
  if (p2) add('external_customer_ref', p2.code, p2.message);
  if (p3) add('policy_number', p3.code, p3.message);
  if (p4) add('product_code', p4.code, p4.message);
  if (typeof amount !== 'number') add('collection_amount', amount.code, `collection_amount ${amount.message}`);
  return out;
}

/** The policy_number to echo in an error: null when empty, cut and made printable when odd. */
function numberForError(value: string): string | null {
  if (value === '') return null;
  return printable(redactKeysIn(value), 64);
}

export function invalidFile(name: string, reason: string): PremiaError {
  return invalidCsvFile(name, 'a policy CSV file', reason);
}
