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
  if (omitted > 0) ui.line(`… and ${plural(omitted, 'more error')} not shown (the first ${count(result.errors.length)} by row are listed).`);
  if (result.imported === 0 && result.errors.length > 0 && result.errors.every((e) => ALREADY_STORED.has(e.code as string))) {
    ui.warn(`Every row${omitted > 0 ? ' listed' : ''} is already in the store: this file looks imported before. Nothing changed.`);
  }
}
