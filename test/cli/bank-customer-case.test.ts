/**
 * Customer ids are case-sensitive (docs/bank-and-clock.md, "Importing bank transactions"): bank
 * rows for c100001 where the policies say C100001 (or 123 where they say 00123) would be a customer of their own, and the
 * policies' customer collected from a generated account. A bank import naming such ids is
 * refused, nothing stored (exit 2), unless --yes (then imported, with a warning); at a terminal
 * premia asks. Rows for customers no policy names at all are imported as before, without a word.
 * A policy import after such bank rows says so too.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Prompter } from '../../src/cli/context.js';
import { runCli, tempDir, type CliOptions } from '../helpers/cli.js';

const tmp = tempDir('premia-case-');
afterAll(() => tmp.cleanup());

const BANK_HEADER = 'customer_id,date,amount,description';
const POLICY_HEADER = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount';

let stores = 0;
/** A new store, its clock at 2026-10-31, holding a policy for each of `customers` (POL-<n>). */
async function storeWith(customers: readonly string[]) {
  const db = join(tmp.dir, `s${++stores}.db`);
  const at = (args: string[], options: Partial<CliOptions> = {}) => runCli(['--db', db, ...args], { cwd: tmp.dir, ...options, env: { NO_COLOR: '1' } });
  expect((await at(['clock', 'set', '2026-10-31'])).code).toBe(0);
  if (customers.length > 0) {
    const policies = write(`s${stores}-policies.csv`, POLICY_HEADER, customers.map((c, i) => `${c},REF-${i + 1},POL-${i + 1},LIFE,100.00`));
    expect((await at(['policies', 'import', policies])).code).toBe(0);
  }
  return at;
}

function write(name: string, header: string, rows: readonly string[]): string {
  const file = join(tmp.dir, name);
  writeFileSync(file, [header, ...rows, ''].join('\n'));
  return file;
}

/** Whether the store holds bank rows for `customer` (bank show: imported rows, or exit 5 when no policy and no row names it). */
async function source(at: Awaited<ReturnType<typeof storeWith>>, customer: string): Promise<string | number> {
  const r = await at(['--json', 'bank', 'show', customer]);
  return r.code === 0 ? (r.json().source as string) : r.code;
}

/** Answers one yes/no question, recording it. */
function answering(answer: boolean, asked: string[]): Prompter {
  const refuse = async (message: string): Promise<string> => {
    throw new Error(`unexpected question: ${message}`);
  };
  return { password: refuse, input: refuse, confirm: async (message) => (asked.push(message), answer) };
}

// Row 2: lower case; row 3: the policy's own spelling; row 4: stray spaces around a lower-case id
// (cells are trimmed, as the policy import trims them); row 5: a customer no policy names; row 6:
// c100001 again (its first row is named).
const STATEMENT = ['c100001,2026-11-02,900.00,SALARY', 'C100002,2026-11-02,800.00,SALARY', ' c100003 ,2026-11-03,700.00,SALARY', 'NOPOL-1,2026-11-04,50.00,TRANSFER', 'c100001,2026-11-05,-20.00,CARD'];
const NAMED =
  "2 customer ids of bank.csv have no policy but differ only in letter case from a policy's customer id (customer ids are case-sensitive): " +
  'c100001 (row 2) where a policy has C100001; c100003 (row 4) where a policy has C100003';

