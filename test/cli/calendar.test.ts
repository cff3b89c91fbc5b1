/**
 * premia calendar and the `calendar` setting (issue 12): the South African public holidays by
 * default, `none` as the alternative, imported dates on top, and what can no longer change once a
 * collections run exists.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
let stores = 0;
/** A CLI on a new store of its own (seed 1, clock 2026-11-21). */
function store() {
  const db = join(tmp.dir, `c${++stores}.db`);
  let made: Promise<unknown> | undefined;
  return async (args: string[]) => {
    await (made ??= runCli(['--db', db, '--seed', '1', 'clock', 'set', '2026-11-21'], { cwd: tmp.dir }));
    return runCli(['--db', db, '--seed', '1', ...args], { cwd: tmp.dir });
  };
}
function file(name: string, text: string): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, text);
  return path;
}

describe('premia calendar', () => {
  it("lists the South African public holidays of the clock's year, a Sunday's holiday observed on the Monday", async () => {
    const cli = store();
    const r = await cli(['calendar']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      [
        'calendar        za (South African public holidays)',
        'fixed until     - (no collections run yet: the calendar can change)',
        'holidays 2026  13',
        '',
        'date        weekday    name                             source',
        "2026-01-01  Thursday   New Year's Day                   za",
        '2026-03-21  Saturday   Human Rights Day                 za',
        '2026-04-03  Friday     Good Friday                      za',
        '2026-04-06  Monday     Family Day                       za',
        '2026-04-27  Monday     Freedom Day                      za',
        "2026-05-01  Friday     Workers' Day                     za",
        '2026-06-16  Tuesday    Youth Day                        za',
        "2026-08-09  Sunday     National Women's Day             za",
        "2026-08-10  Monday     National Women's Day (observed)  za",
        '2026-09-24  Thursday   Heritage Day                     za',
        '2026-12-16  Wednesday  Day of Reconciliation            za',
        '2026-12-25  Friday     Christmas Day                    za',
        '2026-12-26  Saturday   Day of Goodwill                  za',
        '',
      ].join('\n'),
    );
    const y2027 = await cli(['--json', 'calendar', '--year', '2027']);
    expect(y2027.code).toBe(0);
    const observed = y2027.json().holidays.filter((h: { name: string }) => h.name.endsWith('(observed)'));
    expect(observed.map((h: { date: string }) => h.date)).toEqual(['2027-03-22', '2027-12-27']);
  });

  it('settings set calendar none: weekends only; imported dates add to it', async () => {
    const cli = store();
    const set = await cli(['settings', 'set', 'calendar', 'none']);
    expect([set.code, set.stderr]).toEqual([0, 'calendar set to none (was za; default za).\n']);
    const imp = await cli(['calendar', 'import', file('days.csv', 'date,name\n2026-12-15,Company day\n2026-12-28,\n')]);
    expect([imp.code, imp.stdout, imp.stderr]).toEqual([0, '', 'Calendar none: 2 dates added; 2 imported dates in all.\n']);
    const json = (await cli(['--json', 'calendar', '--year', '2026'])).json();
    expect(json).toEqual({
      calendar: 'none',
      imported_dates: 2,
      fixed_until: null,
      year: 2026,
      holidays: [
        { date: '2026-12-15', weekday: 'Tuesday', name: 'Company day', source: 'imported' },
        { date: '2026-12-28', weekday: 'Monday', name: 'Imported holiday', source: 'imported' },
      ],
    });
    const replaced = await cli(['calendar', 'import', '--replace', file('one.csv', 'date\n2026-12-28\n')]);
    expect([replaced.code, replaced.stderr]).toEqual([0, 'Calendar none: 0 dates added, 1 removed; 1 imported date in all.\n']);
  });

  it('a bad row refuses the whole file (exit 2) and imports nothing', async () => {
    const cli = store();
    const r = await cli(['calendar', 'import', file('bad.csv', 'date,name\n2026-12-15,ok\n2026-13-01,bad month\n2026-12-15,again\n')]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      "error: bad.csv: 2 rows with errors (first on line 3: date '2026-13-01' is not a date: there is no month 13). Nothing was imported.",
    );
    expect((await cli(['--json', 'calendar'])).json().imported_dates).toBe(0);
    const header = await cli(['calendar', 'import', file('header.csv', 'day,name\n2026-12-15,x\n')]);
    expect(header.code).toBe(2);
    expect(header.stderr.split('\n')[0]).toBe("error: header.csv is not a holiday CSV file: line 1: the header must be 'date,name'; found 'day,name'. Nothing was imported.");
    const late = await cli(['calendar', 'import', file('late.csv', '\n\nday,name\n2026-12-15,x\n')]);
    expect(late.code).toBe(2);
    expect(late.stderr.split('\n')[0]).toBe("error: late.csv is not a holiday CSV file: line 3: the header must be 'date,name'; found 'day,name'. Nothing was imported.");
  });

  // A spreadsheet's `date;name` was refused without the reason the policy and bank imports give.
  it("a spreadsheet's semicolon or tab file is refused naming its separator, as the other imports do", async () => {
    const cli = store();
    for (const [name, text, by] of [
      ['semicolons.csv', 'date;name\n2027-01-04;Bridge day\n', "';'"],
      ['tabs.csv', 'date\tname\n2027-01-04\tBridge day\n', 'tabs'],
    ] as const) {
      const r = await cli(['calendar', 'import', file(name, text)]);
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        '',
        `error: ${name} is not a holiday CSV file: line 1: the header must be 'date,name'; found '${text.split('\n')[0]!.replace('\t', '\\u0009')}'. ` +
          `Its columns are separated by ${by}, not commas (a spreadsheet's list separator); save the file as comma-separated CSV. Nothing was imported.\n  (code INVALID_FILE)\n`,
      ]);
    }
    expect((await cli(['--json', 'calendar'])).json().imported_dates).toBe(0);
  });

  // These were refused with only 'expected 2 fields, found 3' or a date 'date', where the bank and
  // policy imports say what a spreadsheet or a hand did.
  it('a file refused for its columns says why, as the bank and policy imports do: order, a trailing comma, a column besides, a comma in a name, the header again', async () => {
    const cli = store();
    const cases: Array<[name: string, text: string, first: string]> = [
      [
        'order.csv',
        'name,date\nBridge day,2027-01-04\n',
        "error: order.csv is not a holiday CSV file: line 1: the header must be 'date,name'; found 'name,date'. The columns are right but in the wrong order. Nothing was imported.",
      ],
      [
        'kept.csv',
        'date,name,\n2027-01-04,Bridge day,\n',
        "error: kept.csv is not a holiday CSV file: line 1: the header must be 'date,name'; found 'date,name,'. It ends with empty columns after name (a trailing comma, as a spreadsheet writes a column it kept); delete them. Nothing was imported.",
      ],
      [
        'notes.csv',
        'date,name,notes\n2027-01-04,Bridge day,x\n',
        "error: notes.csv is not a holiday CSV file: line 1: the header must be 'date,name'; found 'date,name,notes'. It has a column premia does not read ('notes'); delete it. Nothing was imported.",
      ],
      [
        'comma.csv',
        'date,name\n2027-01-04,Office closed, fumigation\n',
        'error: comma.csv: 1 row with errors (first on line 2: expected 2 fields, found 3: a comma separates fields, so a name that holds one must be in double quotes ' +
          '(if the name is \'Office closed, fumigation\', write "Office closed, fumigation")). Nothing was imported.',
      ],
      [
        'row-kept.csv',
        'date,name\n2027-01-04,Bridge day,\n',
        'error: row-kept.csv: 1 row with errors (first on line 2: expected 2 fields, found 3, the ones after name empty (a trailing comma, as a spreadsheet writes a column it kept); delete them). Nothing was imported.',
      ],
      [
        'dates.csv',
        'date\n2027-01-04,Bridge day\n',
        "error: dates.csv: 1 row with errors (first on line 2: expected 1 field, found 2: the header is 'date' alone, so a row holds only its date; to give the dates names, make the header 'date,name'). Nothing was imported.",
      ],
      [
        'joined.csv',
        'date,name\n2027-01-04,Bridge day\nDate,Name\n2027-01-05,Second\n',
        'error: joined.csv: 1 row with errors (first on line 3: this row is the header again (files joined into one?); delete the line). Nothing was imported.',
      ],
    ];
    for (const [name, text, first] of cases) {
      const r = await cli(['calendar', 'import', file(name, text)]);
      expect([r.code, r.stderr.split('\n')[0]], name).toEqual([2, first]);
    }
    expect((await cli(['--json', 'calendar'])).json().imported_dates).toBe(0);
    // Quoted, the name's comma is its own.
    expect((await cli(['calendar', 'import', file('quoted.csv', 'date,name\n2027-01-04,"Office closed, fumigation"\n')])).code).toBe(0);
  });

  it('a name holding a control or invisible character is refused, by its code point; one of 100 accented letters is not too long', async () => {
    const cli = store();
    for (const [name, code] of [['Evil\u009b31mRED', 'U+009B'], ['Bidi\u202eyad', 'U+202E'], ['Zero\u200bwidth', 'U+200B']]) {
      const r = await cli(['calendar', 'import', file('names.csv', `date,name\n2027-04-05,${name}\n`)]);
      expect(r.code, code).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(
        `error: names.csv: 1 row with errors (first on line 2: name holds an unprintable or invisible character (${code}); write it as visible text). Nothing was imported.`,
      );
    }
    expect((await cli(['calendar', 'import', file('long.csv', `date,name\n2027-04-05,${'e\u0301'.repeat(100)}\n`)])).code).toBe(0);
  });

  it('a date is checked and worded as every other date premia reads: February has 28 days, 3000 is past the last date', async () => {
    const cli = store();
    const r = await cli(['--json', 'calendar', 'import', file('dates.csv', 'date,name\n2027-02-30,a\n3000-01-01,b\n31/12/2027,c\n')]);
    expect(r.code).toBe(2);
    const { error } = JSON.parse(r.stderr);
    expect(error.message).toBe("dates.csv: 3 rows with errors (first on line 2: date '2027-02-30' is not a day of the calendar: 2027-02 has 28 days). Nothing was imported.");
    expect(error.details).toEqual([
      { row: 2, field: 'date', code: 'INVALID_DATE', message: "date '2027-02-30' is not a day of the calendar: 2027-02 has 28 days" },
      { row: 3, field: 'date', code: 'INVALID_DATE', message: "date '3000-01-01' is after 2999-12-31, the last date premia accepts" },
      { row: 4, field: 'date', code: 'INVALID_DATE', message: "date '31/12/2027' is not a date written YYYY-MM-DD (the day or month comes first, which can be read two ways; write the year first)" },
    ]);
  });

  it('once a collections run exists the base is fixed (exit 6), and so are the dates up to one day after the clock (the debits of the next day are submitted the evening before)', async () => {
    const cli = store();
    expect((await cli(['--quiet', 'collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    const base = await cli(['settings', 'set', 'calendar', 'none']);
    expect(base.code).toBe(6);
    expect(base.stderr).toBe(
      "error: The calendar is za and a collections run exists: the bank's history and the debits already made were lived on it, so it can no longer change. Holidays after 2026-11-22 can still be added with 'premia calendar import', unless one would move a pay onto a day already lived.\n  (code CALENDAR_LOCKED)\n",
    );
    expect((await cli(['settings', 'set', 'calendar', 'za'])).code).toBe(0); // no change
    const early = await cli(['calendar', 'import', file('early.csv', 'date,name\n2026-11-22,too late\n2026-11-23,fine\n')]);
    expect(early.code).toBe(2);
    expect(early.stderr.split('\n')[0]).toBe(
      "error: early.csv: line 2: 2026-11-22 is on or before 2026-11-22: a collections run exists, so days up to 1 day after the clock's date (2026-11-21) are lived or have their debits submitted, and cannot change. Nothing was imported.",
    );
    const later = await cli(['calendar', 'import', file('later.csv', 'date,name\n2026-11-24,fine\n')]);
    expect([later.code, later.stderr]).toEqual([0, 'Calendar za: 1 date added; 1 imported date in all.\n']);
    expect((await cli(['--json', 'calendar'])).json().fixed_until).toBe('2026-11-22');
  });

  it('a later date is refused when the pay due on it would move back to a fixed day: a lived day would gain (or lose) a salary', async () => {
    const cli = store();
    // Monday 2026-11-23 imported before the run; the clock is Saturday 2026-11-21.
    expect((await cli(['calendar', 'import', file('monday.csv', 'date,name\n2026-11-23,Company day\n')])).code).toBe(0);
    expect((await cli(['--quiet', 'collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    // Removing it would move the pay due that Monday from Friday 2026-11-20 (lived) back onto it.
    const removed = await cli(['--json', 'calendar', 'import', '--replace', file('none.csv', 'date,name\n')]);
    expect(removed.code).toBe(2);
    expect(JSON.parse(removed.stderr).error).toMatchObject({
      message:
        "2026-11-23 cannot be removed: pay due on it was paid on 2026-11-20, the business day before it, which is on or before 2026-11-22 (a collections run exists, so days up to 1 day after the clock's date (2026-11-21) are lived or have their debits submitted). Nothing was imported.",
      details: [{ field: 'date', code: 'DATE_IN_PAST', message: 'pay due on 2026-11-23 lands on 2026-11-20, on or before 2026-11-22' }],
    });
    // Tuesday 2026-11-24 would move the pay due on it to the Monday, which is a holiday: to Friday 2026-11-20 as well.
    const tuesday = await cli(['calendar', 'import', file('tuesday.csv', 'date,name\n2026-11-24,Company day\n')]);
    expect(tuesday.code).toBe(2);
    expect(tuesday.stderr.split('\n')[0]).toBe(
      "error: 2026-11-24 cannot be added: pay due on it would move back to 2026-11-20, the business day before it, which is on or before 2026-11-22 (a collections run exists, so days up to 1 day after the clock's date (2026-11-21) are lived or have their debits submitted). Nothing was imported.",
    );
    // A weekend date changes no business day; Wednesday's pay moves to Tuesday, a day still to come.
    const fine = await cli(['calendar', 'import', file('fine.csv', 'date,name\n2026-11-28,Saturday\n2026-11-25,Company day\n')]);
    expect([fine.code, fine.stderr]).toEqual([0, 'Calendar za: 2 dates added; 3 imported dates in all.\n']);
    expect((await cli(['--json', 'calendar'])).json().holidays.filter((h: { source: string }) => h.source === 'imported').map((h: { date: string }) => h.date)).toEqual([
      '2026-11-23',
      '2026-11-25',
      '2026-11-28',
    ]);
  });

  it('a fixed date is named where it comes from: its line in the file, or --replace removing a date imported before', async () => {
    const cli = store();
    expect((await cli(['calendar', 'import', file('eve.csv', 'date,name\n2026-11-22,Company eve\n')])).code).toBe(0);
    expect((await cli(['--quiet', 'collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    // The file's dates in the file's order (line 3 before line 4, though 4's date is earlier).
    const past = await cli(['--json', 'calendar', 'import', file('past.csv', 'date,name\n2027-01-04,a\n2026-11-02,b\n2026-10-02,c\n')]);
    expect(past.code).toBe(2);
    expect(JSON.parse(past.stderr).error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message:
        "past.csv: line 3: 2026-11-02 is on or before 2026-11-22: a collections run exists, so days up to 1 day after the clock's date (2026-11-21) are lived or have their debits submitted, and cannot change. Nothing was imported.",
      details: [
        { row: 3, field: 'date', code: 'DATE_IN_PAST', message: '2026-11-02 is on or before 2026-11-22' },
        { row: 4, field: 'date', code: 'DATE_IN_PAST', message: '2026-10-02 is on or before 2026-11-22' },
      ],
    });
    // 2026-11-22 is not in this file: --replace would remove it, and that is what is said.
    const replace = await cli(['--json', 'calendar', 'import', '--replace', file('next.csv', 'date,name\n2027-01-04,next year\n')]);
    expect(replace.code).toBe(2);
    expect(JSON.parse(replace.stderr).error).toMatchObject({
      message:
        "--replace would remove the imported date 2026-11-22 ('Company eve'), which is on or before 2026-11-22: a collections run exists, so days up to 1 day after the clock's date (2026-11-21) are lived or have their debits submitted, and cannot change; keep it in next.csv. Nothing was imported.",
      details: [{ field: 'date', code: 'DATE_IN_PAST', message: '2026-11-22 is on or before 2026-11-22: imported before, and not in the file that would replace it' }],
    });
    // Kept in the file, the replace goes through.
    const kept = await cli(['calendar', 'import', '--replace', file('both.csv', 'date,name\n2026-11-22,Company eve\n2027-01-04,next year\n')]);
    expect([kept.code, kept.stderr]).toEqual([0, 'Calendar za: 1 date added; 2 imported dates in all.\n']);
  });

  it("a date without its name under 'date,name' says the row needs its comma", async () => {
    const r = await store()(['calendar', 'import', file('bare.csv', 'date,name\n2027-01-05\n')]);
    expect([r.code, r.stderr]).toEqual([
      2,
      "error: bare.csv: 1 row with errors (first on line 2: expected 2 fields, found 1: a date without a name still ends with its comma ('2027-01-05,'), or make the header 'date' alone). Nothing was imported.\n  (code VALIDATION_ERROR)\n",
    ]);
  });

  it('a file that would take the calendar past 5,000 imported dates: the total is said, and --replace offered', async () => {
    const cli = store();
    const dates = (from: number, n: number) => Array.from({ length: n }, (_, i) => new Date(Date.UTC(from, 0, 1) + i * 86_400_000).toISOString().slice(0, 10));
    expect((await cli(['calendar', 'import', file('first.csv', `date\n${dates(2030, 3000).join('\n')}\n`)])).code).toBe(0);
    const more = await cli(['--json', 'calendar', 'import', file('more.csv', `date\n${dates(2045, 2001).join('\n')}\n`)]);
    expect(more.code).toBe(2);
    expect(JSON.parse(more.stderr).error).toEqual({
      code: 'VALIDATION_ERROR',
      message:
        'more.csv: its 2,001 new dates and the 3,000 dates imported before make 5,001, more than the 5,000 imported dates a calendar holds; import it with --replace to replace those instead of adding to them. Nothing was imported.',
      request_id: null,
      details: [{ field: 'file', code: 'INVALID_VALUE', message: '5,001 imported dates, more than 5,000' }],
    });
    expect((await cli(['--json', 'calendar'])).json().imported_dates).toBe(3000);
    expect((await cli(['calendar', 'import', '--replace', file('more.csv', `date\n${dates(2045, 2001).join('\n')}\n`)])).code).toBe(0);
  });
});
