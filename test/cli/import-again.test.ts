/**
 * An import run again (a tired operator, a cron job run twice) is told apart from a file with
 * errors: when nothing was imported and every row listed is one already stored, a warning after
 * the table says the file looks imported before. Before, the run ended in one DUPLICATE_* line a
 * row (up to 10,000 of them) and nothing else.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
let db: string;
beforeAll(async () => {
  ({ dir, cleanup } = tempDir('premia-import-again-'));
  db = join(dir, 's.db');
  expect((await premia(['policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
  expect((await premia(['bank', 'import', join(FIXTURES, 'bank-transactions.csv')])).code).toBe(0);
});
afterAll(() => cleanup());

const premia = (args: string[]) => runCli(['--db', db, ...args], { cwd: dir });
const AGAIN = 'warning: Every row is already in the store: this file looks imported before. Nothing changed.\n';

describe('an import run a second time', () => {
  it('policies: every row a duplicate, the warning after the table (exit 3)', async () => {
    const r = await premia(['policies', 'import', join(FIXTURES, 'policies.csv')]);
    expect(r.code).toBe(3);
    expect(r.stdout.split('\n')[0]).toBe('Imported 0 policies; 520 rows failed.');
    expect(r.stderr).toBe(AGAIN);
  });

  it('bank rows: every row a duplicate, the same warning (exit 3)', async () => {
    const r = await premia(['bank', 'import', join(FIXTURES, 'bank-transactions.csv')]);
    expect(r.code).toBe(3);
    expect(r.stdout.split('\n')[0]).toBe('Imported 0 transactions; 473 rows failed.');
    expect(r.stderr).toBe(AGAIN);
  });

  it('no warning when a row was imported, or when a row failed for another reason', async () => {
    const header = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
    writeFileSync(join(dir, 'one-new.csv'), `${header}C100001,ACME-707919,POL-2026001,DISABILITY,870.08\nC900001,REF-1,POL-NEW-1,LIFE,10.00\n`);
    const oneNew = await premia(['policies', 'import', 'one-new.csv']);
    expect([oneNew.code, oneNew.stdout.split('\n')[0], oneNew.stderr]).toEqual([3, 'Imported 1 policy; 1 row failed.', '']);
    writeFileSync(join(dir, 'one-bad.csv'), `${header}C100001,ACME-707919,POL-2026001,DISABILITY,870.08\nC900002,REF-2,POL-NEW-2,LIFE,ten\n`);
    const oneBad = await premia(['policies', 'import', 'one-bad.csv']);
    expect([oneBad.code, oneBad.stdout.split('\n')[0], oneBad.stderr]).toEqual([3, 'Imported 0 policies; 2 rows failed.', '']);
  });
});

describe('a bank history imported after the first collections run', () => {
  it('every row refused for a lived day or an account in use: the warning says the order, and how to use the file (exit 3)', async () => {
    const after = join(dir, 'after.db');
    const at = (args: string[]) => runCli(['--db', after, ...args], { cwd: dir });
    expect((await at(['policies', 'import', join(FIXTURES, 'policies.csv')])).code).toBe(0);
    expect((await at(['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    const r = await at(['bank', 'import', join(FIXTURES, 'bank-transactions.csv')]);
    expect(r.code).toBe(3);
    expect(r.stdout.split('\n')[0]).toBe('Imported 0 transactions; 473 rows failed.');
    expect(r.stderr).toBe(
      "warning: Nothing was imported: a collections run exists, so the days up to the clock's date are lived and the accounts premia collects from keep their history. " +
        'A bank history is imported before the first collections run (premia bank import, then premia collections execute); to collect with this one, import it into a new store first.\n',
    );
    // (The clock is at 2026-11-21.) A row for a later day of a customer premia does not collect
    // from is still imported: no warning.
    writeFileSync(join(dir, 'later.csv'), 'customer_id,date,amount,description\nC999999,2026-11-25,100.00,SALARY\nC100001,2026-08-03,-640.15,CARD PURCHASE\n');
    const later = await at(['bank', 'import', 'later.csv']);
    expect([later.code, later.stdout.split('\n')[0], later.stderr]).toEqual([3, 'Imported 1 transaction; 1 row failed.', '']);
  });
});
