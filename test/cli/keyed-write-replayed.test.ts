/**
 * A keyed write that asks nothing before it (`policies create`, `policies import`, `bank import`,
 * `collections execute`) rerun under the same --idempotency-key without a terminal (a cron job's
 * retry) says that its answer is an earlier run's, repeated: known from the write's own answer
 * (local --idempotency-key's record; a premia service's `idempotent-replayed: true`), with no
 * read before it. Before, `policies import --idempotency-key nightly-2026-11-30 file.csv` rerun
 * printed "Imported 3 policies; 0 rows failed." again and nothing more, read as a second import.
 * `--json` keeps stdout the answer alone. A server that replays without saying so (beyond the
 * spec, which has no idempotency) gets no note, and no error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { replayedNote, runCli, tempDir, type CliOptions, type CliResult } from '../helpers/cli.js';
import { remoteEnv, runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';
import { startSpecStub } from '../helpers/remote-spec-stub.js';

type Cli = (args: string[], options?: Partial<CliOptions>) => Promise<CliResult>;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});


const POLICY_HEADER = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
const POLICIES = `${POLICY_HEADER}C900001,REF-1,POL-9001,LIFE,100.00\nC900002,REF-2,POL-9002,LIFE,200.00\nC900003,REF-3,POL-9003,FUNERAL,50.00\n`;
/** From stdin: one row imported, one refused (exit 3, both times). */
const POLICIES_STDIN = `${POLICY_HEADER}C900004,REF-4,POL-9004,LIFE,75.00\nC900005,REF-5,POL-9005,LIFE,ten\n`;
const BANK = 'customer_id,date,amount,description\nC900001,2026-08-25,3000.00,SALARY\nC900001,2026-09-03,-100.00,CARD PURCHASE\n';

/** Rows of the store's tables, read from its file. */
function rows(db: string): { policies: number; bank: number; collections: number } {
  const store = new Database(db, { readonly: true });
  try {
    const count = (table: string) => store.prepare(`select count(*) from ${table}`).pluck().get() as number;
    return { policies: count('policies'), bank: count('bank_transactions'), collections: count('collections') };
  } finally {
    store.close();
  }
}

/** A fresh store to run the CLI on, and its file (to count its rows). */
interface Setup {
  cli: Cli;
  dir: string;
  db: string;
}

const MODES: Array<[string, () => Promise<Setup>]> = [
  [
    'local mode',
    async () => {
      const { dir, cleanup } = tempDir('premia-keyed-replayed-');
      cleanups.push(cleanup);
      const db = join(dir, 'premia.db');
      return { dir, db, cli: (args, options = {}) => runCli(['--db', db, ...args], { cwd: dir, ...options, env: { NO_COLOR: '1' } }) };
    },
  ],
  [
    'remote mode (a premia service: idempotent-replayed: true)',
    async () => {
      const server: LiveServer = await startLiveServer();
      cleanups.push(() => server.close());
      const { dir, cleanup } = tempDir('premia-keyed-replayed-');
      cleanups.push(cleanup);
      // An operator key (the bank's writes want one), acting for its client Acme Life.
      const env = { ...remoteEnv(server.url, server.keys.operator), NO_COLOR: '1' };
      return { dir, db: server.dbPath, cli: (args, options = {}) => runPremia(args, { cwd: dir, env, ...options }) };
    },
  ],
];

const CREATE = ['policies', 'create', '--policy-number', 'POL-9000', '--customer-id', 'C900000', '--external-ref', 'REF-0', '--product-code', 'LIFE', '--amount', '120.00'];

