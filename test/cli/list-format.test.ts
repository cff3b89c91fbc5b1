/**
 * List commands: --format table|csv|json and --fields, exact bytes. A table off a terminal is
 * never cut and money is never grouped; on a terminal it fits the width (an ellipsis, no wrap)
 * and money is grouped by thousands. CSV and JSON never group digits.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/cli/context.js';
import { run } from '../../src/cli/main.js';
import { renderTable } from '../../src/cli/output/table.js';
import { FIXTURES, runCli, tempDir, type CliOptions } from '../helpers/cli.js';

const { dir, cleanup } = tempDir('premia-list-');
const db = join(dir, 'premia.db');
afterAll(() => cleanup());

const premia = (args: string[], options: Partial<CliOptions> = {}) => runCli(['--db', db, '--seed', '1', ...args], { cwd: dir, ...options });

/**
 * The attempts of the two policies in the 10 days from the clock (seed 1, 2026-11-21): both on Monday 2026-11-23, submitted
 * the evening before; P1's account bears part of its premium (what Sunday's posted balance bears, less the margin).
 */
const ATTEMPTS_CSV = 'policy_number,amount,outcome\nP1,6611.96,SUCCESS\nP2,5.00,SUCCESS\n';
const ATTEMPTS_TABLE = 'policy_number    amount  outcome\nP1             6,611.96  SUCCESS\nP2                 5.00  SUCCESS\n';
const ID1 = 'e0790a7d-3306-81b0-b9e1-7be41bfb43d7';
const ID2 = '8fc42a39-1824-8fea-9fcb-f40b8635e693';

beforeAll(async () => {
  const csv = join(dir, 'p.csv');
  writeFileSync(
    csv,
    'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,ACME-1,P1,FUNERAL_FAMILY_EXTENDED_COVER,12345.67\nC2,ACME-2,P2,LIFE,5.00\n',
  );
  const r = await premia(['policies', 'import', csv]);
  expect(r.code).toBe(0);
});

