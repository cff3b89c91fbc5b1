import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyCodePoint } from '../helpers/arbitraries.js';
import { CsvFormatError, CsvReader, excelSepHint, separatorHint, trimCell, underscoreHint, type CsvFatalReason } from '../../src/lib/csv-reader.js';

interface Rec {
  fields: string[];
  line: number;
  problem: string | null;
}

type Outcome = { records: Rec[]; error: { reason: CsvFatalReason; line: number; message: string } | null };

/** The lines read() offered to onPlainBytes, in order. */
const offered: number[] = [];

/**
 * Feed chunks to a reader; collect the records, and the fatal error if there is one. `asBytes`:
 * the reader is given onPlainBytes, which takes the lines it is offered that start with 'a' as
 * the records they are (the others it declines) and counts them in `offered`.
 */
function read(chunks: Array<string | Uint8Array>, maxRecordLength?: number, asBytes = false): Outcome {
  const records: Rec[] = [];
  const onPlainBytes = (bytes: Uint8Array, start: number, end: number, line: number): boolean => {
    offered.push(line);
    if (bytes[start] !== 0x61) return false;
    records.push({ fields: Buffer.from(bytes.subarray(start, end)).toString('latin1').split(','), line, problem: null });
    return true;
  };
  const reader = new CsvReader({ onRecord: (fields, line, problem) => records.push({ fields, line, problem }), maxRecordLength, onPlainBytes: asBytes ? onPlainBytes : undefined });
  try {
    for (const chunk of chunks) reader.push(chunk);
    reader.end();
  } catch (e) {
    if (!(e instanceof CsvFormatError)) throw e;
    expect(e.name).toBe('CsvFormatError');
    return { records, error: { reason: e.reason, line: e.line, message: e.message } };
  }
  return { records, error: null };
}

/** Records of a document read in one chunk, as [fields, line] pairs; fails on a fatal error. */
function records(text: string | Uint8Array): Array<[string[], number]> {
  const out = read([text]);
  expect(out.error).toBeNull();
  for (const r of out.records) expect(r.problem).toBeNull();
  return out.records.map((r) => [r.fields, r.line]);
}

function fatal(chunks: Array<string | Uint8Array>, maxRecordLength?: number) {
  const out = read(chunks, maxRecordLength);
  expect(out.error).not.toBeNull();
  return out.error!;
}

/** Split bytes at the given offsets (sorted, deduplicated) into Buffers. */
function splitAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(prev, p));
    prev = p;
  }
  chunks.push(bytes.subarray(prev));
  return chunks;
}