describe.each(MODES)('%s: a keyed write rerun without a terminal says it repeats the earlier answer', (_mode, setup) => {
  it('policies create', async () => {
    const { cli, db } = await setup();
    const create = ['--idempotency-key', 'pol-1', ...CREATE];
    const created = await cli(create);
    expect([created.code, created.stderr]).toEqual([0, 'Created policy POL-9000.\n']);
    const again = await cli(create);
    expect([again.code, again.stdout]).toEqual([0, created.stdout]);
    expect(again.stderr).toBe(`Created policy POL-9000.\n${replayedNote('pol-1', 'no policy was created now')}`);
    // --quiet keeps warnings, as for the other notes.
    const quiet = await cli(['-q', ...create]);
    expect([quiet.code, quiet.stderr]).toEqual([0, replayedNote('pol-1', 'no policy was created now')]);
    expect(rows(db).policies).toBe(1);
  });

  it('policies import FILE: the cron job\'s retry (and under --json, stdout the answer alone)', async () => {
    const { cli, db, dir } = await setup();
    writeFileSync(join(dir, 'policies.csv'), POLICIES);
    const importFile = ['--idempotency-key', 'nightly-2026-11-30', 'policies', 'import', 'policies.csv'];
    const imported = await cli(importFile);
    expect([imported.code, imported.stdout, imported.stderr]).toEqual([0, 'Imported 3 policies; 0 rows failed.\n', '']);
    const again = await cli(importFile);
    expect([again.code, again.stdout, again.stderr]).toEqual([0, imported.stdout, replayedNote('nightly-2026-11-30', 'nothing was imported now')]);
    const json = await cli(['--json', ...importFile]);
    expect([json.code, json.stdout, json.stderr]).toEqual([0, '{"imported":3,"failed":0,"errors":[]}\n', replayedNote('nightly-2026-11-30', 'nothing was imported now')]);
    expect(rows(db).policies).toBe(3);
  });

  it('policies import - (stdin), a row refused: exit 3 both times', async () => {
    const { cli, db } = await setup();
    const importStdin = ['--idempotency-key', 'stdin-1', 'policies', 'import', '-'];
    const piped = await cli(importStdin, { stdin: POLICIES_STDIN });
    expect(piped.code).toBe(3);
    expect(piped.stdout.split('\n')[0]).toBe('Imported 1 policy; 1 row failed.');
    const again = await cli(importStdin, { stdin: POLICIES_STDIN });
    expect([again.code, again.stdout]).toEqual([3, piped.stdout]);
    expect(again.stderr).toBe(`${piped.stderr}${replayedNote('stdin-1', 'nothing was imported now')}`);
    expect(rows(db).policies).toBe(1);
  });

  it('bank import', async () => {
    const { cli, db, dir } = await setup();
    writeFileSync(join(dir, 'bank.csv'), BANK);
    const bank = ['--idempotency-key', 'bank-1', 'bank', 'import', 'bank.csv'];
    const banked = await cli(bank);
    expect([banked.code, banked.stdout, banked.stderr]).toEqual([0, 'Imported 2 transactions; 0 rows failed.\n', '']);
    const again = await cli(bank);
    expect([again.code, again.stdout, again.stderr]).toEqual([0, banked.stdout, replayedNote('bank-1', 'nothing was imported now')]);
    expect(rows(db).bank).toBe(2);
  });

  it('collections execute: a policy added since is not queued by the rerun', async () => {
    const { cli, db, dir } = await setup();
    writeFileSync(join(dir, 'policies.csv'), POLICIES);
    expect((await cli(['policies', 'import', 'policies.csv'])).code).toBe(0);
    const execute = ['--idempotency-key', 'run-2026-11', 'collections', 'execute', '--period', '2026-11'];
    const executed = await cli(execute);
    expect(executed.code).toBe(0);
    expect(executed.stderr).toMatch(/^Queued 3 policies for 2026-11 \(\S+\); the engine collects as the clock advances\.\n$/);
    expect(rows(db).collections).toBe(3);
    expect((await cli(CREATE)).code).toBe(0);
    const again = await cli(execute);
    expect([again.code, again.stdout]).toEqual([0, executed.stdout]);
    expect(again.stderr).toBe(`${executed.stderr}${replayedNote('run-2026-11', 'nothing was queued now')}`);
    expect(rows(db)).toEqual({ policies: 4, bank: 0, collections: 3 });
  });

  it('bank seed', async () => {
    const { cli } = await setup();
    const seed = ['--idempotency-key', 'seed-1', 'bank', 'seed', '7'];
    const seeded = await cli(seed);
    expect([seeded.code, seeded.stderr]).toEqual([0, 'Bank seed set to 7.\n']);
    const again = await cli(seed);
    expect([again.code, again.stdout, again.stderr]).toEqual([0, seeded.stdout, `Bank seed set to 7.\n${replayedNote('seed-1', 'the seed was not set now')}`]);
  });
});

describe('remote mode (a server that implements only the spec, replaying without saying so)', () => {
  it('a rerun under the key gets the first answer again: no note, no error', async () => {
    const stub = await startSpecStub({ replayKeys: true });
    cleanups.push(() => stub.close());
    const { dir, cleanup } = tempDir('premia-keyed-replayed-');
    cleanups.push(cleanup);
    writeFileSync(join(dir, 'policies.csv'), POLICIES);
    const cli = (args: string[]) => runPremia(args, { cwd: dir, env: { ...remoteEnv(stub.url, stub.key), NO_COLOR: '1' } });

    const create = ['--idempotency-key', 'pol-1', 'policies', 'create', '--policy-number', 'POL-9000', '--customer-id', 'C900000', '--external-ref', 'REF-0', '--product-code', 'LIFE', '--amount', '120.00'];
    const created = await cli(create);
    expect([created.code, created.stderr]).toEqual([0, 'Created policy POL-9000.\n']);
    const createdAgain = await cli(create);
    expect([createdAgain.code, createdAgain.stdout, createdAgain.stderr]).toEqual([0, created.stdout, created.stderr]);

    const importFile = ['--idempotency-key', 'nightly-2026-11-30', 'policies', 'import', 'policies.csv'];
    const imported = await cli(importFile);
    expect([imported.code, imported.stdout, imported.stderr]).toEqual([0, 'Imported 3 policies; 0 rows failed.\n', '']);
    const importedAgain = await cli(importFile);
    expect([importedAgain.code, importedAgain.stdout, importedAgain.stderr]).toEqual([0, imported.stdout, '']);

    expect(stub.policies.size).toBe(4);
    expect(stub.violations).toEqual([]);
  });
});
