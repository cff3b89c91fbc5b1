/**
 * The lines of the live views on a terminal (drawn by progress.ts, on stderr only):
 *
 *   clock advance    Day 12 of 30 (2026-11-12) [████████░░░░░░░░░░░░] 40% · 3 attempts · 12,345.67 collected so far
 *   policies import  Importing policies.csv [██████░░░░░░░░░░░░░░] 31% · 281,234 rows · 152,003 rows/s
 *
 * The percentage of an import is by the bytes its rows so far were parsed from (not the bytes
 * read ahead), never goes back, and says 100% only once every row is in; a file of unknown size
 * (stdin) shows no bar. Pure functions of their inputs: the caller measures the time.
 */
import { count, plural } from '../../domain/words.js';
import { moneyText } from './table.js';

export const BAR_WIDTH = 20;

/** A bar of `width` cells, `done` of `total` filled. */
export function bar(done: number, total: number, width = BAR_WIDTH): string {
  const filled = total <= 0 ? width : Math.max(0, Math.min(width, Math.floor((width * done) / total)));
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}]`;
}

/** Whole percent of `done` in `total`, at most 99 until `done` reaches `total`. */
export function percent(done: number, total: number): number {
  if (total <= 0 || done >= total) return 100;
  return Math.min(99, Math.max(0, Math.floor((100 * done) / total)));
}

/** The live line of `clock advance` after day `index` of `total`. */
export function advanceLine(index: number, total: number, date: string, attempts: number, collectedCents: number): string {
  return `Day ${index} of ${total} (${date}) ${bar(index, total)} ${percent(index, total)}% · ${plural(attempts, 'attempt')} · ${moneyText(collectedCents, true)} collected so far`;
}

/** Rows a second, or null before there is a second's worth of time to tell. */
export function rowsPerSecond(rows: number, elapsedMs: number): number | null {
  return elapsedMs < 1000 ? null : Math.round((rows * 1000) / elapsedMs);
}

/**
 * Import progress lines with a percentage that never goes back (`line` remembers the highest
 * one shown).
 */
export class ImportProgressLine {
  private shown = 0;

  constructor(
    private readonly name: string,
    private readonly size: number | undefined,
  ) {}

  line(rows: number, bytes: number, elapsedMs: number): string {
    const rate = rowsPerSecond(rows, elapsedMs);
    const tail = `${plural(rows, 'row')}${rate === null ? '' : ` · ${count(rate)} rows/s`}`;
    if (this.size === undefined || this.size <= 0) return `Importing ${this.name}: ${tail}`;
    // Below 100% while rows may still come: the end is the command's own summary line.
    this.shown = Math.max(this.shown, Math.min(99, percent(bytes, this.size)));
    return `Importing ${this.name} ${bar(this.shown, 100)} ${this.shown}% · ${tail}`;
  }
}
