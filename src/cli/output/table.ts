/** Plain-text tables for human output. Values are never cut: finance users need them whole. */
import type { ChalkInstance } from 'chalk';

export interface Column<T> {
  header: string;
  value: (row: T) => string | number | null | undefined;
  align?: 'left' | 'right';
}

export function renderTable<T>(columns: Column<T>[], rows: T[], colour?: ChalkInstance): string {
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const fmt = (values: string[]) =>
    values
      .map((v, i) => (columns[i]!.align === 'right' ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const header = fmt(columns.map((c) => c.header));
  const lines = [colour ? colour.bold(header) : header, ...cells.map(fmt)];
  return `${lines.join('\n')}\n`;
}

function cellText(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '-';
  return String(v);
}
