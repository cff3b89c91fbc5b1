/**
 * Remote mode against real premia services configured the other ways an operator may run them:
 * with a tight rate limit (429 and Retry-After), without the simulated bank (the clock and bank
 * routes are missing), and with a small upload limit (413).
 */
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { instantRetries, remoteEnv, runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';

let server: LiveServer | undefined;
const { dir, cleanup } = tempDir('premia-live-');
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => cleanup());

describe('a real premia service', () => {
  it('over its rate limit: the CLI waits out Retry-After, then reports RATE_LIMITED (exit 1)', async () => {
    server = await startLiveServer({ rateLimit: 1, rateLimitWindowMs: 60_000 });
    const waits: number[] = [];
    const env = remoteEnv(server.url, server.keys.acme);
    expect((await runPremia(['clock', '--json'], { cwd: dir, env })).code).toBe(0);
    const r = await runPremia(['clock', '--json'], { cwd: dir, env, tuning: instantRetries(waits) });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/^Too many requests for this API key; retry after \d+ seconds? \(4 attempts\)\.$/) });
    expect(waits).toHaveLength(3);
    expect(waits.every((w) => w >= 1000 && w % 1000 === 0)).toBe(true);
  });

  it('policies update that changes nothing says so, as in local mode, and a change says Updated (issue 12)', async () => {
    // Before, remote mode said "Updated policy P1." for the same status again, where local mode said it was unchanged.
    server = await startLiveServer();
    const env = remoteEnv(server.url, server.keys.acme);
    const create = ['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'X', '--amount', '149.50'];
    expect((await runPremia(create, { cwd: dir, env })).code).toBe(0);
    const same = await runPremia(['policies', 'update', 'P1', '--status', 'active', '--amount', '149.50'], { cwd: dir, env });
    expect([same.code, same.stderr]).toEqual([0, 'Policy P1 unchanged: already active; premium already 149.50.\n']);
    const lapse = await runPremia(['policies', 'update', 'P1', '--status', 'lapsed'], { cwd: dir, env });
    expect([lapse.code, lapse.stderr]).toEqual([0, 'Updated policy P1.\n']);
    expect((await runPremia(['policies', 'update', 'P1', '--status', 'lapsed'], { cwd: dir, env })).stderr).toBe('Policy P1 unchanged: already lapsed.\n');
  });

  it('clock set more than a year from the service\'s clock needs --yes without a terminal, as in local mode (issue 12)', async () => {
    server = await startLiveServer();
    const env = remoteEnv(server.url, server.keys.operator);
    const r = await runPremia(['clock', 'set', '2062-11-21'], { cwd: dir, env });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/^error: Setting the clock from 2026-11-21 to 2062-11-21 would move it 13,149 days \(about 36 years\) ahead \(a mistyped year\?\)/);
    expect((await runPremia(['--json', 'clock'], { cwd: dir, env })).json().date).toBe('2026-11-21');
    expect((await runPremia(['--json', '--yes', 'clock', 'set', '2062-11-21'], { cwd: dir, env })).json().date).toBe('2062-11-21');
  });

  it('without the simulated bank: clock and bank say so (NOT_SUPPORTED, exit 1); the spec operations work', async () => {
    server = await startLiveServer({ simulation: false });
    const env = remoteEnv(server.url, server.keys.acme);
    for (const args of [['clock'], ['clock', 'advance', '--days', '1'], ['bank', 'seed', '3'], ['bank', 'import', join(FIXTURES, 'bank-transactions.csv')]]) {
      const r = await runPremia(args, { cwd: dir, env });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/^error: This server does not offer .*\. A premia service offers the clock and bank endpoints only while it runs on the simulated bank;/);
    }
    const created = await runPremia(['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'X', '--amount', '1', '--json'], { cwd: dir, env });
    expect(created.code).toBe(0);
  });

  it("with a client's key, clock advance is refused: FORBIDDEN (exit 4) with the service's message; an operator key moves it", async () => {
    server = await startLiveServer();
    const client = remoteEnv(server.url, server.keys.acme);
    const r = await runPremia(['clock', 'advance', '--days', '30', '--json'], { cwd: dir, env: client });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'FORBIDDEN',
      message:
        'This needs an operator key: the virtual clock and the simulated bank belong to the whole store, so a client key may only read the clock. ' +
        "The operator makes one with 'premia keys create --operator'.",
    });
    expect((await runPremia(['clock', '--json'], { cwd: dir, env: client })).json().date).toBe('2026-11-21');
    const operator = await runPremia(['clock', 'advance', '--days', '2', '--json'], { cwd: dir, env: remoteEnv(server.url, server.keys.operator) });
    expect(operator.code).toBe(0);
    expect(operator.json().to).toBe('2026-11-23');
  });

  it('clock advance follows a long advance answered 202 (Retry-After honoured) and prints its result', async () => {
    server = await startLiveServer();
    const env = remoteEnv(server.url, server.keys.operator);
    // The advance is held at its start by a write lock on the store, so it is answered 202.
    const raw = new Database(server.dbPath);
    raw.exec('begin immediate');
    const waits: number[] = [];
    const tuning = { sleep: async (ms: number) => {
      waits.push(ms);
      await new Promise((resolve) => setTimeout(resolve, 5));
    } };
    const cli = runPremia(['clock', 'advance', '--days', '3', '--json'], { cwd: dir, env, tuning });
    while (!server.logs.some((l) => / POST \/v1\/clock\/advance 202 /.test(l))) await new Promise((resolve) => setTimeout(resolve, 5));
    raw.exec('rollback');
    raw.close();
    const r = await cli;
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ from: '2026-11-21', to: '2026-11-24' });
    expect(r.json().days.map((d: any) => d.date)).toEqual(['2026-11-22', '2026-11-23', '2026-11-24']);
    // It asked the operation until it had ended, waiting the second the service asked for.
    expect(server.logs.filter((l) => / GET \/v1\/operations\/[0-9a-f-]{36} 200 /.test(l)).length).toBeGreaterThanOrEqual(1);
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(waits.every((w) => w === 1000)).toBe(true);
  });

  it('over its upload limit: PAYLOAD_TOO_LARGE (exit 2), not retried, nothing imported', async () => {
    server = await startLiveServer({ uploadLimit: 1024 });
    const env = remoteEnv(server.url, server.keys.acme);
    const r = await runPremia(['policies', 'import', join(FIXTURES, 'policies.csv'), '--json'], { cwd: dir, env, tuning: instantRetries() });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: 'The file is larger than the upload limit of 1024 bytes; nothing was imported.' });
    expect(server.logs.filter((l) => l.includes('POST /v1/policies/import'))).toHaveLength(1);
    expect((await runPremia(['policies', 'list', '--json'], { cwd: dir, env })).json().data).toEqual([]);
  });

  it("bank rows whose customer ids differ from a policy's only in letter case: the service imports them, and the CLI warns from its answer", async () => {
    server = await startLiveServer();
    const policies = join(dir, 'case-policies.csv');
    const bank = join(dir, 'case-bank.csv');
    writeFileSync(policies, 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nCASE-1,R1,POL-CASE-1,LIFE,100.00\n');
    writeFileSync(bank, 'customer_id,date,amount,description\ncase-1,2026-11-25,100.00,SALARY\n');
    expect((await runPremia(['policies', 'import', policies], { cwd: dir, env: remoteEnv(server.url, server.keys.acme) })).code).toBe(0);
    const r = await runPremia(['bank', 'import', bank], { cwd: dir, env: remoteEnv(server.url, server.keys.operator) });
    expect([r.code, r.stdout]).toEqual([0, 'Imported 1 transaction; 0 rows failed.\n']);
    expect(r.stderr).toBe(
      "warning: 1 customer id of case-bank.csv has no policy but differs only in letter case from a policy's customer id (customer ids are case-sensitive): " +
        "case-1 (row 2) where a policy has CASE-1. Their rows were imported as given, for customers of their own; the policies' customers are collected from generated accounts.\n",
    );
  });
});
