/**
 * A keyed write rerun by hand on a terminal whose --idempotency-key will answer it without acting
 * (the earlier run's answer, repeated; or a refusal, the key being another request's) asks
 * nothing: `clock advance --days 1 --idempotency-key K` rerun a month later asked "… and close
 * 2026-12?" (the advance it would make now) and then, answered yes, repeated the November
 * advance. The key of an advance is the store's (any operator key's), read in local mode from
 * the store and on a premia service with GET /idempotency-keys?operation=advanceClock. Also
 * `settlements mark-paid` with a key used for another request: refused, nothing asked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { answering, runCli, tempDir, type CliOptions, type CliResult } from '../helpers/cli.js';
import { remoteEnv, runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';
import { dbPath, openTestBackend, seedFixturePeriod, setClock } from '../helpers/seed-collections.js';
import { seedPeriod } from '../server/fixture-period.js';
import { setMeta } from '../../src/store/repos/meta.js';
import type { Store } from '../../src/store/store.js';

/** The clock at `date`, locked as by a collections run (closed periods are final: an advance closing one asks). */
async function lockedClock(store: Store, date: string): Promise<void> {
  await setClock(store, date);
  await setMeta(store.db, 'clock_locked', '1');
}

/** On a terminal (stdin and stderr), answering from `answers`. */
const terminal = (answers: boolean[], asked: string[]): Partial<CliOptions> => ({ tty: true, prompter: answering(answers, asked) });

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const KEY = 'nightly-2026-11-29';
const KEYED_ADVANCE = ['--idempotency-key', KEY, 'clock', 'advance', '--days', '1'];
const NOVEMBER_QUESTION = 'Advance the clock 1 day, to 2026-11-30, and close 2026-11?';
/**
 * The rerun's answer (the November advance's) and its note: nothing lived now, the clock's date,
 * how to advance now. Known from the key's record before anything is sent, so never "Advancing the
 * clock…", as if days were about to be lived.
 */
const REPEATING = `Repeating the earlier advance of idempotency key '${KEY}'…\n`;
const REPEATED =
  REPEATING +
  'Clock moved from 2026-11-29 to 2026-11-30: 1 day lived, 0.00 collected.\n' +
  `warning: that is the answer of an earlier run with idempotency key '${KEY}', repeated: no day was lived now, and the clock is at 2026-12-30. ` +
  "'premia clock advance --days 1' with a new idempotency key (or none) advances it from there.\n";
const REUSED =
  'error: This Idempotency-Key was first used for another request (POST /v1/clock/advance or a different body); use a new key for a new request.\n' +
  '  (code IDEMPOTENCY_KEY_REUSED)\n';

type Cli = (args: string[], options?: Partial<CliOptions>) => Promise<CliResult>;

/** The scenario in either mode: `banner` is the mode's first stderr line. */
async function advanceRerun(cli: Cli, banner: string): Promise<void> {
  const asked: string[] = [];
  const first = await cli(KEYED_ADVANCE, terminal([true], asked));
  expect([first.code, asked]).toEqual([0, [NOVEMBER_QUESTION]]);
  expect(first.stderr.startsWith(banner)).toBe(true);
  // December lived without the key; the clock at its last day.
  expect((await cli(['--yes', 'clock', 'advance', '--to', '2026-12-30'])).code).toBe(0);

  // Asked first, this was "Advance the clock 1 day, to 2026-12-31, and close 2026-12?", and then the November advance.
  const rerun = await cli(KEYED_ADVANCE, terminal([], asked));
  expect(asked).toEqual([NOVEMBER_QUESTION]);
  expect([rerun.code, rerun.stdout]).toEqual([0, first.stdout]);
  expect(rerun.stderr).toBe(`${banner}${REPEATED}`);
  expect((await cli(['--json', 'clock'])).json().date).toBe('2026-12-30');

  // The key used for another advance: refused as such, nothing asked, nothing lived.
  const other = await cli(['--idempotency-key', KEY, 'clock', 'advance', '--to-month-end'], terminal([], asked));
  // (A service's refusal names its request.)
  expect([other.code, other.stdout, other.stderr.replace(/, request [0-9a-f-]{36}\)/, ')')]).toEqual([6, '', `${banner}${REUSED}`]);
  expect(asked).toEqual([NOVEMBER_QUESTION]);
  expect((await cli(['--json', 'clock'])).json().date).toBe('2026-12-30');

  // A new key is a new advance: asked about December's close, and lived.
  const fresh = await cli(['--idempotency-key', `${KEY}-b`, 'clock', 'advance', '--days', '1'], terminal([true], asked));
  expect([fresh.code, asked]).toEqual([0, [NOVEMBER_QUESTION, 'Advance the clock 1 day, to 2026-12-31, and close 2026-12?']]);
  expect((await cli(['--json', 'clock'])).json().date).toBe('2026-12-31');
}

/**
 * A cron job's keyed advance (no terminal: sent with safe_close) rerun by hand on a terminal under
 * its key, and the other way round: one request, its answer repeated, nothing asked. Before, the
 * rerun without safe_close was "another request" (IDEMPOTENCY_KEY_REUSED, exit 6).
 */
