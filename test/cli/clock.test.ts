/** `clock advance --days`: 0 to 3660, as the engine and POST /clock/advance accept (docs/bank-and-clock.md, "The virtual clock"). */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-clock-')));
afterEach(() => cleanup());

const premia = (args: string[]) => runCli(['--db', join(dir, 'premia.db'), '--seed', '1', ...args], { cwd: dir });
// A new store's clock starts at the real date (the tests' 2026-11-21); only writing commands make one.
beforeEach(async () => expect((await premia(['clock', 'set', '2026-11-21'])).code).toBe(0));

describe('clock advance --days', () => {
  it('0 lives no day and leaves the clock where it is', async () => {
    const r = await premia(['--json', 'clock', 'advance', '--days', '0']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ from: '2026-11-21', to: '2026-11-21', days: [] });
  });

  // Said "Clock moved from 2026-11-21 to 2026-11-21: 0 days lived", as if something had moved
  // (also what a cron job saw when an overlapping advance had got there first).
  it('0, or --to the clock\'s date, says the clock is already there and nothing changed', async () => {
    for (const how of [['--days', '0'], ['--to', '2026-11-21']]) {
      const r = await premia(['clock', 'advance', ...how]);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '', 'The clock is already at 2026-11-21: no day to live; nothing changed.\n']);
    }
  });

  it('more than a year (400 days) is accepted', async () => {
    const r = await premia(['--json', 'clock', 'advance', '--days', '400']);
    expect(r.code).toBe(0);
    const body = r.json();
    expect([body.from, body.to, body.days.length]).toEqual(['2026-11-21', '2027-12-26', 400]);
  });

  it.each(['3661', '-1', '1.5', 'ten', ''])("'%s' is a validation error naming the range", async (days) => {
    const r = await premia(['--json', 'clock', 'advance', '--days', days]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: 'VALIDATION_ERROR', message: `--days must be a whole number from 0 to 3660 (ten years); got '${days}'.`, request_id: null },
    });
    expect((await premia(['--json', 'clock'])).json().date).toBe('2026-11-21');
  });
});

describe('clock advance --idempotency-key, run again', () => {
  // The rerun is answered with the first run's result; once the clock had moved on, it still said
  // only "Clock moved from 2026-11-21 to 2026-11-22", as if that day were lived now and the clock
  // there. Rerun at once (a cron job's retry), it said nothing of a repeat either.
  it('is the first run\'s answer, and says so, the clock moved on since or not', async () => {
    const keyed = ['clock', 'advance', '--days', '1', '--idempotency-key', 'nightly'];
    const moved = 'Clock moved from 2026-11-21 to 2026-11-22: 1 day lived, 0.00 collected.\n';
    const first = await premia(keyed);
    expect([first.code, first.stderr]).toEqual([0, moved]);
    const again = await premia(keyed);
    expect([again.code, again.stdout, again.stderr]).toEqual([
      0,
      first.stdout,
      `${moved}warning: that is the answer of an earlier run with idempotency key 'nightly', repeated: no day was lived now, and the clock is at 2026-11-22. ` +
        "'premia clock advance --days 1' with a new idempotency key (or none) advances it from there.\n",
    ]);
    expect((await premia(['clock', 'advance', '--days', '2'])).code).toBe(0);
    const later = await premia(keyed);
    expect([later.code, later.stdout, later.stderr]).toEqual([
      0,
      first.stdout,
      `${moved}warning: that is the answer of an earlier run with idempotency key 'nightly', repeated: no day was lived now, and the clock is at 2026-11-24. ` +
        "'premia clock advance --days 1' with a new idempotency key (or none) advances it from there.\n",
    ]);
    expect((await premia(['--json', 'clock'])).json().date).toBe('2026-11-24');
  });

  it('with --to: the way to go on is --days N, not the same --to, which would live nothing', async () => {
    const keyed = ['clock', 'advance', '--to', '2026-11-26', '--idempotency-key', 'to-26'];
    const moved = 'Clock moved from 2026-11-21 to 2026-11-26: 5 days lived, 0.00 collected.\n';
    const first = await premia(keyed);
    expect([first.code, first.stderr]).toEqual([0, moved]);
    const again = await premia(keyed);
    expect([again.code, again.stderr]).toEqual([
      0,
      `${moved}warning: that is the answer of an earlier run with idempotency key 'to-26', repeated: no day was lived now, and the clock is at 2026-11-26. ` +
        "'premia clock advance --days N' with a new idempotency key (or none) advances it from there.\n",
    ]);
  });
});

describe('clock show', () => {
  it('is `premia clock` by its issue-5 name: the same output, text and JSON', async () => {
    await premia(['clock', 'set', '2026-10-31']);
    const show = await premia(['--json', 'clock', 'show']);
    expect(show.code).toBe(0);
    expect(show.json()).toEqual({ date: '2026-10-31', locked: false, seed: 1 });
    expect((await premia(['--json', 'clock'])).stdout).toBe(show.stdout);
    expect((await premia(['clock', 'show'])).stdout).toBe((await premia(['clock'])).stdout);
  });
});

