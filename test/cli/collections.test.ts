/** The engine's commands through the CLI, in-process: exit codes, JSON shapes, messages. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers/cli.js';

const tmp = tempDir();
const db = join(tmp.dir, 'p.db');
const cli = (args: string[], stdin?: string) => runCli(['--db', db, ...args], { cwd: tmp.dir, stdin });
afterAll(() => tmp.cleanup());

/**
 * A store of its own (`name`.db) with the clock set to `clock`, then `bank` and `policies` (CSV
 * rows without their header) imported, each step exiting 0; premia on that store.
 */
async function storeOf(name: string, clock: string, bank: readonly string[], policies: readonly string[]) {
  const at = (args: string[]) => runCli(['--db', join(tmp.dir, `${name}.db`), ...args], { cwd: tmp.dir });
  expect((await at(['clock', 'set', clock])).code).toBe(0);
  if (bank.length > 0) {
    const file = join(tmp.dir, `${name}-bank.csv`);
    writeFileSync(file, ['customer_id,date,amount,description', ...bank, ''].join('\n'));
    expect((await at(['bank', 'import', file])).code).toBe(0);
  }
  const file = join(tmp.dir, `${name}-policies.csv`);
  writeFileSync(file, ['customer_id,external_customer_ref,policy_number,product_code,collection_amount', ...policies, ''].join('\n'));
  expect((await at(['policies', 'import', file])).code).toBe(0);
  return at;
}

