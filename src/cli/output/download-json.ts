/**
 * The global `--json` on a command that downloads a report or an export. `--json` prints the
 * API's JSON body, exactly (docs/cli.md), so it decides the format rather than sitting beside it:
 *
 *   the API offers JSON    (`collections attempts`, `reports collections`: format=json) — `--json`
 *                          is that JSON body; `--json` with another `--format` is a USAGE_ERROR,
 *                          worded as the lists word it (output/list.ts).
 *   the API offers CSV only (`settlements export`) — there is no JSON body to print, so `--json`
 *                          is a USAGE_ERROR rather than CSV under a flag that promised JSON.
 */
import { usageError, type PremiaError } from '../../domain/errors.js';
import type { GlobalOptions } from '../context.js';

/** The format a download is fetched in: `format` (or `fallback`) without --json, JSON with it. */
export function downloadFormat<F extends string>(globals: GlobalOptions, format: F | undefined, fallback: F): F | 'json' {
  if (!globals.json) return format ?? fallback;
  if (format !== undefined && format !== 'json') throw jsonFormatClash(format);
  return 'json';
}

/** --json (the API's JSON body) given with another --format, on a list or a download. */
export function jsonFormatClash(format: string): PremiaError {
  return usageError(`--json asks for the API's JSON body but --format ${format} asks for ${format}; give only one of them.`);
}

/** Refuse --json on a download the API gives only as CSV; `what` names it (a sentence's start), `instead` says where its JSON is. */
export function refuseJsonForCsvOnly(globals: GlobalOptions, what: string, instead: string): void {
  if (globals.json) throw usageError(`${what} is CSV only (the API gives no JSON of it), so --json does not apply; leave it out (${instead}).`);
}