describe('bank import: customer ids that differ from a policy customer id only in letter case', () => {
  it('are refused without --yes: exit 2, every row of the file left out, the ids named with their rows', async () => {
    const at = await storeWith(['C100001', 'C100002', 'C100003']);
    const file = write('bank.csv', BANK_HEADER, STATEMENT);
    const r = await at(['bank', 'import', file]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      `error: Nothing was imported: ${NAMED}. Imported as they are, their rows are customers of their own, and the policies' customers are collected ` +
        'from generated accounts (invented money). Correct the customer ids in the file, or add --yes to import the rows as they are.\n  (code INVALID_FILE)\n',
    );
    // Nothing stored, not even the rows of the right spelling or of a customer with no policy.
    expect(await source(at, 'c100001')).toBe(5);
    expect(await source(at, 'NOPOL-1')).toBe(5);
    expect(await source(at, 'C100002')).toBe('generated');

    // --json: the error as JSON on stderr, nothing on stdout.
    const json = await at(['--json', 'bank', 'import', file]);
    expect([json.code, json.stdout]).toEqual([2, '']);
    expect(JSON.parse(json.stderr).error).toMatchObject({
      code: 'INVALID_FILE',
      details: [
        { row: 2, customer_id: 'c100001', policy_customer_id: 'C100001' },
        { row: 4, customer_id: 'c100003', policy_customer_id: 'C100003' },
      ],
    });
    expect(await source(at, 'c100001')).toBe(5);
  });

  it('are imported with --yes, and named on stderr (and in the JSON answer) all the same', async () => {
    const at = await storeWith(['C100001', 'C100002', 'C100003']);
    const file = write('bank.csv', BANK_HEADER, STATEMENT);
    const r = await at(['--yes', 'bank', 'import', file]);
    expect([r.code, r.stdout]).toEqual([0, 'Imported 5 transactions; 0 rows failed.\n']);
    expect(r.stderr).toBe(
      `warning: ${NAMED}. Their rows were imported as given, for customers of their own; the policies' customers are collected from generated accounts.\n`,
    );
    expect(await source(at, 'c100001')).toBe('imported');
    expect(await source(at, 'NOPOL-1')).toBe('imported');
    // The policies' customers: C100002's statement came; C100001's did not.
    expect(await source(at, 'C100002')).toBe('imported');
    expect(await source(at, 'C100001')).toBe('generated');

    const again = write('bank-2.csv', BANK_HEADER, ['c100001,2026-11-06,1.00,CARD']);
    const json = await at(['--yes', '--json', 'bank', 'import', again]);
    expect(json.code).toBe(0);
    expect(json.json()).toEqual({
      imported: 1,
      failed: 0,
      errors: [],
      case_mismatches: { total: 1, first: [{ row: 2, customer_id: 'c100001', policy_customer_id: 'C100001' }] },
    });
    expect(json.stderr).toBe(
      "warning: 1 customer id of bank-2.csv has no policy but differs only in letter case from a policy's customer id (customer ids are case-sensitive): " +
        "c100001 (row 2) where a policy has C100001. Their rows were imported as given, for customers of their own; the policies' customers are collected from generated accounts.\n",
    );
  });

  it('names the first five and counts the rest; the JSON lists the first ten and the total', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `CU-${String(i + 1).padStart(2, '0')}`);
    const at = await storeWith(ids);
    // In reverse order: listed by row.
    const file = write('many.csv', BANK_HEADER, [...ids].reverse().map((id) => `${id.toLowerCase()},2026-11-02,10.00,SALARY`));
    const r = await at(['bank', 'import', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: Nothing was imported: 12 customer ids of many.csv have no policy but differ only in letter case from a policy's customer id (customer ids are case-sensitive): " +
        'cu-12 (row 2) where a policy has CU-12; cu-11 (row 3) where a policy has CU-11; cu-10 (row 4) where a policy has CU-10; cu-09 (row 5) where a policy has CU-09; ' +
        "cu-08 (row 6) where a policy has CU-08; and 7 more. Imported as they are, their rows are customers of their own, and the policies' customers are collected " +
        'from generated accounts (invented money). Correct the customer ids in the file, or add --yes to import the rows as they are.\n  (code INVALID_FILE)\n',
    );
    const json = await at(['--yes', '--json', 'bank', 'import', file]);
    expect(json.code).toBe(0);
    const m = json.json().case_mismatches;
    expect(m.total).toBe(12);
    expect(m.first.map((x: { row: number; customer_id: string }) => `${x.row}:${x.customer_id}`)).toEqual([
      '2:cu-12',
      '3:cu-11',
      '4:cu-10',
      '5:cu-09',
      '6:cu-08',
      '7:cu-07',
      '8:cu-06',
      '9:cu-05',
      '10:cu-04',
      '11:cu-03',
    ]);
  });

  it('rows for customers no policy names at all, or that a policy names exactly, are imported without a word', async () => {
    // Two policies' customers differing only in case: each is a customer of its own, and both have a policy.
    const at = await storeWith(['C7', 'c7']);
    const file = write('plain.csv', BANK_HEADER, ['c7,2026-11-02,10.00,SALARY', 'C7,2026-11-02,10.00,SALARY', 'X-NEW,2026-11-02,10.00,SALARY']);
    const r = await at(['bank', 'import', file]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'Imported 3 transactions; 0 rows failed.\n', '']);
    expect(await source(at, 'X-NEW')).toBe('imported');
    // Before any policy: nothing to differ from.
    const empty = await storeWith([]);
    const first = await empty(['--json', 'bank', 'import', write('first.csv', BANK_HEADER, ['c100001,2026-11-02,10.00,SALARY'])]);
    expect([first.code, first.stdout, first.stderr]).toEqual([0, '{"imported":1,"failed":0,"errors":[]}\n', '']);
  });

  // A spreadsheet that took the policies' 00123 for a number wrote 123 in the statement.
  it('ids of digits that lost a policy customer id\'s leading zeros are refused the same way', async () => {
    const at = await storeWith(['00123', '0456', 'C0789']);
    const file = write('zeros.csv', BANK_HEADER, ['123,2026-11-02,900.00,SALARY', '0456,2026-11-02,800.00,SALARY', 'C789,2026-11-02,700.00,SALARY']);
    const r = await at(['bank', 'import', file]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      "error: Nothing was imported: 1 customer id of zeros.csv has no policy but differs only in leading zeros from a policy's customer id (customer ids are compared exactly; " +
        "a spreadsheet drops a number's leading zeros): 123 (row 2) where a policy has 00123. Imported as they are, their rows are customers of their own, and the policies' " +
        'customers are collected from generated accounts (invented money). Correct the customer ids in the file, or add --yes to import the rows as they are.\n  (code INVALID_FILE)\n',
    );
    expect(await source(at, '0456')).toBe('generated');
  });

  it('a statement refused whole for a row it cannot read is said as before, without the case check', async () => {
    const at = await storeWith(['C100001']);
    const r = await at(['--json', 'bank', 'import', write('bad.csv', BANK_HEADER, ['c100001,2026-11-02,10.00,SALARY', 'c100001,2026-13-02,10.00,SALARY'])]);
    expect(r.code).toBe(3);
    expect(r.json()).toMatchObject({ imported: 0, failed: 1 });
    expect(r.json().case_mismatches).toBeUndefined();
  });

  it('at a terminal premia asks: yes imports the file, no leaves the store as it was (exit 130)', async () => {
    const at = await storeWith(['C100001', 'C100002', 'C100003']);
    const file = write('bank.csv', BANK_HEADER, STATEMENT);
    const asked: string[] = [];
    const no = await at(['bank', 'import', file], { tty: true, prompter: answering(false, asked) });
    expect([no.code, asked]).toEqual([130, ['Import the rows as they are?']]);
    // After the line saying which store (as every command at a terminal in local mode).
    const [where, ...said] = no.stderr.split('\n');
    expect(where).toMatch(/^Local mode: store .*s\d+\.db$/);
    expect(said.join('\n')).toBe(
      `${NAMED}.\nImported as they are, their rows are customers of their own, and the policies' customers are collected from generated accounts (invented money).\nNothing changed.\n`,
    );
    expect(await source(at, 'c100001')).toBe(5);
    const yes = await at(['bank', 'import', file], { tty: true, prompter: answering(true, asked) });
    expect([yes.code, yes.stdout]).toEqual([0, 'Imported 5 transactions; 0 rows failed.\n']);
    expect(yes.stderr.split('\n').slice(1).join('\n')).toBe(
      `${NAMED}.\nImported as they are, their rows are customers of their own, and the policies' customers are collected from generated accounts (invented money).\n` +
        `warning: ${NAMED}. Their rows were imported as given, for customers of their own; the policies' customers are collected from generated accounts.\n`,
    );
    expect(await source(at, 'c100001')).toBe('imported');
  });

  // The import refused for its case mismatches, asked about, and sent again was the invocation's
  // second write, so its answer was kept under K:2, not K: a rerun under K (a cron job's, or by
  // hand) was no rerun, imported the file again (every row a duplicate, exit 3) and kept that as
  // K's answer.
  it('under --idempotency-key, a yes at the terminal keeps the answer under the key given: a rerun repeats it', async () => {
    const at = await storeWith(['C100001', 'C100002', 'C100003']);
    const file = write('bank-keyed.csv', BANK_HEADER, STATEMENT);
    const keyed = ['--idempotency-key', 'bank-2026-11', 'bank', 'import', file];
    const asked: string[] = [];
    const yes = await at(keyed, { tty: true, prompter: answering(true, asked) });
    expect([yes.code, yes.stdout, asked]).toEqual([0, 'Imported 5 transactions; 0 rows failed.\n', ['Import the rows as they are?']]);
    const warning = `warning: ${NAMED.replace('bank.csv', 'bank-keyed.csv')}. Their rows were imported as given, for customers of their own; the policies' customers are collected from generated accounts.\n`;
    // Rerun unattended (no --yes) and on a terminal: the first run's answer, nothing asked, nothing
    // imported again, and said to be that answer.
    const repeated =
      "warning: that is the answer of an earlier run with idempotency key 'bank-2026-11', repeated: nothing was imported now. Run it with a new idempotency key (or none) to act now.\n";
    const cron = await at(keyed);
    expect([cron.code, cron.stdout, cron.stderr]).toEqual([0, yes.stdout, `${warning}${repeated}`]);
    const byHand = await at(keyed, { tty: true, prompter: answering(true, asked) });
    expect([byHand.code, byHand.stdout, asked]).toEqual([0, yes.stdout, ['Import the rows as they are?']]);
    const shown = (await at(['--json', 'bank', 'show', 'c100001'])).json();
    expect(shown.source).toBe('imported');
  });
});