describe('CsvReader: records and line numbers', () => {
  it('reads LF lines', () => {
    expect(records('a,b,c\n1,2,3\n')).toEqual([
      [['a', 'b', 'c'], 1],
      [['1', '2', '3'], 2],
    ]);
  });

  it('reads CRLF lines without keeping the CR', () => {
    // A CR alone at the very end of the file ends the last line, after a quoted cell as after a plain one.
    expect(records('a,b\n1,"2"\r')).toEqual([
      [['a', 'b'], 1],
      [['1', '2'], 2],
    ]);
    expect(records('a,b\n1,2\r')).toEqual([
      [['a', 'b'], 1],
      [['1', '2'], 2],
    ]);
    expect(records('a,b\r\n1,2\r\n')).toEqual([
      [['a', 'b'], 1],
      [['1', '2'], 2],
    ]);
  });

  it('drops a UTF-8 byte order mark (bytes or text)', () => {
    const expected = [
      [['customer_id', 'x'], 1],
      [['1', '2'], 2],
    ];
    expect(records(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('customer_id,x\n1,2\n')]))).toEqual(expected);
    expect(records('\ufeffcustomer_id,x\n1,2\n')).toEqual(expected);
    // A BOM split across chunks.
    const out = read([Buffer.from([0xef]), Buffer.from([0xbb]), Buffer.from([0xbf, 0x63]), Buffer.from('ustomer_id,x\n1,2\n')]);
    expect(out.records.map((r) => [r.fields, r.line])).toEqual(expected);
  });

  it('keeps spaces around unquoted cells (trimming is the caller’s choice)', () => {
    expect(records(' a , b \n')).toEqual([[[' a ', ' b '], 1]]);
  });

  it('reads quoted fields with commas and escaped quotes', () => {
    expect(records('a,"b,c",d\n"say ""hi""",""\n')).toEqual([
      [['a', 'b,c', 'd'], 1],
      [['say "hi"', ''], 2],
    ]);
  });

  it('a quote inside an unquoted field is an ordinary character', () => {
    expect(records('5" floppy,x\n')).toEqual([[['5" floppy', 'x'], 1]]);
  });

  it('counts the newlines inside quoted fields in the line numbers of the records that follow', () => {
    expect(records('h1,h2\na,"multi\nline\nfield"\nnext,row\n"x\r\ny",z\r\nlast,one\n')).toEqual([
      [['h1', 'h2'], 1],
      [['a', 'multi\nline\nfield'], 2],
      [['next', 'row'], 5],
      [['x\r\ny', 'z'], 6],
      [['last', 'one'], 8],
    ]);
  });

  it('skips blank lines (LF and CRLF) but counts them', () => {
    expect(records('a,b\n\n\r\nc,d\n\n')).toEqual([
      [['a', 'b'], 1],
      [['c', 'd'], 4],
    ]);
  });

  it('a trailing empty line adds no record', () => {
    expect(records('a,b\nc,d\n\n')).toEqual([
      [['a', 'b'], 1],
      [['c', 'd'], 2],
    ]);
  });

  it('reads a last line without a newline (plain and quoted)', () => {
    expect(records('a,b\nc,d')).toEqual([
      [['a', 'b'], 1],
      [['c', 'd'], 2],
    ]);
    expect(records('a,b\nc,"d"')).toEqual([
      [['a', 'b'], 1],
      [['c', 'd'], 2],
    ]);
  });

  it('reports the number of fields as found, including empty ones', () => {
    expect(records('a\na,b,c,d,e,f\n,,\n"a",\n')).toEqual([
      [['a'], 1],
      [['a', 'b', 'c', 'd', 'e', 'f'], 2],
      [['', '', ''], 3],
      [['a', ''], 4],
    ]);
    expect(records('"a",')).toEqual([[['a', ''], 1]]);
  });

  it('text after a closing quote is a problem of that record only', () => {
    const out = read(['a,"b"x,c\nd,e\n']);
    expect(out.error).toBeNull();
    expect(out.records).toEqual([
      { fields: ['a', 'bx', 'c'], line: 1, problem: 'unexpected text after a closing quote: "x"' },
      { fields: ['d', 'e'], line: 2, problem: null },
    ]);
  });

  it('spaces and tabs around a quoted cell surround it: not text of it, nor a problem', () => {
    const out = read(['a, "b" ,c\n\t"d,e"\t\r\n"f"  \n "g" h\n']);
    expect(out.error).toBeNull();
    expect(out.records).toEqual([
      { fields: ['a', 'b', 'c'], line: 1, problem: null },
      { fields: ['d,e'], line: 2, problem: null },
      { fields: ['f'], line: 3, problem: null },
      { fields: ['g h'], line: 4, problem: 'unexpected text after a closing quote: " h"' },
    ]);
    // Split anywhere, the same.
    const text = 'a, "b" ,c\n\t"d,e"\t\r\n"f"  \n "g" h\n';
    for (let cut = 0; cut <= text.length; cut++) expect(read([text.slice(0, cut), text.slice(cut)])).toEqual(out);
    // An unquoted cell with a quote inside stays as it is.
    expect(records(' a"b,c\n')).toEqual([[[' a"b', 'c'], 1]]);
  });
});

describe('CsvReader: lines offered as bytes', () => {
  it('offers the whole ASCII lines of each chunk after the first, and reads the rest as text', () => {
    offered.length = 0;
    const chunks = ['h1,h2\na1,1\n', 'a2,2\r\nb3,3\n\na5,"5"\na6,6\n', 'a7,7\n', 'a8,8\na9,\u00e9\na10,10\na', '11,11\na12,12'].map((t) => Buffer.from(t, 'utf8'));
    const out = read(chunks, undefined, true);
    expect(out.error).toBeNull();
    expect(out.records.map((r) => [r.fields, r.line])).toEqual([
      [['h1', 'h2'], 1],
      [['a1', '1'], 2],
      [['a2', '2'], 3],
      [['b3', '3'], 4],
      [['a5', '5'], 6],
      [['a6', '6'], 7],
      [['a7', '7'], 8],
      [['a8', '8'], 9],
      [['a9', 'é'], 10],
      [['a10', '10'], 11],
      [['a11', '11'], 12],
      [['a12', '12'], 13],
    ]);
    // Line 3 taken as bytes (its CR removed), 4 declined (read as text); 6 has a quote: it and
    // what follows in its chunk are text. Line 10 is not ASCII, 11 is begun in the chunk before
    // (ended as text), and 13 has no line end (read as text when the file ends).
    expect(offered).toEqual([3, 4, 8, 9]);
  });
});