describe('clock set more than a year away (a mistyped year, issue 12)', () => {
  const create = ['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'FUNERAL', '--amount', '20.00'];

  it('is refused without a terminal unless --yes is given: nothing moves, nothing is stamped in that year', async () => {
    // Before, 2062 for 2026 moved the clock, and a policy created then kept created_at 2062-11-21 after the clock was set back.
    const r = await premia(['clock', 'set', '2062-11-21']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: Setting the clock from 2026-11-21 to 2062-11-21 would move it 13,149 days (about 36 years) ahead (a mistyped year?), and what is recorded ' +
        'while it is there keeps that date for good. Without a terminal to ask on, premia moves the clock more than a year at once only when told to: add --yes. Nothing changed.\n' +
        '  (code USAGE_ERROR)\n',
    ]);
    expect((await premia(['--json', 'clock'])).json().date).toBe('2026-11-21');
    expect((await premia(['--json', ...create])).json().created_at).toBe('2026-11-21T09:30:00.000Z');
    expect((await premia(['--json', '--yes', 'clock', 'set', '2062-11-21'])).json().date).toBe('2062-11-21');
  });

  it('a year (366 days) ahead moves without a question, a day more needs one; a move back never does', async () => {
    expect((await premia(['--json', 'clock', 'set', '2027-11-22'])).json().date).toBe('2027-11-22');
    expect((await premia(['--json', 'clock', 'set', '2026-11-21'])).json().date).toBe('2026-11-21');
    expect((await premia(['--json', 'clock', 'set', '2025-11-20'])).json().date).toBe('2025-11-20');
    expect((await premia(['clock', 'set', '2026-11-22'])).code).toBe(2);
    // Back ten years (a new store's clock, at the real date, set to the month to simulate): no question.
    expect((await premia(['--json', 'clock', 'set', '2015-11-20'])).json().date).toBe('2015-11-20');
    expect((await premia(['--json', 'clock'])).json().date).toBe('2015-11-20');
  });

  it('asks on a terminal, saying the dates stay; no leaves the clock where it is (exit 130)', async () => {
    const asked: string[] = [];
    const answers = [false, true];
    const tty = {
      tty: true,
      prompter: {
        password: async () => '',
        input: async () => '',
        confirm: async (message: string) => (asked.push(message), answers.shift()!),
      },
    };
    const at = (args: string[]) => runCli(['--db', join(dir, 'premia.db'), ...args], { cwd: dir, ...tty, env: { NO_COLOR: '1' } });
    const no = await at(['clock', 'set', '2062-11-21']);
    expect([no.code, no.stdout]).toEqual([130, '']);
    expect(no.stderr).toContain(
      'Setting the clock from 2026-11-21 to 2062-11-21 moves it 13,149 days (about 36 years) ahead. Everything recorded while it is there (policies, premium and ' +
        'status changes, bank imports, keys) keeps that date for good: setting the clock back later does not change it.\n',
    );
    expect(no.stderr).toContain('Nothing changed.');
    expect((await premia(['--json', 'clock'])).json().date).toBe('2026-11-21');
    expect((await at(['clock', 'set', '2062-11-21'])).code).toBe(0);
    expect(asked).toEqual(['Set the clock to 2062-11-21?', 'Set the clock to 2062-11-21?']);
    expect((await premia(['--json', 'clock'])).json().date).toBe('2062-11-21');
  });
});

