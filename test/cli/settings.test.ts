/**
 * premia settings: the engine's store-wide settings (max failed attempts, the lapse rule) listed
 * and changed through the CLI, checked, local-only, and taken up by the engine.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers/cli.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
let stores = 0;
/** A CLI on a new store of its own (seed 1), made on first use by a command that may create it. */
function store() {
  const db = join(tmp.dir, `s${++stores}.db`);
  let made: Promise<unknown> | undefined;
  return async (args: string[]) => {
    await (made ??= runCli(['--db', db, '--seed', '1', 'clock', 'set', '2026-11-21'], { cwd: tmp.dir }));
    return runCli(['--db', db, '--seed', '1', ...args], { cwd: tmp.dir });
  };
}

const DEFAULTS = [
  {
    key: 'engine.max_failed_attempts',
    value: 4,
    default: 4,
    min: 1,
    max: 31,
    description: 'failed debit attempts per policy and month, after which no more are planned',
  },
  {
    key: 'lapse.unpaid_periods',
    value: 2,
    default: 2,
    min: 1,
    max: 12,
    description: 'consecutive closed periods UNPAID after which an active policy lapses',
  },
  {
    key: 'calendar',
    value: 'za',
    default: 'za',
    choices: ['za', 'none'],
    description: 'business days: za (South African public holidays) or none (weekends only), plus imported dates',
  },
  {
    key: 'engine.shards',
    value: 1,
    default: 1,
    min: 1,
    max: 256,
    description: 'PostgreSQL: customer shards each day is lived in, shared with premia engine work (1: in one piece)',
  },
];

describe('premia settings', () => {
  it('lists the settings with their values, defaults and ranges', async () => {
    const cli = store();
    const text = await cli(['settings']);
    expect([text.code, text.stderr]).toEqual([0, '']);
    expect(text.stdout).toBe(
      [
        'key                         value  default  range    what it controls',
        'engine.max_failed_attempts  4      4        1-31     failed debit attempts per policy and month, after which no more are planned',
        'lapse.unpaid_periods        2      2        1-12     consecutive closed periods UNPAID after which an active policy lapses',
        'calendar                    za     za       za|none  business days: za (South African public holidays) or none (weekends only), plus imported dates',
        'engine.shards               1      1        1-256    PostgreSQL: customer shards each day is lived in, shared with premia engine work (1: in one piece)',
        '',
      ].join('\n'),
    );
    const json = await cli(['--json', 'settings']);
    expect(json.code).toBe(0);
    expect(json.json()).toEqual(DEFAULTS);
  });

  it("--format csv, json and --fields keep the calendar's choices (za|none), as the table's range does", async () => {
    const cli = store();
    const csv = await cli(['settings', '--format', 'csv']);
    expect([csv.code, csv.stderr]).toEqual([0, '']);
    expect(csv.stdout.split('\n').slice(0, 4)).toEqual([
      'key,value,default,min,max,choices,description',
      'engine.max_failed_attempts,4,4,1,31,,"failed debit attempts per policy and month, after which no more are planned"',
      'lapse.unpaid_periods,2,2,1,12,,consecutive closed periods UNPAID after which an active policy lapses',
      'calendar,za,za,,,za|none,"business days: za (South African public holidays) or none (weekends only), plus imported dates"',
    ]);
    const json = await cli(['settings', '--format', 'json']);
    expect(JSON.parse(json.stdout)[2]).toEqual({ ...DEFAULTS[2], min: null, max: null, choices: 'za|none' });
    const fields = await cli(['settings', '--fields', 'key,choices']);
    expect([fields.code, fields.stdout.split('\n')[3]]).toEqual([0, 'calendar                    za|none']);
  });

  it('set changes one setting and says what it was', async () => {
    const cli = store();
    const set = await cli(['settings', 'set', 'engine.max_failed_attempts', '1']);
    expect([set.code, set.stdout, set.stderr]).toEqual([0, '', 'engine.max_failed_attempts set to 1 (was 4; default 4).\n']);
    const again = await cli(['settings', 'set', 'engine.max_failed_attempts', '1']);
    expect([again.code, again.stderr]).toEqual([0, 'engine.max_failed_attempts is already 1.\n']);
    const json = await cli(['--json', 'settings', 'set', 'lapse.unpaid_periods', '12']);
    expect(json.code).toBe(0);
    expect(json.json()).toEqual({ ...DEFAULTS[1], value: 12, previous: 2 });
    const list = await cli(['--json', 'settings']);
    expect(list.json().map((s: { value: number }) => s.value)).toEqual([1, 12, 'za', 1]);
    // The bounds are accepted.
    expect((await cli(['settings', 'set', 'engine.max_failed_attempts', '31'])).code).toBe(0);
    expect((await cli(['settings', 'set', 'lapse.unpaid_periods', '1'])).code).toBe(0);
  });

  it.each([
    ['engine.max_failed_attempts', '0', "engine.max_failed_attempts must be a whole number from 1 to 31; got '0'."],
    ['engine.max_failed_attempts', '32', "engine.max_failed_attempts must be a whole number from 1 to 31; got '32'."],
    ['engine.max_failed_attempts', '2.5', "engine.max_failed_attempts must be a whole number from 1 to 31; got '2.5'."],
    ['engine.max_failed_attempts', '1e1', "engine.max_failed_attempts must be a whole number from 1 to 31; got '1e1'."],
    ['engine.max_failed_attempts', ' 3', "engine.max_failed_attempts must be a whole number from 1 to 31; got ' 3'."],
    ['lapse.unpaid_periods', '13', "lapse.unpaid_periods must be a whole number from 1 to 12; got '13'."],
    ['lapse.unpaid_periods', 'two', "lapse.unpaid_periods must be a whole number from 1 to 12; got 'two'."],
    ['engine.lead_days', '2', "'engine.lead_days' is not a setting; the settings are engine.max_failed_attempts, lapse.unpaid_periods, calendar, engine.shards."],
    ['max_failed_attempts', '2', "'max_failed_attempts' is not a setting; the settings are engine.max_failed_attempts, lapse.unpaid_periods, calendar, engine.shards."],
    ['calendar', 'ZA', "calendar must be one of za, none; got 'ZA'."],
    ['calendar', 'us', "calendar must be one of za, none; got 'us'."],
  ])('set %s %j is refused (exit 2) and changes nothing', async (key, value, message) => {
    const cli = store();
    const r = await cli(['settings', 'set', key, value]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: ${message}\n  (code VALIDATION_ERROR)\n`);
    expect((await cli(['--json', 'settings'])).json()).toEqual(DEFAULTS);
  });

  it('a missing value or an extra argument is a usage error (exit 2)', async () => {
    const cli = store();
    const missing = await cli(['settings', 'set', 'lapse.unpaid_periods']);
    expect([missing.code, missing.stderr.split('\n')[0]]).toEqual([2, "error: missing required argument 'value'"]);
    const extra = await cli(['settings', 'engine.max_failed_attempts']);
    expect(extra.code).toBe(2);
  });

  it.each([
    [['settings'], 'premia settings'],
    [['settings', 'set', 'lapse.unpaid_periods', '3'], 'premia settings set'],
  ])('%j is local-only: in remote mode it says so (exit 1)', async (args, what) => {
    const r = await runCli(args, { cwd: tmp.dir, env: { PREMIA_BASE_URL: 'http://127.0.0.1:9', PREMIA_API_KEY: 'pk_test_settings_0000' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: '${what}' is local-only: it works on a store file, not through the service. Run it with --db on the machine that holds the store (without --base-url, --profile or PREMIA_BASE_URL).\n  (code NOT_SUPPORTED)\n`,
    );
  });
});