async function cronThenHand(cli: Cli, banner: string, othersNote = ''): Promise<void> {
  // (Without a terminal, no banner naming the store or the service.)
  const cron = await cli(KEYED_ADVANCE);
  expect([cron.code, cron.stderr]).toEqual([0, `Clock moved from 2026-11-29 to 2026-11-30: 1 day lived, 0.00 collected.\n${othersNote}`]);
  const asked: string[] = [];
  const byHand = await cli(KEYED_ADVANCE, terminal([], asked));
  expect([byHand.code, asked, byHand.stdout]).toEqual([0, [], cron.stdout]);
  expect(byHand.stderr).toBe(
    `${banner}${REPEATING}Clock moved from 2026-11-29 to 2026-11-30: 1 day lived, 0.00 collected.\n` +
      `warning: that is the answer of an earlier run with idempotency key '${KEY}', repeated: no day was lived now, and the clock is at 2026-11-30. ` +
      "'premia clock advance --days 1' with a new idempotency key (or none) advances it from there.\n",
  );
  // The other way round: by hand first, then the cron job under the same key.
  const handKey = ['--idempotency-key', `${KEY}-hand`, 'clock', 'advance', '--days', '1'];
  // (It closes nothing: nothing to ask.)
  const first = await cli(handKey, terminal([], asked));
  expect([first.code, asked]).toEqual([0, []]);
  const cronAgain = await cli(handKey);
  expect([cronAgain.code, cronAgain.stdout]).toEqual([0, first.stdout]);
  expect((await cli(['--json', 'clock'])).json().date).toBe('2026-12-01');
  // The cron job retried under its key with the clock where its first run left it: said to
  // repeat that answer too (before, only once the clock had moved on since).
  const cronRetry = await cli(handKey);
  expect([cronRetry.code, cronRetry.stdout]).toEqual([0, first.stdout]);
  expect(cronRetry.stderr).toBe(
    'Clock moved from 2026-11-30 to 2026-12-01: 1 day lived, 0.00 collected.\n' +
      `warning: that is the answer of an earlier run with idempotency key '${KEY}-hand', repeated: no day was lived now, and the clock is at 2026-12-01. ` +
      "'premia clock advance --days 1' with a new idempotency key (or none) advances it from there.\n",
  );
  expect((await cli(['--json', 'clock'])).json().date).toBe('2026-12-01');
}

describe('local mode', () => {
  async function store(): Promise<{ db: string; cli: Cli }> {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const db = dbPath(dir);
    const backend = await openTestBackend(db);
    await seedFixturePeriod(backend.store);
    await lockedClock(backend.store, '2026-11-29');
    await backend.close();
    return { db, cli: (args, options = {}) => runCli(['--db', db, ...args], { cwd: dir, ...options, env: { NO_COLOR: '1' } }) };
  }

  it('clock advance: a keyed rerun asks nothing, repeats the earlier advance and says so; another advance with the key is refused unasked', async () => {
    const { db, cli } = await store();
    await advanceRerun(cli, `Local mode: store ${db}\n`);
  });

  it('clock advance: a cron run under a key and the same advance rerun by hand under it are one request', async () => {
    const { db, cli } = await store();
    // Local mode acts for the store's own client: the advance's figures are its own, said so (a
    // replay lives nothing, and says nothing of it).
    await cronThenHand(
      cli,
      `Local mode: store ${db}\n`,
      "note: those figures are for the store's own client only; the advance lived the days of its client Other Client too (2026-11): " +
        '\'premia --as-client "Other Client" reports summary --period 2026-11\' shows theirs.\n',
    );
  });

  it('settlements mark-paid with a key used for another request is refused, nothing asked, nothing paid', async () => {
    const { db, cli } = await store();
    expect((await cli(['--yes', 'clock', 'advance', '--days', '2'])).code).toBe(0);
    expect((await cli(['--yes', '--idempotency-key', 'settle-k', 'settlements', 'create', '--period', '2026-11'])).code).toBe(0);
    const asked: string[] = [];
    const r = await cli(['--idempotency-key', 'settle-k', 'settlements', 'mark-paid', 'SETTLE-2026-11-001'], terminal([], asked));
    expect(asked).toEqual([]);
    expect([r.code, r.stdout]).toEqual([6, '']);
    expect(r.stderr).toBe(
      `Local mode: store ${db}\n` +
        'error: This Idempotency-Key was first used for another request (POST /v1/settlements or a different body); use a new key for a new request.\n' +
        '  (code IDEMPOTENCY_KEY_REUSED)\n',
    );
    expect((await cli(['--json', 'settlements', 'get', 'SETTLE-2026-11-001'])).json().status).toBe('pending');
  });
});

/**
 * A premia service holding the fixture period, its clock locked at 2026-11-29; the CLI against it
 * with its operator key (the store's key of an advance), and the banner of its first stderr line.
 */
async function remoteOperator(): Promise<{ server: LiveServer; cli: Cli; banner: string }> {
  const server = await startLiveServer();
  cleanups.push(() => server.close());
  await seedPeriod(server.backend.store);
  await lockedClock(server.backend.store, '2026-11-29');
  const t = tempDir('premia-keyed-questions-');
  cleanups.push(t.cleanup);
  const env = { ...remoteEnv(server.url, server.keys.operator), NO_COLOR: '1' };
  return {
    server,
    cli: (args, options = {}) => runPremia(args, { cwd: t.dir, env, ...options }),
    banner: `Remote mode: ${server.url} (key …${server.keys.operator.slice(-4)})\n`,
  };
}

describe('remote mode (a premia service)', () => {
  it('clock advance: a keyed rerun asks nothing, repeats the earlier advance and says so; another advance with the key is refused unasked', async () => {
    const { server, cli, banner } = await remoteOperator();
    await advanceRerun(cli, banner);
    // Known from the store's record of the key (operation=advanceClock), before any preview.
    const requests = server.logs.map((l) => l.split(' ').slice(1, 3).join(' '));
    expect(requests.filter((r) => r.startsWith('GET /v1/idempotency-keys'))).toHaveLength(4);
  });

  it('clock advance: a cron run under a key and the same advance rerun by hand under it are one request, whichever came first', async () => {
    const { cli, banner } = await remoteOperator();
    await cronThenHand(cli, banner);
  });
});
