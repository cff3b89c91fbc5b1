/**
 * The period's state beside the collections report in remote mode (issue 10, item 7): a premia
 * service sends it in the Premia-Period-State header, so the note on a terminal and
 * --require-closed work as in local mode, and the CSV bytes are the report's own. A server that
 * implements only the spec sends no such header: no note, and --require-closed refuses to guess.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { remoteEnv, runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';
import { startSpecStub, type SpecStub } from '../helpers/remote-spec-stub.js';
import { ACME_REPORT_CSV, seedPeriod } from '../server/fixture-period.js';

let server: LiveServer;
let stub: SpecStub;
let dir: string;
let cleanup: () => void;

beforeAll(async () => {
  server = await startLiveServer();
  await seedPeriod(server.backend.store); // the clock is at 2026-11-21: November open, October closed
  stub = await startSpecStub();
  ({ dir, cleanup } = tempDir('premia-period-state-'));
});
afterAll(async () => {
  await server.close();
  await stub.close();
  cleanup();
});

const premia = (args: string[], tty = false) =>
  runPremia(args, { cwd: dir, tty, env: { ...remoteEnv(server.url, server.keys.acme), NO_COLOR: '1' } });
const spec = (args: string[], tty = false) => runPremia(args, { cwd: dir, tty, env: { ...remoteEnv(stub.url, stub.key), NO_COLOR: '1' } });

describe('against a premia service', () => {
  it('on a terminal the open month is noted on stderr; the CSV is the same bytes', async () => {
    const r = await premia(['reports', 'collections', '--period', '2026-11'], true);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(ACME_REPORT_CSV);
    expect(r.stderr).toBe('note: 2026-11 is open: the clock is at 2026-11-21; 2 collections are not paid in full yet (the report is final once 2026-11-30 has run).\n');
    expect((await premia(['reports', 'collections', '--period', '2026-11'])).stderr).toBe('');
    expect((await premia(['reports', 'collections', '--period', '2026-10'], true)).stderr).toBe('');
  });

  it('--require-closed: exit 6 and nothing on stdout while open, in CSV and JSON; the report once closed', async () => {
    for (const extra of [[], ['--format', 'json']]) {
      const r = await premia(['reports', 'collections', '--period', '2026-11', '--require-closed', ...extra]);
      expect([r.code, r.stdout]).toEqual([6, '']);
      expect(r.stderr).toContain('error: 2026-11 is open: the clock is at 2026-11-21;');
      expect(r.stderr).toContain('(code PERIOD_OPEN)');
    }
    const never = await premia(['reports', 'collections', '--period', '2026-12', '--require-closed']);
    expect([never.code, never.stdout]).toEqual([6, '']);
    expect(never.stderr).toContain('(code NO_COLLECTIONS)');
    const closed = await premia(['reports', 'collections', '--period', '2026-10', '--require-closed']);
    expect(closed.code).toBe(0);
    expect(closed.stdout.split('\n')).toHaveLength(3);
  });
});

describe('against a server that implements only the spec', () => {
  it('gives no note (it says nothing of the period), and --require-closed refuses rather than pretend (exit 1)', async () => {
    const r = await spec(['reports', 'collections', '--period', '2026-11'], true);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const required = await spec(['reports', 'collections', '--period', '2026-11', '--require-closed']);
    expect([required.code, required.stdout]).toEqual([1, '']);
    expect(required.stderr).toBe(
      "error: --require-closed needs to know whether 2026-11 has closed, and this server does not say (its report carries no Premia-Period-State header: " +
        'a server that implements only the spec, or an older premia). Nothing was written; run the report without --require-closed.\n  (code NOT_SUPPORTED)\n',
    );
  });
});
