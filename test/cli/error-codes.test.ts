/**
 * One code for one kind of mistake (docs/cli.md, "Errors"): a value that is wrong (malformed,
 * out of range, or naming a file, directory or port that cannot be used) is VALIDATION_ERROR, the
 * code the service gives the same value in a request; how the command line is put together
 * (options that conflict or do not apply, a required option, argument or choice missing, an
 * unknown option or command) is USAGE_ERROR. Both exit 2. And a --db that is a directory or a
 * file of another kind is the user's mistake, not an internal error.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-codes-')));
afterEach(() => cleanup());

/** The code and exit code of a --json run, and its message. */
async function outcome(args: string[]): Promise<{ code: string; exit: number; message: string }> {
  // A key, so that remote mode gets as far as its other checks.
  const r = await runCli(['--json', ...args], { cwd: dir, env: { HOME: dir, PREMIA_API_KEY: 'pmk_test_0123456789' } });
  expect(r.stdout).toBe('');
  const body = JSON.parse(r.stderr) as { error: { code: string; message: string } };
  return { code: body.error.code, exit: r.code, message: body.error.message };
}

const MEM = ['--db', ':memory:'];

describe('a wrong value: VALIDATION_ERROR, exit 2', () => {
  it.each<[string, string[], string]>([
    ['a report period', [...MEM, 'reports', 'collections', '--period', '26-11'], "--period '26-11' is not a period; write it as YYYY-MM, e.g. 2026-11."],
    ['a settlements list period', [...MEM, 'settlements', 'list', '--period', '2026-13'], '--period 2026-13 is not a month: there is no month 13.'],
    ['a collections list period', [...MEM, 'collections', 'list', '--period', '2026-13'], '--period 2026-13 is not a month: there is no month 13.'],
    ['a simulate period with no such month', ['simulate', '--period', '2026-13'], '--period 2026-13 is not a month: there is no month 13.'],
    ['a period with the month first', [...MEM, 'collections', 'execute', '--period', '11-2026'], "--period '11-2026' is not a period written YYYY-MM (the month comes first; write the year first: 2026-11)."],
    ['a period with a slash', [...MEM, 'collections', 'execute', '--period', '2026/11'], "--period '2026/11' is not a period written YYYY-MM (write it 2026-11)."],
    ['a day for a period', [...MEM, 'collections', 'execute', '--period', '2026-11-30'], "--period '2026-11-30' is not a period written YYYY-MM (it is a day; the month is 2026-11)."],
    ['a settlement period', [...MEM, 'settlements', 'create', '--period', 'nov'], "--period 'nov' is not a period; write it as YYYY-MM, e.g. 2026-11."],
    ['a period after the years premia takes', [...MEM, 'collections', 'execute', '--period', '3000-01'], '--period 3000-01 is after 2999-12, the last month premia accepts.'],
    ['a simulate period', ['simulate', '--period', '2026-1'], "--period '2026-1' is not a period written YYYY-MM (write it 2026-01)."],
    ['a number of months', ['simulate', '--months', '0'], "--months must be a whole number from 1 to 24; got '0'."],
    ['a number of days', [...MEM, 'clock', 'advance', '--days', '-1'], "--days must be a whole number from 0 to 3660 (ten years); got '-1'."],
    ['a number of days above the range', [...MEM, 'clock', 'advance', '--days', '3661'], "--days must be a whole number from 0 to 3660 (ten years); got '3661'."],
    ['a day to advance to', [...MEM, 'clock', 'advance', '--to', '2026-13-01'], "--to '2026-13-01' is not a date: there is no month 13."],
    ['a clock date', [...MEM, 'clock', 'set', '31/10/2026'], 'The clock setting is not valid: date must be a date written YYYY-MM-DD, like 2026-11-30; got "31/10/2026" (the day or month comes first, which can be read two ways; write the year first).'],
    ['a policies page size', [...MEM, 'policies', 'list', '--limit', '0'], "--limit must be a whole number from 1 to 10000; got '0'."],
    ['a collections page size', [...MEM, 'collections', 'list', '--period', '2026-11', '--limit', '10001'], "--limit must be a whole number from 1 to 10000; got '10001'."],
    ['a bank seed', [...MEM, 'bank', 'seed', 'abc'], "The seed must be a whole number from 0 to 999999999; got 'abc'."],
    ['a global --seed', [...MEM, '--seed', 'x', 'clock'], "option '--seed <n>' argument 'x' is invalid. the seed is a whole number from 0 to 999999999."],
    ['a choice', [...MEM, 'policies', 'update', 'P1', '--status', 'bogus'], "option '--status <status>' argument 'bogus' is invalid. Allowed choices are active, lapsed, cancelled."],
    ['a port', [...MEM, 'serve', '--port', '65536'], "--port must be a whole number from 0 to 65535; got '65536'."],
    ['a timeout', ['--base-url', 'http://127.0.0.1:9/v1', '--timeout', 'soon', 'policies', 'list'], "--timeout (or its environment variable) is a number of seconds from 1 to 86400; got 'soon'."],
    ['an idempotency key', [...MEM, '--idempotency-key', ' x', 'clock'], '--idempotency-key must be 1-240 printable ASCII characters without leading or trailing spaces.'],
    ['an idempotency key holding an API key', [...MEM, '--idempotency-key', `pmk_${'A1'.repeat(20)}`, 'clock'], '--idempotency-key holds an API key; give a value of your own (the key is a secret, kept only as a hash, never stored as data).'],
    ['a base URL', ['--base-url', 'not a url', 'policies', 'list'], "'not a url' is not a URL; give the service's base URL, e.g. http://127.0.0.1:8080/v1."],
    ['a base URL scheme', ['--base-url', 'ftp://example.com/v1', 'policies', 'list'], "The base URL must start with http:// or https://; got 'ftp:'."],
    ['a profile name', ['--profile', 'no spaces', 'policies', 'list'], "'no spaces' is not a profile name: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit."],
    ['a profile that does not exist', ['--profile', 'nope', 'policies', 'list'], `There is no profile 'nope' in ${'HOME/.config/premia/config.json'}; create it with 'premia login --profile nope --base-url URL'.`],
    ['an input file that does not exist', [...MEM, 'policies', 'import', 'nope.csv'], 'Cannot read nope.csv: no such file.'],
    ['an output directory that does not exist', [...MEM, 'reports', 'collections', '--period', '2026-11', '--output', 'missing/r.csv'], 'Cannot write --output missing/r.csv: the directory DIR/missing does not exist. Create it first or choose another path.'],
  ])('%s', async (_name, args, message) => {
    const r = await outcome(args);
    expect(r).toEqual({ code: 'VALIDATION_ERROR', exit: 2, message: message.replace('HOME/', `${dir}/`).replace('DIR/', `${dir}/`) });
  });
});

