/** RFC 4180 output: a cell is quoted only when it holds a comma, a quote, CR or LF. */
export function csvCell(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 44 || c === 34 || c === 10 || c === 13) return `"${value.replace(/"/g, '""')}"`;
  }
  return value;
}

/** One CSV record with a `\n` line end. */
export function csvLine(values: readonly string[]): string {
  let out = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    out += csvCell(values[i]!);
  }
  return `${out}\n`;
}
