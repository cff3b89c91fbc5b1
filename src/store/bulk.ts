/**
 * Multi-row statements for the bulk paths (a collections day, balance snapshots): prepared once
 * per shape through the StatementCache and run over a group of rows at a time, with the
 * parameters written into one reused array. Fewer, larger statements cost less per row. And the
 * `in (…)` lists of a request that names many rows (inLists).
 */
import type { StatementCache } from './sqlite-dialect.js';

/** Rows per statement. */
export const WRITE_ROWS = 64;

/** Values per `in (…)` list: well under SQLite's (and PostgreSQL's) limit on bound parameters. */
export const IN_LIST_MAX = 500;

/** `values` in lists of at most IN_LIST_MAX, in order. */
export function* inLists<T>(values: readonly T[]): Generator<T[]> {
  for (let i = 0; i < values.length; i += IN_LIST_MAX) yield values.slice(i, i + IN_LIST_MAX);
}

/** `(?,?,…),(?,?,…)…`: `rows` groups of `width` placeholders. */
export function valuesList(rows: number, width: number): string {
  const one = `(${new Array(width).fill('?').join(',')})`;
  return new Array(rows).fill(one).join(',');
}

/**
 * Run `sql(k)` (a statement over k rows) for `count` rows, WRITE_ROWS at a time; `fill`
 * writes row `r`'s values into `params` at `at`. `lead` are parameters the statement takes
 * before the rows' (the same for every group).
 */
export function runInGroups(
  statements: StatementCache,
  sql: (rows: number) => string,
  width: number,
  count: number,
  fill: (params: unknown[], at: number, r: number) => void,
  ...lead: unknown[]
): void {
  const full = new Array<unknown>(lead.length + WRITE_ROWS * width);
  for (let k = 0; k < lead.length; k++) full[k] = lead[k];
  let r = 0;
  if (count >= WRITE_ROWS) {
    const stmt = statements.get(sql(WRITE_ROWS));
    for (; r + WRITE_ROWS <= count; r += WRITE_ROWS) {
      for (let k = 0; k < WRITE_ROWS; k++) fill(full, lead.length + k * width, r + k);
      stmt.run(full);
    }
  }
  if (r < count) {
    // The rest one row at a time: one statement per size would crowd the statement cache.
    const stmt = statements.get(sql(1));
    const params = new Array<unknown>(lead.length + width);
    for (let k = 0; k < lead.length; k++) params[k] = lead[k];
    for (; r < count; r++) {
      fill(params, lead.length, r);
      stmt.run(params);
    }
  }
}