describe('policies import after bank rows whose customer ids differ only in letter case', () => {
  it('imports the policies and names the bank rows\' customer ids (stderr and JSON)', async () => {
    const at = await storeWith([]);
    const bank = write('early.csv', BANK_HEADER, ['c100001,2026-11-02,900.00,SALARY', 'C100002,2026-11-02,900.00,SALARY', 'NOPOL-1,2026-11-02,9.00,X']);
    expect((await at(['bank', 'import', bank])).code).toBe(0);
    const policies = write('late.csv', POLICY_HEADER, ['C100001,R1,POL-1,LIFE,100.00', 'C100002,R2,POL-2,LIFE,100.00']);
    const r = await at(['policies', 'import', policies]);
    expect([r.code, r.stdout]).toEqual([0, 'Imported 2 policies; 0 rows failed.\n']);
    expect(r.stderr).toBe(
      "warning: 1 customer id of the bank rows stored has no policy but differs only in letter case from a policy's customer id (customer ids are case-sensitive): " +
        "c100001 where a policy has C100001. The policies' customers are collected from generated accounts, not from those rows; import their statements under the policies' customer ids.\n",
    );
    const json = await at(['--json', 'policies', 'import', write('later.csv', POLICY_HEADER, ['C100001,R1,POL-3,LIFE,100.00'])]);
    expect(json.code).toBe(0);
    expect(json.json()).toEqual({ imported: 1, failed: 0, errors: [], case_mismatches: { total: 1, first: [{ customer_id: 'c100001', policy_customer_id: 'C100001' }] } });
  });
});
