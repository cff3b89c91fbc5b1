/**
 * The business-day calendar of a local store (`premia calendar`, `premia settings set calendar`):
 * its base (`za`: South African public holidays, the default; `none`: weekends only) and the
 * holidays a user imported on top of it. The engine (which plans debits on business days only,
 * and reads paydays on them) and the simulated bank (generated paydays, premia's debits processed
 * on business days only) read the same stored calendar (domain/calendar.ts `storedCalendar`).
 *
 * What is fixed once a collections run exists: the base (it reshapes the bank's past: generated
 * paydays, the days debits could be made), and the imported dates up to 1 + LEAD_DAYS days after
 * the clock's date (those days are lived, or their debits already submitted). Later dates may still
 * be added or removed, unless that would move a pay onto or off one of those days (the pay due on a
 * holiday comes the business day before it).
 */
import {
  CALENDAR_KEY,
  calendarOf,
  DEFAULT_CALENDAR,
  IMPORTED_HOLIDAYS_KEY,
  isCalendarBase,
  parseStoredHolidays,
  storedCalendar,
  storedHolidaysText,
  type ImportedHoliday,
} from '../../domain/calendar.js';
import { PremiaError, validationError, type FieldError } from '../../domain/errors.js';
import { firstUnseen, moreCharactersThan, printable } from '../../domain/identifiers.js';
import { addDays, dayNumber, fromDayNumber, isIsoDate, weekday, whyNotADate } from '../../domain/period.js';
import { LEAD_DAYS } from '../../engine/settings.js';
import { count, plural } from '../../domain/words.js';
import { bareCrHint, CsvFormatError, CsvReader, emptyColumnsRowHint, isBlankRecord, isHeaderOf, trimCell, wrongHeaderHint } from '../../lib/csv-reader.js';
import { getAllMeta, setMeta } from '../../store/repos/meta.js';
import type { Store, Trx } from '../../store/store.js';
import { refuseInPartLivedDay } from '../../store/part-lived-day.js';
import type { CalendarImportResult, CalendarView, Upload } from '../types.js';
import { invalidCsvFile } from './row-errors.js';

export const CALENDAR_CSV_HEADER = ['date', 'name'] as const;
const NAME_MAX = 100;
const MAX_FILE_BYTES = 1 << 20;
const MAX_HOLIDAYS = 5_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The last day whose business-day status can no longer change (null before the first run). */
function fixedUntil(meta: ReadonlyMap<string, string>): string | null {
  if (meta.get('clock_locked') !== '1') return null;
  // The clock's date has run; the debits of the next 1 + LEAD_DAYS days are submitted.
  return addDays(meta.get('clock_date')!, 1 + LEAD_DAYS);
}

/** The calendar in force and the holidays of `year`. */
export async function showCalendar(store: Store, year: number): Promise<CalendarView> {
  if (!Number.isInteger(year) || year < 1900 || year > 2099) {
    throw validationError(`--year must be a year from 1900 to 2099; got '${String(year).slice(0, 20)}'.`, [
      { field: 'year', code: 'INVALID_VALUE', message: 'a year from 1900 to 2099' },
    ]);
  }
  const meta = await getAllMeta(store.db);
  const cal = storedCalendar(meta.get(CALENDAR_KEY), meta.get(IMPORTED_HOLIDAYS_KEY));
  return {
    calendar: cal.base,
    imported_dates: cal.imported.length,
    fixed_until: fixedUntil(meta),
    year,
    holidays: cal.holidaysOf(year).map((h) => ({ ...h, weekday: WEEKDAYS[weekday(h.date)]! })),
  };
}

/**
 * Each piece of an upload, refused past MAX_FILE_BYTES (a calendar file is small). The pieces go
 * to the reader as they come: a pipe whose first line is no header of dates is refused then, not
 * once its producer ends.
 */
