import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PolicyRowParser, type PolicyBatch } from '../../src/backend/local/policy-rows.js';
import type { ImportRowError } from '../../src/backend/types.js';

/** What a parse gave: each valid row as [its text, customer_id, policy_number, cents, line], the errors, the rows failed, and read (as the batches counted them). */
interface Parsed {
  rows: Array<[string, string, string, number, number]>;
  errors: ImportRowError[];
  failed: number;
  read: number[];
}

const ID_SALT = 12_345;

/** Parse `chunks` as one file with batches of three rows (the batch's buffer grows and is cut often). */
function parse(chunks: Array<string | Uint8Array>): Parsed {
  const out: Parsed = { rows: [], errors: [], failed: 0, read: [] };
  const take = (b: PolicyBatch) => {
    const text = Buffer.from(b.bytes).toString('latin1');
    for (let r = 0; r < b.count; r++) {
      const o = r * 5;
      const [start, c1, c2, c3] = [b.offsets[o]!, b.offsets[o + 1]!, b.offsets[o + 2]!, b.offsets[o + 3]!];
      const end = r + 1 < b.count ? b.offsets[o + 5]! : text.length;
      out.rows.push([text.slice(start, end), text.slice(start, c1), text.slice(c2 + 1, c3), b.amounts[r]!, b.lines[r]!]);
    }
    out.errors.push(...b.errors);
    out.failed += b.failed;
    out.read.push(b.rowsRead);
  };
  const parser = new PolicyRowParser('policies.csv', take, ID_SALT, 3);
  for (const c of chunks) parser.push(c);
  parser.end();
  return out;
}

/** Rows of every kind the reader and the row checks tell apart, numbered so that each policy number is its own. */
const ROW_KINDS: Array<(n: number) => string> = [
  (n) => `C${n},REF-${n},POL-${n},FUNERAL,149.50`,
  (n) => `C${n},REF-${n},POL-${n},LIFE_2,7`,
  (n) => ` C${n} ,REF-${n},POL-${n},LIFE, 10.5`, // spaces to trim
  (n) => `"C${n}",REF-${n},"POL-${n}",LIFE,"20.00"`, // quoted
  (n) => `C${n},REF-${n},POL-${n},life,5`, // product code in lower case
  (n) => `-C${n},REF-${n},POL-${n},LIFE,5`, // a leading '-'
  (n) => `C${n},RÉF-${n},POL-${n},LIFE,5`, // not ASCII
  (n) => `C${n},REF-${n},import,LIFE,5`, // an endpoint's name
  (n) => `C${n},REF-${n},.,LIFE,5`, // a dot segment
  (n) => `C${n},REF-${n},${'a'.repeat(30)}${String(n).padStart(6, '0')},LIFE,5`, // as long as an id (left to onRecord)
  (n) => `C${n},pmk_${'A1b2'.repeat(10)},POL-${n},LIFE,5`, // an API key
  (n) => `C${n},REF-${n},POL-${n},LIFE,1.234`, // three decimals
  (n) => `C${n},REF-${n},POL-${n},LIFE,0`,
  (n) => `C${n},REF-${n},POL-${n},LIFE,12345678`, // too large
  (n) => `C${n},REF-${n},POL-${n},LIFE`, // a field short
  (n) => `C${n},REF-${n},POL-${n},LIFE,5,extra`,
  (n) => `C${n},REF\r-${n},POL-${n},LIFE,5`, // a lone CR
  () => 'customer_id,external_customer_ref,policy_number,product_code,collection_amount', // the header again
  () => '',
];

const file = fc
  .array(fc.record({ kind: fc.nat({ max: ROW_KINDS.length - 1 }), eol: fc.constantFrom('\n', '\r\n') }), { minLength: 1, maxLength: 40 })
  .map((rows) => 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n' + rows.map((r, n) => ROW_KINDS[r.kind]!(n) + r.eol).join(''));

/** The file cut at the given byte offsets. */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((p) => Math.min(p, bytes.length)))].sort((a, b) => a - b);
  return [...points, bytes.length].map((p, k) => bytes.subarray(k === 0 ? 0 : points[k - 1], p));
}

describe('PolicyRowParser', () => {
  it('reads a file in byte chunks (lines taken as bytes) exactly as one text', () => {
    fc.assert(
      fc.property(file, fc.array(fc.nat({ max: 2_000 }), { maxLength: 12 }), (text, at) => {
        const whole = parse([text]);
        expect(parse(cut(Buffer.from(text, 'utf8'), at))).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it('takes the plain rows and refuses the others, whichever way they are read', () => {
    const text = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n' + ROW_KINDS.map((k, n) => `${k(n)}\n`).join('');
    const bytes = Buffer.from(text, 'utf8');
    // The header as the first chunk; every other line then comes as bytes.
    const chunks = [bytes.subarray(0, text.indexOf('\n') + 1), bytes.subarray(text.indexOf('\n') + 1)];
    for (const parsed of [parse([text]), parse(chunks)]) {
      expect(parsed.rows).toEqual([
        ['C0,REF-0,POL-0,FUNERAL,149.50', 'C0', 'POL-0', 14_950, 2],
        ['C1,REF-1,POL-1,LIFE_2,7', 'C1', 'POL-1', 700, 3],
        ['C2,REF-2,POL-2,LIFE,10.5', 'C2', 'POL-2', 1_050, 4],
        ['C3,REF-3,POL-3,LIFE,20.00', 'C3', 'POL-3', 2_000, 5],
        // As long as an id, and not one of this store's: checked by onRecord, and taken.
        [`C9,REF-9,${'a'.repeat(30)}000009,LIFE,5`, 'C9', `${'a'.repeat(30)}000009`, 500, 11],
      ]);
      expect(parsed.failed).toBe(ROW_KINDS.length - 6); // the blank line is no row
      expect(parsed.read).toEqual([3, 18]); // at the batch of the first three valid rows, and at the end: every line but the blank
      expect(parsed.errors.find((e) => e.row === 9)?.message).toContain('the name of an endpoint');
      expect(parsed.errors.find((e) => e.row === 12)?.message).toContain('holds an API key');
      expect(parsed.errors.map((e) => [e.row, e.field, e.code])).toEqual([
        [6, 'product_code', 'INVALID_FORMAT'],
        [7, 'customer_id', 'INVALID_FORMAT'],
        [8, 'external_customer_ref', 'INVALID_FORMAT'],
        [9, 'policy_number', 'INVALID_FORMAT'],
        [10, 'policy_number', 'INVALID_FORMAT'],
        [12, 'external_customer_ref', 'INVALID_FORMAT'],
        [13, 'collection_amount', 'INVALID_AMOUNT'],
        [14, 'collection_amount', 'AMOUNT_OUT_OF_RANGE'],
        [15, 'collection_amount', 'AMOUNT_OUT_OF_RANGE'],
        [16, 'row', 'WRONG_FIELD_COUNT'],
        [17, 'row', 'WRONG_FIELD_COUNT'],
        [18, 'external_customer_ref', 'INVALID_FORMAT'],
        [19, 'row', 'MALFORMED_ROW'],
      ]);
    }
  });
});
