/**
 * A command that writes while another process holds the store's write lock (cron's advance, an
 * import) says why nothing happens, then does its work once the lock is free. Before, it sat
 * silent for up to the busy timeout (30 s).
 */
import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
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

/**
 * `args` run on a new store (its clock set) while another connection holds the write lock all
 * along, Ctrl-C coming once premia has said it waits: the run, whether the other still held the
 * lock then, and the SIGINT listeners left behind.
 */
async function ctrlCWhileWaiting(name: string, args: string[]) {
  const db = join(dir, `${name}.db`);
  expect((await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
  const other = new Database(db);
  other.exec('begin immediate');
  const signals = new EventEmitter();
  const r = await runCli(['--db', db, ...args], {
    cwd: dir,
    signals,
    prepare: (ctx) =>
      ctx.stderr.on('data', (chunk: Buffer) => {
        if (chunk.toString().startsWith('Waiting')) signals.emit('SIGINT');
      }),
  });
  const held = other.inTransaction;
  other.exec('rollback');
  other.close();
  return { db, code: r.code, stderr: r.stderr, held, listening: signals.listenerCount('SIGINT') };
}

const WAITING = 'Waiting for another premia process to finish writing to the store; nothing has changed yet.\n';

it.each([
  ['policies', 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P2,LIFE,10.00\n'],
  ['bank', 'customer_id,date,amount,description\nC1,2026-11-05,100.00,SALARY\n'],
])('%s import: Ctrl-C while it waits for another writer stops at once, nothing imported, exit 130', async (what, csv) => {
  const file = join(dir, `${what}.csv`);
  writeFileSync(file, csv);
  const { db, code, stderr, held } = await ctrlCWhileWaiting(`${what}-stop`, [what, 'import', file]);
  expect({ code, stderr, held }).toEqual({ code: 130, stderr: `${WAITING}Stopped by Ctrl-C: nothing was imported (the import was rolled back whole).\n`, held: true });
  expect((await runCli(['--db', db, '--json', what, 'import', file], { cwd: dir })).json()).toMatchObject({ imported: 1, failed: 0 });
});

// A command without a Ctrl-C of its own was killed by it in silence (the shell saw 130, the
// operator no word of whether anything changed).
it('Ctrl-C while any other write waits for another writer: said, nothing changed, exit 130', async () => {
  const create = ['policies', 'create', '--policy-number', 'P9', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '10'];
  const { db, ...run } = await ctrlCWhileWaiting('create-stop', create);
  expect(run).toEqual({ code: 130, stderr: `${WAITING}Stopped by Ctrl-C while waiting for the other process: nothing changed.\n`, held: true, listening: 0 });
  expect((await runCli(['--db', db, 'policies', 'get', 'P9'], { cwd: dir })).code).toBe(5);
});

// db copy onto a store another process was writing sat silent until the busy timeout (30 s),
// deaf to Ctrl-C, then ended STORE_BUSY, exit 1.
it('db copy onto a store another process is writing: says it waits; Ctrl-C stops it at once, nothing copied, exit 130', async () => {
  const from = join(dir, 'copy-from.db');
  expect((await runCli(['--db', from, 'clock', 'set', '2026-11-30'], { cwd: dir })).code).toBe(0);
  const { db, ...run } = await ctrlCWhileWaiting('copy-to', ['--yes', 'db', 'copy', '--from', from, '--to', join(dir, 'copy-to.db')]);
  const to = join(dir, 'copy-to.db');
  expect(run).toEqual({
    code: 130,
    stderr:
      `Copying ${from} to ${to}…\n${to} is not empty: the copy replaces all it holds: clients (1 row), meta (3 rows).\n${WAITING}` +
      `Stopped by Ctrl-C: nothing was copied (the copy was rolled back whole); ${to} holds what it held before.\n`,
    held: true,
    listening: 0,
  });
  expect((await runCli(['--db', db, '--json', 'clock'], { cwd: dir })).json()).toMatchObject({ date: '2026-10-31' });
});
