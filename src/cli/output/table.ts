/**
 * Plain-text tables for human output. Off a terminal (a pipe, a file) values are never cut:
 * finance users need them whole. On a terminal the table fits its width: the widest text
 * columns give way first and a cut value ends in an ellipsis; money, numbers and dates are
 * never cut (too narrow for them, a line is longer than the width). Money is
 * right-aligned, and on a terminal its digits are grouped by thousands (1,234,567.89); CSV
 * and JSON never group digits.
 */
import type { ChalkInstance } from 'chalk';
import { count } from '../../domain/words.js';

export interface Column<T> {
  header: string;
  value: (row: T) => string | number | null | undefined;
  align?: 'left' | 'right';
  /** The value is money in integer cents: right-aligned, grouped by thousands on a terminal. */
  money?: boolean;
}

export interface TableOptions {
  colour?: ChalkInstance;
  /** The terminal's width: the table is cut to fit it. Undefined: nothing is cut. */
  width?: number;
  /** Group money digits by thousands (on a terminal). */
  group?: boolean;
}

export const ELLIPSIS = '…';

/** Narrowest a text column is cut to (its header may be cut too). */
const MIN_WIDTH = 4;
const GAP = 2;

/** Cents as text: 1234567.89, or 1,234,567.89 when grouped. */
export function moneyText(cents: number, group: boolean): string {
  if (!Number.isSafeInteger(cents)) return String(cents);
  // As domain/money's formatCents (not imported: this module loads with every --help).
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const frac = abs - whole * 100;
  return `${cents < 0 ? '-' : ''}${group ? count(whole) : String(whole)}.${frac < 10 ? '0' : ''}${frac}`;
}

/** `text` cut to `width` characters, the last one an ellipsis when anything was cut. */
export function truncate(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 0) return '';
  return `${text.slice(0, width - 1)}${ELLIPSIS}`;
}

export function renderTable<T>(columns: Column<T>[], rows: T[], options: TableOptions | ChalkInstance = {}): string {
  const opts: TableOptions = typeof options === 'function' ? { colour: options } : options;
  const group = opts.group === true;
  const right = columns.map((c) => c.align === 'right' || c.money === true);
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row), c.money === true, group)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  // What a column may be narrowed to: a text column to MIN_WIDTH, but a column of dates not
  // below a date; a number or money column only by its header, never below its values.
  const floors = columns.map((_c, i) => {
    const whole = right[i] || (cells.length > 0 && cells.every((r) => ISO_DATE.test(r[i]!) || r[i] === '-'));
    return whole ? Math.max(MIN_WIDTH, ...cells.map((r) => r[i]!.length)) : MIN_WIDTH;
  });
  if (opts.width !== undefined && opts.width > 0) fit(widths, right, floors, opts.width);
  const fmt = (values: string[]) =>
    values
      .map((v, i) => {
        const cut = truncate(v, widths[i]!);
        return right[i] ? cut.padStart(widths[i]!) : cut.padEnd(widths[i]!);
      })
      .join(' '.repeat(GAP))
      .trimEnd();
  const header = fmt(columns.map((c) => c.header));
  // Money, numbers and dates are never cut: when they alone do not fit, the lines are longer
  // than the width (the terminal wraps them) rather than show a figure or a date in part.
  const lines = [header, ...cells.map(fmt)];
  if (opts.colour) lines[0] = opts.colour.bold(lines[0]!);
  return `${lines.join('\n')}\n`;
}

/**
 * Narrow the widest left-aligned (text) columns, one character at a time, until the row fits
 * `width`; then the headers of number and money columns wider than their values. No column
 * goes below its floor.
 */
function fit(widths: number[], right: boolean[], floors: number[], width: number): void {
  const total = () => widths.reduce((s, w) => s + w, 0) + GAP * (widths.length - 1);
  for (const numbers of [false, true]) {
    while (total() > width) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++) {
        if (right[i] !== numbers || widths[i]! <= floors[i]!) continue;
        if (widest === -1 || widths[i]! > widths[widest]!) widest = i;
      }
      if (widest === -1) break;
      widths[widest] = widths[widest]! - 1;
    }
  }
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function cellText(v: string | number | null | undefined, money: boolean, group: boolean): string {
  if (v === null || v === undefined) return '-';
  if (money && typeof v === 'number') return moneyText(v, group);
  return String(v);
}
