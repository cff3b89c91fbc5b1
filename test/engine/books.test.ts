/**
 * The independent books of bench/books (issue 12): the generator is deterministic and complete,
 * its paydays follow the South African business-day calendar, and the scoring harness, run
 * through premia's own commands on one small book, gives figures that respect what the oracle
 * is in premia's design: it takes, each day from the first day after the run is queued, what the
 * balance holds (after the day's credits, before the account's own debits) up to what is due, and
 * makes no attempt on a blocked account. Per customer nothing can collect more than that, so per
 * family the oracle is an upper bound for smart and naive, and it never fails; queued a day later
 * (its first debit then falls on smart's and naive's first debit day) it still bounds them.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Plain ESM JavaScript of the bench (run with `node`), typed here by inference (allowJs).
import { dayOf, holidayName, isoOf, lastBusinessDay, payDate } from '../../bench/books/calendar.js';
import { FAMILIES, generateBook, writeBook } from '../../bench/books/generate.js';
import { scoreBook, figures, STRATEGIES } from '../../bench/books/score.js';
import { runCli } from '../helpers/cli.js';

const SEED = 7;
const CUSTOMERS = 150;

describe('the business-day calendar', () => {
  it('moves pay due on a weekend or public holiday to the business day before', () => {
    expect(isoOf(payDate(2026, 11, 1))).toBe('2026-10-30'); // Sunday 1 November → Friday 30 October
    expect(isoOf(payDate(2026, 12, 16))).toBe('2026-12-15'); // Day of Reconciliation (Wednesday)
    expect(isoOf(payDate(2026, 12, 25))).toBe('2026-12-24'); // Christmas (Friday)
    expect(isoOf(payDate(2027, 1, 1))).toBe('2026-12-31'); // New Year (Friday) → Thursday in the year before
    expect(isoOf(payDate(2026, 8, 10))).toBe('2026-08-07'); // Women's Day on Sunday 9 August: Monday 10 is the holiday
    expect(isoOf(payDate(2026, 4, 6))).toBe('2026-04-02'); // Family Day, after Good Friday 3 April
    expect(isoOf(payDate(2026, 11, 25))).toBe('2026-11-25'); // a Wednesday: no move
    expect(isoOf(lastBusinessDay(2026, 10))).toBe('2026-10-30'); // Saturday 31 October
    expect(isoOf(lastBusinessDay(2027, 1))).toBe('2027-01-29');
    expect(holidayName(dayOf('2027-03-22'))).toBe('Human Rights Day (observed)'); // 21 March 2027 is a Sunday
    expect(holidayName(dayOf('2027-12-27'))).toBe('Day of Goodwill (observed)'); // 26 December 2027 is a Sunday
    expect(holidayName(dayOf('2026-12-26'))).toBe('Day of Goodwill'); // a Saturday: no Monday off
    expect(holidayName(dayOf('2026-12-28'))).toBe(null);
  });
});

describe('the generator', () => {
  const book = generateBook({ seed: SEED, period: '2026-11', customers: CUSTOMERS });

  it('is deterministic: the same seed gives the same bytes, another seed another book', () => {
    const again = generateBook({ seed: SEED, period: '2026-11', customers: CUSTOMERS });
    expect(again.policiesCsv).toBe(book.policiesCsv);
    expect(again.bankCsv).toBe(book.bankCsv);
    expect(again.familiesCsv).toBe(book.familiesCsv);
    const other = generateBook({ seed: SEED + 1, period: '2026-11', customers: CUSTOMERS });
    expect(other.bankCsv).not.toBe(book.bankCsv);
    expect(other.familiesCsv).not.toBe(book.familiesCsv);
  });

  it('has every family, labels every customer, and keeps the families out of the CSVs premia reads', () => {
    const rows = book.familiesCsv.trimEnd().split('\n').slice(1).map((l: string) => l.split(','));
    expect(rows).toHaveLength(CUSTOMERS);
    const present = new Set(rows.map((r: string[]) => r[1]));
    expect([...present].sort()).toEqual(FAMILIES.map((f: { name: string }) => f.name).sort());
    const policyCustomers = new Set(book.policiesCsv.trimEnd().split('\n').slice(1).map((l: string) => l.split(',')[0]));
    expect(policyCustomers.size).toBe(CUSTOMERS);
    const bankCustomers = new Set(book.bankCsv.trimEnd().split('\n').slice(1).map((l: string) => l.split(',')[0]));
    expect(bankCustomers.size).toBe(CUSTOMERS); // every customer has imported history: none gets a generated account
    for (const f of FAMILIES) {
      expect(book.policiesCsv.includes(f.name)).toBe(false);
      expect(book.bankCsv.includes(f.name)).toBe(false);
    }
    // multi_policy customers hold two or three policies, everyone else one
    const perCustomer = new Map<string, number>();
    for (const l of book.policiesCsv.trimEnd().split('\n').slice(1)) perCustomer.set(l.split(',')[0]!, (perCustomer.get(l.split(',')[0]!) ?? 0) + 1);
    for (const r of rows) expect(r[1] === 'multi_policy' ? [2, 3] : [1]).toContain(perCustomer.get(r[0]!));
  });

  it('pays a 1st-of-the-month earner for November 2026 on Friday 30 October, and nothing in November', () => {
    const payers = book.familiesCsv
      .split('\n')
      .filter((l: string) => /^[^,]+,(monthly_fixed|tight|multi_policy|closed_stopped),monthly day 1,/.test(l) && !/changed job|late/.test(l))
      .map((l: string) => l.split(',')[0]);
    expect(payers.length).toBeGreaterThan(0);
    for (const id of payers) {
      // pay-sized credits (side income is at most 800.00)
      const pays = book.bankCsv
        .split('\n')
        .filter((l: string) => l.startsWith(`${id},`))
        .map((l: string) => l.split(','))
        .filter((f: string[]) => Number(f[2]) > 1000 && f[3] !== 'BALANCE BROUGHT FORWARD')
        .map((f: string[]) => f[1]);
      expect(pays).toEqual(['2026-06-01', '2026-07-01', '2026-07-31', '2026-09-01', '2026-10-01', '2026-10-30']);
    }
  });

  it('closes, stops and freezes accounts with premia\'s event rows, inside the period', () => {
    const events = book.bankCsv.split('\n').filter((l: string) => /,0\.00,(ACCOUNT_CLOSED|PAYMENT_STOPPED|ACCOUNT_FROZEN)$/.test(l));
    const closedStopped = book.familiesCsv.split('\n').filter((l: string) => l.includes(',closed_stopped,')).length;
    expect(events).toHaveLength(closedStopped);
    for (const e of events) expect(e.split(',')[1]! >= '2026-11-02' && e.split(',')[1]! <= '2026-11-30').toBe(true);
    // a closed account has no row after its closing day
    for (const e of events.filter((l: string) => l.endsWith('ACCOUNT_CLOSED'))) {
      const [id, date] = e.split(',');
      const later = book.bankCsv.split('\n').filter((l: string) => l.startsWith(`${id},`) && l.split(',')[1]! > date!);
      expect(later).toEqual([]);
    }
  });
});

describe('the harness on one small book (November 2026, queued on 31 October)', () => {
  let dir: string;
  let result: { runs: Array<{ start: string; strategy: string; families: Record<string, any>; overall: any }> };
  // The same book queued on Saturday 28 November, after every closing, stop and freeze (the 2nd
  // to the 27th): every strategy's first debit day, Monday 30 November, finds them in force.
  let late: typeof result;
  let policies: number;

  beforeAll(async () => {
    // stores in memory where the machine has a tmpfs: a month's daily commits wait on no disk
    dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'premia-books-test-'));
    const book = generateBook({ seed: SEED, period: '2026-11', customers: CUSTOMERS });
    policies = book.meta.policies;
    const files = writeBook(book, dir);
    const familyOf = new Map<string, string>(book.familiesCsv.trimEnd().split('\n').slice(1).map((l: string) => l.split(',').slice(0, 2) as [string, string]));
    const cli = (args: string[]) => runCli(args, { cwd: dir });
    result = await scoreBook({
      cli,
      policiesFile: files.policies,
      bankFile: files.bank,
      familyOf: (id: string) => familyOf.get(id),
      period: '2026-11',
      starts: ['prev'],
      workDir: dir,
      keepDir: undefined,
    });
    late = await scoreBook({
      cli,
      policiesFile: files.policies,
      bankFile: files.bank,
      familyOf: (id: string) => familyOf.get(id),
      period: '2026-11',
      starts: ['28'],
      oracleNext: false,
      workDir: dir,
      keepDir: undefined,
    });
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs every strategy over every policy of the book', () => {
    expect(result.runs.map((r) => r.strategy)).toEqual([...STRATEGIES, 'oracle_next']);
    for (const r of result.runs) {
      expect(r.overall.policies).toBe(policies);
      expect(Object.keys(r.families).sort()).toEqual(FAMILIES.map((f: { name: string }) => f.name).sort());
    }
    // the same policies and premiums whatever the strategy
    const due = result.runs.map((r) => r.overall.due);
    expect(new Set(due).size).toBe(1);
  });

  it('the oracle never fails and collects at least what smart and naive collect, in every family', () => {
    const runs = Object.fromEntries(result.runs.map((r) => [r.strategy, r]));
    const run = (strategy: string) => {
      const r = runs[strategy];
      if (!r) throw new Error(`no run of ${strategy}`);
      return r;
    };
    const by = { oracle: run('oracle'), oracle_next: run('oracle_next'), smart: run('smart'), naive: run('naive') };
    expect(by.oracle.overall.failed).toBe(0);
    expect(by.oracle_next.overall.failed).toBe(0);
    expect(by.oracle.overall.collected).toBeGreaterThan(0);
    for (const family of [...FAMILIES.map((f: { name: string }) => f.name), 'overall']) {
      const get = (s: string) => (family === 'overall' ? run(s).overall : run(s).families[family]!);
      // queued a day later, the oracle is one more strategy whose first debit is a day later
      expect(get('oracle').collected).toBeGreaterThanOrEqual(get('oracle_next').collected);
      // ...and that day is smart's and naive's first debit day: it bounds them too
      expect(get('oracle_next').collected).toBeGreaterThanOrEqual(get('smart').collected);
      expect(get('oracle_next').collected).toBeGreaterThanOrEqual(get('naive').collected);
      expect(get('smart').collected).toBeGreaterThanOrEqual(0);
      expect(get('oracle').collected).toBeLessThanOrEqual(get('oracle').due);
      expect(get('smart').zero_attempts_collectible).toBeLessThanOrEqual(get('smart').zero_attempts);
      expect(get('smart').failed).toBe(get('smart').failed_insufficient + get('smart').failed_blocked);
    }
    // premia's own events reach premia: debits on closed, stopped or frozen accounts fail as such,
    // and only there. (Queued on 31 October, smart collects what the balance already covers on
    // Monday 2 November, before any event of this book: the late run below meets them.)
    expect(by.smart.overall.failed_blocked).toBe(by.smart.families.closed_stopped.failed_blocked);
    const after = Object.fromEntries(late.runs.map((r) => [r.strategy, r]));
    expect(Object.keys(after)).toEqual([...STRATEGIES]);
    const blockedPolicies = after.naive!.families.closed_stopped.policies;
    expect(blockedPolicies).toBeGreaterThan(0);
    // naive's one full-premium debit per policy fails as blocked, on every account of the family
    expect(after.naive!.families.closed_stopped).toMatchObject({ attempts: blockedPolicies, failed_blocked: blockedPolicies, failed_insufficient: 0, collected: 0 });
    expect(after.naive!.overall.failed_blocked).toBe(blockedPolicies);
    // smart's debits there (accounts that still hold money: stopped or frozen) fail as blocked too
    expect(after.smart!.families.closed_stopped.failed_blocked).toBeGreaterThan(0);
    expect(after.smart!.families.closed_stopped).toMatchObject({ failed: after.smart!.families.closed_stopped.failed_blocked, collected: 0 });
    expect(after.smart!.overall.failed_blocked).toBe(after.smart!.families.closed_stopped.failed_blocked);
    // and the oracle, which sees the block, makes no attempt on them
    expect(after.oracle!.families.closed_stopped).toMatchObject({ attempts: 0, collected: 0 });
    expect(after.oracle!.overall.failed).toBe(0);
    // dormant accounts hold nothing: naive's full-premium debits there fail
    expect(by.naive.families.no_history.failed_insufficient).toBeGreaterThan(0);
    const f = figures(by.smart.overall, by.oracle.overall);
    expect(f.ratio_to_oracle).toBe(by.smart.overall.collected / by.oracle.overall.collected);
    expect(f.debits_per_policy).toBe(by.smart.overall.attempts / policies);
  });
});
