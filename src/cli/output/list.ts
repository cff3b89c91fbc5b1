/**
 * The output of list commands (policies list, collections list, settlements list, keys list,
 * settings, profiles): `--format table|csv|json` and `--fields a,b,c`.
 *
 *   table (the default)  for people: the list's usual columns, or the chosen fields; cut to the
 *                        terminal's width, money grouped by thousands on a terminal (table.ts)
 *   csv                  a header of field names and one row per item; money as 1234.50
 *   json                 an array of objects with the chosen fields; money as 1234.50
 *   --json (global)      the API's body, exactly, as every command gives it (no --fields)
 *
 * Field names are the API's (collection_amount, collection_status, …); csv and json give every
 * field unless --fields chooses. An unknown field is a validation error naming the valid ones.
 */
import type { Page } from '../../backend/types.js';
import { PremiaError, usageError, validationError } from '../../domain/errors.js';
import { MAX_PAGE_LIMIT } from '../../domain/requests.js';
import { stringifyJson } from '../../domain/json.js';
import { csvRow } from '../../lib/csv-writer.js';
import type { GlobalOptions } from '../context.js';
import { jsonFormatClash } from './download-json.js';
import { moneyText, type Column } from './table.js';
import type { Ui } from './ui.js';

export { fieldsOption, formatOption, LIST_FORMATS, type ListFormat } from './list-options.js';
import type { ListFormat } from './list-options.js';

export interface Field<T> {
  /** The name in CSV, JSON and --fields: the API's field name. */
  name: string;
  /** The table's header when the list shows it by default under a shorter name. */
  header?: string;
  value: (row: T) => string | number | boolean | null | undefined;
  /** Money in integer cents. */
  money?: boolean;
  /** A number (right-aligned in a table). */
  numeric?: boolean;
}

export interface ListSpec<T> {
  fields: ReadonlyArray<Field<T>>;
  /** The columns a table shows without --fields, in order: field names, or a column of the table alone. */
  table: ReadonlyArray<string | Field<T>>;
}

export interface ListOutput {
  format: ListFormat;
  /** The chosen fields, or null for the format's default. */
  fields: string[] | null;
}

export interface ListFlags {
  format?: ListFormat;
  fields?: string;
}

/** The output a list command's flags ask for, checked against the list's fields. */
export function listOutput<T>(flags: ListFlags, globals: GlobalOptions, spec: ListSpec<T>): ListOutput {
  if (globals.json && flags.format !== undefined && flags.format !== 'json') throw jsonFormatClash(flags.format);
  if (globals.json && flags.fields !== undefined) {
    throw usageError("--json prints the API's body whole; to choose fields, use --format json --fields … (or --format csv).");
  }
  const fields = flags.fields === undefined ? null : checkFields(flags.fields, spec);
  return { format: flags.format ?? 'table', fields };
}

/** The fields `--fields` names, checked against the list's (exit 2 naming an unknown one and the valid ones). */
export function checkFields<T>(text: string, spec: ListSpec<T>): string[] {
  const valid = spec.fields.map((f) => f.name);
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0) throw validationError(`--fields needs at least one field; the fields are: ${valid.join(', ')}.`, [{ field: '--fields', code: 'REQUIRED', message: 'no field named' }]);
  const unknown = names.filter((n) => !valid.includes(n));
  if (unknown.length > 0) {
    const which = unknown.length === 1 ? `'${unknown[0]}' is not a field` : `${unknown.map((u) => `'${u}'`).join(', ')} are not fields`;
    throw validationError(`--fields: ${which} of this list; the fields are: ${valid.join(', ')}.`, [
      { field: '--fields', code: 'UNKNOWN_FIELD', message: `unknown: ${unknown.join(', ')}; valid: ${valid.join(', ')}` },
    ]);
  }
  return [...new Set(names)];
}

/** Print the rows as `out` says; `apiBody` is what --json prints. */
export function printList<T>(ui: Ui, spec: ListSpec<T>, out: ListOutput, rows: readonly T[], apiBody: unknown): void {
  if (ui.json) {
    ui.printJson(apiBody);
    return;
  }
  const chosen = chosenFields(spec, out);
  switch (out.format) {
    case 'csv': {
      ui.write(csvRow(chosen.map((f) => f.name)) + csvRows(chosen, rows));
      return;
    }
    case 'json': {
      ui.printJson(jsonItems(chosen, rows));
      return;
    }
    case 'table': {
      const columns: Column<T>[] = chosen.map((f) => ({
        header: out.fields === null ? (f.header ?? f.name) : f.name,
        value: (row: T) => {
          const v = f.value(row);
          return typeof v === 'boolean' ? (v ? 'yes' : 'no') : v;
        },
        money: f.money === true,
        align: f.numeric === true ? 'right' : 'left',
      }));
      ui.table(columns, [...rows]);
    }
  }
}

/** The fields `out` shows, in order: the chosen ones, else the format's default. */
function chosenFields<T>(spec: ListSpec<T>, out: ListOutput): Array<Field<T>> {
  const byName = new Map(spec.fields.map((f) => [f.name, f]));
  return (out.fields ?? (out.format === 'table' ? spec.table : spec.fields.map((f) => f.name))).map((n) => (typeof n === 'string' ? byName.get(n)! : n));
}

