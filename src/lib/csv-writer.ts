/**
 * Writing CSV (RFC 4180) for reports and exports: comma separated, `\n` line ends, UTF-8
 * without a byte order mark, and a cell quoted only when it has to be (it holds a comma, a
 * double quote, CR or LF; quotes inside are doubled). Rows are built by plain string
 * concatenation: the million-row report paths call these functions per cell.
 */

const NEEDS_QUOTES = /[",\r\n]/;

/** One text cell; null and undefined are empty cells. */
export function csvCell(value: string | null | undefined): string {
  if (value === null || value === undefined) return '';
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One record with its line end. Numbers are written as given (format money first). */
export function csvRow(cells: ReadonlyArray<string | number | null | undefined>): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += ',';
    const v = cells[i];
    line += typeof v === 'number' ? String(v) : csvCell(v);
  }
  return `${line}\n`;
}
