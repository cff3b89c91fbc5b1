/**
 * A keyed write rerun unattended (a cron job's retry, no terminal; or --yes) whose
 * --idempotency-key repeats an earlier run's answer says so, as it does on a terminal: the key's
 * record was read only where a question would be asked, so off a terminal `settlements mark-paid`
 * rerun after the statement was disputed printed "SETTLE-2026-11-001 is paid (…)" and nothing
 * more, and a rerun of `dispute` or `policies update` read as if it had acted now; a rerun of
 * `settlements create` said "Created SETTLE-2026-11-001" again (in every mode) while the statement
 * was still pending. Local mode and a premia service alike.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { replayedNote, runCli, tempDir, type CliOptions, type CliResult } from '../helpers/cli.js';
import { remoteEnv, runPremia, startSeededService, type LiveServer } from '../helpers/remote.js';
import { dbPath, FIXTURE_PERIOD, openTestBackend, seedFixturePeriod, setClock } from '../helpers/seed-collections.js';

type Cli = (args: string[], options?: Partial<CliOptions>) => Promise<CliResult>;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});


/** The scenario in either mode, every command without a terminal (as cron runs it). */
async function unattendedReruns(cli: Cli): Promise<void> {
  const create = ['--idempotency-key', 'settle', 'settlements', 'create', '--period', FIXTURE_PERIOD];
  const made = await cli(create);
  expect(made.code).toBe(0);
  expect(made.stderr).toMatch(/^Created SETTLE-2026-11-001: net 134\.12 to pay by 2026-12-03 with reference \S+\.\n$/);
  // Rerun while the statement is still pending: never "Created SETTLE-2026-11-001" a second time.
  const madeAgain = await cli(create);
  expect([madeAgain.code, madeAgain.stdout]).toEqual([0, made.stdout]);
  expect(madeAgain.stderr).toBe(
    "warning: SETTLE-2026-11-001 was made by an earlier run with idempotency key 'settle' (that run's answer is repeated); " +
      'it is still pending, to pay by 2026-12-03: no statement was made now.\n',
  );
  expect((await cli(['--json', 'settlements', 'list'])).json().data).toHaveLength(1);

  const markPaid = ['--idempotency-key', 'paid', 'settlements', 'mark-paid', 'SETTLE-2026-11-001', '--reference', 'EFT-77'];
  const paid = await cli(markPaid);
  expect([paid.code, paid.stderr]).toEqual([0, 'SETTLE-2026-11-001 is paid (on 2026-12-02, reference EFT-77).\n']);
  const dispute = ['--idempotency-key', 'disp', 'settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'Fee looks wrong'];
  const disputed = await cli(dispute);
  expect(disputed.code).toBe(0);
  expect(disputed.stderr).not.toContain('warning:');

  // The cron job's retry of mark-paid: its first answer (paid), though the statement is disputed now.
  const paidAgain = await cli(markPaid);
  expect([paidAgain.code, paidAgain.stdout]).toEqual([0, paid.stdout]);
  expect(paidAgain.stderr).toBe(`SETTLE-2026-11-001 is paid (on 2026-12-02, reference EFT-77).\n${replayedNote('paid', 'nothing was marked paid now')}`);
  // With --yes, the same.
  const paidYes = await cli(['--yes', ...markPaid]);
  expect(paidYes.stderr).toBe(paidAgain.stderr);

  const disputedAgain = await cli(dispute);
  expect([disputedAgain.code, disputedAgain.stdout]).toEqual([0, disputed.stdout]);
  expect(disputedAgain.stderr).toBe(`${disputed.stderr}${replayedNote('disp', 'nothing was disputed now')}`);
  expect((await cli(['--json', 'settlements', 'get', 'SETTLE-2026-11-001'])).json().status).toBe('disputed');

  const update = ['--idempotency-key', 'prem', 'policies', 'update', 'POL-0001', '--amount', '150.00'];
  const updated = await cli(update);
  expect(updated.code).toBe(0);
  expect(updated.stderr).toBe('Updated policy POL-0001.\n');
  const updatedAgain = await cli(['--yes', ...update]);
  expect(updatedAgain.code).toBe(0);
  // (The answer is the policy as the first run left it: nothing changed by this run, and said so.)
  expect(updatedAgain.stderr).toBe(`Policy POL-0001 unchanged: premium already 150.00.\n${replayedNote('prem', 'the policy was not updated now')}`);
}

describe('local mode', () => {
  it('mark-paid, dispute and policies update rerun under their keys without a terminal say they repeat the earlier answer', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const db = dbPath(dir);
    const backend = await openTestBackend(db);
    await seedFixturePeriod(backend.store);
    await setClock(backend.store, '2026-12-02');
    await backend.close();
    await unattendedReruns((args, options = {}) => runCli(['--db', db, ...args], { cwd: dir, ...options, env: { NO_COLOR: '1' } }));
  });
});

describe('remote mode (a premia service)', () => {
  let server: LiveServer;
  let dir: string;
  beforeAll(async () => {
    server = await startSeededService('2026-12-02');
    const t = tempDir('premia-keyed-note-');
    dir = t.dir;
    cleanups.push(t.cleanup);
  });
  afterAll(async () => server.close());

  it('mark-paid, dispute and policies update rerun under their keys without a terminal say they repeat the earlier answer', async () => {
    const env = { ...remoteEnv(server.url, server.keys.acme), NO_COLOR: '1' };
    await unattendedReruns((args, options = {}) => runPremia(args, { cwd: dir, env, ...options }));
  });
});