it('a port in use is a value that cannot be used: VALIDATION_ERROR, exit 2', async () => {
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const port = (busy.address() as AddressInfo).port;
  try {
    expect(await outcome([...MEM, 'serve', '--port', String(port)])).toEqual({
      code: 'VALIDATION_ERROR',
      exit: 2,
      message: `Port ${port} on 127.0.0.1 is already in use; choose another with --port.`,
    });
  } finally {
    await new Promise((resolve) => busy.close(resolve));
  }
});

describe('how the command line is put together: USAGE_ERROR, exit 2', () => {
  it.each<[string, string[], string]>([
    ['--db beside --base-url', ['--db', 'x.db', '--base-url', 'http://127.0.0.1:9/v1', 'clock'], 'Give either --db (local mode) or --base-url/--profile (remote mode), not both.'],
    ['no way to advance', [...MEM, 'clock', 'advance'], 'Say how far to advance with exactly one of --days N, --to YYYY-MM-DD or --to-month-end.'],
    ['two ways to advance', [...MEM, 'clock', 'advance', '--days', '1', '--to', '2026-12-01'], 'Say how far to advance with exactly one of --days N, --to YYYY-MM-DD or --to-month-end.'],
    ['an empty --to (an unset "$DATE")', [...MEM, 'clock', 'advance', '--to', ''], '--to is empty; give the last day to live, written YYYY-MM-DD (e.g. 2026-11-30).'],
    ['nothing to update', [...MEM, 'policies', 'update', 'P1'], 'Nothing to update: give --amount, --status, or both.'],
    ['--json against --format csv', [...MEM, 'reports', 'collections', '--period', '2026-11', '--format', 'csv'], "--json asks for the API's JSON body but --format csv asks for csv; give only one of them."],
    [
      '--json on a CSV-only export',
      [...MEM, 'settlements', 'export', 'SETTLE-2026-11-001'],
      'The settlement export is CSV only (the API gives no JSON of it), so --json does not apply; leave it out (the settlement as JSON: premia settlements get SETTLE-2026-11-001 --json).',
    ],
    ['an unknown option', [...MEM, 'clock', 'advance', '--weeks', '2'], "unknown option '--weeks'"],
    ['an unknown command', [...MEM, 'policies', 'bogus'], "unknown command 'bogus' for 'premia policies'; its commands are: create, import, update, get, list."],
    ['a mistyped command of a group that also acts alone', [...MEM, 'clock', 'advanc', '--days', '1'], "unknown command 'advanc' for 'premia clock'; its commands are: show, advance, set.\n(Did you mean advance?)"],
    // An unknown option on a group that also acts alone: its value is not taken for a command.
    [
      'an unknown option on a group',
      [...MEM, 'calendar', '--format', 'json'],
      "unknown option '--format': premia calendar takes no --format; it is an option of premia policies list, premia collections list, premia collections attempts and 5 more.",
    ],
    // An option of other commands: which take it, not commander's nearest name ("Did you mean --version?").
    [
      "another command's option",
      [...MEM, 'collections', 'explain', '0b4c2a1e-6f1d-4c7e-9a3b-2d5e8f7a1c90', '--period', '2026-11'],
      "unknown option '--period': premia collections explain takes no --period; it is an option of premia collections execute, premia collections list, premia collections attempts and 5 more.",
    ],
    ["another command's option with its value", [...MEM, 'policies', 'get', 'P1', '--limit=3'], "unknown option '--limit=3': premia policies get takes no --limit; it is an option of premia policies list and premia collections list."],
    ['a missing argument', [...MEM, 'policies', 'get'], "missing required argument 'policy'"],
    ['a missing required option', [...MEM, 'reports', 'collections'], "required option '--period <YYYY-MM>' not specified"],
    // A required option mistyped (a cron line): the typo is named, not "--period not specified" (issue 12).
    ['a mistyped required option', [...MEM, 'collections', 'execute', '--perod', '2026-11'], "unknown option '--perod'\n(Did you mean --period?)"],
    // Given with its value in the same word: the name alone is looked up, the word named as given.
    ['a mistyped option with its value', [...MEM, 'collections', 'list', '--perod=2026-11'], "unknown option '--perod=2026-11'\n(Did you mean --period?)"],
    ['a mistyped required option with its value', [...MEM, 'collections', 'execute', '--perod=2026-11'], "unknown option '--perod=2026-11'\n(Did you mean --period?)"],
    ['a mistyped global option with its value', [...MEM, '--dbb=x.db', 'clock'], "unknown option '--dbb=x.db'\n(Did you mean --db?)"],
    ['an unknown option with its value, like none', [...MEM, 'clock', 'advance', '--weeks=2'], "unknown option '--weeks=2'"],
    ['a required option given by a short name it does not have', [...MEM, 'settlements', 'create', '-p', '2026-11'], "unknown option '-p'"],
    ['an option without its value', [...MEM, 'clock', 'advance', '--days'], "option '--days <n>' argument missing"],
    ['--as-client in remote mode', ['--base-url', 'http://127.0.0.1:9/v1', '--as-client', 'acme', 'clock'], '--as-client selects a client of a local store; in remote mode the API key decides the client.'],
    [
      'an empty --as-client (an unset "$CLIENT"), not the store\'s own client',
      [...MEM, '--as-client', '', 'collections', 'execute', '--period', '2026-11'],
      "--as-client is empty; give the name of one of the store's clients (premia keys list shows them).",
    ],
  ])('%s', async (_name, args, message) => {
    expect(await outcome(args)).toEqual({ code: 'USAGE_ERROR', exit: 2, message });
  });

  it('without --json the code is printed after the message, with the hint for command-line mistakes', async () => {
    const usage = await runCli([...MEM, 'clock', 'advance', '--weeks', '2'], { cwd: dir });
    expect([usage.code, usage.stderr]).toEqual([2, "error: unknown option '--weeks'\n  (code USAGE_ERROR; run with --help for usage)\n"]);
    const value = await runCli([...MEM, 'policies', 'update', 'P1', '--status', 'bogus'], { cwd: dir });
    expect([value.code, value.stderr]).toEqual([
      2,
      "error: option '--status <status>' argument 'bogus' is invalid. Allowed choices are active, lapsed, cancelled.\n  (code VALIDATION_ERROR; run with --help for usage)\n",
    ]);
  });
});

