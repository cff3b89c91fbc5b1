/**
 * Multi-row statements for the bulk paths (a collections day, balance snapshots): prepared once
 * per shape through the StatementCache and run over a group of rows at a time, with the
 * parameters written into one reused array. Fewer, larger statements cost less per row.
 */
import type { StatementCache } from './sqlite-dialect.js';

/** Rows per statement. */
export const WRITE_ROWS = 64;

/** `(?,?,…),(?,?,…)…`: `rows` groups of `width` placeholders. */
export function valuesList(rows: number, width: number): string {
  const one = `(${new Array(width).fill('?').join(',')})`;
  return new Array(rows).fill(one).join(',');
}

/**
 * Run `sql(k)` (a statement over k rows) for `count` rows, WRITE_ROWS at a time; `fill`
 * writes row `r`'s values into `params` at `at`.
 */
export function runInGroups(
  statements: StatementCache,
  sql: (rows: number) => string,
  width: number,
  count: number,
  fill: (params: unknown[], at: number, r: number) => void,
): void {
  const full = new Array<unknown>(WRITE_ROWS * width);
  let r = 0;
  if (count >= WRITE_ROWS) {
    const stmt = statements.get(sql(WRITE_ROWS));
    for (; r + WRITE_ROWS <= count; r += WRITE_ROWS) {
      for (let k = 0; k < WRITE_ROWS; k++) fill(full, k * width, r + k);
      stmt.run(full);
    }
  }
  if (r < count) {
    // The rest one row at a time: one statement per size would crowd the statement cache.
    const stmt = statements.get(sql(1));
    const params = new Array<unknown>(width);
    for (; r < count; r++) {
      fill(params, 0, r);
      stmt.run(params);
    }
  }
}