async function* readSmall(file: Upload): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const chunk of file.stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.byteLength;
    if (size > MAX_FILE_BYTES) throw invalidCalendarFile(file.name, `it is larger than ${MAX_FILE_BYTES} bytes`);
    yield bytes;
  }
}

function invalidCalendarFile(name: string, reason: string): PremiaError {
  return invalidCsvFile(name, 'a holiday CSV file', reason);
}

/**
 * The holidays of a CSV file `date,name` (name may be empty), checked whole: any bad row refuses
 * the file. `lineOf`: each date's line in the file.
 */
async function parseHolidays(file: Upload): Promise<{ rows: ImportedHoliday[]; lineOf: ReadonlyMap<string, number> }> {
  const out: ImportedHoliday[] = [];
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  let header: string[] | null = null;
  const reader = new CsvReader({
    onRecord: (fields, line, problem) => {
      if (isBlankRecord(fields)) return;
      if (header === null) {
        header = fields.map((f) => trimCell(f).toLowerCase());
        const ok = (header.length === 2 && header[0] === 'date' && header[1] === 'name') || (header.length === 1 && header[0] === 'date');
        if (!ok) {
          // As the policy and bank imports say it: a spreadsheet's `date;name`, the columns in
          // another order, a trailing comma or a column besides them are named as such.
          throw invalidCalendarFile(
            file.name,
            `line ${line}: the header must be '${CALENDAR_CSV_HEADER.join(',')}'; found '${printable(fields.join(','), 200)}'.${wrongHeaderHint(header, CALENDAR_CSV_HEADER)}`,
          );
        }
        return;
      }
      const add = (field: string, code: FieldError['code'], message: string) => errors.push({ row: line, field, code, message });
      if (isHeaderOf(fields, header)) {
        // Two files joined into one (cat a.csv b.csv): said so, not as a date 'date'.
        add('row', 'MALFORMED_ROW', 'this row is the header again (files joined into one?); delete the line');
        return;
      }
      if (fields.length !== header.length) {
        add(
          'row',
          'WRONG_FIELD_COUNT',
          `expected ${header.length} field${header.length === 1 ? '' : 's'}, found ${fields.length}${bareCrHint(fields) || emptyColumnsRowHint(fields, header) || holidayFieldCountHint(fields, header)}`,
        );
        return;
      }
      if (problem) add('row', 'MALFORMED_ROW', problem);
      const date = trimCell(fields[0]!);
      const name = fields.length > 1 ? trimCell(fields[1]!) : '';
      // Worded as every date premia reads (bank rows, options, requests): 2027-02-30 names February's length.
      if (!isIsoDate(date)) add('date', 'INVALID_DATE', `date '${printable(date, 40)}' ${whyNotADate(date).phrase}`);
      else if (date < '1900-01-01' || date > '2099-12-31') add('date', 'INVALID_DATE', `date ${date} is outside 1900-2099`);
      const unseen = firstUnseen(name);
      if (unseen) add('name', 'INVALID_FORMAT', `name holds an unprintable or invisible character (${unseen}); write it as visible text`);
      else if (moreCharactersThan(name, NAME_MAX)) add('name', 'INVALID_FORMAT', `name must be at most ${NAME_MAX} printable characters`);
      const first = seen.get(date);
      if (first !== undefined) add('date', 'DUPLICATE_IN_FILE', `${date} is already on line ${first}`);
      else seen.set(date, line);
      out.push({ date, name: name === '' ? 'Imported holiday' : name });
    },
  });
  try {
    for await (const c of readSmall(file)) reader.push(c);
    reader.end();
  } catch (e) {
    if (e instanceof CsvFormatError) throw invalidCalendarFile(file.name, e.message);
    throw e;
  }
  if (header === null) throw invalidCalendarFile(file.name, "the file is empty; expected the header 'date,name' and a date a line");
  if (errors.length > 0) {
    const shown = errors.slice(0, 20);
    throw validationError(
      `${file.name}: ${errors.length} row${errors.length === 1 ? '' : 's'} with errors (first on line ${errors[0]!.row}: ${errors[0]!.message}). Nothing was imported.`,
      shown,
    );
  }
  if (out.length > MAX_HOLIDAYS) throw invalidCalendarFile(file.name, `it has more than ${MAX_HOLIDAYS} dates`);
  return { rows: out, lineOf: seen };
}

