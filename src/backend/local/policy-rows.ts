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
import { PremiaError } from '../../domain/errors.js';
import { checkIdentifier, checkProductCode, IDENTIFIER_MAX, printable, PRODUCT_CODE_MAX } from '../../domain/identifiers.js';
import { parsePremium, plainPremiumCents } from '../../domain/money.js';
import { CsvFormatError, CsvReader, trimCell } from '../../lib/csv-reader.js';
import type { ImportRowError } from '../types.js';

export const POLICY_CSV_HEADER = ['customer_id', 'external_customer_ref', 'policy_number', 'product_code', 'collection_amount'] as const;

/** Fields per valid row in a batch's text: the file's five columns, in the file's order. */
export const BATCH_TEXT_FIELDS = 5;

/**
 * Valid rows, and the problems found since the previous batch. `text` is the rows' fields
 * (trimmed, unquoted) joined by commas, BATCH_TEXT_FIELDS per row: no valid field contains one.
 */
export interface PolicyBatch {
  count: number;
  text: string;
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

export class PolicyRowParser {
  private readonly reader: CsvReader;
  private header: string[] | null = null;
  private rowsRead = 0;
  /** Per valid row, its fields joined by commas. */
  private texts: string[] = [];
  private amounts: Int32Array;
  private lines: Int32Array;
  private count = 0;
  private errors: ImportRowError[] = [];
  private failed = 0;

  constructor(
    private readonly fileName: string,
    private readonly onBatch: (batch: PolicyBatch) => void,
    private readonly batchRows = 4096,
  ) {
    this.amounts = new Int32Array(batchRows);
    this.lines = new Int32Array(batchRows);
    this.reader = new CsvReader({
      onRecord: (fields, line, problem) => this.onRecord(fields, line, problem),
      onPlainLine: (line, lineNo) => this.onPlainLine(line, lineNo),
    });
  }

  get bytesRead(): number {
    return this.reader.bytesIn;
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
      text: this.texts.join(','),
      amounts: this.amounts.slice(0, n),
      lines: this.lines.slice(0, n),
      errors: this.errors,
      failed: this.failed,
      rowsRead: this.rowsRead,
      bytesRead: this.reader.bytesIn,
    });
    this.texts = [];
    this.count = 0;
    this.errors = [];
    this.failed = 0;
  }

  private onRecord(fields: string[], line: number, problem: string | null): void {
    if (this.header === null) {
      this.header = fields.map((f) => trimCell(f));
      const wrong = headerProblem(this.header);
      if (wrong) throw invalidFile(this.fileName, wrong);
      return;
    }
    this.rowsRead++;
    const rowErrors = validateRow(fields, line, problem);
    if (rowErrors !== null) {
      this.failed++;
      for (const e of rowErrors) this.errors.push(e);
      return;
    }
    const policyNumber = trimCell(fields[2]!);
    const amount = trimCell(fields[4]!);
    this.add(`${trimCell(fields[0]!)},${trimCell(fields[1]!)},${policyNumber},${trimCell(fields[3]!)},${amount}`, parsePremium(amount) as number, line);
  }

  private add(text: string, cents: number, line: number): void {
    this.texts.push(text);
    this.amounts[this.count] = cents;
    this.lines[this.count] = line;
    if (++this.count === this.batchRows) this.flush();
  }

  /**
   * The common row, checked in one pass over its characters without splitting it: five plain
   * fields, each valid as it stands. Anything else (spaces to trim, quotes, a bad field, the
   * header) is left to onRecord, which words the problem.
   */
  private onPlainLine(line: string, lineNo: number): boolean {
    if (this.header === null) return false;
    const n = line.length;
    let start = 0;
    for (let field = 0; field < 4; field++) {
      const end = line.indexOf(',', start);
      if (end === -1) return false;
      const width = end - start;
      const mask = field === 3 ? PRODUCT : IDENT;
      if (width === 0 || width > (field === 3 ? PRODUCT_CODE_MAX : IDENTIFIER_MAX) || line.charCodeAt(start) === 45 /* - */) return false;
      for (let i = start; i < end; i++) {
        const c = line.charCodeAt(i);
        if (c >= 128 || (CHAR_CLASS[c]! & mask) === 0) return false;
      }
      start = end + 1;
    }
    const cents = plainPremiumCents(line, start, n);
    if (cents < 0) return false;
    this.rowsRead++;
    this.add(line, cents, lineNo);
    return true;
  }
}

const IDENT = 1;
const PRODUCT = 2;
/** Per ASCII code: IDENT when allowed in an identifier, PRODUCT when allowed in a product code. */
const CHAR_CLASS = (() => {
  const t = new Uint8Array(128);
  const set = (chars: string, bits: number) => {
    for (const ch of chars) t[ch.charCodeAt(0)]! |= bits;
  };
  const upper = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const digits = '0123456789';
  set(upper + digits + '_-', IDENT | PRODUCT);
  set(upper.toLowerCase() + './', IDENT);
  return t;
})();

/** Why the header is not the spec's, or null when it is (names compared without case). */
function headerProblem(found: string[]): string | null {
  const expected = POLICY_CSV_HEADER.join(',');
  const same = found.length === POLICY_CSV_HEADER.length && found.every((f, i) => f.toLowerCase() === POLICY_CSV_HEADER[i]);
  if (same) return null;
  const foundText = printable(found.join(','), 200);
  const sameSet =
    found.length === POLICY_CSV_HEADER.length &&
    [...found].map((f) => f.toLowerCase()).sort().join(',') === [...POLICY_CSV_HEADER].sort().join(',');
  const hint = sameSet ? ' The columns are right but in the wrong order.' : '';
  return `line 1: the header must be '${expected}'; found '${foundText}'.${hint}`;
}

/** Validate one data row. Returns null when it is valid, else every problem found. */
function validateRow(fields: string[], line: number, problem: string | null): ImportRowError[] | null {
  if (fields.length !== POLICY_CSV_HEADER.length) {
    const policyNumber = fields.length > 2 ? numberForError(trimCell(fields[2]!)) : null;
    return [
      {
        row: line,
        policy_number: policyNumber,
        field: 'row',
        code: 'WRONG_FIELD_COUNT',
        message: `expected ${POLICY_CSV_HEADER.length} fields, found ${fields.length}`,
      },
    ];
  }
  const customerId = trimCell(fields[0]!);
  const externalRef = trimCell(fields[1]!);
  const policyNumber = trimCell(fields[2]!);
  const productCode = trimCell(fields[3]!);
  const amountText = trimCell(fields[4]!);
  const p1 = checkIdentifier(customerId, 'customer_id');
  const p2 = checkIdentifier(externalRef, 'external_customer_ref');
  const p3 = checkIdentifier(policyNumber, 'policy_number');
  const p4 = checkProductCode(productCode);
  const amount = parsePremium(amountText);
  if (p1 === null && p2 === null && p3 === null && p4 === null && typeof amount === 'number' && problem === null) return null;

  const number = numberForError(policyNumber);
  const out: ImportRowError[] = [];
  const add = (field: string, code: string, message: string) => out.push({ row: line, policy_number: number, field, code, message });
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
  return printable(value, 64);
}

export function invalidFile(name: string, reason: string): PremiaError {
  const sentence = /[.!?]$/.test(reason) ? reason : `${reason}.`;
  return new PremiaError('INVALID_FILE', `${name} is not a policy CSV file: ${sentence} Nothing was imported.`, {
    details: [{ field: 'file', code: 'INVALID_FILE', message: reason }],
  });
}