/** The fixture month (policies, bank fixture, November with `strategy`) on a store; its attempts. */
async function fixtureMonth(cli: ReturnType<typeof store>, strategy = 'smart') {
  for (const args of [
    ['clock', 'set', '2026-10-31'],
    ['policies', 'import', join(FIXTURES, 'policies.csv')],
    ['bank', 'import', join(FIXTURES, 'bank-transactions.csv')],
    ['collections', 'execute', '--period', '2026-11', '--strategy', strategy],
    ['clock', 'advance', '--to', '2026-11-30'],
  ]) {
    const r = await cli(['--quiet', ...args]);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  }
  const attempts = await cli(['--json', 'collections', 'attempts', '--period', '2026-11', '--format', 'json']);
  return attempts.json().attempts as Array<{ policy_number: string; outcome: string; amount: number }>;
}

/** The most failed attempts of one collection, and the failed attempts in all. */
function failures(attempts: Array<{ policy_number: string; outcome: string }>): { most: number; total: number } {
  const byPolicy = new Map<string, number>();
  for (const a of attempts) if (a.outcome === 'FAILED') byPolicy.set(a.policy_number, (byPolicy.get(a.policy_number) ?? 0) + 1);
  return { most: Math.max(0, ...byPolicy.values()), total: [...byPolicy.values()].reduce((x, y) => x + y, 0) };
}

describe('the engine takes the settings up', () => {
  it('engine.max_failed_attempts 1: at most one failed attempt per collection in the month (naive, whose own cap is 4 attempts; smart: smart-rules.test.ts)', async () => {
    expect(failures(await fixtureMonth(store(), 'naive')).most).toBe(4);
    const cli = store();
    expect((await cli(['settings', 'set', 'engine.max_failed_attempts', '1'])).code).toBe(0);
    expect(failures(await fixtureMonth(cli, 'naive')).most).toBe(1);
  });

  it('lapse.unpaid_periods 1: a policy UNPAID at the first close lapses (with the default 2, none does)', async () => {
    const lapsed = async (cli: ReturnType<typeof store>) => {
      const r = await cli(['--json', 'policies', 'list', '--status', 'lapsed', '--limit', '1000']);
      expect(r.code).toBe(0);
      return (r.json().data as Array<{ policy_number: string }>).map((p) => p.policy_number);
    };
    const unpaid = async (cli: ReturnType<typeof store>) => {
      const r = await cli(['--json', 'collections', 'list', '--period', '2026-11', '--status', 'UNPAID', '--limit', '1000']);
      return (r.json().data as Array<{ policy_number: string }>).map((c) => c.policy_number);
    };
    const byDefault = store();
    await fixtureMonth(byDefault);
    expect(await lapsed(byDefault)).toEqual([]);

    const cli = store();
    expect((await cli(['settings', 'set', 'lapse.unpaid_periods', '1'])).code).toBe(0);
    await fixtureMonth(cli);
    const closedUnpaid = await unpaid(cli);
    expect(closedUnpaid.length).toBeGreaterThan(10);
    // Every policy UNPAID at the close lapsed (none of them was cancelled or lapsed before).
    expect(await lapsed(cli)).toEqual(closedUnpaid);
  });
});