beforeAll(async () => {
  expect((await cli(['clock', 'set', '2026-10-31'])).code).toBe(0);
  expect((await cli(['policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
  expect((await cli(['bank', 'import', join(FIXTURES, 'bank-transactions.csv')])).code).toBe(0);
});

describe('a month through the CLI', () => {
  it('execute, then advance to month end', async () => {
    const ex = await cli(['--json', 'collections', 'execute', '--period', '2026-11']);
    expect(ex.code).toBe(0);
    expect(Object.keys(ex.json())).toEqual(['execution_id', 'status', 'policies_queued']);
    expect(ex.json()).toMatchObject({ status: 'processing', policies_queued: 520 });
    const adv = await cli(['--json', 'clock', 'advance', '--to', '2026-11-30']);
    expect(adv.code).toBe(0);
    const r = adv.json();
    expect([r.from, r.to, r.days.length, r.days[29].closed_period]).toEqual(['2026-10-31', '2026-11-30', 30, '2026-11']);
    // Money with two decimals in the raw text of --json output.
    expect(adv.stdout).toMatch(/"collected":\d+\.\d\d[,}]/);
    const exec = await cli(['--json', 'collections', 'execution', ex.json().execution_id]);
    expect(exec.json()).toMatchObject({ status: 'completed', policies_queued: 520, counts: { PAID_FULL: 485, PAID_PARTIAL: 18, UNPAID: 17, CANCELLED: 0 } });
  });

  it('a period already queued keeps its strategy: a rerun names it, and warns when --strategy asked for another', async () => {
    const first = await cli(['collections', 'execute', '--period', '2027-01', '--strategy', 'naive']);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('Queued 520 policies for 2027-01 (naive); the engine collects as the clock advances.');
    const id = first.stdout.match(/execution_id\s+(\S+)/)![1]!;
    const rerun = await cli(['collections', 'execute', '--period', '2027-01', '--strategy', 'oracle']);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toBe(
      `warning: --strategy oracle was not applied: 2027-01 is already queued with naive (execution ${id}), and an execution keeps its strategy.\n` +
        'Nothing new to queue for 2027-01: every active policy is already queued (naive); the engine collects as the clock advances.\n',
    );
    const plain = await cli(['collections', 'execute', '--period', '2027-01']);
    expect(plain.stderr).toBe('Nothing new to queue for 2027-01: every active policy is already queued (naive); the engine collects as the clock advances.\n');
    const given = await cli(['collections', 'execute', '--period', '2027-01', '--policy', 'POL-2026001']);
    expect(given.stderr).toBe('Nothing new to queue for 2027-01: the policies given are already queued (naive); the engine collects as the clock advances.\n');
  });

  // Execute before import: "Queued 0 policies ... the engine collects as the clock advances",
  // exit 0, while the run it recorded locked the clock.
  it('a store with no active policy: the warning says nothing was queued and the clock is now locked', async () => {
    const empty = join(tmp.dir, 'no-book.db');
    const run = (args: string[]) => runCli(['--db', empty, ...args], { cwd: tmp.dir });
    expect((await run(['clock', 'set', '2026-10-31'])).code).toBe(0);
    const r = await run(['collections', 'execute', '--period', '2026-11']);
    const id = r.stdout.match(/execution_id\s+(\S+)/)![1]!;
    expect([r.code, r.stderr]).toEqual([
      0,
      "warning: Nothing was queued for 2026-11: there is no active policy to queue. Add the policies ('premia policies import FILE' or 'policies create'), then run this again; " +
        `the run is recorded (execution ${id}), so the clock can no longer be set, only advanced.\n`,
    ]);
    const json = await run(['--json', 'collections', 'execute', '--period', '2026-11']);
    expect(JSON.parse(json.stdout)).toEqual({ execution_id: id, status: 'processing', policies_queued: 0 });
    expect(json.stderr).toContain('warning: Nothing was queued for 2026-11: there is no active policy to queue.');
  });

  it('get and list return the spec fields plus id; list filters by status and policy', async () => {
    const list = await cli(['--json', 'collections', 'list', '--period', '2026-11', '--policy', 'POL-2026021']);
    expect(list.code).toBe(0);
    const c = list.json().data[0];
    expect(Object.keys(c)).toEqual([
      'id',
      'period_month',
      'customer_id',
      'external_customer_ref',
      'policy_number',
      'product_code',
      'collection_amount_due',
      'collection_amount_collected',
      'shortfall',
      'collection_status',
      'first_attempt_date',
      'last_attempt_date',
      'number_of_attempts',
      'last_failure_reason',
      'policy_id',
      'execution_id',
    ]);
    const get = await cli(['--json', 'collections', 'get', c.id]);
    expect(get.stdout).toContain('"collection_amount_due":1708.74,"collection_amount_collected":1708.74,"shortfall":0.00');
    const unpaid = await cli(['--json', 'collections', 'list', '--period', '2026-11', '--status', 'UNPAID', '--limit', '5']);
    expect(unpaid.json().data.map((x: { collection_status: string }) => x.collection_status)).toEqual(Array(5).fill('UNPAID'));
    expect(unpaid.json().next_after).toMatch(/^POL-/);
    const human = await cli(['collections', 'explain', c.id]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('2026-11-02     1708.74  collected\n            why: smart: the balance already covers the amount due, with the usual outgoings until the debit; expected balance 4380.00\n');
    expect(human.stdout).toContain('PAID_FULL: collected 1708.74 of 1708.74 in 1 attempt');
    // A collection the closed month never attempted: no "yet", and the summary says the period is closed.
    const untried = (await cli(['--json', 'collections', 'list', '--period', '2026-11', '--status', 'UNPAID', '--limit', '10000'])).json().data.find(
      (x: { number_of_attempts: number }) => x.number_of_attempts === 0,
    );
    expect(untried).toBeDefined();
    const none = await cli(['collections', 'explain', untried.id]);
    expect(none.stdout).toContain('\nNo attempts.\n');
    // What the bank shows of the account on the evenings the run could plan a debit (queued on
    // 31 October: 1 to 29 November), against what was due (the fixtures' C100007: 300.00 in
    // August, 280.00 spent the next day, nothing since).
    expect(untried.policy_number).toBe('POL-2026013');
    expect(none.stdout).toContain(
      '\nUNPAID: collected 0.00 of 648.12 in 0 attempts (period closed). Its account\'s posted balance on the evenings the run could plan a debit ' +
        'of this period (2026-11-01 to 2026-11-29) was at most 20.00 (2026-11-01), against 648.12 due.\n',
    );
    // An account closed since: said too (C100019: 49.06 from 7 October, its other policy's debit
    // refused ACCOUNT_CLOSED on 9 November).
    const all = (await cli(['--json', 'collections', 'list', '--period', '2026-11', '--limit', '10000'])).json().data;
    const closed = all.find((x: { policy_number: string }) => x.policy_number === 'POL-2026038');
    const explained = await cli(['--json', 'collections', 'explain', closed.id]);
    expect(explained.json().summary).toBe(
      "UNPAID: collected 0.00 of 997.07 in 0 attempts (period closed). Its account's posted balance on the evenings the run could plan a debit " +
        'of this period (2026-11-01 to 2026-11-29) was at most 49.06 (2026-11-01), against 997.07 due; the account is closed.',
    );
    // An attempted collection's summary has no such facts.
    expect(human.stdout).toContain('\nPAID_FULL: collected 1708.74 of 1708.74 in 1 attempt (period closed).\n');
  });

  it('exit codes: not found 5, conflicts 6, validation 2', async () => {
    const missing = await cli(['collections', 'get', '00000000-0000-8000-8000-000000000000']);
    expect([missing.code, missing.stdout]).toEqual([5, '']);
    expect(missing.stderr).toContain("Collection '00000000-0000-8000-8000-000000000000' was not found");
    expect((await cli(['collections', 'execute', '--period', '2026-11'])).code).toBe(6);
    const closed = await cli(['--json', 'collections', 'execute', '--period', '2026-11']);
    expect(JSON.parse(closed.stderr).error.code).toBe('PERIOD_CLOSED');
    expect((await cli(['clock', 'set', '2026-12-01'])).code).toBe(6);
    const back = await cli(['--json', 'clock', 'advance', '--to', '2026-11-01']);
    expect([back.code, JSON.parse(back.stderr).error.code]).toEqual([6, 'CLOCK_BACKWARDS']);
    const unknown = await cli(['--json', 'collections', 'execute', '--period', '2026-12', '--policy', 'POL-2026001', 'NOPE-1']);
    expect([unknown.code, JSON.parse(unknown.stderr).error.details[0]]).toEqual([
      2,
      { field: 'policy_ids', code: 'UNKNOWN_POLICY', message: "no policy 'NOPE-1'", ref: 'NOPE-1' },
    ]);
    expect((await cli(['collections', 'list', '--period', '2026-13'])).code).toBe(2);
    expect((await cli(['clock', 'advance'])).code).toBe(2);
    expect((await cli(['clock', 'advance', '--days', 'x'])).code).toBe(2);
  });

  // `collections execution 2026-11` said "not found. Check the id or number": an execution has no
  // number, and the operator was left to find its id.
  it("a period given for an execution's id: NOT_FOUND says so and names the period's execution", async () => {
    const id = (await cli(['--json', 'collections', 'list', '--period', '2026-11', '--limit', '1'])).json().data[0].execution_id;
    const r = await cli(['collections', 'execution', '2026-11']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      5,
      '',
      `error: Execution '2026-11' was not found: that is a period, and an execution is named by its id; 2026-11's execution is ${id}.\n  (code NOT_FOUND)\n`,
    ]);
    const none = await cli(['collections', 'execution', '2027-06']);
    expect(none.stderr).toBe(
      "error: Execution '2027-06' was not found: that is a period, and an execution is named by its id; 2027-06 has no execution (premia collections execute --period 2027-06 queues its run).\n  (code NOT_FOUND)\n",
    );
    expect((await cli(['collections', 'execution', 'nope'])).stderr).toBe("error: Execution 'nope' was not found. Check the id and try again.\n  (code NOT_FOUND)\n");
  });

  it("a policy's number or id given for a collection's id: NOT_FOUND says so and names its collections", async () => {
    const idOf = async (period: string) => (await cli(['--json', 'collections', 'list', '--period', period, '--policy', 'POL-2026001'])).json().data[0].id as string;
    const [nov, jan] = [await idOf('2026-11'), await idOf('2027-01')];
    const byNumber = await cli(['collections', 'explain', 'POL-2026001']);
    expect([byNumber.code, byNumber.stdout]).toEqual([5, '']);
    expect(byNumber.stderr).toBe(
      "error: Collection 'POL-2026001' was not found: that is the number of a policy, not a collection's id; " +
        `its 2 collections: 2027-01 ${jan}, 2026-11 ${nov} (premia collections list --period P --policy POL-2026001 lists a month's).\n  (code NOT_FOUND)\n`,
    );
    const policyId = (await cli(['--json', 'policies', 'get', 'POL-2026001'])).json().id as string;
    const byId = await cli(['--json', 'collections', 'get', policyId]);
    expect([byId.code, JSON.parse(byId.stderr).error.message]).toEqual([
      5,
      `Collection '${policyId}' was not found: that is the id of policy POL-2026001, not a collection's id; its 2 collections: 2027-01 ${jan}, 2026-11 ${nov} (premia collections list --period P --policy POL-2026001 lists a month's).`,
    ]);
    // Neither a collection nor a policy: the message it always had.
    expect((await cli(['collections', 'explain', 'POL-9999999'])).stderr).toBe("error: Collection 'POL-9999999' was not found. Check the id or number and try again.\n  (code NOT_FOUND)\n");
  });

  it('a debit timed to income expected on its day says when no money was paid in by then', async () => {
    // C100101 (irregular, fixtures): 130.00 expected on Fridays 13 and 20 November never came;
    // both debits failed. The one after a deposit that came says nothing of the kind.
    const id = (await cli(['--json', 'collections', 'list', '--period', '2026-11', '--policy', 'POL-2026213'])).json().data[0].id;
    const e = (await cli(['--json', 'collections', 'explain', id])).json();
    expect(e.attempts.map((a: { date: string; outcome: string; why: string }) => [a.date, a.outcome, a.why.replace(/^.*; expected balance/, 'expected balance')])).toEqual([
      ['2026-11-05', 'SUCCESS', 'expected balance 176.15'],
      ['2026-11-13', 'FAILED', 'expected balance 240.15; no money was paid in on 2026-11-13'],
      ['2026-11-20', 'FAILED', 'expected balance 152.25; no money was paid in on 2026-11-20'],
      ['2026-11-26', 'SUCCESS', 'expected balance 101.38'],
    ]);
    expect(e.attempts[1].why).toMatch(/^smart: on the day of income of about 130\.00 expected 2026-11-13, the last business day before a weekend or holiday/);
  });

  it('attempts export prints the CSV on stdout', async () => {
    const r = await cli(['collections', 'attempts', '--period', '2026-11']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('collection_id,policy_number,customer_id,date,amount,outcome,failure_reason');
    expect(lines.length).toBe(545); // header + 543 attempts + final newline
    // --output writes the same bytes to a file, atomically, and says so.
    const file = join(tmp.dir, 'attempts-out.csv');
    const out = await cli(['collections', 'attempts', '--period', '2026-11', '--output', file]);
    expect([out.code, out.stdout]).toEqual([0, '']);
    expect(out.stderr).toBe(`Wrote the 2026-11 attempts to ${file} (${Buffer.byteLength(r.stdout).toLocaleString('en-US')} bytes).\n`);
    expect(readFileSync(file, 'utf8')).toBe(r.stdout);
    const table = await cli(['collections', 'attempts', '--period', '2026-11', '--format', 'table', '--output', file]);
    expect(table.code).toBe(2);
    expect(table.stderr).toContain('--output writes the export whole (--format csv or json, no --fields); a table or chosen fields go to stdout.');
  });

  it('--json is the export\'s JSON body (format=json); --json with --format csv or table is USAGE_ERROR, exit 2', async () => {
    const json = await cli(['--json', 'collections', 'attempts', '--period', '2026-11']);
    expect([json.code, json.stderr]).toEqual([0, '']);
    expect(json.stdout).toBe((await cli(['collections', 'attempts', '--period', '2026-11', '--format', 'json'])).stdout);
    expect(json.json().attempts).toHaveLength(543);
    for (const format of ['csv', 'table']) {
      const both = await cli(['--json', 'collections', 'attempts', '--period', '2026-11', '--format', format]);
      expect([both.code, both.stdout]).toEqual([2, '']);
      expect(JSON.parse(both.stderr)).toEqual({
        error: { code: 'USAGE_ERROR', message: `--json asks for the API's JSON body but --format ${format} asks for ${format}; give only one of them.`, request_id: null },
      });
    }
  });
});

describe('bank commands', () => {
  it('bank show: balance, state, income and recent transactions', async () => {
    const r = await cli(['--json', 'bank', 'show', 'C100011']);
    expect(r.code).toBe(0);
    const v = r.json();
    expect([v.source, v.as_of, v.balance, v.state, v.income.pattern]).toEqual(['imported', '2026-11-30', 5466.26, 'open', 'monthly_fixed_day']);
    expect(v.recent_transactions.find((t: { description: string }) => t.description.startsWith('PREMIA DEBIT'))).toEqual({
      date: '2026-11-02',
      amount: -1708.74,
      description: 'PREMIA DEBIT POL-2026021',
      outcome: 'posted',
      balance: 2671.26,
    });
    const generated = await cli(['--json', 'bank', 'show', 'C100300']);
    expect(generated.json().source).toBe('generated');
    expect((await cli(['bank', 'show', '=BAD'])).code).toBe(2);
  });

  it('bank show: a customer premia has never heard of is NOT_FOUND (exit 5), not a generated account', async () => {
    const r = await cli(['bank', 'show', 'NOPE']);
    expect([r.code, r.stdout]).toEqual([5, '']);
    expect(r.stderr).toBe(
      "error: Customer 'NOPE' is not known: no policy of this client names it and no bank transactions were imported for it. " +
        'Check the customer_id.\n  (code NOT_FOUND)\n',
    );
    // Known through imported bank history alone (no policy): the imported account.
    expect((await cli(['bank', 'import', '-'], 'customer_id,date,amount,description\nHIST-ONLY,2027-01-05,250.00,TRANSFER\n')).code).toBe(0);
    const history = await cli(['--json', 'bank', 'show', 'HIST-ONLY']);
    expect(history.code).toBe(0);
    expect(history.json()).toMatchObject({ customer_id: 'HIST-ONLY', source: 'imported' });
  });

  it('bank import: a description is counted in characters (an emoji is one); controls and invisible characters are refused', async () => {
    const csv = [
      'customer_id,date,amount,description',
      `DESC-1,2027-01-05,1.00,${'💸'.repeat(150)}`,
      `DESC-1,2027-01-04,1.00,${'e\u0301'.repeat(200)}`,
      `DESC-1,2027-01-06,1.00,${'a'.repeat(201)}`,
      'DESC-1,2027-01-07,1.00,PAY\u200bROLL',
      'DESC-1,2027-01-08,1.00,"TAB\tINSIDE"',
      'DESC-1,2027-01-09,1.00,\u202eLLORYAP',
      // A soft hyphen shows only where a line breaks at it; a tag character (an invisible "1") never.
      'DESC-1,2027-01-10,1.00,PAY\u00adROLL',
      'DESC-1,2027-01-11,1.00,SALARY \u{e0031}',
    ].join('\n');
    const r = await cli(['--json', 'bank', 'import', '-'], csv);
    expect(r.code).toBe(3);
    const body = r.json();
    // 200 letters with their accents (400 code points) are 200 characters; rows that cannot be read
    // refuse the file whole, so the two good ones are not imported either.
    expect([body.imported, body.failed]).toEqual([0, 6]);
    expect(body.errors.map((e: { row: number; message: string }) => [e.row, e.message])).toEqual([
      [4, 'description is longer than 200 characters'],
      [5, 'description holds an unprintable or invisible character (U+200B); write it on one line of visible text'],
      [6, 'description holds an unprintable or invisible character (U+0009); write it on one line of visible text'],
      [7, 'description holds an unprintable or invisible character (U+202E); write it on one line of visible text'],
      [8, 'description holds an unprintable or invisible character (U+00AD); write it on one line of visible text'],
      [9, 'description holds an unprintable or invisible character (U+E0031); write it on one line of visible text'],
    ]);
  });

  it('bank import validates every row and refuses days already lived', async () => {
    const csv = [
      'customer_id,date,amount,description',
      'NEW-1,2026-12-03,100.00,TRANSFER',
      '   ',
      'NEW-1,2026-02-30,100.00,TRANSFER',
      'NEW-1,2026-12-04,1.234,TRANSFER',
      'NEW-1,2026-12-05,0,HELLO',
      'NEW-1,2026-11-15,50.00,TRANSFER',
      'C 1,2026-12-05,5.00,X',
      'NEW-2,2026-12-05,0,ACCOUNT_CLOSED',
      'NEW-1,2026-12-05,5.00',
      'C100200,2026-12-05,5.00,TRANSFER',
    ].join('\n');
    const r = await cli(['--json', 'bank', 'import', '-'], csv);
    expect(r.code).toBe(3);
    const body = r.json();
    // Rows that cannot be read refuse the statement whole: its two good rows are not stored either.
    expect([body.imported, body.failed]).toEqual([0, 7]);
    expect(body.errors.map((e: { row: number; field: string; code: string }) => [e.row, e.field, e.code])).toEqual([
      [4, 'date', 'INVALID_DATE'], // line 3, only spaces, is a blank line
      [5, 'amount', 'INVALID_AMOUNT'],
      [6, 'amount', 'INVALID_AMOUNT'],
      [7, 'date', 'DATE_IN_PAST'],
      [8, 'customer_id', 'INVALID_FORMAT'],
      [10, 'row', 'WRONG_FIELD_COUNT'],
      [11, 'customer_id', 'ACCOUNT_IN_USE'], // its generated account has been debited already
    ]);
    expect(body.errors[0].message).toBe("date '2026-02-30' is not a day of the calendar: 2026-02 has 28 days");
    // Rows of only separators and empty cells (a spreadsheet's cleared rows) are blank lines too.
    const cleared = await cli(['--json', 'bank', 'import', '-'], ',,,\r\ncustomer_id,date,amount,description\r\n,,,\r\nNEW-3,2026-12-06,75.00,TRANSFER\r\n"","","",""\r\n,,,\r\n');
    expect([cleared.code, cleared.stdout]).toEqual([0, '{"imported":1,"failed":0,"errors":[]}\n']);
    const bad = await cli(['bank', 'import', '-'], 'customer,date,amount\nx,y,z\n');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("stdin is not a bank transactions CSV file: line 1: the header must be 'customer_id,date,amount,description'");
    const semicolons = await cli(['bank', 'import', '-'], 'customer_id;date;amount;description\n');
    expect(semicolons.stderr).toContain(
      "found 'customer_id;date;amount;description'. Its columns are separated by ';', not commas (a spreadsheet's list separator); save the file as comma-separated CSV. Nothing was imported.",
    );
    // A header after blank lines is named on its own line.
    const late = await cli(['bank', 'import', '-'], '\n \ncustomer,date,amount\nx,y,z\n');
    expect(late.code).toBe(2);
    expect(late.stderr).toContain("stdin is not a bank transactions CSV file: line 3: the header must be 'customer_id,date,amount,description'; found 'customer,date,amount'.");
  });
});

describe('bank import of a statement with rows it cannot read', () => {
  const header = 'customer_id,date,amount,description';
  const rowsOf = async (customer: string) => (await cli(['--json', 'bank', 'show', customer])).json();

  it('stores none of it (exit 3, every bad row listed, the reason said); the corrected file then imports whole', async () => {
    // As another bank's software writes it: a thousands separator on the salary, a total row at the end.
    const foreign = [header, 'STMT-1,2026-12-10,"1,500.00",SALARY', 'STMT-1,2026-12-11,-250.00,RENT', 'Total,,1250.00,', ''].join('\r\n');
    const r = await cli(['bank', 'import', '-'], foreign);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe(
      'Imported 0 transactions; 2 rows failed.\n\n' +
        'row  customer_id  field   code            message\n' +
        "  2  STMT-1       amount  INVALID_AMOUNT  amount '1,500.00' has a thousands separator; write it without one, like -1200.50\n" +
        "  4  Total        date    REQUIRED        date is empty\n",
    );
    expect(r.stderr).toBe(
      'warning: Nothing was imported: a statement with a row premia cannot read is refused whole (its balances run on from row to row). Correct the rows listed and import the file again.\n',
    );
    // Not even the good row: the customer is still unknown.
    expect((await cli(['bank', 'show', 'STMT-1'])).code).toBe(5);

    const corrected = await cli(['--json', 'bank', 'import', '-'], [header, 'STMT-1,2026-12-10,1500.00,SALARY', 'STMT-1,2026-12-11,-250.00,RENT', ''].join('\r\n'));
    expect([corrected.code, corrected.stdout]).toEqual([0, '{"imported":2,"failed":0,"errors":[]}\n']);
    expect((await rowsOf('STMT-1')).customer_id).toBe('STMT-1');
  });

  it('two statements joined into one file: the second header is named, and nothing is imported', async () => {
    const joined = [header, 'JOIN-1,2026-12-10,900.00,SALARY', header.toUpperCase(), 'JOIN-1,2026-12-10,900.00,SALARY', ''].join('\n');
    const r = await cli(['bank', 'import', '-'], joined);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe(
      'Imported 0 transactions; 1 row failed.\n\n' +
        'row  customer_id  field  code           message\n' +
        '  3  CUSTOMER_ID  row    MALFORMED_ROW  this row is the header again (statements joined into one file?); import each statement as a file of its own, or remove the line if the rows before and after do not overlap\n',
    );
    expect((await cli(['bank', 'show', 'JOIN-1'])).code).toBe(5);
  });

  it("a spreadsheet's empty column after description: the header and the rows say so", async () => {
    const head = await cli(['bank', 'import', '-'], `${header},\nCOL-1,2026-12-10,900.00,SALARY,\n`);
    expect([head.code, head.stderr]).toEqual([
      2,
      "error: stdin is not a bank transactions CSV file: line 1: the header must be 'customer_id,date,amount,description'; found 'customer_id,date,amount,description,'. " +
        'It ends with empty columns after description (a trailing comma, as a spreadsheet writes a column it kept); delete them. Nothing was imported.\n  (code INVALID_FILE)\n',
    ]);
    const rows = await cli(['--json', 'bank', 'import', '-'], `${header}\nCOL-1,2026-12-10,900.00,SALARY, ,\nCOL-1,2026-12-11,-5.00,CARD,X\n`);
    expect(rows.code).toBe(3);
    expect(rows.json().errors.map((e: { row: number; message: string }) => [e.row, e.message])).toEqual([
      [2, 'expected 4 fields, found 6, the ones after description empty (a trailing comma, as a spreadsheet writes a column it kept); delete them'],
      [3, 'expected 4 fields, found 5: a comma separates fields, so a description that holds one must be in double quotes (if the description is \'CARD,X\', write "CARD,X")'],
    ]);
  });

  it('rows it reads but may not store (already imported, a day already lived) are skipped, and the rest imported', async () => {
    const statement = [header, 'STMT-2,2026-11-20,80.00,REFUND', 'STMT-2,2026-12-12,900.00,SALARY', 'STMT-2,2026-12-13,-40.00,CARD'].join('\n');
    expect((await cli(['--json', 'bank', 'import', '-'], [header, 'STMT-2,2026-12-12,900.00,SALARY'].join('\n'))).stdout).toBe('{"imported":1,"failed":0,"errors":[]}\n');
    const r = await cli(['--json', 'bank', 'import', '-'], statement);
    expect(r.code).toBe(3);
    expect(r.json()).toMatchObject({ imported: 1, failed: 2 });
    expect(r.json().errors.map((e: { row: number; code: string }) => [e.row, e.code])).toEqual([
      [2, 'DATE_IN_PAST'],
      [3, 'DUPLICATE_TRANSACTION'],
    ]);
    expect(r.stderr).toBe('');
  });
});

describe('explain, for a collection never attempted', () => {
  const mid = join(tmp.dir, 'mid.db');
  const at = (args: string[]) => runCli(['--db', mid, ...args], { cwd: tmp.dir });

  it('shows the balances of the evenings the run could plan on so far: none before its first', async () => {
    expect((await at(['clock', 'set', '2026-11-15'])).code).toBe(0);
    expect((await at(['policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
    expect((await at(['bank', 'import', join(FIXTURES, 'bank-transactions.csv')])).code).toBe(0);
    expect((await at(['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    const list = (await at(['--json', 'collections', 'list', '--period', '2026-11', '--limit', '10000'])).json().data;
    const id = list.find((x: { policy_number: string }) => x.policy_number === 'POL-2026013').id;
    // Queued on Sunday 15 November: its first evening is that day's, which plans Monday's debits
    // (at the next advance).
    expect((await at(['--json', 'collections', 'explain', id])).json().summary).toBe(
      "UNPAID: collected 0.00 of 648.12 in 0 attempts (period open; clock at 2026-11-15). Its account's posted balance on the evenings the run " +
        'could plan a debit of this period (2026-11-15) was at most 20.00 (2026-11-15), against 648.12 due.',
    );
    expect((await at(['clock', 'advance', '--to', '2026-11-20'])).code).toBe(0);
    // Friday the 20th's evening plans no debit (Saturday is not a business day).
    expect((await at(['--json', 'collections', 'explain', id])).json().summary).toBe(
      "UNPAID: collected 0.00 of 648.12 in 0 attempts (period open; clock at 2026-11-20). Its account's posted balance on the evenings the run " +
        'could plan a debit of this period (2026-11-15 to 2026-11-19) was at most 20.00 (2026-11-15), against 648.12 due.',
    );
  });
});

describe('explain, for a collection never attempted: the evenings the engine planned on', () => {
  it('counts the evening the run was queued on and each end-of-day balance as it was, not the evenings before a weekend', async () => {
    // X1: salary swept by its debit order each month; 1000.00 paid in on Tuesday 10 November, the
    // day the run is queued, of which the smaller premium takes 500.00 on the 11th and a withdrawal
    // the rest. X2: 40.00 since October, then 1000.00 on Friday 13 November spent on the Saturday.
    const at = await storeOf(
      'evenings',
      '2026-11-10',
      [
        ...['2026-08-25', '2026-09-25', '2026-10-23'].flatMap((d) => [`X1,${d},6000.00,SALARY`, `X1,${d},-6000.00,DEBIT ORDER BOND`]),
        'X1,2026-11-10,1000.00,TRANSFER FROM FAMILY',
        'X1,2026-11-11,-500.00,CASH WITHDRAWAL',
        'X2,2026-10-02,40.00,CASH DEPOSIT',
        'X2,2026-11-13,1000.00,TRANSFER FROM FAMILY',
        'X2,2026-11-14,-1030.00,CASH WITHDRAWAL',
      ],
      ['X1,R1,PX1-A,LIFE,500.00', 'X1,R1,PX1-B,LIFE,520.00', 'X2,R2,PX2-A,LIFE,500.00'],
    );
    expect((await at(['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    expect((await at(['--yes', 'clock', 'advance', '--to', '2026-11-30'])).code).toBe(0);
    // The debit of the 11th was planned on the evening of the 10th, the day the run was queued.
    const attempts = (await at(['--json', 'collections', 'attempts', '--period', '2026-11'])).json().attempts;
    expect(attempts.map((a: { policy_number: string; date: string; outcome: string }) => [a.policy_number, a.date, a.outcome])).toEqual([
      ['PX1-A', '2026-11-11', 'SUCCESS'],
    ]);
    const list = (await at(['--json', 'collections', 'list', '--period', '2026-11'])).json().data;
    const summary = async (policy: string) =>
      (await at(['--json', 'collections', 'explain', list.find((x: { policy_number: string }) => x.policy_number === policy).id])).json().summary;
    // The 1000.00 the smaller premium took part of was there on the 10th (0.00 on the evening of the 11th).
    expect(await summary('PX1-B')).toBe(
      "UNPAID: collected 0.00 of 520.00 in 0 attempts (period closed). Its account's posted balance on the evenings the run could plan a debit " +
        'of this period (2026-11-10 to 2026-11-29) was at most 1000.00 (2026-11-10), against 520.00 due.',
    );
    // Friday's 1040.00 was gone by Sunday's evening, the first to plan a debit after it.
    expect(await summary('PX2-A')).toBe(
      "UNPAID: collected 0.00 of 500.00 in 0 attempts (period closed). Its account's posted balance on the evenings the run could plan a debit " +
        'of this period (2026-11-10 to 2026-11-29) was at most 40.00 (2026-11-10), against 500.00 due.',
    );
  });
});

describe('explain, for a collection never attempted: a policy lapsed before its period', () => {
  it('counts no evening from the day the policy lapsed: the run plans no debit of it then', async () => {
    // Nothing in the account in October and November (the policy lapses at November's close),
    // then 3000.00 for a day in December, while the policy is lapsed.
    const at = await storeOf('lapsed-before', '2026-09-30', ['L1,2026-12-07,3000.00,DEPOSIT', 'L1,2026-12-08,-3000.00,CASH WITHDRAWAL'], ['L1,R1,PL-1,LIFE,400.00']);
    for (const period of ['2026-10', '2026-11', '2026-12']) expect((await at(['collections', 'execute', '--period', period])).code).toBe(0);
    expect((await at(['--yes', 'clock', 'advance', '--to', '2026-12-31'])).code).toBe(0);
    const id = (await at(['--json', 'collections', 'list', '--period', '2026-12'])).json().data[0].id;
    // Not "at most 3000.00 (2026-12-07), against 400.00 due": no debit of it could be planned then.
    expect((await at(['--json', 'collections', 'explain', id])).json().summary).toBe(
      'UNPAID: collected 0.00 of 400.00 in 0 attempts (period closed). The policy lapsed on 2026-11-30: a lapsed policy is not debited until it is reinstated.',
    );
  });
});

describe('explain, for a collection the engine tries no more this period', () => {
  it('says no further debit is made, not that one is still to be planned', async () => {
    // T1: its debits stopped from 1 November. T2: nothing in the account. Naive debits both on
    // Monday 2 November; one failed attempt is the most a month allows here.
    const at = await storeOf(
      'no-more',
      '2026-10-31',
      ['T1,2026-10-23,5000.00,SALARY', 'T1,2026-11-01,0.00,PAYMENT_STOPPED', 'T2,2026-10-23,50.00,DEPOSIT', 'T2,2026-10-24,-50.00,CASH WITHDRAWAL'],
      ['T1,R1,PT-1,LIFE,300.00', 'T2,R2,PT-2,LIFE,300.00'],
    );
    expect((await at(['settings', 'set', 'engine.max_failed_attempts', '1'])).code).toBe(0);
    expect((await at(['collections', 'execute', '--period', '2026-11', '--strategy', 'naive'])).code).toBe(0);
    expect((await at(['clock', 'advance', '--to', '2026-11-16'])).code).toBe(0);
    const attempts = (await at(['--json', 'collections', 'attempts', '--period', '2026-11'])).json().attempts;
    expect(attempts.map((a: { policy_number: string; date: string; failure_reason: string }) => [a.policy_number, a.date, a.failure_reason])).toEqual([
      ['PT-1', '2026-11-02', 'PAYMENT_STOPPED'],
      ['PT-2', '2026-11-02', 'INSUFFICIENT_FUNDS'],
    ]);
    const list = (await at(['--json', 'collections', 'list', '--period', '2026-11'])).json().data;
    const plan = async (policy: string) =>
      (await at(['--json', 'collections', 'explain', list.find((x: { policy_number: string }) => x.policy_number === policy).id])).json().plan;
    expect(await plan('PT-1')).toEqual(['No further debit is made in this period: the last one was refused PAYMENT_STOPPED, which is not retried.']);
    expect(await plan('PT-2')).toEqual(['No further debit is made in this period: 1 failed attempt, the most a month allows (engine.max_failed_attempts 1).']);
    // Nor is one made.
    expect((await at(['--yes', 'clock', 'advance', '--to', '2026-11-30'])).code).toBe(0);
    expect((await at(['--json', 'collections', 'attempts', '--period', '2026-11'])).json().attempts).toHaveLength(2);
  });
});

describe('explain, for a policy lapsed mid-month', () => {
  const mid = join(tmp.dir, 'lapsed.db');
  const at = (args: string[]) => runCli(['--db', mid, ...args], { cwd: tmp.dir });

  it('shows no pending debit, since none is made, and says when the policy lapsed', async () => {
    expect((await at(['clock', 'set', '2026-10-31'])).code).toBe(0);
    expect((await at(['policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
    expect((await at(['bank', 'import', join(FIXTURES, 'bank-transactions.csv')])).code).toBe(0);
    expect((await at(['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    expect((await at(['clock', 'advance', '--to', '2026-11-09'])).code).toBe(0);
    const id = (await at(['--json', 'collections', 'list', '--period', '2026-11', '--policy', 'POL-2026373'])).json().data[0].id;
    // Its second partial debit is submitted for the 10th...
    expect((await at(['--json', 'collections', 'explain', id])).json().plan).toEqual([
      '2026-11-10: debit 2433.98 planned (smart: partial debit 2 of at most 4, from money already there, 1 day after income of 985.40 ' +
        'received 2026-11-09: the balance bears a good part of the 3475.19 due, more than the deposit alone; expected balance 2704.43)',
    ]);
    // ...and is not made once the policy has lapsed: explain no longer promises it.
    expect((await at(['policies', 'update', 'POL-2026373', '--status', 'lapsed'])).code).toBe(0);
    const lapsed = (await at(['--json', 'collections', 'explain', id])).json();
    expect([lapsed.plan, lapsed.summary]).toEqual([
      ['No debit is planned: the policy is lapsed.'],
      'PAID_PARTIAL: collected 5205.12 of 8680.31 in 1 attempt (period open; clock at 2026-11-09). ' +
        'The policy lapsed on 2026-11-09: a lapsed policy is not debited until it is reinstated.',
    ]);
    expect((await at(['clock', 'advance', '--days', '1'])).code).toBe(0);
    expect((await at(['--json', 'collections', 'get', id])).json().number_of_attempts).toBe(1);
  });
});

/** A store `name` holding the fixture book with the clock at `clock`, and a way to run premia on it. */
async function fixtureBook(name: string, clock: string): Promise<(args: string[]) => ReturnType<typeof runCli>> {
  const db = join(tmp.dir, name);
  const run = (args: string[]) => runCli(['--db', db, ...args], { cwd: tmp.dir });
  expect((await run(['-q', 'clock', 'set', clock])).code).toBe(0);
  expect((await run(['-q', 'policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
  return run;
}

describe('collections execute late in the month', () => {
  it('warns when a week or less of the month is left to collect in (a forgotten clock set), and not before', async () => {
    const run = await fixtureBook('late-month.db', '2026-11-29');
    const r = await run(['-q', 'collections', 'execute', '--period', '2026-11']);
    expect([r.code, r.stderr]).toEqual([
      0,
      'warning: 2026-11 was queued with the clock at 2026-11-29: 1 day of it is left to collect in, so many of its collections may end unpaid. ' +
        'A month is queued before it starts (the clock on the last day of the month before).\n',
    ]);
    // A rerun queues nothing: nothing to say; the next month, queued before it starts, neither.
    expect((await run(['-q', 'collections', 'execute', '--period', '2026-11'])).stderr).toBe('');
    expect((await run(['-q', 'collections', 'execute', '--period', '2026-12'])).stderr).toBe('');
  });
});

describe('collections execute refusing many policies', () => {
  it('names the first 10 of each kind and how many more; details list at most 100 (local mode)', async () => {
    const run = await fixtureBook('many-refused.db', '2026-10-31');
    expect((await run(['-q', '--yes', 'policies', 'update', 'POL-2026001', '--status', 'cancelled'])).code).toBe(0);
    const nope = (n: number) => Array.from({ length: n }, (_, i) => `NOPE-${String(i + 1).padStart(3, '0')}`);
    const cancelled = 'cancelled (a cancelled policy is never collected again): POL-2026001';

    const few = await run(['--json', 'collections', 'execute', '--period', '2026-11', '--policy', ...nope(12), 'POL-2026001']);
    expect(few.code).toBe(2);
    const fewError = JSON.parse(few.stderr).error;
    expect(fewError.message).toBe(`Nothing was queued: unknown policies: ${nope(10).join(', ')} and 2 more; ${cancelled}.`);
    expect(fewError.details).toHaveLength(13);
    expect(fewError.details[12]).toEqual({ field: 'policy_ids', code: 'POLICY_NOT_ACTIVE', message: 'policy POL-2026001 is cancelled', ref: 'POL-2026001' });

    const lots = await run(['--json', 'collections', 'execute', '--period', '2026-11', '--policy', ...nope(150), 'POL-2026001']);
    expect(lots.code).toBe(2);
    const lotsError = JSON.parse(lots.stderr).error;
    expect(lotsError.message).toBe(
      `Nothing was queued: unknown policies: ${nope(10).join(', ')} and 140 more; ${cancelled}. ` +
        'The details list the first 100 of the 151 policies refused; 51 more are not listed.',
    );
    expect(lotsError.details).toEqual(nope(100).map((ref) => ({ field: 'policy_ids', code: 'UNKNOWN_POLICY', message: `no policy '${ref}'`, ref })));
    // Nothing was queued.
    expect((await run(['--json', 'collections', 'list', '--period', '2026-11'])).json().data).toEqual([]);
  });
});

describe('explain, once the period has closed', () => {
  it('says on which day the income analysis was read, since it is not what the period was planned on', async () => {
    const at = await storeOf('read-later', '2026-10-31', ['R1,2026-08-25,5000.00,SALARY', 'R1,2026-09-25,5000.00,SALARY', 'R1,2026-10-23,5000.00,SALARY'], ['R1,R1,PR-1,LIFE,400.00']);
    expect((await at(['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    expect((await at(['clock', 'advance', '--to', '2026-11-30', '--yes'])).code).toBe(0);
    const id = (await at(['--json', 'collections', 'list', '--period', '2026-11'])).json().data[0].id;
    const income = async () => (await at(['--json', 'collections', 'explain', id])).json().income.description;
    const onLastDay = await income();
    expect(onLastDay).not.toContain('as read on');
    expect((await at(['clock', 'advance', '--days', '2'])).code).toBe(0);
    expect(await income()).toBe(`${onLastDay} (as read on 2026-12-02, after 2026-11 closed: not necessarily what its debits were planned on)`);
    expect((await at(['collections', 'explain', id])).stdout).toContain(`\nIncome: ${onLastDay} (as read on 2026-12-02, after 2026-11 closed: not necessarily what its debits were planned on)\n`);
  });
});

describe('explain, for a cancelled policy', () => {
  it('says when the policy was cancelled', async () => {
    const at = await storeOf('cancelled', '2026-10-31', [], ['K1,K1,PK-1,LIFE,400.00']);
    expect((await at(['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    expect((await at(['clock', 'advance', '--to', '2026-11-10'])).code).toBe(0);
    expect((await at(['policies', 'update', 'PK-1', '--status', 'cancelled'])).code).toBe(0);
    const c = (await at(['--json', 'collections', 'list', '--period', '2026-11'])).json().data[0];
    expect(c.collection_status).toBe('CANCELLED');
    const e = (await at(['--json', 'collections', 'explain', c.id])).json();
    expect([e.plan, e.summary]).toEqual([
      [],
      `CANCELLED: collected ${c.collection_amount_collected.toFixed(2)} of 400.00 in ${c.number_of_attempts} attempt${c.number_of_attempts === 1 ? '' : 's'} (period open; clock at 2026-11-10). ` +
        'The policy was cancelled on 2026-11-10: no debit of this period is made after that.',
    ]);
  });
});

describe('collections execute for a month the clock has passed', () => {
  it('before the first run, says the clock can still be set back (not that it can never be queued), and that works (issue 12)', async () => {
    // Before: "Its collections can no longer be queued.", untrue while no run exists and clock set can still move the clock back.
    const at = await storeOf('passed-unlocked', '2026-11-30', [], ['C1,E1,P1,FUNERAL,20.00']);
    const r = await at(['collections', 'execute', '--period', '2026-11']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      6,
      '',
      'error: Period 2026-11 has closed (its last day, 2026-11-30, has run; the clock is at 2026-11-30). No collections run exists yet, so the clock can still be set back ' +
        "to queue it: 'premia clock set 2026-10-31', then 'premia collections execute --period 2026-11'.\n  (code PERIOD_CLOSED)\n",
    ]);
    expect((await at(['clock', 'set', '2026-10-31'])).code).toBe(0);
    expect((await at(['--json', 'collections', 'execute', '--period', '2026-11'])).json().policies_queued).toBe(1);
    // Once a run exists, the clock is locked: a passed month can no longer be queued, and that is said.
    expect((await at(['clock', 'advance', '--to', '2026-12-31', '--yes'])).code).toBe(0);
    const locked = await at(['collections', 'execute', '--period', '2026-12']);
    expect([locked.code, locked.stderr]).toEqual([
      6,
      'error: Period 2026-12 has closed (its last day, 2026-12-31, has run; the clock is at 2026-12-31). Its collections can no longer be queued.\n  (code PERIOD_CLOSED)\n',
    ]);
  });
});