/**
 * For a holiday row of the wrong field count whose first field is a date: a name holding a comma
 * written without the double quotes that keep it one field, or a name under a header of `date`
 * alone. What to add to its message, or ''.
 */
function holidayFieldCountHint(fields: readonly string[], header: readonly string[]): string {
  if (!isIsoDate(trimCell(fields[0]!))) return '';
  // A date without its name under `date,name`: the row still needs its comma.
  if (fields.length === 1 && header.length === 2) return `: a date without a name still ends with its comma ('${trimCell(fields[0]!)},'), or make the header 'date' alone`;
  if (fields.length <= header.length) return '';
  if (header.length === 1) return `: the header is 'date' alone, so a row holds only its date; to give the dates names, make the header 'date,name'`;
  const text = fields.slice(1).join(',').trim();
  return `: a comma separates fields, so a name that holds one must be in double quotes (if the name is '${printable(text, 60)}', write "${printable(text.replaceAll('"', '""'), 60)}")`;
}

/**
 * Add the holidays of a CSV file to the calendar (`replace`: they replace the imported ones).
 * Checked whole first: nothing is stored when a row is wrong, or when it would change a day
 * that is fixed (lived, or with its debits submitted).
 */
export async function importHolidays(store: Store, file: Upload, options: { replace?: boolean } = {}): Promise<CalendarImportResult> {
  const { rows, lineOf } = await parseHolidays(file);
  return store.transaction(async (trx: Trx) => {
    await refuseInPartLivedDay(store, trx, "the calendar's holidays");
    const meta = await getAllMeta(trx);
    const fixed = fixedUntil(meta);
    const before = parseStoredHolidays(meta.get(IMPORTED_HOLIDAYS_KEY));
    const byDate = new Map<string, ImportedHoliday>(options.replace ? [] : before.map((h) => [h.date, h]));
    let added = 0;
    for (const h of rows) {
      const old = byDate.get(h.date);
      if (!old && !before.some((b) => b.date === h.date)) added++;
      byDate.set(h.date, h);
    }
    const after = [...byDate.values()];
    if (fixed !== null) {
      // Days up to `fixed` must stay as they were: no date added there, none removed.
      const was = new Set(before.filter((h) => h.date <= fixed).map((h) => h.date));
      const now = new Set(after.filter((h) => h.date <= fixed).map((h) => h.date));
      // The file's dates (added) in the file's order, then those imported before that --replace would remove.
      const changed = [...new Set([...was, ...now])]
        .filter((d) => was.has(d) !== now.has(d))
        .sort((a, b) => (lineOf.get(a) ?? Infinity) - (lineOf.get(b) ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0));
      if (changed.length > 0) {
        const first = changed[0]!;
        const why =
          `a collections run exists, so days up to ${plural(1 + LEAD_DAYS, 'day')} after the clock's date ` +
          `(${meta.get('clock_date')}) are lived or have their debits submitted, and cannot change`;
        const line = lineOf.get(first);
        const removed = before.find((h) => h.date === first);
        throw validationError(
          line !== undefined
            ? `${file.name}: line ${line}: ${first} is on or before ${fixed}: ${why}. Nothing was imported.`
            : `--replace would remove the imported date ${first} ('${printable(removed?.name ?? '', 60)}'), which is on or before ${fixed}: ${why}; ` +
                `keep it in ${file.name}. Nothing was imported.`,
          changed.slice(0, 20).map((d) => {
            const at = lineOf.get(d);
            return at !== undefined
              ? { row: at, field: 'date', code: 'DATE_IN_PAST', message: `${d} is on or before ${fixed}` }
              : { field: 'date', code: 'DATE_IN_PAST', message: `${d} is on or before ${fixed}: imported before, and not in the file that would replace it` };
          }),
        );
      }
      // A later date moves the pay due on it (and the non-business days after it) back to the
      // business day before it, or forward again when removed: that day must not be a fixed one,
      // or a lived day would gain or lose a salary after the fact.
      const moved = movedIntoFixedDays(meta.get(CALENDAR_KEY), before, after, fixed);
      if (moved.length > 0) {
        const [d, to, added] = moved[0]!;
        throw validationError(
          `${d} cannot ${added ? 'be added' : 'be removed'}: pay due on it ${added ? 'would move back to' : 'was paid on'} ${to}, the business day before it, which is on or before ${fixed} ` +
            `(a collections run exists, so days up to ${plural(1 + LEAD_DAYS, 'day')} after the clock's date (${meta.get('clock_date')}) are lived ` +
            `or have their debits submitted). Nothing was imported.`,
          moved.slice(0, 20).map(([date, day]) => ({ field: 'date', code: 'DATE_IN_PAST', message: `pay due on ${date} lands on ${day}, on or before ${fixed}` })),
        );
      }
    }
    if (after.length > MAX_HOLIDAYS) {
      // The file is fine: the calendar's total is what is over.
      throw validationError(
        `${file.name}: its ${plural(added, 'new date')} and the ${plural(before.length, 'date')} imported before make ${count(after.length)}, more than the ` +
          `${count(MAX_HOLIDAYS)} imported dates a calendar holds; import it with --replace to replace those instead of adding to them. Nothing was imported.`,
        [{ field: 'file', code: 'INVALID_VALUE', message: `${count(after.length)} imported dates, more than ${count(MAX_HOLIDAYS)}` }],
      );
    }
    await setMeta(trx, IMPORTED_HOLIDAYS_KEY, storedHolidaysText(after));
    const base = meta.get(CALENDAR_KEY);
    return {
      calendar: isCalendarBase(base) ? base : 'za',
      added,
      removed: before.filter((h) => !byDate.has(h.date)).length,
      imported_dates: after.length,
    };
  });
}

