/**
 * A command that writes while another process holds the store's write lock (cron's advance, an
 * import) says why nothing happens, then does its work once the lock is free. Before, it sat
 * silent for up to the busy timeout (30 s).
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir('premia-lock-wait-')));
afterAll(() => cleanup());

it('policies create waits for another writer, saying so once', async () => {
  const db = join(dir, 's.db');
  expect((await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
  const other = new Database(db);
  other.exec('begin immediate');
  const create = ['--db', db, 'policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '10'];
  const r = await runCli(create, {
    cwd: dir,
    // The other writer lets go once premia has said it waits.
    prepare: (ctx) =>
      ctx.stderr.on('data', (chunk: Buffer) => {
        if (other.inTransaction && chunk.toString().startsWith('Waiting')) other.exec('rollback');
      }),
  });
  other.close();
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code: 0,
    stderr: 'Waiting for another premia process to finish writing to the store; nothing has changed yet.\nCreated policy P1.\n',
  });
  expect((await runCli(['--db', db, 'policies', 'get', 'P1', '--json'], { cwd: dir })).json().collection_amount).toBe(10);
});
