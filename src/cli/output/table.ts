/**
 * Plain-text tables for human output. Off a terminal (a pipe, a file) values are never cut:
 * finance users need them whole. On a terminal the table fits its width: the widest text
 * columns give way first and a cut value ends in an ellipsis; money, numbers and dates are
 * never cut (too narrow for them, a line is longer than the width). Widths are the columns a
 * terminal draws (a Chinese character or an emoji takes two, an accent none). Money is
 * right-aligned, and on a terminal its digits are grouped by thousands (1,234,567.89); CSV
 * and JSON never group digits.
 */
import type { ChalkInstance } from 'chalk';
import { createRequire } from 'node:module';
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

/** Printable ASCII: one column a character (nearly every value; the fast path). */
const ASCII = /^[\x20-\x7e]*$/;

let widthOf: ((text: string) => number) | undefined;
/**
 * string-width's answer, the package loaded on first use: loading it builds its Unicode tables
 * (milliseconds of every start), which every command that prints a table of ASCII only (nearly
 * all) would pay, a cron job's `clock advance --days 1` every day (issue 13). Node 20.19 loads an
 * ES module through require.
 */
function stringWidth(text: string): number {
  widthOf ??= (createRequire(import.meta.url)('string-width') as typeof import('string-width')).default;
  return widthOf(text);
}

let segmenter: Intl.Segmenter | undefined;
/** What a terminal draws as one character (a letter with its accents, an emoji with its modifiers). */
function graphemes(text: string): string[] {
  segmenter ??= new Intl.Segmenter();
  return Array.from(segmenter.segment(text), (g) => g.segment);
}

/** The columns `text` takes on a terminal (not its length in UTF-16 units). */
export function displayWidth(text: string): number {
  return ASCII.test(text) ? text.length : stringWidth(text);
}

/**
 * `text` cut to `width` columns, the last one an ellipsis when anything was cut: whole
 * characters only (never half an emoji or a letter without its accent), a wide one that would
 * cross the edge left out.
 */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  if (ASCII.test(text)) return `${text.slice(0, width - 1)}${ELLIPSIS}`;
  let kept = '';
  let used = 0;
  for (const g of graphemes(text)) {
    const w = stringWidth(g);
    if (used + w > width - 1) break;
    kept += g;
    used += w;
  }
  return `${kept}${ELLIPSIS}`;
}

/** `text` padded with spaces to `width` columns, on the right (or on the left: `start`). */
function pad(text: string, width: number, start: boolean): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return start ? fill + text : text + fill;
}

export function renderTable<T>(columns: Column<T>[], rows: T[], options: TableOptions | ChalkInstance = {}): string {
  const opts: TableOptions = typeof options === 'function' ? { colour: options } : options;
  const group = opts.group === true;
  const right = columns.map((c) => c.align === 'right' || c.money === true);
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row), c.money === true, group)));
  const widths = columns.map((c, i) => Math.max(displayWidth(c.header), ...cells.map((r) => displayWidth(r[i]!))));
  // What a column may be narrowed to: a text column to MIN_WIDTH, but a column of dates not
  // below a date; a number or money column only by its header, never below its values.
  const floors = columns.map((_c, i) => {
    const whole = right[i] || (cells.length > 0 && cells.every((r) => ISO_DATE.test(r[i]!) || r[i] === '-'));
    return whole ? Math.max(MIN_WIDTH, ...cells.map((r) => displayWidth(r[i]!))) : MIN_WIDTH;
  });
  if (opts.width !== undefined && opts.width > 0) fit(widths, right, floors, opts.width);
  const fmt = (values: string[]) =>
    values
      .map((v, i) => {
        const cut = truncate(v, widths[i]!);
        return pad(cut, widths[i]!, right[i]!);
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