describe('a --db that is not a store file: VALIDATION_ERROR naming it, not INTERNAL', () => {
  it.each([['policies', 'list'], ['clock', 'set', '2026-10-31']])('a directory (%s)', async (...args) => {
    mkdirSync(join(dir, 'data'));
    const r = await runCli(['--json', '--db', 'data', ...args], { cwd: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: `The store ${join(dir, 'data')} (--db) is a directory, not a store file. Give the path of the store file, e.g. ${join(dir, 'data', 'premia.db')}.`,
        request_id: null,
        details: [{ field: '--db', code: 'NOT_A_FILE', message: `${join(dir, 'data')} is a directory` }],
      },
    });
    expect(readdirSync(join(dir, 'data'))).toEqual([]);
  });

  it.each([['policies', 'list'], ['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'P', '--amount', '1.00']])(
    'a file that is not an SQLite database (%s): left untouched',
    async (...args) => {
      const csv = 'customer_id,amount\nC1,10.00\n'.repeat(200);
      writeFileSync(join(dir, 'excel.csv'), csv);
      const r = await runCli(['--json', '--db', 'excel.csv', ...args], { cwd: dir });
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stderr)).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: `${join(dir, 'excel.csv')} is not a premia store: the file is not an SQLite database. premia leaves it untouched; choose another file with --db.`,
          request_id: null,
          details: [{ field: 'db', code: 'NOT_A_PREMIA_STORE', message: 'the file is not an SQLite database' }],
        },
      });
      expect(readFileSync(join(dir, 'excel.csv'), 'utf8')).toBe(csv);
      expect(readdirSync(dir)).toEqual(['excel.csv']);
    },
  );

  it('text output names the path and the code', async () => {
    writeFileSync(join(dir, 'notes.txt'), 'not a database at all\n'.repeat(100));
    const r = await runCli(['--db', 'notes.txt', 'clock'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: ${join(dir, 'notes.txt')} is not a premia store: the file is not an SQLite database. premia leaves it untouched; choose another file with --db.\n  (code VALIDATION_ERROR)\n`,
    );
    expect(existsSync(join(dir, 'notes.txt-wal'))).toBe(false);
  });

  it('an empty file holds no store: a command that only reads, or db copy --from, writes nothing to it (exit 2)', async () => {
    writeFileSync(join(dir, 'empty.db'), '');
    const read = await runCli(['--json', '--db', 'empty.db', 'policies', 'list'], { cwd: dir });
    expect(read.code).toBe(2);
    expect(JSON.parse(read.stderr.trim()).error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: `There is no store at ${join(dir, 'empty.db')}: the file holds no database yet; nothing was written to it.`,
    });
    const copy = await runCli(['--json', 'db', 'copy', '--from', 'empty.db', '--to', 'copy.db'], { cwd: dir });
    expect(copy.code).toBe(2);
    expect(JSON.parse(copy.stderr.trim().split('\n').at(-1)!).error.details).toEqual([{ field: '--from', code: 'STORE_NOT_FOUND', message: `${join(dir, 'empty.db')} is empty` }]);
    expect(readFileSync(join(dir, 'empty.db')).length).toBe(0);
    expect(existsSync(join(dir, 'copy.db'))).toBe(false);
    expect(existsSync(join(dir, 'empty.db-wal'))).toBe(false);
  });

  it("premia's tables and nothing set up (a db copy --to stopped halfway): a command that only reads sets up nothing (exit 2), and the copy takes it as empty", async () => {
    expect((await runCli(['--db', 'src.db', 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    const db = join(dir, 'stopped.db');
    // What the copy has committed when it is stopped: the target opened (premia's tables), no row.
    await (await openStore({ path: db })).close();
    const meta = () => new Database(db, { readonly: true }).prepare('select count(*) from meta').pluck().get();
    const read = await runCli(['--json', '--db', 'stopped.db', 'policies', 'list'], { cwd: dir });
    expect(read.code).toBe(2);
    expect(JSON.parse(read.stderr.trim())).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message:
          `There is no store at ${db}: it has premia's tables but was never set up (no clock; a 'premia db copy' into it that was stopped leaves this), ` +
          'and this command reads a store and does not create one, so nothing was changed. Copy into it again, or point --db at the store.',
        request_id: null,
        details: [{ field: 'db', code: 'STORE_NOT_FOUND', message: `${db} holds no store yet` }],
      },
    });
    expect((await runCli(['--db', 'stopped.db', 'whoami'], { cwd: dir })).stdout).toBe(`mode    local\nstore   ${db} (not created yet)\nclient  -\n`);
    expect(meta()).toBe(0);
    const copy = await runCli(['db', 'copy', '--from', 'src.db', '--to', 'stopped.db'], { cwd: dir });
    expect(copy.code, copy.stderr).toBe(0);
    expect((await runCli(['--json', '--db', 'stopped.db', 'clock'], { cwd: dir })).json().date).toBe('2026-10-31');
  });

  it('db copy with a directory for --from or --to: NOT_A_FILE naming the option (exit 2), not an internal error', async () => {
    expect((await runCli(['--db', 'src.db', 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    for (const [args, option] of [
      [['--from', dir, '--to', 'to.db'], '--from'],
      [['--from', 'src.db', '--to', dir, '--yes'], '--to'],
    ] as const) {
      const r = await runCli(['--json', 'db', 'copy', ...args], { cwd: dir });
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.details).toEqual([{ field: option, code: 'NOT_A_FILE', message: `${dir} is a directory` }]);
    }
  });

  it('db copy into a store holding a table premia did not make names that table and the target (exit 2)', async () => {
    expect((await runCli(['--db', 'from.db', 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    expect((await runCli(['--db', 'into.db', 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    const other = new Database(join(dir, 'into.db'));
    other.exec('create table notes (t text)');
    other.close();
    const r = await runCli(['db', 'copy', '--from', 'from.db', '--to', 'into.db', '--yes'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${join(dir, 'into.db')} has a table notes that ${join(dir, 'from.db')} has not: a table premia did not make in the target, or two stores of different premia versions. Nothing was copied.`,
    );
  });

  it('db copy names its own option (--to), not --db', async () => {
    expect((await runCli(['--db', 'a.db', 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, 'keep.csv'), 'a,b\n1,2\n');
    const r = await runCli(['db', 'copy', '--from', 'a.db', '--to', 'keep.csv', '--yes'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'keep.csv')} is not a premia store: the file is not an SQLite database. premia leaves it untouched; choose another file with --to.`);
    expect(readFileSync(join(dir, 'keep.csv'), 'utf8')).toBe('a,b\n1,2\n');
    const missing = await runCli(['--json', 'db', 'copy', '--from', 'a.db', '--to', join(dir, 'no', 'such', 'x.db')], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stderr.trim().split('\n').at(-1)!).error.details).toEqual([{ field: '--to', code: 'DIRECTORY_NOT_FOUND', message: `${join(dir, 'no', 'such')} does not exist` }]);
  });
});