describe('CsvReader: files that are not CSV text', () => {
  it('an unclosed quote is UNCLOSED_QUOTE on the line where it opened', () => {
    const e = fatal(['h\na,b\nc,"d,e\nf\ng\n']);
    expect(e).toEqual({ reason: 'UNCLOSED_QUOTE', line: 3, message: 'line 3: a quoted field opened here is never closed' });
    // The same when it opens after a multi-line quoted field.
    expect(fatal(['"a\nb"\n"c\n']).line).toBe(3);
  });

  it('the records before an unclosed quote are still delivered', () => {
    expect(read(['h\na,b\n"c\n']).records.map((r) => r.line)).toEqual([1, 2]);
  });

  it('a NUL byte is BINARY, with the line it is on', () => {
    expect(fatal([Buffer.from('a,b\nc,d\ne\0f\n')])).toEqual({
      reason: 'BINARY',
      line: 3,
      message: 'line 3: the file contains NUL bytes; it is binary, not CSV text',
    });
    // Inside a quoted field that spans lines, in a later chunk.
    expect(fatal([Buffer.from('a,b\n"x\ny'), Buffer.from('\nz\0"\n')]).line).toBe(4);
  });

  it('invalid UTF-8 is ENCODING', () => {
    expect(fatal([Buffer.from('a,b\n'), Buffer.from([0x63, 0xff, 0xfe, 0x0a])])).toEqual({
      reason: 'ENCODING',
      line: 2,
      message: 'line 2: the file is not UTF-8 text (a legacy encoding such as Windows-1252, or binary content); save it as UTF-8 ("CSV UTF-8" in Excel)',
    });
    // Latin-1 text is not UTF-8 either.
    expect(fatal([Buffer.from([0x61, 0x2c, 0xe9, 0x0a])]).reason).toBe('ENCODING');
  });

  it('a UTF-32 file with its byte order mark is named UTF-32, not UTF-16 (its mark begins FF FE too)', () => {
    const message = 'line 1: the file is UTF-32 text (it begins with a UTF-32 byte order mark), not UTF-8; save it as UTF-8 ("CSV UTF-8" in Excel)';
    const le = Buffer.alloc(16);
    for (const [i, c] of [...'a,b\n'].entries()) le.writeUInt32LE(c.charCodeAt(0), 4 * i);
    const be = Buffer.from(le).swap32();
    for (const bom of [Buffer.from([0xff, 0xfe, 0, 0, ...le]), Buffer.from([0, 0, 0xfe, 0xff, ...be])]) {
      expect(fatal([bom])).toEqual({ reason: 'ENCODING', line: 1, message });
    }
  });

  it('a UTF-16 file is refused on line 1 as UTF-16, with its byte order mark or without', () => {
    const utf16 = (bytes: Buffer) => fatal([bytes]);
    const text = 'a,b\nc,d\n';
    const message = (why: string) => `line 1: the file is UTF-16 text (${why}), not UTF-8; save it as UTF-8 ("CSV UTF-8" in Excel)`;
    const le = Buffer.from(text, 'utf16le');
    const be = Buffer.from(le).swap16();
    for (const bom of [Buffer.from([0xff, 0xfe, ...le]), Buffer.from([0xfe, 0xff, ...be])]) {
      expect(utf16(bom)).toEqual({ reason: 'ENCODING', line: 1, message: message('it begins with a UTF-16 byte order mark') });
      // The byte order mark cut from the rest.
      expect(fatal([bom.subarray(0, 2), bom.subarray(2)]).message).toBe(message('it begins with a UTF-16 byte order mark'));
    }
    for (const bare of [le, be]) expect(utf16(bare)).toEqual({ reason: 'BINARY', line: 1, message: message('every other byte is NUL') });
    // A NUL later in a file that began as text is binary content, as before.
    expect(fatal([Buffer.from('a,b\n'), Buffer.from('c\0d\0')]).message).toBe('line 2: the file contains NUL bytes; it is binary, not CSV text');
    expect(fatal([Buffer.from('a\0\0\0b,c\n')]).message).toBe('line 1: the file contains NUL bytes; it is binary, not CSV text');
  });

  // A pipe or an upload may hand the first bytes over a few at a time: judged on the first chunk
  // alone, a UTF-16 file cut after its first byte was "not UTF-8 (a legacy encoding ...)", an
  // .xlsx "not UTF-8", a UTF-16 file without a byte order mark "NUL bytes".
  it('what the file is (UTF-16, a workbook, a PDF) is told however its first bytes are split', () => {
    const le = Buffer.from('customer_id,date,amount,description\nC1,2026-11-02,1.00,X\n', 'utf16le');
    const cases: Array<[Buffer, string]> = [
      [Buffer.from([0xff, 0xfe, ...le]), 'line 1: the file is UTF-16 text (it begins with a UTF-16 byte order mark), not UTF-8; save it as UTF-8 ("CSV UTF-8" in Excel)'],
      [le, 'line 1: the file is UTF-16 text (every other byte is NUL), not UTF-8; save it as UTF-8 ("CSV UTF-8" in Excel)'],
      [Buffer.from([0x50, 0x4b, 0x03, 0x04, ...Buffer.from('[Content_Types].xml')]), 'line 1: the file is a ZIP archive (such as an Excel .xlsx or OpenDocument .ods workbook), not CSV text; save the sheet as "CSV UTF-8" (comma-separated)'],
      [Buffer.from('%PDF-1.4\n%\xe2\xe3\n', 'latin1'), 'line 1: the file is a PDF document, not CSV text'],
    ];
    for (const [bytes, message] of cases) {
      expect(fatal([bytes]).message).toBe(message);
      for (const cut of [1, 2, 3, 5]) expect(fatal([bytes.subarray(0, cut), bytes.subarray(cut)]).message, `cut at ${cut}`).toBe(message);
      expect(fatal([...bytes].map((b) => Uint8Array.of(b))).message, 'byte by byte').toBe(message);
    }
    // A file shorter than what its start is judged on reads as ever, whole or byte by byte.
    const tiny = Buffer.from('\ufeffa,b\nc,d');
    for (const chunks of [[tiny], [...tiny].map((b) => Uint8Array.of(b))]) {
      const out = read(chunks);
      expect([out.error, out.records.map((r) => [r.fields, r.line])]).toEqual([null, [[['a', 'b'], 1], [['c', 'd'], 2]]]);
    }
  });

  it('ENCODING names the line of the bad byte, not the line the reader had reached', () => {
    // All in one chunk: nothing has been parsed yet when the decoder refuses the byte.
    expect(fatal([Buffer.concat([Buffer.from('h\na,b\nc,Jos'), Buffer.from([0xe9]), Buffer.from(',d\n')])])).toEqual({
      reason: 'ENCODING',
      line: 3,
      message: 'line 3: the file is not UTF-8 text (a legacy encoding such as Windows-1252, or binary content); save it as UTF-8 ("CSV UTF-8" in Excel)',
    });
    // A bad continuation byte right after a multibyte lead, after lines still buffered in a quoted field.
    expect(fatal([Buffer.from('h\n"a\nb'), Buffer.concat([Buffer.from('\nc'), Buffer.from([0xe2, 0x41]), Buffer.from('"\n')])]).line).toBe(4);
  });

  it('a file that ends inside a multibyte character is ENCODING', () => {
    expect(fatal([Buffer.from('a,b\n'), Buffer.from([0x63, 0xe2, 0x82])])).toEqual({
      reason: 'ENCODING',
      line: 2,
      message: 'line 2: the file ends inside a UTF-8 character (binary content?)',
    });
    // On the third line of a quoted field that began on line 2.
    expect(fatal([Buffer.concat([Buffer.from('a\n"b\nc\nd'), Buffer.from([0xe2])])]).line).toBe(4);
  });

  it('a record longer than maxRecordLength is RECORD_TOO_LONG, however it arrives', () => {
    const expected = {
      reason: 'RECORD_TOO_LONG',
      line: 2,
      message: 'line 2: the record starting here is longer than 10 characters (a quote left open?)',
    };
    const long = 'x'.repeat(11);
    expect(fatal([`a\n${long}\nb\n`], 10)).toEqual(expected); // complete line, one chunk
    expect(fatal([`a\n${long}`], 10)).toEqual(expected); // last line, no newline
    expect(fatal([`a\n${long}`, 'x'.repeat(5)], 10)).toEqual(expected); // still arriving
    expect(fatal([`a\n"${'x'.repeat(9)},y"\nb\n`], 10)).toEqual(expected); // quoted, complete in one chunk
    expect(fatal([`a\n"${'x'.repeat(20)}`, 'x'.repeat(20)], 10)).toEqual(expected); // a quote left open
  });

  it('a record over the limit that holds a CR alone is said as lines ended by CR alone, however it arrives', () => {
    // The old Mac format: the whole file is one record until the limit.
    const mac =
      "line 1: the record starting here is longer than 10 characters. The file's lines end with a carriage return alone (the old Mac format), " +
      'which CSV does not take as a line end; save it with LF or CRLF line ends.';
    const file = 'a,b\rc,d\re,f\rg,h\r';
    for (const chunks of [[file], [Buffer.from(file)], [file.slice(0, 5), file.slice(5)], [...Buffer.from(file)].map((b) => Uint8Array.of(b))]) {
      expect(fatal(chunks, 10)).toEqual({ reason: 'RECORD_TOO_LONG', line: 1, message: mac });
    }
    // Ended by a line feed, as bytes (the reader's byte path) and as text.
    expect(fatal([Buffer.from('a,b\rc,d\re,f\n')], 10).message).toBe(mac);
    expect(fatal(['a,b\rc,d\re,f\n'], 10).message).toBe(mac);
    // With a quote left open in it too.
    expect(fatal(['"a,b\rc,d\re,f\r'], 10).message).toBe(mac);
    // CRLF line ends are not a CR alone: a quote left open is still said as that, on its line.
    expect(fatal([`a\r\n"${'x\r\n'.repeat(10)}`], 10).message).toBe('line 2: the record starting here is longer than 10 characters (a quote left open?)');
    expect(fatal([Buffer.from(`a\r\n"${'x\r\n'.repeat(10)}`)], 10).message).toBe('line 2: the record starting here is longer than 10 characters (a quote left open?)');
  });

  it('a record of exactly maxRecordLength is accepted, even when a chunk ends between its CR and LF', () => {
    const ten = 'x'.repeat(10);
    for (const chunks of [[`a\n${ten}\r\nb\n`], [`a\n${ten}\r`, '\nb\n'], [`a\n"${'x'.repeat(8)}"\r`, '\nb\n']]) {
      const out = read(chunks, 10);
      expect(out.error).toBeNull();
      expect(out.records.map((r) => r.line)).toEqual([1, 2, 3]);
    }
  });
});

