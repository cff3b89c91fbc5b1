/**
 * The contract suite: every scenario of scenarios.ts runs in local mode (a temporary store) and in
 * remote mode (an in-process `premia serve` on 127.0.0.1, port 0), step by step, and each step
 * must give the same exit code, the same bytes on stdout, the same error (code, message and
 * details; the request_id is the service's own) and the same --output file in both.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, type CliResult } from '../helpers/cli.js';
import { remoteEnv, runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';
import { SCENARIOS, type Memory, type Step } from './scenarios.js';

const CLIENTS = { acme: 'Acme Life', other: 'Other Insure' } as const;

interface Side {
  name: 'local' | 'remote';
  cwd: string;
  memory: Memory;
  run: (step: Step, args: string[]) => Promise<CliResult>;
  close: () => Promise<void>;
}

async function localSide(): Promise<Side> {
  const { dir, cleanup } = tempDir('premia-contract-local-');
  const db = join(dir, 'local.db');
  // The same clients, made in the same order as the server's keys (so client ids match too).
  // --seed 1 as the server's store has: the same seed gives the same ids on both sides.
  for (const client of Object.values(CLIENTS)) {
    const r = await runPremia(['--db', db, '--seed', '1', 'keys', 'create', '--client', client, '--json'], { cwd: dir });
    expect(r.code).toBe(0);
  }
  return {
    name: 'local',
    cwd: dir,
    memory: {},
    run: (step, args) => runPremia(['--db', db, '--as-client', CLIENTS[step.as ?? 'acme'], ...args], { cwd: dir, stdin: step.stdin }),
    close: async () => cleanup(),
  };
}

async function remoteSide(): Promise<Side> {
  const server: LiveServer = await startLiveServer();
  const { dir, cleanup } = tempDir('premia-contract-remote-');
  // Operator keys of the two clients: the scenarios drive the clock and the bank, as the local
  // CLI (the store's operator) may; client keys get 403 there (test/server/roles.test.ts).
  const keys = {
    acme: (await server.backend.admin.keys.create(CLIENTS.acme, 'operator')).key,
    other: (await server.backend.admin.keys.create(CLIENTS.other, 'operator')).key,
  };
  return {
    name: 'remote',
    cwd: dir,
    memory: {},
    run: (step, args) => runPremia(args, { cwd: dir, stdin: step.stdin, env: remoteEnv(server.url, keys[step.as ?? 'acme']) }),
    close: async () => {
      await server.close();
      cleanup();
    },
  };
}

function errorBody(r: CliResult, side: string): { error: Record<string, unknown> } {
  let body: { error: Record<string, unknown> };
  try {
    body = JSON.parse(r.stderr);
  } catch {
    throw new Error(`${side}: stderr is not one JSON error body:\n${r.stderr}`);
  }
  return body;
}

for (const scenario of SCENARIOS) {
  describe(`contract: ${scenario.name}`, () => {
    let local: Side;
    let remote: Side;
    beforeAll(async () => {
      [local, remote] = await Promise.all([localSide(), remoteSide()]);
    });
    afterAll(async () => {
      await local?.close();
      await remote?.close();
    });

    for (const step of scenario.steps) {
      it(step.name, async () => {
        const results: Record<string, CliResult> = {};
        for (const side of [local, remote]) {
          const args = typeof step.args === 'function' ? step.args(side.memory) : step.args;
          results[side.name] = await side.run(step, args);
        }
        const l = results.local!;
        const r = results.remote!;
        const context = `local stderr:\n${l.stderr}\nremote stderr:\n${r.stderr}`;
        expect(l.code, context).toBe(step.code);
        expect(r.code, context).toBe(step.code);
        expect(r.stdout).toBe(l.stdout);
        if (step.error) {
          expect(l.stdout).toBe('');
          const le = errorBody(l, 'local');
          const re = errorBody(r, 'remote');
          expect(le.error.code).toBe(step.error);
          expect(le.error.request_id).toBeNull();
          expect(re.error.request_id).toEqual(step.beforeSending ? null : expect.stringMatching(/^[0-9a-f-]{36}$/));
          expect({ ...re.error, request_id: null }).toEqual(le.error);
        } else if (step.code === 0 && !step.file) {
          expect(l.stdout.length).toBeGreaterThan(0);
        }
        if (step.file) {
          const lf = readFileSync(join(local.cwd, step.file));
          const rf = readFileSync(join(remote.cwd, step.file));
          expect(lf.length).toBeGreaterThan(0);
          expect(rf.equals(lf)).toBe(true);
        }
        step.check?.(l, local.memory);
        step.remember?.(l, local.memory);
        step.remember?.(r, remote.memory);
      });
    }
  });
}