/**
 * The dates after `fixed` whose business-day status the change from `before` to `after` flips,
 * and whose pay would land (or landed) on a day up to `fixed`: [date, that day, whether the date
 * is added], in date order.
 */
function movedIntoFixedDays(
  base: string | undefined,
  before: readonly ImportedHoliday[],
  after: readonly ImportedHoliday[],
  fixed: string,
): Array<[string, string, boolean]> {
  const was = calendarOf(isCalendarBase(base) ? base : DEFAULT_CALENDAR, before);
  const now = calendarOf(isCalendarBase(base) ? base : DEFAULT_CALENDAR, after);
  const last = dayNumber(fixed);
  const dates = [...new Set([...before, ...after].map((h) => h.date))].filter((d) => d > fixed).sort();
  const out: Array<[string, string, boolean]> = [];
  for (const date of dates) {
    const day = dayNumber(date);
    if (was.isBusinessDay(day) === now.isBusinessDay(day)) continue;
    const landed = Math.min(was.onOrBefore(day - 1), now.onOrBefore(day - 1));
    if (landed <= last) out.push([date, fromDayNumber(landed), !now.isBusinessDay(day)]);
  }
  return out;
}

/** Refuse a change of the base once a collections run exists (settings.ts calls it). */
export function checkCalendarChange(meta: ReadonlyMap<string, string>, from: string, to: string): void {
  if (from === to || meta.get('clock_locked') !== '1') return;
  throw new PremiaError(
    'CALENDAR_LOCKED',
    `The calendar is ${from} and a collections run exists: the bank's history and the debits already made were lived on it, ` +
      `so it can no longer change. Holidays after ${fixedUntil(meta)} can still be added with 'premia calendar import', unless one would move a pay onto a day already lived.`,
  );
}