// ------------------------------------------------------------------------------------------
// Properties: any split of a document into chunks gives exactly what one chunk gives.

const plainChar = fc.constantFrom('a', 'Z', '7', ' ', '.', '-', 'é', '€', '😀', '保');
const anyChar = fc.constantFrom('a', 'Z', ' ', ',', '"', '\n', '\r\n', 'é', '€', '😀', '保');
const plainField = fc.array(plainChar, { maxLength: 6 }).map((cs) => cs.join(''));
const quotedValue = fc.array(anyChar, { maxLength: 8 }).map((cs) => cs.join(''));

interface Field {
  value: string;
  text: string;
}
const field: fc.Arbitrary<Field> = fc.oneof(
  plainField.map((value) => ({ value, text: value })),
  quotedValue.map((value) => ({ value, text: `"${value.replace(/"/g, '""')}"` })),
);

interface Doc {
  text: string;
  expected: Array<[string[], number]>;
}

/** A well-formed CSV document with the records and line numbers it must read as. */
const csvDocument: fc.Arbitrary<Doc> = fc
  .record({
    bom: fc.boolean(),
    records: fc.array(
      fc.record({
        fields: fc.array(field, { minLength: 1, maxLength: 5 }),
        eol: fc.constantFrom('\n', '\r\n'),
        blankLinesAfter: fc.constantFrom(0, 0, 0, 1, 2),
      }),
      { minLength: 1, maxLength: 12 },
    ),
    finalNewline: fc.boolean(),
  })
  .map(({ bom, records: recs, finalNewline }) => {
    let text = bom ? '\ufeff' : '';
    let line = 1;
    const expected: Array<[string[], number]> = [];
    recs.forEach((r, i) => {
      // A record of one empty unquoted field is a blank line: quote it to keep it a record.
      const fields = r.fields.length === 1 && r.fields[0]!.text === '' ? [{ value: '', text: '""' }] : r.fields;
      text += fields.map((f) => f.text).join(',');
      expected.push([fields.map((f) => f.value), line]);
      line += 1 + fields.reduce((n, f) => n + (f.value.match(/\n/g)?.length ?? 0), 0);
      const last = i === recs.length - 1;
      if (!last || finalNewline) text += r.eol;
      if (!last) {
        text += r.eol.repeat(r.blankLinesAfter);
        line += r.blankLinesAfter;
      }
    });
    return { text, expected };
  });

