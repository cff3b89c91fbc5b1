/**
 * A cron job's `settlements create --idempotency-key K` rerun by hand on a terminal after the
 * statement it made was disputed: the key's stored answer (the first statement) is what the
 * create repeats, so nothing is asked about making a new one, and what is said is that the answer
 * is the earlier run's, that the statement has been disputed since, and how to make a new one
 * (another key). Local mode and a premia service alike.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answering, runCli, tempDir, type CliOptions } from '../helpers/cli.js';
import { remoteEnv, runPremia, startSeededService, type LiveServer } from '../helpers/remote.js';
import { dbPath, FIXTURE_PERIOD, openTestBackend, seedFixturePeriod, setClock } from '../helpers/seed-collections.js';

/** On a terminal (stdin and stderr), answering from `answers`. */
const terminal = (answers: boolean[], asked: string[]): Partial<CliOptions> => ({ tty: true, prompter: answering(answers, asked) });

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

const KEY = 'settle-2026-11';
const KEYED = ['--idempotency-key', KEY, 'settlements', 'create', '--period', FIXTURE_PERIOD];

/** The warning of the rerun: the earlier answer, disputed since, no new statement, how to make one. */
const DISPUTED_NOTE =
  `warning: SETTLE-2026-11-001 was made by an earlier run with idempotency key '${KEY}' (that run's answer is repeated), ` +
  'and it has been disputed since (on 2026-12-02): it can no longer be paid. No new statement was made: ' +
  `'premia settlements create --period 2026-11' with a new idempotency key (or none) makes one.\n`;

describe('local mode', () => {
  async function store(): Promise<{ db: string; cli: (args: string[], options?: Partial<CliOptions>) => ReturnType<typeof runCli> }> {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const db = dbPath(dir);
    const backend = await openTestBackend(db);
    await seedFixturePeriod(backend.store);
    await setClock(backend.store, '2026-12-02');
    await backend.close();
    return { db, cli: (args, options = {}) => runCli(['--db', db, ...args], { cwd: dir, ...options, env: { NO_COLOR: '1' } }) };
  }

  it('a keyed rerun after a dispute asks nothing, repeats the first answer and makes no -002', async () => {
    const { db, cli } = await store();
    const asked: string[] = [];
    const first = await cli(KEYED, terminal([true], asked));
    expect(first.code).toBe(0);
    expect(asked).toEqual(['Create SETTLE-2026-11-001 (net 134.12)?']);
    expect((await cli(['--yes', 'settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'Fee looks wrong'])).code).toBe(0);

    const rerun = await cli(KEYED, terminal([], asked));
    expect(asked).toEqual(['Create SETTLE-2026-11-001 (net 134.12)?']);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toBe(`Local mode: store ${db}\n${DISPUTED_NOTE}`);
    // The statement as it is now (disputed), as 'settlements get' shows it.
    expect(rerun.stdout).toBe((await cli(['settlements', 'get', 'SETTLE-2026-11-001'])).stdout);
    expect(rerun.stdout.split('\n')).toContain('status             disputed');
    const json = await cli(['--json', ...KEYED], terminal([], asked));
    expect(json.code).toBe(0);
    expect(json.json()).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', status: 'pending' });
    expect(json.stderr).toBe(`Local mode: store ${db}\n${DISPUTED_NOTE}`);
    expect(asked).toHaveLength(1);
    const list = (await cli(['--json', 'settlements', 'list'])).json();
    expect(list.data.map((s: { settlement_number: string; status: string }) => [s.settlement_number, s.status])).toEqual([['SETTLE-2026-11-001', 'disputed']]);

    // The key used for another request: refused as such, nothing asked.
    const other = await cli(['--idempotency-key', KEY, 'settlements', 'create', '--period', '2026-10'], terminal([], asked));
    expect([other.code, other.stdout]).toEqual([6, '']);
    expect(other.stderr).toBe(
      `Local mode: store ${db}\n` +
        'error: This Idempotency-Key was first used for another request (POST /v1/settlements or a different body); use a new key for a new request.\n' +
        '  (code IDEMPOTENCY_KEY_REUSED)\n',
    );
    expect(asked).toHaveLength(1);

    // A new key is a new request: asked about -002, and made.
    const fresh = await cli(['--idempotency-key', `${KEY}-b`, 'settlements', 'create', '--period', FIXTURE_PERIOD], terminal([true], asked));
    expect(fresh.code).toBe(0);
    expect(asked[1]).toBe('Create SETTLE-2026-11-002 (net 134.12)?');
    expect(fresh.stderr).toContain('Created SETTLE-2026-11-002 (supersedes SETTLE-2026-11-001;');
  });
});

describe('remote mode (a premia service)', () => {
  let server: LiveServer;
  let dir: string;
  beforeAll(async () => {
    server = await startSeededService('2026-12-02');
    const t = tempDir('premia-keyed-rerun-');
    dir = t.dir;
    cleanups.push(t.cleanup);
  });
  afterAll(async () => server.close());

  it('a keyed rerun after a dispute asks nothing, repeats the first answer and makes no -002', async () => {
    const env = { ...remoteEnv(server.url, server.keys.acme), NO_COLOR: '1' };
    const premia = (args: string[], options: Partial<CliOptions> = {}) => runPremia(args, { cwd: dir, env, ...options });
    const asked: string[] = [];
    const first = await premia(KEYED, terminal([true], asked));
    expect(first.code).toBe(0);
    expect(asked).toEqual(['Create SETTLE-2026-11-001 (net 134.12)?']);
    expect((await premia(['--yes', 'settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'Fee looks wrong'])).code).toBe(0);

    const rerun = await premia(KEYED, terminal([], asked));
    expect(asked).toEqual(['Create SETTLE-2026-11-001 (net 134.12)?']);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toBe(`Remote mode: ${server.url} (key …${server.keys.acme.slice(-4)})\n${DISPUTED_NOTE}`);
    // Known from the service's record of the key, asked first: no preview of a statement to make.
    const requests = server.logs.map((l) => l.split(' ').slice(1, 3).join(' '));
    const rerunRequests = requests.slice(requests.indexOf('POST /v1/settlements/SETTLE-2026-11-001/dispute') + 1);
    expect(rerunRequests.slice(0, 3)).toEqual(['GET /v1/whoami', 'GET /v1/idempotency-keys', 'POST /v1/settlements']);
    expect(rerunRequests).not.toContain('GET /v1/settlements/preview');
    expect(rerun.stdout).toBe((await premia(['settlements', 'get', 'SETTLE-2026-11-001'])).stdout);
    expect(rerun.stdout.split('\n')).toContain('status             disputed');
    const list = (await premia(['--json', 'settlements', 'list'])).json();
    expect(list.data.map((s: { settlement_number: string; status: string }) => [s.settlement_number, s.status])).toEqual([['SETTLE-2026-11-001', 'disputed']]);
  });
});
