import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from '../../src/lib/csv-writer.js';

describe('csv-writer (RFC 4180 output)', () => {
  it.each([
    ['plain', 'plain'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['"', '""""'],
    ['semi;colon and spaces ', 'semi;colon and spaces '],
    ['ünïcödé', 'ünïcödé'],
  ])('writes the cell %j as %j', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it('writes null and undefined as empty cells', () => {
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });

  it('joins a row with commas and ends it with \\n; numbers as given', () => {
    expect(csvRow(['POL-1', 'ACME, "Gold" ref', null, 3, '149.50', undefined])).toBe('POL-1,"ACME, ""Gold"" ref",,3,149.50,\n');
    expect(csvRow([])).toBe('\n');
    expect(csvRow([''])).toBe('\n');
  });
});
