/** What both imports (policies, bank rows) say after the table of their row errors. */
import { count, plural } from './format.js';
import type { Ui } from './ui.js';

/** The row errors that say a row is already stored: a policy number or a transaction imported before. */
const ALREADY_STORED = new Set(['DUPLICATE_POLICY', 'DUPLICATE_TRANSACTION']);

/**
 * How many errors the answer left out, and, when nothing was imported and every row listed is one
 * already in the store, that the file looks imported before: a rerun of yesterday's import (a
 * tired operator, a cron job run twice) otherwise ends in thousands of lines of the same error,
 * the one that matters scrolled away.
 */
export function afterRowErrors(ui: Ui, result: { imported: number; errors: ReadonlyArray<{ code?: unknown }>; errors_omitted?: number }): void {
  const omitted = result.errors_omitted ?? 0;
  if (omitted > 0) ui.line(`… and ${ui.plural(omitted, 'more error')} not shown (the first ${ui.count(result.errors.length)} by row are listed).`);
  if (result.imported === 0 && result.errors.length > 0 && result.errors.every((e) => ALREADY_STORED.has(e.code as string))) {
    ui.warn(`Every row${omitted > 0 ? ' listed' : ''} is already in the store: this file looks imported before. Nothing changed.`);
  } else if (result.imported === 0 && result.errors.length > 0 && result.errors.every((e) => AFTER_THE_RUN.has(e.code as string))) {
    ui.warn(
      `Nothing was imported: a collections run exists, so the days up to the clock's date are lived and the accounts premia collects from keep their history. ` +
        'A bank history is imported before the first collections run (premia bank import, then premia collections execute); to collect with this one, import it into a new store first.',
    );
  }
}

/**
 * The row errors of a bank history imported after the store's first collections run (the order
 * of the monthly cycle's first two steps swapped): each row is for a day already lived or for a
 * customer whose generated account premia collects from.
 */
const AFTER_THE_RUN = new Set(['DATE_IN_PAST', 'ACCOUNT_IN_USE']);

/**
 * After a remote import that imported rows, or counted none at all: the rows of the file (`rows`, as premia counts them;
 * null when it could not) that the service's answer counts neither as imported nor as failed,
 * said. Another server may skip a duplicate or a row it cannot read without a word, and
 * "Imported 2 policies; 0 rows failed" for a file of four would leave two policies uncollected
 * unnoticed; nor does "Imported 0 policies; 0 rows failed" for a file of four say why (a 202 of
 * a job queued for later). (Nothing imported with rows failed says itself: a file refused whole
 * counts only its bad rows.)
 */
export function warnUnaccountedRows(ui: Ui, file: string, rows: number | null, result: { imported: number; failed: number }): void {
  if (rows === null || (result.imported === 0 && result.failed > 0)) return;
  const told = result.imported + result.failed;
  if (told >= rows) return;
  const left = rows - told;
  ui.warn(
    `${file} has ${plural(rows, 'row')}, but the service's answer accounts for ${count(told)} (${count(result.imported)} imported, ${count(result.failed)} failed): ` +
      `${plural(left, 'row')} ${left === 1 ? 'is' : 'are'} in neither count. Check what the service holds before relying on this import.`,
  );
}
