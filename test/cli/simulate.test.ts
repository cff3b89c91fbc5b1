/** `premia simulate`: the README's main job. */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { percentOf } from '../../src/cli/output/format.js';
import { REPO, runCli, tempDir, type CliResult } from '../helpers/cli.js';

const tmp = tempDir('premia-sim-');
afterAll(() => tmp.cleanup());

/**
 * Simulating a month costs seconds, so the tests share runs: two months into `a`, the same into
 * `b`, one month of seed 7 into `c` with PREMIA_DB exported, the oracle's month on a store file
 * (which the refusal test simulates on again). Each run starts when a test first needs it.
 */
const runs = new Map<string, Promise<CliResult>>();
function shared(name: string, args: string[], env?: Record<string, string>): Promise<CliResult> {
  let r = runs.get(name);
  if (r === undefined) runs.set(name, (r = runCli(args, { cwd: tmp.dir, env })));
  return r;
}
const twoMonths = (name: 'a' | 'b') => shared(name, ['simulate', '--json', '--months', '2', '--out', name]);
const ORACLE_DB = join(tmp.dir, 'oracle.db');
const oracle = () => shared('oracle', ['--db', ORACLE_DB, 'simulate', '--bank', 'none', '--strategy', 'oracle', '--out', 'oracle']);
const EXPORTED_DB = join(tmp.dir, 'real.db');
const seven = () => shared('c', ['--seed', '7', 'simulate', '--json', '--out', 'c'], { PREMIA_DB: EXPORTED_DB });


