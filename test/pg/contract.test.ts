/**
 * The contract suite's scenarios (test/contract/scenarios.ts) on PostgreSQL: every step runs in
 * local mode on SQLite (the reference), in local mode on PostgreSQL (`--db postgres://…`) and in
 * remote mode against an in-process `premia serve` whose store is PostgreSQL (its job thread
 * opening the same database); each must give the same exit code, the same bytes on stdout, the
 * same error and the same --output file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend } from '../../src/backend/local/index.js';
import { createServer } from '../../src/server/app.js';
import { tempDir, type CliResult } from '../helpers/cli.js';
import { NOW, remoteEnv, runPremia } from '../helpers/remote.js';
import { SCENARIOS, type Memory, type Step } from '../contract/scenarios.js';
import { freshDatabase, noPg, pg } from './db.js';

const CLIENTS = { acme: 'Acme Life', other: 'Other Insure' } as const;

interface Side {
  name: string;
  cwd: string;
  memory: Memory;
  run: (step: Step, args: string[]) => Promise<CliResult>;
  close: () => Promise<void>;
}

async function localSide(name: string, db: string | null): Promise<Side> {
  const { dir, cleanup } = tempDir(`premia-pg-contract-${name}-`);
  const store = db ?? join(dir, 'local.db');
  for (const client of Object.values(CLIENTS)) {
    const r = await runPremia(['--db', store, '--seed', '1', 'keys', 'create', '--client', client, '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
  }
  return {
    name,
    cwd: dir,
    memory: {},
    run: (step, args) => runPremia(['--db', store, '--as-client', CLIENTS[step.as ?? 'acme'], ...args], { cwd: dir, stdin: step.stdin }),
    close: async () => cleanup(),
  };
}

async function remoteSide(db: string): Promise<Side> {
  const { dir, cleanup } = tempDir('premia-pg-contract-remote-');
  const backend = await openLocalBackend({ path: db, now: NOW, seed: 1 });
  const app = await createServer({ backend, rateLimit: 0, offload: true, tmpDir: dir, now: NOW, authFailureLimit: 0 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  const keys = {
    acme: (await backend.admin.keys.create(CLIENTS.acme, 'operator')).key,
    other: (await backend.admin.keys.create(CLIENTS.other, 'operator')).key,
  };
  return {
    name: 'remote-pg',
    cwd: dir,
    memory: {},
    run: (step, args) => runPremia(args, { cwd: dir, stdin: step.stdin, env: remoteEnv(url, keys[step.as ?? 'acme']) }),
    close: async () => {
      await app.close();
      await backend.close();
      cleanup();
    },
  };
}

function errorBody(r: CliResult, side: string): { error: Record<string, unknown> } {
  try {
    return JSON.parse(r.stderr);
  } catch {
    throw new Error(`${side}: stderr is not one JSON error body:\n${r.stderr}`);
  }
}

for (const scenario of noPg ? [] : SCENARIOS) {
  describe(`contract on PostgreSQL: ${scenario.name}`, () => {
    let sides: Side[] = [];
    beforeAll(async () => {
      sides = await Promise.all([
        localSide('sqlite', null),
        freshDatabase('contract').then((db) => localSide('local-pg', db)),
        freshDatabase('contract').then((db) => remoteSide(db)),
      ]);
    });
    afterAll(async () => {
      for (const s of sides) await s.close();
    });

    for (const step of scenario.steps) {
      it(step.name, async () => {
        const results: CliResult[] = [];
        for (const side of sides) {
          const args = typeof step.args === 'function' ? step.args(side.memory) : step.args;
          results.push(await side.run(step, args));
        }
        const [ref, ...others] = results as [CliResult, ...CliResult[]];
        const context = sides.map((s, i) => `${s.name} stderr:\n${results[i]!.stderr}`).join('\n');
        expect(ref.code, context).toBe(step.code);
        others.forEach((r, i) => {
          const side = sides[i + 1]!;
          expect(r.code, context).toBe(step.code);
          expect(r.stdout, `${side.name} stdout`).toBe(ref.stdout);
          if (step.error) {
            const want = errorBody(ref, 'sqlite').error;
            const got = errorBody(r, side.name).error;
            expect(got.code).toBe(step.error);
            expect({ ...got, request_id: null }).toEqual({ ...want, request_id: null });
          }
          if (step.file) {
            const a = readFileSync(join(sides[0]!.cwd, step.file));
            const b = readFileSync(join(side.cwd, step.file));
            expect(a.length).toBeGreaterThan(0);
            expect(b.equals(a), `${side.name}: ${step.file}`).toBe(true);
          }
        });
        step.check?.(ref, sides[0]!.memory);
        sides.forEach((s, i) => step.remember?.(results[i]!, s.memory));
      });
    }
  });
}

if (noPg) {
  describe('contract on PostgreSQL', () => {
    it.skip(`skipped: ${pg.reason}`, () => undefined);
  });
}