/**
 * The rows as CSV. A row of one empty cell is written `""`: as an empty line it would be read as
 * no row at all (CSV readers skip blank lines), so `--fields revoked_at` would lose every key.
 */
function csvRows<T>(chosen: ReadonlyArray<Field<T>>, rows: readonly T[]): string {
  let text = '';
  for (const row of rows) {
    const line = csvRow(chosen.map((f) => csvValue(f, row)));
    text += line === '\n' ? '""\n' : line;
  }
  return text;
}

/** The rows as JSON objects of the chosen fields (money by field name, as every JSON premia writes: domain/json.ts). */
function jsonItems<T>(chosen: ReadonlyArray<Field<T>>, rows: readonly T[]): Array<Record<string, unknown>> {
  return rows.map((row) => Object.fromEntries(chosen.map((f) => [f.name, f.value(row) ?? null])));
}

/**
 * A paged list (`policies list`, `collections list`) as `out` asks: as an export (`--format csv`
 * or `json`) with no `--limit`, every item, page after page, so that `policies list --format csv >
 * policies.csv` is the whole book; else the page asked for, with a note on stderr when more
 * follow (`--json` prints the API's page as it is). `noun` names the items in that note.
 */
export async function printPagedList<T, Q extends { limit?: number; after?: string }>(
  ui: Ui,
  spec: ListSpec<T>,
  out: ListOutput,
  query: Q,
  fetch: (query: Q) => Promise<Page<T>>,
  noun: string,
): Promise<void> {
  if (!ui.json && out.format !== 'table' && query.limit === undefined) {
    await printListPages(ui, spec, out, allPages((after) => fetch({ ...query, limit: MAX_PAGE_LIMIT, after }), query.after));
    return;
  }
  const page = await fetch(query);
  printList(ui, spec, out, page.data, page);
  const next = nextCursor(page);
  if (!ui.json && next !== null) ui.status(`More ${noun} follow: run again with --after ${next}`);
}

/**
 * The cursor of the page after this one, or null on the last page: another server may leave
 * `next_after` out, or send it empty, for none (an empty one asked for would be read as no
 * cursor, the first page again).
 */
function nextCursor(page: { next_after?: string | null }): string | null {
  const next = page.next_after ?? null;
  return next === null || String(next) === '' ? null : next;
}

/**
 * Every page of a list, from `after` on: `fetch` asked for the page after each one's last item
 * until none follows (a server that gives no `next_after`, or the same one again, has no more).
 * A `next_after` given before that (pages that go round in a circle) is an error: the list would
 * never end, and stopping there would pass part of it off as the whole.
 */
export async function* allPages<T>(fetch: (after: string | undefined) => Promise<{ data: T[]; next_after?: string | null }>, after?: string): AsyncGenerator<T[]> {
  const asked = new Set<string | undefined>([after]);
  for (;;) {
    const page = await fetch(after);
    yield page.data;
    const next = nextCursor(page);
    if (next === null || next === after || page.data.length === 0) return;
    if (asked.has(next)) {
      // Quoted as JSON: the tokens are the server's, and may hold anything.
      const quoted = (t: string) => JSON.stringify(t.slice(0, 64));
      throw new PremiaError('REMOTE_ERROR', `The list's pages go round in a circle: the page after ${quoted(after ?? '')} points back to ${quoted(next)}, asked for before; the list is incomplete.`);
    }
    asked.add(next);
    after = next;
  }
}

/**
 * Print a whole list (printPagedList) page by page as `printList` prints one: CSV's header once, JSON's
 * one array, each page written as it comes and taken by stdout's reader before the next is read
 * (a million policies never sit in memory at once, even in stdout's buffer).
 */
export async function printListPages<T>(ui: Ui, spec: ListSpec<T>, out: ListOutput, pages: AsyncIterable<readonly T[]>): Promise<void> {
  const chosen = chosenFields(spec, out);
  let first = true;
  if (out.format === 'csv') ui.write(csvRow(chosen.map((f) => f.name)));
  else ui.write('[');
  for await (const rows of pages) {
    // Each page waits for stdout to take it: to a slow pipe the list is never held whole.
    if (out.format === 'csv') {
      await ui.writeDrained(csvRows(chosen, rows));
      continue;
    }
    // One write a page (a file or a pipe as stdout is written synchronously).
    let text = '';
    for (const item of jsonItems(chosen, rows)) {
      text += `${first ? '' : ','}${stringifyJson(item)}`;
      first = false;
    }
    await ui.writeDrained(text);
  }
  if (out.format !== 'csv') ui.write(']\n');
}

function csvValue<T>(f: Field<T>, row: T): string | null {
  const v = f.value(row);
  if (v === null || v === undefined) return null;
  if (f.money && typeof v === 'number') return moneyText(v, false);
  if (typeof v !== 'string' || f.money || f.numeric) return String(v);
  return inertText(v);
}

/**
 * Free text (a dispute reason, a client's name) as a CSV cell a spreadsheet shows and never runs:
 * text that begins as a formula would (`= + - @`, a tab or a carriage return) gets a leading
 * apostrophe, the usual guard. Identifiers cannot begin so (domain/identifiers.ts).
 */
function inertText(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
