/**
 * `collections execute` says the same in both modes against a premia service: the strategy in
 * effect, "Nothing new to queue" on a rerun, and the warning when nothing could be queued
 * (a spec-only server, which has no executions to read, is covered in spec-server.test.ts).
 */
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { NOW, remoteEnv, runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';

let server: LiveServer | undefined;
const { dir, cleanup } = tempDir('premia-execute-parity-');
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => cleanup());

const create = ['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'X', '--amount', '10'];
const execute = ['collections', 'execute', '--period', '2026-12'];

/** stderr of each step, execution ids made alike. */
async function steps(run: (args: string[]) => Promise<{ code: number; stderr: string }>): Promise<string[]> {
  const out: string[] = [];
  for (const args of [create, execute, execute, [...execute, '--policy', 'P1']]) {
    const r = await run(args);
    out.push(`${r.code} ${r.stderr.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, 'ID')}`);
  }
  return out;
}

describe('collections execute against a premia service', () => {
  it('prints what local mode prints: the strategy, then "Nothing new to queue" on a rerun', async () => {
    server = await startLiveServer();
    const env = remoteEnv(server.url, server.keys.acme);
    const remote = await steps((args) => runPremia(args, { cwd: dir, env }));
    const db = join(dir, 'local.db');
    const local = await steps((args) => runCli(['--db', db, ...args], { cwd: dir, now: NOW }));
    expect(remote).toEqual([
      '0 Created policy P1.\n',
      '0 Queued 1 policy for 2026-12 (smart); the engine collects as the clock advances.\n',
      '0 Nothing new to queue for 2026-12: every active policy is already queued (smart); the engine collects as the clock advances.\n',
      '0 Nothing new to queue for 2026-12: the policies given are already queued (smart); the engine collects as the clock advances.\n',
    ]);
    expect(remote).toEqual(local);
  });

  it('warns, as local mode does, when a month is queued with a week or less of it left', async () => {
    server = await startLiveServer();
    const env = remoteEnv(server.url, server.keys.operator);
    const db = join(dir, 'late.db');
    const late = async (run: (args: string[]) => Promise<{ code: number; stderr: string }>) => {
      for (const args of [create, ['clock', 'set', '2026-11-25']]) expect((await run(args)).code).toBe(0);
      const r = await run(['collections', 'execute', '--period', '2026-11']);
      return [r.code, r.stderr];
    };
    const remote = await late((args) => runPremia(args, { cwd: dir, env }));
    expect(remote).toEqual([
      0,
      'warning: 2026-11 was queued with the clock at 2026-11-25: 5 days of it are left to collect in, so many of its collections may end unpaid. ' +
        'A month is queued before it starts (the clock on the last day of the month before).\n' +
        'Queued 1 policy for 2026-11 (smart); the engine collects as the clock advances.\n',
    ]);
    expect(remote).toEqual(await late((args) => runCli(['--db', db, ...args], { cwd: dir, now: NOW })));
  });

  it('warns, as local mode does, when the client has no active policy to queue', async () => {
    server = await startLiveServer();
    const r = await runPremia(execute, { cwd: dir, env: remoteEnv(server.url, server.keys.other) });
    const id = r.stdout.match(/execution_id\s+(\S+)/)![1]!;
    expect([r.code, r.stderr]).toEqual([
      0,
      "warning: Nothing was queued for 2026-12: there is no active policy to queue. Add the policies ('premia policies import FILE' or 'policies create'), then run this again; " +
        `the run is recorded (execution ${id}), so the clock can no longer be set, only advanced.\n`,
    ]);
  });
});