describe('clock set before the first run', () => {
  it('cannot go back past recorded premium or status changes', async () => {
    await premia(['clock', 'set', '2027-01-10']);
    expect((await premia(['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'FUNERAL', '--amount', '20.00'])).code).toBe(0);
    expect((await premia(['policies', 'update', 'P1', '--amount', '10.00'])).code).toBe(0);
    const back = await premia(['--json', 'clock', 'set', '2026-11-15']);
    expect(back.code).toBe(6);
    expect(JSON.parse(back.stderr).error).toEqual({
      code: 'CLOCK_BACKWARDS',
      message: 'Policy changes were recorded on 2027-01-10 (premium or status); the clock cannot be set back before that day, or their history would run out of order.',
      request_id: null,
    });
    expect((await premia(['--json', 'clock', 'set', '2027-01-10'])).code).toBe(0);
    expect((await premia(['--json', 'clock', 'set', '2026-12-01'])).code).toBe(6);
    expect((await premia(['--json', 'clock', 'set', '2027-02-01'])).json()).toEqual({ date: '2027-02-01', locked: false, seed: 1 });
  });

  it('policies created without changes do not hold it (the README month: import, then set the clock)', async () => {
    expect((await premia(['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'FUNERAL', '--amount', '20.00'])).code).toBe(0);
    expect((await premia(['--json', 'clock', 'set', '2026-10-31'])).json()).toEqual({ date: '2026-10-31', locked: false, seed: 1 });
  });
});

describe('a date outside the years premia accepts (1900-01-01 to 2999-12-31)', () => {
  it.each([
    [['clock', 'set', '3000-01-01'], 'The clock setting is not valid', 'date 3000-01-01 is after 2999-12-31, the last date premia accepts'],
    [['clock', 'set', '1899-12-31'], 'The clock setting is not valid', 'date 1899-12-31 is before 1900-01-01, the first date premia accepts'],
  ])('%j names the range, not the format it already has (exit 2)', async (args, what, problem) => {
    const r = await premia(['--json', ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: 'VALIDATION_ERROR', message: `${what}: ${problem}.`, request_id: null, details: [{ field: problem.split(' ')[0], code: 'INVALID_VALUE', message: problem }] },
    });
    expect((await premia(['--json', 'clock'])).json().date).toBe('2026-11-21');
  });

  it('the last and first dates themselves are accepted', async () => {
    expect((await premia(['--json', '--yes', 'clock', 'set', '2999-12-31'])).json().date).toBe('2999-12-31');
    expect((await premia(['--json', '--yes', 'clock', 'set', '1900-01-01'])).json().date).toBe('1900-01-01');
  });

  it('clock advance --to words it alike, naming the option (issue 12)', async () => {
    // Before: "The clock advance is not valid: to 9999-12-31 is after …", the request's field rather than the option.
    const r = await premia(['clock', 'advance', '--to', '9999-12-31']);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', "error: --to '9999-12-31' is after 2999-12-31, the last date premia accepts.\n  (code VALIDATION_ERROR)\n"]);
  });

  it('engine work --until words it alike: VALIDATION_ERROR, before the store is opened', async () => {
    const r = await premia(['engine', 'work', '--until', '3000-01-01']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: --until '3000-01-01' is after 2999-12-31, the last date premia accepts.\n  (code VALIDATION_ERROR)\n");
  });
});

// Before the first collections run nothing stopped `clock set` (or `bank seed`, or the calendar)
// while an advance lived its days: "Clock set to …" was said, and the advance's next day wrote
// its own date over it. The advance is held here by its lease in the store, as a running one
// holds it: a live process of this host (the test runner's parent) renewed it just now.
describe('while a clock advance runs', () => {
  it('clock set, bank seed and the calendar are refused (CONFLICT, exit 6) and unchanged; once it has ended they work', async () => {
    const { openStore } = await import('../../src/store/store.js');
    const { hostname } = await import('node:os');
    const store = await openStore({ path: join(dir, 'premia.db') });
    const lease = { token: 't', process: 'another', host: hostname(), pid: process.ppid, from: '2026-11-21', to: '2027-02-28', started_at: Date.now(), renewed_at: Date.now() };
    const setLease = (value: string | null) =>
      store.transaction(async (trx) => {
        await trx.deleteFrom('meta').where('key', '=', 'advance_lease').execute();
        if (value !== null) await trx.insertInto('meta').values({ key: 'advance_lease', value }).execute();
      });
    try {
      await setLease(JSON.stringify(lease));
      const held = `A clock advance is running on this store (from 2026-11-21 to 2027-02-28, process ${process.ppid}), so`;
      const rest = "cannot change now: it would change under that advance's days. Nothing changed; run this again once the advance has finished ('premia clock' shows where it stopped).";
      for (const [args, what] of [
        [['clock', 'set', '2026-10-31'], 'the clock'],
        [['bank', 'seed', '7'], "the bank's seed"],
        [['settings', 'set', 'calendar', 'none'], 'the calendar'],
      ] as const) {
        const r = await premia([...args]);
        expect([args, r.code, r.stdout, r.stderr]).toEqual([args, 6, '', `error: ${held} ${what} ${rest}\n  (code CONFLICT)\n`]);
      }
      // Reading, and setting what the advance does not live by, still work.
      expect((await premia(['--json', 'clock'])).json()).toEqual({ date: '2026-11-21', locked: false, seed: 1 });
      expect((await premia(['settings', 'set', 'calendar', 'za'])).code).toBe(0); // already za: nothing changes
      // The advance gone (its lease released): the same commands act.
      await setLease(null);
      expect((await premia(['clock', 'set', '2026-10-31'])).code).toBe(0);
      expect((await premia(['bank', 'seed', '7'])).code).toBe(0);
      expect((await runCli(['--db', join(dir, 'premia.db'), '--json', 'clock'], { cwd: dir })).json()).toEqual({ date: '2026-10-31', locked: false, seed: 7 });
    } finally {
      await store.close();
    }
  });
});