describe('policies list --format / --fields', () => {
  it('table off a terminal: whole values, money not grouped', async () => {
    const r = await premia(['policies', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'policy_number  customer_id  product_code                   collection_amount  status  id',
        `P1             C1           FUNERAL_FAMILY_EXTENDED_COVER           12345.67  active  ${ID1}`,
        `P2             C2           LIFE                                        5.00  active  ${ID2}`,
        '',
      ].join('\n'),
    );
  });

  it('csv: every field, money as 12345.67', async () => {
    const r = await premia(['policies', 'list', '--format', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'id,policy_number,customer_id,external_customer_ref,product_code,collection_amount,collection_amount_effective_period,status,created_at,updated_at',
        `${ID1},P1,C1,ACME-1,FUNERAL_FAMILY_EXTENDED_COVER,12345.67,,active,2026-11-21T09:30:00.000Z,2026-11-21T09:30:00.000Z`,
        `${ID2},P2,C2,ACME-2,LIFE,5.00,,active,2026-11-21T09:30:00.000Z,2026-11-21T09:30:00.000Z`,
        '',
      ].join('\n'),
    );
  });

  it('csv and json with --fields: those fields, in that order, never grouped even on a terminal', async () => {
    const csv = await premia(['policies', 'list', '--format', 'csv', '--fields', 'collection_amount,policy_number'], { tty: true, env: { NO_COLOR: '1' } });
    expect(csv.stdout).toBe('collection_amount,policy_number\n12345.67,P1\n5.00,P2\n');
    const json = await premia(['policies', 'list', '--format', 'json', '--fields', 'policy_number, collection_amount'], { tty: true, env: { NO_COLOR: '1' } });
    expect(json.code).toBe(0);
    expect(json.stdout).toBe('[{"policy_number":"P1","collection_amount":12345.67},{"policy_number":"P2","collection_amount":5.00}]\n');
  });

  it('csv with one field: an empty value is written "" (a blank line would be read as no row at all)', async () => {
    // A one-column row whose cell is empty is an empty line, which CSV readers (Python's
    // csv.DictReader, pandas, csv-parse with skip_empty_lines) drop: 2 policies would read as 0.
    const r = await premia(['policies', 'list', '--format', 'csv', '--fields', 'collection_amount_effective_period']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('collection_amount_effective_period\n""\n""\n');
    const limited = await premia(['policies', 'list', '--format', 'csv', '--fields', 'collection_amount_effective_period', '--limit', '1']);
    expect(limited.code).toBe(0);
    expect(limited.stdout).toBe('collection_amount_effective_period\n""\n');
    const two = await premia(['policies', 'list', '--format', 'csv', '--fields', 'collection_amount_effective_period,policy_number']);
    expect(two.stdout).toBe('collection_amount_effective_period,policy_number\n,P1\n,P2\n');
  });

  it('a field named twice is given once, where first named, in csv, json and a table', async () => {
    const fields = ['--fields', 'policy_number,collection_amount,policy_number'];
    const csv = await premia(['policies', 'list', '--format', 'csv', ...fields]);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe('policy_number,collection_amount\nP1,12345.67\nP2,5.00\n');
    const json = await premia(['policies', 'list', '--format', 'json', ...fields]);
    expect(json.stdout).toBe('[{"policy_number":"P1","collection_amount":12345.67},{"policy_number":"P2","collection_amount":5.00}]\n');
    const table = await premia(['policies', 'list', ...fields]);
    expect(table.stdout).toBe('policy_number  collection_amount\nP1                      12345.67\nP2                          5.00\n');
  });

  it('table with --fields: the field names as headers', async () => {
    const r = await premia(['policies', 'list', '--fields', 'policy_number,collection_amount']);
    expect(r.stdout).toBe('policy_number  collection_amount\nP1                      12345.67\nP2                          5.00\n');
  });

  it('an unknown field: exit 2 naming it and the valid ones, nothing on stdout', async () => {
    const r = await premia(['policies', 'list', '--fields', 'policy_number,premium']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      "--fields: 'premium' is not a field of this list; the fields are: id, policy_number, customer_id, external_customer_ref, product_code, collection_amount, collection_amount_effective_period, status, created_at, updated_at.",
    );
    const bad = await premia(['collections', 'list', '--period', '2026-11', '--fields', 'due,status']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--fields: 'due', 'status' are not fields of this list; the fields are: id, period_month,");
  });

  it('csv and json list every policy, page after page; a table and --limit show one page and say so', async () => {
    // The fixture book (520 policies) in a store of its own: more than a page of 100.
    const book = join(dir, 'book.db');
    const run = (args: string[]) => runCli(['--db', book, '--seed', '1', ...args], { cwd: dir });
    expect((await run(['policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
    const csv = await run(['--quiet', 'policies', 'list', '--format', 'csv', '--fields', 'policy_number']);
    expect(csv.code).toBe(0);
    expect(csv.stderr).toBe('');
    const numbers = csv.stdout.trimEnd().split('\n');
    expect(numbers[0]).toBe('policy_number');
    expect(numbers.length).toBe(521);
    expect(new Set(numbers.slice(1)).size).toBe(520);
    expect(numbers.slice(1)).toEqual([...numbers.slice(1)].sort());
    const json = await run(['policies', 'list', '--format', 'json', '--fields', 'policy_number,collection_amount']);
    const items = JSON.parse(json.stdout) as Array<{ policy_number: string; collection_amount: number }>;
    expect(items.map((i) => i.policy_number)).toEqual(numbers.slice(1));
    expect(json.stdout).toBe(`${JSON.stringify(items).replace(/"collection_amount":(\d+)(?:\.(\d))?(?=[,}])/g, (_, w: string, d?: string) => `"collection_amount":${w}.${(d ?? '').padEnd(2, '0')}`)}\n`);
    // From --after on, to the end.
    const rest = await run(['policies', 'list', '--format', 'csv', '--fields', 'policy_number', '--after', numbers[500]!]);
    expect(rest.stdout.trimEnd().split('\n').slice(1)).toEqual(numbers.slice(501));
    // --limit: that many, and where to go on from.
    const five = await run(['policies', 'list', '--format', 'csv', '--fields', 'policy_number', '--limit', '5']);
    expect(five.stdout.trimEnd().split('\n')).toEqual(numbers.slice(0, 6));
    expect(five.stderr).toBe(`More policies follow: run again with --after ${numbers[5]}\n`);
    const table = await run(['policies', 'list', '--fields', 'policy_number']);
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(101);
    expect(table.stderr).toBe(`More policies follow: run again with --after ${numbers[100]}\n`);
    // collections list too.
    expect((await run(['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    const collections = await run(['collections', 'list', '--period', '2026-11', '--format', 'csv', '--fields', 'policy_number']);
    expect(collections.stdout.trimEnd().split('\n')).toEqual(numbers);
  });

  it('an unknown format: exit 2', async () => {
    const r = await premia(['policies', 'list', '--format', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("argument 'xml' is invalid. Allowed choices are table, csv, json.");
  });

  it('--json is still the API body; with --fields or another --format it is a usage error', async () => {
    const r = await premia(['--json', 'policies', 'list']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ data: [{ policy_number: 'P1', collection_amount: 12345.67 }, { policy_number: 'P2' }], next_after: null });
    expect((await premia(['--json', 'policies', 'list', '--format', 'json'])).code).toBe(0);
    expect((await premia(['--json', 'policies', 'list', '--format', 'csv'])).code).toBe(2);
    expect((await premia(['--json', 'policies', 'list', '--fields', 'id'])).code).toBe(2);
  });

  it('on a terminal: cut to its width with an ellipsis, money grouped and right-aligned', async () => {
    const r = await premia(['policies', 'list'], { tty: true, env: { NO_COLOR: '1', COLUMNS: '60' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'polic…  custom…  produc…  collection_amount  status  id',
        'P1      C1       FUNERA…          12,345.67  active  e0790a…',
        'P2      C2       LIFE                  5.00  active  8fc42a…',
        '',
      ].join('\n'),
    );
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(60);
    // Wide enough: nothing cut, money still grouped.
    const wide = await premia(['policies', 'list', '--fields', 'policy_number,collection_amount'], { tty: true, env: { NO_COLOR: '1', COLUMNS: '200' } });
    expect(wide.stdout).toBe('policy_number  collection_amount\nP1                     12,345.67\nP2                          5.00\n');
  });

  it('settings and keys lists take the same options', async () => {
    const s = await premia(['settings', '--format', 'csv', '--fields', 'key,value']);
    expect(s.stdout).toBe('key,value\nengine.max_failed_attempts,4\nlapse.unpaid_periods,2\ncalendar,za\nengine.shards,1\n');
    const k = await premia(['keys', 'list', '--format', 'json']);
    expect(k.stdout).toBe('[]\n');
    const st = await premia(['settlements', 'list', '--format', 'csv', '--fields', 'settlement_number,net_amount']);
    expect(st.stdout).toBe('settlement_number,net_amount\n');
  });
});

describe('other tables with money', () => {
  it('bank show: amounts and balances grouped on a terminal, not in a pipe', async () => {
    const bankDb = join(dir, 'bank.db');
    const run = (args: string[], options: Partial<CliOptions> = {}) => runCli(['--db', bankDb, '--seed', '1', ...args], { cwd: dir, ...options });
    expect((await run(['policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
    expect((await run(['bank', 'import', join(FIXTURES, 'bank-transactions.csv')])).code).toBe(0);
    const tty = await run(['bank', 'show', 'C100001'], { tty: true, env: { NO_COLOR: '1', COLUMNS: '100' } });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('\ndate           amount  outcome    balance  description\n2026-09-08    -380.25  posted   11,583.45  CARD PURCHASE\n');
    expect(tty.stdout).toContain('\n2026-09-24  -1,210.00  posted    8,457.00  CARD PURCHASE\n2026-09-25  28,500.00  posted   36,957.00  SALARY ACME MINING\n');
    const pipe = await run(['bank', 'show', 'C100001']);
    expect(pipe.stdout).toContain('\ndate          amount  outcome   balance  description\n2026-09-08   -380.25  posted   11583.45  CARD PURCHASE\n');
    expect(pipe.stdout).toContain('\n2026-09-24  -1210.00  posted    8457.00  CARD PURCHASE\n2026-09-25  28500.00  posted   36957.00  SALARY ACME MINING\n');
  });
});

describe('key/value views follow the tables: money grouped on a terminal only', () => {
  it('policies get: collection_amount 12345.67 in a pipe, 12,345.67 on a terminal', async () => {
    const pipe = await premia(['policies', 'get', 'P1']);
    expect(pipe.code).toBe(0);
    expect(pipe.stdout.split('\n')).toContain(`collection_amount${' '.repeat(6)}12345.67`);
    const tty = await premia(['policies', 'get', 'P1'], { tty: true, env: { NO_COLOR: '1', COLUMNS: '100' } });
    expect(tty.code).toBe(0);
    expect(tty.stdout.split('\n')).toContain(`collection_amount${' '.repeat(6)}12,345.67`);
    // Nothing else differs.
    expect(tty.stdout.replace('12,345.67', '12345.67')).toBe(pipe.stdout);
  });

  it('bank show: balance 28046.90 in a pipe, 28,046.90 on a terminal', async () => {
    const bankDb = join(dir, 'bank-kv.db');
    const run = (args: string[], options: Partial<CliOptions> = {}) => runCli(['--db', bankDb, '--seed', '1', ...args], { cwd: dir, ...options });
    expect((await run(['policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
    expect((await run(['bank', 'import', join(FIXTURES, 'bank-transactions.csv')])).code).toBe(0);
    const pipe = await run(['bank', 'show', 'C100001']);
    expect(pipe.code).toBe(0);
    expect(pipe.stdout.split('\n')).toContain('balance      28046.90');
    const tty = await run(['bank', 'show', 'C100001'], { tty: true, env: { NO_COLOR: '1', COLUMNS: '100' } });
    expect(tty.code).toBe(0);
    expect(tty.stdout.split('\n')).toContain('balance      28,046.90');
  });
});

// A cron job's `premia policies import book.csv | grep -o 'Imported [0-9]*'` read 1 for 1,000.
describe("an import's summary line follows them too: counts grouped on a terminal only", () => {
  it('policies import and bank import of 1,000 rows: "Imported 1000 …" in a pipe, "Imported 1,000 …" on a terminal', async () => {
    let book = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
    let bank = 'customer_id,date,amount,description\n';
    for (let i = 1; i <= 1000; i++) {
      book += `C${i},R${i},POL-${String(i).padStart(5, '0')},LIFE,100.00\n`;
      bank += `C${i},2026-10-0${1 + (i % 9)},500.00,SALARY\n`;
    }
    writeFileSync(join(dir, 'book-1000.csv'), book);
    writeFileSync(join(dir, 'bank-1000.csv'), bank);
    const pipeDb = join(dir, 'count-pipe.db');
    const pipe = await runCli(['--db', pipeDb, 'policies', 'import', join(dir, 'book-1000.csv')], { cwd: dir });
    expect([pipe.code, pipe.stdout]).toEqual([0, 'Imported 1000 policies; 0 rows failed.\n']);
    const bankPipe = await runCli(['--db', pipeDb, 'bank', 'import', join(dir, 'bank-1000.csv')], { cwd: dir });
    expect([bankPipe.code, bankPipe.stdout]).toEqual([0, 'Imported 1000 transactions; 0 rows failed.\n']);
    const ttyDb = join(dir, 'count-tty.db');
    const tty = await runCli(['--db', ttyDb, '--yes', 'policies', 'import', join(dir, 'book-1000.csv')], { cwd: dir, tty: true, env: { NO_COLOR: '1' } });
    expect([tty.code, tty.stdout]).toEqual([0, 'Imported 1,000 policies; 0 rows failed.\n']);
  });
});

describe('collections attempts', () => {
  it('the export unchanged by default; --format table and --fields read it as a list', async () => {
    const attemptsDb = join(dir, 'attempts.db');
    const run = (args: string[], options: Partial<CliOptions> = {}) => runCli(['--db', attemptsDb, '--seed', '1', ...args], { cwd: dir, ...options });
    expect((await run(['policies', 'import', join(dir, 'p.csv')])).code).toBe(0);
    expect((await run(['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    expect((await run(['--yes', 'clock', 'advance', '--days', '10'])).code).toBe(0);
    const csv = await run(['collections', 'attempts', '--period', '2026-11']);
    expect(csv.stdout.split('\n')[0]).toBe('collection_id,policy_number,customer_id,date,amount,outcome,failure_reason');
    const fields = await run(['collections', 'attempts', '--period', '2026-11', '--format', 'csv', '--fields', 'policy_number,amount,outcome']);
    expect(fields.code).toBe(0);
    expect(fields.stdout).toBe(ATTEMPTS_CSV);
    // JSON of chosen fields: the export's attempts, those fields of each, money in decimals.
    const whole = JSON.parse((await run(['collections', 'attempts', '--period', '2026-11', '--format', 'json'])).stdout) as { attempts: Array<Record<string, unknown>> };
    const chosen = await run(['collections', 'attempts', '--period', '2026-11', '--format', 'json', '--fields', 'policy_number,amount,failure_reason']);
    expect(chosen.code).toBe(0);
    expect(chosen.stdout).toBe(`${JSON.stringify(whole.attempts.map((a) => ({ policy_number: a.policy_number, amount: a.amount, failure_reason: a.failure_reason })))}\n`.replace(/"amount":(\d+)(,|})/g, '"amount":$1.00$2'));
    const table = await run(['collections', 'attempts', '--period', '2026-11', '--format', 'table', '--fields', 'policy_number,amount,outcome'], { tty: true, env: { NO_COLOR: '1', COLUMNS: '80' } });
    expect(table.stdout).toBe(ATTEMPTS_TABLE);
    const bad = await run(['collections', 'attempts', '--period', '2026-11', '--fields', 'policy']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--fields: 'policy' is not a field of this list; the fields are: collection_id, policy_number, customer_id, date, amount, outcome, failure_reason.");
  });
});

describe('renderTable', () => {
  const cols = [
    { header: 'name', value: (r: { n: string; c: number }) => r.n },
    { header: 'amount', value: (r: { n: string; c: number }) => r.c, money: true },
  ];
  const rows = [
    { n: 'a rather long customer name', c: 123456789 },
    { n: 'b', c: -1050 },
  ];

  it('groups money only when asked and never cuts without a width', () => {
    expect(renderTable(cols, rows)).toBe(`name                             amount\na rather long customer name  1234567.89\nb${' '.repeat(32)}-10.50\n`);
    expect(renderTable(cols, rows, { group: true })).toBe(`name${' '.repeat(31)}amount\na rather long customer name  1,234,567.89\nb${' '.repeat(34)}-10.50\n`);
  });

  it('cuts text columns, not money, to fit the width', () => {
    expect(renderTable(cols, rows, { group: true, width: 24 })).toBe(`name${' '.repeat(14)}amount\na rather …  1,234,567.89\nb${' '.repeat(17)}-10.50\n`);
  });

  it('never cuts money, numbers or dates: too narrow for them, a number header gives way, then the line is longer than the width', () => {
    const wide = [
      { header: 'date', value: (r: { d: string; n: number; c: number }) => r.d },
      { header: 'attempts', value: (r: { d: string; n: number; c: number }) => r.n, align: 'right' as const },
      { header: 'collected', value: (r: { d: string; n: number; c: number }) => r.c, money: true },
    ];
    const days = [{ d: '2026-11-02', n: 274561, c: 21117874223 }];
    // 40 columns: all fits.
    expect(renderTable(wide, days, { group: true, width: 40 })).toBe('date        attempts       collected\n2026-11-02    274561  211,178,742.23\n');
    // 30: the date stays whole, the number header is cut to its values; nothing else can give.
    expect(renderTable(wide, days, { group: true, width: 30 })).toBe('date        attem…       collected\n2026-11-02  274561  211,178,742.23\n');
    const narrow = renderTable(wide, days, { group: true, width: 20 }).split('\n');
    expect(narrow[1]).toBe('2026-11-02  274561  211,178,742.23');
  });

  it('measures text in the columns a terminal draws: wide characters take two, accents none, and a cut keeps whole characters', () => {
    const names = [
      { n: '顧客一番の名前', c: 1234567 }, // 7 wide characters: 14 columns
      { n: '😀😀😀😀😀😀', c: 500 }, // 6 emoji (two UTF-16 units each): 12 columns
      { n: 'Zoe\u0308 Ångström', c: 9999 }, // e and a combining diaeresis: 12 columns
    ];
    // Not cut: the name column is 14 columns (its widest, the wide characters), every line 25.
    expect(renderTable(cols, names, { group: true })).toBe(
      `name${' '.repeat(15)}amount\n` +
        '顧客一番の名前  12,345.67\n' +
        `😀😀😀😀😀😀${' '.repeat(9)}5.00\n` +
        `Zoe\u0308 Ångström${' '.repeat(8)}99.99\n`,
    );
    // 20 columns: the name column gives way to 9, each value cut to 8 columns of whole characters and an ellipsis.
    expect(renderTable(cols, names, { group: true, width: 20 })).toBe(
      `name${' '.repeat(10)}amount\n` +
        '顧客一番…  12,345.67\n' +
        `😀😀😀😀…${' '.repeat(7)}5.00\n` +
        `Zoe\u0308 Ångs…${' '.repeat(6)}99.99\n`,
    );
  });
});

describe('a whole list to a slow reader', () => {
  it('waits for stdout to drain between pages: at most one page is held, never the whole list', async () => {
    // 25,000 policies: three pages of 10,000. A reader slower than premia (a pipe to a slow
    // consumer) must not make the whole list sit in memory in stdout's buffer.
    const big = join(dir, 'big.db');
    const csv = join(dir, 'big.csv');
    const lines = ['customer_id,external_customer_ref,policy_number,product_code,collection_amount'];
    for (let i = 0; i < 25_000; i++) lines.push(`C${i},E${i},POL-${100000 + i},LIFE,10.00`);
    writeFileSync(csv, `${lines.join('\n')}\n`);
    expect((await runCli(['--db', big, 'policies', 'import', csv], { cwd: dir })).code).toBe(0);
    for (const format of ['csv', 'json']) {
      let held = 0;
      let bytes = 0;
      const stdout = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          bytes += chunk.length;
          setTimeout(callback, 20);
        },
      });
      const write = stdout.write.bind(stdout);
      stdout.write = ((chunk: string, ...rest: never[]) => {
        held = Math.max(held, stdout.writableLength);
        return write(chunk, ...rest);
      }) as typeof stdout.write;
      const ctx = createContext({
        stdout,
        stderr: new PassThrough(),
        stdin: Readable.from([]),
        stdoutIsTTY: false,
        stderrIsTTY: false,
        stdinIsTTY: false,
        env: {},
        cwd: dir,
        now: () => new Date('2026-11-22T09:30:00.000Z'),
      });
      expect(await run(['--db', big, 'policies', 'list', '--format', format, '--fields', 'policy_number'], ctx)).toBe(0);
      await new Promise((r) => stdout.end(r));
      expect(bytes).toBeGreaterThan(250_000);
      // Held before a write: what the reader has not taken yet. Within the stream's high-water mark.
      expect(held).toBeLessThanOrEqual(stdout.writableHighWaterMark);
    }
  });
});