/** Random cut points (byte offsets) for a document. */
const cuts = fc.array(fc.nat({ max: 400 }), { maxLength: 30 });

describe('CsvReader properties', () => {
  it('a well-formed document reads as written, in one chunk or split anywhere (also inside multibyte characters)', () => {
    fc.assert(
      fc.property(csvDocument, cuts, ({ text, expected }, cutPoints) => {
        const bytes = Buffer.from(text, 'utf8');
        const whole = read([bytes]);
        expect(whole.error).toBeNull();
        expect(whole.records.map((r) => [r.fields, r.line])).toEqual(expected);
        expect(whole.records.every((r) => r.problem === null)).toBe(true);
        expect(read(splitAt(bytes, cutPoints))).toEqual(whole);
        expect(read(splitAt(bytes, cutPoints), undefined, true)).toEqual(whole);
        // One byte at a time: every boundary at once.
        expect(read([...bytes].map((b) => Buffer.from([b])))).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });

  it('reads every well-formed document into the same records as csv-parse', () => {
    // The import paths use this hand-written reader for speed (a fast path for lines without
    // quotes, line numbers for error reports); csv-parse, the project's CSV parser of record, is
    // the reference for what the records are. (Not for line numbers: csv-parse counts a CRLF
    // inside a quoted field as two lines; the property above checks ours.)
    fc.assert(
      fc.property(csvDocument, ({ text, expected }) => {
        // record_delimiter: a file may mix CRLF and LF lines (csv-parse would settle on the first).
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the generic form asks for columns
        const reference = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, record_delimiter: ['\r\n', '\n'] }) as string[][];
        expect(reference).toEqual(expected.map(([fields]) => fields));
        expect(records(text).map(([fields]) => fields)).toEqual(reference);
      }),
      { numRuns: 400 },
    );
  });

  it('text chunks split anywhere (even between the halves of a surrogate pair) read the same', () => {
    fc.assert(
      fc.property(csvDocument, cuts, ({ text }, cutPoints) => {
        const points = [...new Set(cutPoints.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let prev = 0;
        for (const p of points) {
          chunks.push(text.slice(prev, p));
          prev = p;
        }
        chunks.push(text.slice(prev));
        expect(read(chunks)).toEqual(read([text]));
      }),
      { numRuns: 300 },
    );
  });

  it('any text at all (stray quotes, CRs, junk after quotes, unclosed quotes) gives the same records, problems and error in any split', () => {
    const messy = fc.array(fc.constantFrom('a', ',', '"', '""', '\n', '\r', '\r\n', ' ', 'é', '😀'), { maxLength: 60 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(messy, cuts, (text, cutPoints) => {
        const bytes = Buffer.from(text, 'utf8');
        expect(read(splitAt(bytes, cutPoints))).toEqual(read([bytes]));
        expect(read(splitAt(bytes, cutPoints), undefined, true)).toEqual(read([bytes]));
      }),
      { numRuns: 1000 },
    );
  });

  it('an invalid byte anywhere is ENCODING on its own line, in any split', () => {
    fc.assert(
      fc.property(csvDocument, fc.nat(), cuts, ({ text }, where, cutPoints) => {
        const good = Buffer.from(text, 'utf8');
        const at = where % (good.length + 1);
        const bytes = Buffer.concat([good.subarray(0, at), Buffer.from([0xff]), good.subarray(at)]);
        let line = 1;
        for (let i = 0; i < at; i++) if (good[i] === 0x0a) line++;
        const ways: Array<[Buffer[], boolean]> = [[[bytes], false], [splitAt(bytes, cutPoints), false], [splitAt(bytes, cutPoints), true]];
        for (const [chunks, asBytes] of ways) {
          const error = read(chunks, undefined, asBytes).error;
          expect(error).toEqual({ reason: 'ENCODING', line, message: `line ${line}: the file is not UTF-8 text (a legacy encoding such as Windows-1252, or binary content); save it as UTF-8 ("CSV UTF-8" in Excel)` });
        }
      }),
      { numRuns: 400 },
    );
  });

  it('with a small maxRecordLength, the outcome (records, or RECORD_TOO_LONG on the same line) does not depend on the split', () => {
    fc.assert(
      fc.property(csvDocument, cuts, fc.integer({ min: 4, max: 30 }), ({ text }, cutPoints, max) => {
        const bytes = Buffer.from(text, 'utf8');
        const whole = read([bytes], max);
        for (const asBytes of [false, true]) {
          const split = read(splitAt(bytes, cutPoints), max, asBytes);
          expect(split.error).toEqual(whole.error);
          expect(split.records).toEqual(whole.records);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('trimCell', () => {
  it.each([
    ['abc', 'abc'],
    ['  abc ', 'abc'],
    ['\tabc\t', 'abc'],
    ['\u00a0abc\u00a0', 'abc'],
    ['', ''],
    ['   ', ''],
    ['a b', 'a b'],
    // Trimmed the same whichever of trim's spaces comes first.
    ['\u3000A', 'A'],
    [' \u3000A', 'A'],
    ['\ufeffA', 'A'],
    ['A\u2028', 'A'],
    ['\u0001A', '\u0001A'],
  ])('%j → %j', (cell, trimmed) => {
    expect(trimCell(cell)).toBe(trimmed);
  });

  it('is String.prototype.trim on every cell, fast path or not', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyCodePoint, maxLength: 6 }), (cell) => {
        expect(trimCell(cell)).toBe(cell.trim());
      }),
      { numRuns: 2000 },
    );
    // Every UTF-16 unit on both sides of a letter (one assertion: 65,536 of them took ~0.5 s).
    const differ: string[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      if (trimCell(`${ch}x${ch}`) !== `${ch}x${ch}`.trim()) differ.push(`U+${c.toString(16)}`);
    }
    expect(differ).toEqual([]);
  });
});

describe('separatorHint', () => {
  it('names semicolons or tabs in a header read as one cell, and nothing else', () => {
    expect(separatorHint(['a;b;c'])).toBe("Its columns are separated by ';', not commas (a spreadsheet's list separator); save the file as comma-separated CSV.");
    expect(separatorHint(['a\tb'])).toBe("Its columns are separated by tabs, not commas (a spreadsheet's list separator); save the file as comma-separated CSV.");
    expect(separatorHint(['a;b', 'c'])).toBe('');
    expect(separatorHint(['abc'])).toBe('');
  });
});

describe('underscoreHint', () => {
  const columns = ['customer_id', 'date', 'amount', 'description'] as const;
  it('names spaces or hyphens where the names have underscores, and nothing else', () => {
    const hint = "Its names are written with spaces or hyphens; write them with underscores, as 'customer_id,date,amount,description'.";
    expect(underscoreHint(['Customer ID', 'Date', 'Amount', 'Description'], columns)).toBe(hint);
    expect(underscoreHint([' customer-id ', 'date', 'amount', 'description'], columns)).toBe(hint);
    expect(underscoreHint(['customer_id', 'date', 'amount', 'description'], columns)).toBe('');
    expect(underscoreHint(['date', 'customer id', 'amount', 'description'], columns)).toBe('');
    expect(underscoreHint(['customer id', 'date', 'amount'], columns)).toBe('');
  });
});

describe('excelSepHint', () => {
  it("names Excel's sep= line read as the header, and nothing else", () => {
    const hint = "It is Excel's 'sep=' line, which only Excel reads; delete that line.";
    expect(excelSepHint(['sep=', ''])).toBe(hint); // sep=, split at its comma
    expect(excelSepHint(['SEP=;'])).toBe(hint);
    expect(excelSepHint(['sep='])).toBe(hint);
    expect(excelSepHint(['separator', ''])).toBe('');
    expect(excelSepHint(['customer_id', 'date', 'amount', 'description'])).toBe('');
  });
});