describe('premia simulate', () => {
  it('runs the month on the shipped fixtures: summary, settlement, files', async () => {
    const dir = join(tmp.dir, 'a');
    const r = await twoMonths('a');
    expect(r.code).toBe(0);
    const s = r.json();
    expect([s.seed, s.strategy, s.months.length]).toEqual([1, 'smart', 2]);
    const m = s.months[0];
    expect(m).toMatchObject({
      period_month: '2026-11',
      policies: 520,
      by_status: { PAID_FULL: 485, PAID_PARTIAL: 18, UNPAID: 16, CANCELLED: 1 },
      due: 518983.09,
      collected: 470925.10,
      collection_rate_amount: 0.9074,
      collection_rate_count: 0.9327,
      attempts: 543,
      failed_attempts: 8,
      amount_changes: 8,
      cancellations: 1,
      lapsed_policies: 0,
    });
    // The settlement reconciles with the report's collected total, to the cent.
    expect(m.settlement).toMatchObject({
      settlement_number: 'SETTLE-2026-11-001',
      period_month: '2026-11',
      total_collections: 470925.10,
      distribution_fee: 117731.28,
      collections_fee: 16482.38,
      total_fees: 134213.66,
      vat: 20132.05,
      net_amount: 316579.39,
      payment_date: '2026-12-03',
      status: 'pending',
    });
    expect(readdirSync(join(dir, '2026-11')).sort()).toEqual([
      '.premia-simulate.json', // the files it wrote, with their SHA-256 (a rerun replaces only those)
      'SETTLE-2026-11-001-lines.csv',
      'SETTLE-2026-11-001.csv',
      'attempts-2026-11.csv',
      'collections-2026-11.csv',
      'summary-2026-11.html',
    ]);
    const report = readFileSync(join(dir, '2026-11', 'collections-2026-11.csv'), 'utf8').split('\n');
    expect(report[0]).toBe(
      'period_month,customer_id,external_customer_ref,policy_number,product_code,collection_amount_due,collection_amount_collected,shortfall,collection_status,first_attempt_date,last_attempt_date,number_of_attempts,last_failure_reason',
    );
    expect(report.length).toBe(522); // header, 520 rows, final newline
    const collectedCents = report.slice(1, -1).reduce((sum, line) => sum + Math.round(Number(line.split(',')[6]) * 100), 0);
    expect(collectedCents).toBe(47092510);
    const statement = readFileSync(join(dir, '2026-11', 'SETTLE-2026-11-001.csv'), 'utf8');
    expect(statement).toBe(
      'settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference\n' +
        'SETTLE-2026-11-001,2026-11,470925.10,117731.28,16482.38,134213.66,20132.05,316579.39,2026-12-03,PRM2611001-28KTXAGP\n',
    );
    const byPattern = Object.fromEntries(m.by_income_pattern.map((p: { pattern: string; policies: number }) => [p.pattern, p.policies]));
    expect(byPattern).toEqual({ monthly_fixed_day: 161, irregular: 112, monthly_last_business_day: 76, twice_monthly: 59, weekly: 61, fortnightly: 50, none: 1 });
  });

  it('the same seed gives byte-identical output and files; another seed differs', async () => {
    const output = async (name: 'a' | 'b') => {
      const r = await twoMonths(name);
      expect(r.code).toBe(0);
      return r.stdout + readFileSync(join(tmp.dir, name, '2026-12', 'attempts-2026-12.csv'), 'utf8');
    };
    const a = await output('a');
    expect(await output('b')).toBe(a.replaceAll('"a/', '"b/'));
    const c = await seven();
    expect(c.code).toBe(0);
    const novemberAttempts = (name: string) => readFileSync(join(tmp.dir, name, '2026-11', 'attempts-2026-11.csv'), 'utf8');
    expect(novemberAttempts('c')).not.toBe(novemberAttempts('a'));
    expect(c.json().months[0].collected).not.toBe(470925.10); // seed 1's November
  });

  it('on a new --db file too, without --seed: the month made in memory (its ids from the default seed)', async () => {
    const r = await runCli(['simulate', '--db', join(tmp.dir, 'newdb.db'), '--out', join(tmp.dir, 'newdb')], { cwd: tmp.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('reference PRM2611001-28KTXAGP'); // the README's, made in memory
    // Byte for byte the in-memory run's files (`a`, shared with the tests above; its December
    // does not touch November's files).
    const memory = await twoMonths('a');
    expect(memory.code).toBe(0);
    for (const file of ['collections-2026-11.csv', 'attempts-2026-11.csv', 'SETTLE-2026-11-001.csv']) {
      expect(readFileSync(join(tmp.dir, 'newdb', '2026-11', file), 'utf8'), file).toBe(readFileSync(join(tmp.dir, 'a', '2026-11', file), 'utf8'));
    }
  });

  it('several months: a second settlement, premium changes and lapses show', async () => {
    const r = await twoMonths('a');
    const months = r.json().months;
    expect(months.map((m: { settlement: { settlement_number: string } }) => m.settlement.settlement_number)).toEqual(['SETTLE-2026-11-001', 'SETTLE-2026-12-001']);
    expect(months[1].lapsed_policies).toBe(14);
    expect(months[1].policies).toBe(519); // one cancelled in November is not queued again
  });

  it('refuses bad options and a store that already has a run', async () => {
    expect((await runCli(['simulate', '--period', '2026-13'], { cwd: tmp.dir })).code).toBe(2);
    expect((await runCli(['simulate', '--months', '0'], { cwd: tmp.dir })).code).toBe(2);
    expect((await runCli(['simulate', '--policies', 'missing.csv'], { cwd: tmp.dir })).code).toBe(2);
    // The oracle's month ran on this store: a second simulate is refused.
    expect((await oracle()).code).toBe(0);
    const again = await runCli(['--db', ORACLE_DB, 'simulate', '--out', 'used'], { cwd: tmp.dir });
    expect(again.code).toBe(6);
    expect(again.stderr).toContain('already has a collections run; simulate needs a new store');
  });

  /** A prepare hook that changes the backend the command opens before the command uses it. */
  type Ctx = Parameters<NonNullable<Parameters<typeof runCli>[1]>['prepare'] & {}>[0];
  const onBackend = (change: (b: Awaited<ReturnType<Ctx['backend']>>) => void) => (ctx: Ctx) => {
    const open = ctx.backend;
    ctx.backend = async (globals, options) => {
      const b = await open(globals, options);
      change(b);
      return b;
    };
  };

  // Two simulates started together on one new --db (two cron jobs): both found it new, and the
  // one that came second was told "The clock is at 2026-10-31 and a collections run exists, so it
  // can no longer be set; move it forward with 'premia clock advance'", a command it never ran.
  it('a run made in the store by another process after it was looked at: the same refusal as a store that had one', async () => {
    const db = join(tmp.dir, 'race.db');
    const r = await runCli(['--db', db, 'simulate', '--out', 'race'], {
      cwd: tmp.dir,
      prepare: onBackend((b) => {
        const setClock = b.setClock.bind(b);
        // The other simulate queues its month between this one's look and its clock set.
        b.setClock = async (date) => {
          expect((await runCli(['--db', db, 'collections', 'execute', '--period', '2026-11'], { cwd: tmp.dir })).code).toBe(0);
          return setClock(date);
        };
      }),
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      6,
      '',
      `error: The store ${db} already has a collections run; simulate needs a new store (choose another --db, or none for a temporary one).\n  (code CONFLICT)\n`,
    ]);
  });

  // Or it set its clock first, and found every policy of its book a duplicate of the other's:
  // "None of the 520 policy rows … could be imported (… already exists; update it instead …)".
  it('a run made by another process between its clock set and its import: the same refusal', async () => {
    const db = join(tmp.dir, 'race-import.db');
    const r = await runCli(['--db', db, 'simulate', '--bank', 'none', '--out', 'race-import'], {
      cwd: tmp.dir,
      prepare: onBackend((b) => {
        const importPolicies = b.importPolicies.bind(b);
        b.importPolicies = async (upload, opts) => {
          for (const args of [['policies', 'import', join(REPO, 'fixtures', 'policies.csv')], ['collections', 'execute', '--period', '2026-11']]) {
            expect((await runCli(['--db', db, ...args], { cwd: tmp.dir })).code).toBe(0);
          }
          return importPolicies(upload, opts);
        };
      }),
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      6,
      '',
      `error: The store ${db} already has a collections run; simulate needs a new store (choose another --db, or none for a temporary one).\n  (code CONFLICT)\n`,
    ]);
  });

  it('--policies - and --bank - together: a usage error, not a bank file found empty', async () => {
    const r = await runCli(['simulate', '--policies', '-', '--bank', '-', '--out', 'both-stdin'], { cwd: tmp.dir, stdin: 'customer_id\n' });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: --policies and --bank cannot both be - (stdin is read once); give one of them as a file.\n  (code USAGE_ERROR)\n',
    ]);
    expect(existsSync(join(tmp.dir, 'both-stdin'))).toBe(false);
  });

  it('refuses a store that holds policies of its own, and changes nothing in it', async () => {
    const book = join(tmp.dir, 'book.db');
    const own = join(tmp.dir, 'own.csv');
    writeFileSync(own, 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC9,E9,OWN-1,LIFE,10.00\n');
    expect((await runCli(['--db', book, 'policies', 'import', own], { cwd: tmp.dir })).code).toBe(0);
    const before = readFileSync(book);
    const r = await runCli(['--db', book, 'simulate', '--out', 'unused'], { cwd: tmp.dir });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`The store ${book} already holds policies; simulate needs a new store (choose another --db, or none for a temporary one). Nothing changed.`);
    expect(readFileSync(book).equals(before)).toBe(true);
  });

  // A statement refused whole ran the month on generated accounts, exit 0, with a warning that
  // named no row: the files written were not the simulation of the history asked for.
  it('a bank file with a row it cannot read: INVALID_FILE, exit 2, naming the row; nothing run or written', async () => {
    const bank = join(tmp.dir, 'foreign-bank.csv');
    writeFileSync(bank, 'customer_id,date,amount,description\nC100001,2026-10-25,9800.00,SALARY\nTotal,,9800.00,\n');
    const r = await runCli(['--json', 'simulate', '--bank', 'foreign-bank.csv', '--out', 'foreign'], { cwd: tmp.dir });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(JSON.parse(r.stderr).error).toEqual({
      code: 'INVALID_FILE',
      message:
        "The bank file foreign-bank.csv could not be imported (row 3: date is empty); a statement is imported whole or not at all, so nothing was run.",
      request_id: null,
    });
    expect(existsSync(join(tmp.dir, 'foreign'))).toBe(false);
    // On a --db store too, which is left as it was: the corrected file then runs on it.
    const db = join(tmp.dir, 'foreign.db');
    const onDb = await runCli(['--db', db, 'simulate', '--bank', 'foreign-bank.csv', '--out', 'foreign'], { cwd: tmp.dir });
    expect([onDb.code, onDb.stderr]).toEqual([
      2,
      "error: The bank file foreign-bank.csv could not be imported (row 3: date is empty); a statement is imported whole or not at all, so nothing was run.\n  (code INVALID_FILE)\n",
    ]);
    writeFileSync(bank, 'customer_id,date,amount,description\nC100001,2026-10-25,9800.00,SALARY\n');
    const fixed = await runCli(['--db', db, 'simulate', '--bank', 'foreign-bank.csv', '--out', 'foreign'], { cwd: tmp.dir });
    expect([fixed.code, fixed.stderr]).toEqual([0, '']);
  });

  it('policy rows refused: the warning names the first rows and their problems, and the command that lists them all', async () => {
    const header = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
    const bad = Array.from({ length: 5 }, (_, i) => `C${i},E${i},BAD-${i},LIFE,1e3\n`).join('');
    writeFileSync(join(tmp.dir, 'some-bad.csv'), `${header}C9,E9,GOOD-1,LIFE,100.00\n${bad}`);
    const r = await runCli(['--json', 'simulate', '--policies', 'some-bad.csv', '--bank', 'none', '--out', 'some-bad'], { cwd: tmp.dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "warning: 5 policy rows were refused (row 3: collection_amount '1e3' uses exponent notation; write a plain decimal like 149.50; " +
        "row 4: collection_amount '1e3' uses exponent notation; write a plain decimal like 149.50; " +
        "row 5: collection_amount '1e3' uses exponent notation; write a plain decimal like 149.50; " +
        "and 2 more problems: 'premia policies import some-bad.csv' lists them all).\n",
    );
  });

  it("a bank file whose customer ids differ from the policies' only in letter case: the warning names them, and the month runs", async () => {
    const header = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
    writeFileSync(join(tmp.dir, 'case-policies.csv'), `${header}C1,E1,POL-1,LIFE,100.00\nC2,E2,POL-2,LIFE,100.00\n`);
    writeFileSync(join(tmp.dir, 'case-bank.csv'), 'customer_id,date,amount,description\nc1,2026-10-25,9800.00,SALARY\nC2,2026-10-25,9800.00,SALARY\n');
    const r = await runCli(['--json', 'simulate', '--policies', 'case-policies.csv', '--bank', 'case-bank.csv', '--out', 'case'], { cwd: tmp.dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "warning: 1 customer id of case-bank.csv has no policy but differs only in letter case from a policy's customer id (customer ids are case-sensitive): " +
        "c1 where a policy has C1. This simulation collects from those policies' customers on generated accounts, not on those rows; correct the customer ids in the bank file to run them on its rows.\n",
    );
  });

  // A header-only (or wholly refused) policy file ran an empty month and then failed on the
  // settlement, "Period 2026-11 has no collections: it was never executed", exit 6, files written.
  it('a policy file with no policy it can import: INVALID_FILE, exit 2, nothing run or written', async () => {
    const header = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
    writeFileSync(join(tmp.dir, 'header-only.csv'), header);
    writeFileSync(join(tmp.dir, 'all-bad.csv'), `${header}C1,E1,P-1,LIFE,abc\nC1,E1,P-2,LIFE,-1\n`);
    const empty = await runCli(['simulate', '--policies', 'header-only.csv', '--out', 'empty'], { cwd: tmp.dir });
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([
      2,
      '',
      'error: The policy file header-only.csv holds no policies (a header and no rows), so there is nothing to simulate. Nothing was run.\n  (code INVALID_FILE)\n',
    ]);
    const bad = await runCli(['--json', 'simulate', '--policies', 'all-bad.csv', '--out', 'empty'], { cwd: tmp.dir });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error).toEqual({
      code: 'INVALID_FILE',
      message:
        "None of the 2 policy rows of all-bad.csv could be imported (row 2: collection_amount 'abc' is not a number; give a premium like 149.50; " +
        "row 3: collection_amount '-1' is negative; it must be greater than 0.00), so there is nothing to simulate. Nothing was run.",
      request_id: null,
    });
    expect(existsSync(join(tmp.dir, 'empty'))).toBe(false);
  });

  it('a --db store kept from a run whose policy file was refused holds the bank file already: the next run says so once and runs', async () => {
    const db = join(tmp.dir, 'kept.db');
    writeFileSync(join(tmp.dir, 'none-good.csv'), 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P-1,LIFE,abc\n');
    writeFileSync(join(tmp.dir, 'foreign-ok.csv'), 'customer_id,date,amount,description\nC100001,2026-10-25,9800.00,SALARY\n');
    expect((await runCli(['--db', db, 'simulate', '--policies', 'none-good.csv', '--bank', 'foreign-ok.csv', '--out', 'kept'], { cwd: tmp.dir })).code).toBe(2);
    const r = await runCli(['--db', db, 'simulate', '--bank', 'foreign-ok.csv', '--out', 'kept'], { cwd: tmp.dir });
    expect([r.code, r.stderr]).toEqual([0, 'warning: Every row of foreign-ok.csv is in the store already (an earlier import); they are used as they are.\n']);
  });

  // The refusal named the rows the store held already (the first by row), not the one that
  // refused the file, as if those were what was wrong with it.
  it('a bank file refused whole on a --db store that holds its first rows: the refusal names the row it cannot read', async () => {
    const db = join(tmp.dir, 'held.db');
    writeFileSync(join(tmp.dir, 'none-good.csv'), 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P-1,LIFE,abc\n');
    const rows = Array.from({ length: 4 }, (_, i) => `C100001,2026-10-0${i + 1},${i + 1}.00,SPAZA\n`).join('');
    writeFileSync(join(tmp.dir, 'held.csv'), `customer_id,date,amount,description\n${rows}`);
    expect((await runCli(['--db', db, 'simulate', '--policies', 'none-good.csv', '--bank', 'held.csv', '--out', 'held'], { cwd: tmp.dir })).code).toBe(2);
    writeFileSync(join(tmp.dir, 'held.csv'), `customer_id,date,amount,description\n${rows}C100001,2026-10-25,"9,800.00",SALARY\n`);
    const r = await runCli(['--db', db, 'simulate', '--bank', 'held.csv', '--out', 'held'], { cwd: tmp.dir });
    expect([r.code, r.stderr]).toEqual([
      2,
      "error: The bank file held.csv could not be imported (row 6: amount '9,800.00' has a thousands separator; write it without one, like -1200.50; " +
        "row 2: C100001 already has this transaction on 2026-10-01 from an earlier import; a statement is imported once; " +
        "row 3: C100001 already has this transaction on 2026-10-02 from an earlier import; a statement is imported once; " +
        "and 2 more problems: 'premia bank import held.csv' lists them all); a statement is imported whole or not at all, so nothing was run.\n  (code INVALID_FILE)\n",
    ]);
  });

  it('PREMIA_DB does not choose its store: the fixtures never land in the store a shell exported', async () => {
    const r = await seven();
    expect(r.code).toBe(0);
    expect(r.json().months[0].period_month).toBe('2026-11');
    expect(existsSync(EXPORTED_DB)).toBe(false);
  });

  it('percentages are rounded once from the exact figures (93.647 %: 93.6 %, not 93.7 %)', async () => {
    // 486012.62 of 518983.09 (the oracle's figure before the business-day calendar) is 93.647 %.
    expect(percentOf(48601262, 51898309)).toBe('93.6%');
    const r = await oracle();
    expect(r.code).toBe(0);
    // Off a terminal money is not grouped (docs/terminal.md); on one it reads 479,440.15 of 518,983.09.
    expect(r.stdout).toContain('collected 479440.15 of 518983.09 due: 92.4% by amount, 92.9% of policies paid in full');
  });

  it('a rerun replaces its own files, never one it did not write there (exit 6, nothing run)', async () => {
    const args = ['simulate', '--bank', 'none', '--out', 'rerun'];
    const dir = join(tmp.dir, 'rerun', '2026-11');
    const report = join(dir, 'collections-2026-11.csv');
    expect((await runCli(args, { cwd: tmp.dir })).code).toBe(0);
    const first = readFileSync(report);
    const again = await runCli(args, { cwd: tmp.dir });
    expect(again.code).toBe(0);
    expect(readFileSync(report).equals(first)).toBe(true);
    // A real month's report kept under the same name is left as it is, and nothing runs.
    writeFileSync(report, 'real\n');
    const refused = await runCli(args, { cwd: tmp.dir });
    expect(refused.code).toBe(6);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      "error: premia simulate writes 2026-11's files into rerun/2026-11, which holds rerun/2026-11/collections-2026-11.csv: premia simulate did not write it there " +
        '(or it changed since), so it is left as it is and nothing was run. Move it away, or give another --out.\n  (code CONFLICT)\n',
    );
    expect(readFileSync(report, 'utf8')).toBe('real\n');
    // One of its own files changed since is not its own any more either.
    writeFileSync(report, first);
    writeFileSync(join(dir, 'SETTLE-2026-11-001.csv'), 'edited\n');
    const edited = await runCli(args, { cwd: tmp.dir });
    expect(edited.code).toBe(6);
    expect(edited.stderr).toContain('which holds rerun/2026-11/SETTLE-2026-11-001.csv: premia simulate did not write it there');
    expect(readFileSync(join(dir, 'SETTLE-2026-11-001.csv'), 'utf8')).toBe('edited\n');
  });

  it('the quick start: the built binary, from any directory', () => {
    const r = spawnSync(process.execPath, [join(REPO, 'bin', 'premia.js'), 'simulate'], { cwd: tmp.dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Settlement SETTLE-2026-11-001 (pending; EFT on 2026-12-03, reference PRM2611001-28KTXAGP)');
    // A pipe: money not grouped (the README shows a terminal's 470,925.10).
    expect(r.stdout).toContain('collected 470925.10 of 518983.09 due: 90.7% by amount, 93.3% of policies paid in full');
    // The statement's money right-aligned, so it reads as a sum (as settlements get shows it).
    expect(r.stdout).toContain(
      '\ntotal_collections       470925.10\n' +
        'distribution_fee (25%)  117731.28\n' +
        'collections_fee (3.5%)   16482.38\n' +
        'total_fees              134213.66\n' +
        'vat (15% of fees)        20132.05\n' +
        'net_amount              316579.39\n',
    );
    expect(r.stderr).toBe('');
  });
});
