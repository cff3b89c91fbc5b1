/**
 * `premia db copy`: a store file copied to PostgreSQL (and back), verified, and usable: the
 * copy gives the same report bytes and, advanced, the same attempts as the original.
 */
import { createHash } from 'node:crypto';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend } from '../../src/backend/local/index.js';
import { openStore, PREMIA_APPLICATION_ID } from '../../src/store/store.js';
import { MARKER_TABLE } from '../../src/store/pg-store.js';
import { FIXTURES, runCli, tempDir, type CliResult } from '../helpers/cli.js';
import { FIXED_NOW, fileUpload, fixtureMonth, readDownload } from '../helpers/local.js';
import { freshDatabase, noPg, onDatabase, pg } from './db.js';

const run = (args: string[], cwd: string, extra: { tty?: boolean; confirm?: boolean[] } = {}): Promise<CliResult> =>
  runCli(args, {
    cwd,
    now: FIXED_NOW,
    tty: extra.tty,
    prompter: extra.confirm
      ? {
          password: async () => '',
          input: async () => '',
          confirm: async () => extra.confirm!.shift() ?? false,
        }
      : undefined,
  });

/** What the copy of the fixture store below prints: every table, its rows and money (cents summed). */
const WANT_TABLE = `table                  rows (source)  rows (copy)  money (source)  money (copy)  check
clients                            2            2               -             -  same
api_keys                           1            1               -             -  same
executions                         2            2               -             -  same
policies                         520          520       518983.09     518983.09  same
collections                     1040         1040      1508891.28    1508891.28  same
attempts                         543          543       473143.12     473143.12  same
bank_snapshots                    14           14        16521.52      16521.52  same
bank_transactions                473          473       213992.20     213992.20  same
engine_image                       1            1               -             -  same
engine_image_head                  1            1               -             -  same
engine_shards                      0            0               -             -  same
idempotency_keys                   0            0               -             -  same
meta                               5            5               -             -  same
plan_batches                      18           18               -             -  same
policy_amount_changes              0            0            0.00          0.00  same
policy_status_changes              0            0               -             -  same
settlements                        1            1      1076063.86    1076063.86  same
settlement_events                  1            1               -             -  same
`;

describe.skipIf(noPg)(`premia db copy${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  const { dir, cleanup } = tempDir('premia-pg-copy-');
  const file = join(dir, 'premia.db');
  let target = '';

  beforeAll(async () => {
    // The original: November lived and settled, December's collections executed.
    const b = await openLocalBackend({ path: file, seed: 1, now: FIXED_NOW });
    try {
      await fixtureMonth(b);
      await b.advanceClock({ to: '2026-12-02' });
      await b.createSettlement('2026-11');
      await b.executeCollections({ period_month: '2026-12' });
      await b.admin.keys.create('Acme Life', 'client');
    } finally {
      await b.close();
    }
    target = await freshDatabase('copy_to');
  });
  afterAll(() => cleanup());

  it('copies a store file into an empty database: every table, verified, exit 0, no password shown', async () => {
    const r = await run(['db', 'copy', '--from', 'premia.db', '--to', target], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(WANT_TABLE);
    // The figures are the target's own: the policies' cents summed there.
    const [sum] = await onDatabase<{ cents: string }>(target, 'select sum(collection_amount)::text as cents from policies');
    expect(sum!.cents).toBe('51898309');
    expect(r.stderr).toMatch(/Copied .*premia\.db to postgres:\/\/premia_test:\*\*\*@127\.0\.0\.1:\d+\/copy_to_[0-9a-f]+: 18 tables, 2,622 rows; counts and money totals identical\.\n$/);
    expect(r.stdout + r.stderr).not.toContain(pg.cluster!.password);
    // The id sequences follow the tables: the next policy id is max(id) + 1.
    const [seq] = await onDatabase<{ next: string; max: string }>(
      target,
      `select (select max(id) from policies)::text as max, nextval(pg_get_serial_sequence('policies', 'id'))::text as next`,
    );
    expect(Number(seq!.next)).toBe(Number(seq!.max) + 1);
  });

  it('the copy is usable: the same report bytes, and the same attempts when both are advanced', async () => {
    for (const args of [
      ['reports', 'collections', '--period', '2026-11'],
      ['settlements', 'export', 'SETTLE-2026-11-001', '--lines'],
      ['policies', 'list', '--format', 'csv'],
    ]) {
      const a = await run(['--db', file, ...args], dir);
      const b = await run(['--db', target, ...args], dir);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      expect(a.stdout.length).toBeGreaterThan(200);
      expect(b.stdout === a.stdout, args.join(' ')).toBe(true);
    }
    const advanced = [];
    for (const db of [file, target]) {
      const r = await run(['--db', db, '--json', 'clock', 'advance', '--to', '2026-12-31'], dir);
      expect(r.code, r.stderr).toBe(0);
      const attempts = await run(['--db', db, 'collections', 'attempts', '--period', '2026-12'], dir);
      expect(attempts.code, attempts.stderr).toBe(0);
      advanced.push({ result: r.stdout, attempts: attempts.stdout });
    }
    expect(advanced[0]!.attempts.trimEnd().split('\n').length).toBeGreaterThan(40);
    expect(advanced[1]!.attempts === advanced[0]!.attempts).toBe(true);
    expect(advanced[1]!.result === advanced[0]!.result).toBe(true);
  });

  it("a database holding only premia's mark (a copy stopped early): a command that only reads creates nothing, and the copy takes it as empty", async () => {
    const stopped = await freshDatabase('copy_stopped');
    await onDatabase(stopped, `create table ${MARKER_TABLE} (application_id integer not null)`);
    await onDatabase(stopped, `insert into ${MARKER_TABLE} (application_id) values (${PREMIA_APPLICATION_ID})`);
    const tables = async () => (await onDatabase<{ t: string }>(stopped, "select tablename as t from pg_tables where schemaname = current_schema() order by 1")).map((r) => r.t);
    const who = await run(['--db', stopped, 'whoami'], dir);
    expect(who.code).toBe(0);
    expect(who.stdout).toContain('(not created yet)');
    expect((await run(['--db', stopped, 'policies', 'list'], dir)).code).toBe(2);
    expect(await tables()).toEqual([MARKER_TABLE]);
    const copied = await run(['db', 'copy', '--from', 'premia.db', '--to', stopped], dir);
    expect(copied.code).toBe(0);
    expect(Number((await onDatabase<{ n: string }>(stopped, 'select count(*)::text as n from policies'))[0]!.n)).toBe(520);
  });

  it('refuses a non-empty target without --yes (exit 6, naming what is there); nothing changes', async () => {
    const other = join(dir, 'other.db');
    const seeded = await openLocalBackend({ path: other, seed: 2, now: FIXED_NOW });
    await seeded.close();
    const r = await run(['db', 'copy', '--from', 'other.db', '--to', target], dir);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/The target postgres:\/\/premia_test:\*\*\*@[^ ]+ is not empty: it holds clients \(2 rows\), api_keys \(1 row\), executions \(2 rows\), policies \(520 rows\), collections \(1,040 rows\), attempts \([\d,]+ rows\), /);
    expect(r.stderr).toContain('Nothing was copied. Give --yes to replace all of it');
    expect(r.stderr).not.toContain(pg.cluster!.password);
    const n = (await onDatabase<{ n: string }>(target, 'select count(*)::text as n from policies'))[0]!.n;
    expect(Number(n)).toBe(520);
  });

  it('--yes on a terminal says what is replaced and asks: no changes nothing (130), yes replaces', async () => {
    const back = join(dir, 'back.db');
    // First a copy back to a file (PostgreSQL to SQLite), to have a second store to replace with.
    const down = await run(['db', 'copy', '--from', target, '--to', back], dir);
    expect(down.code, down.stderr).toBe(0);
    expect(existsSync(back)).toBe(true);
    const a = await run(['--db', back, 'collections', 'attempts', '--period', '2026-12'], dir);
    const b = await run(['--db', target, 'collections', 'attempts', '--period', '2026-12'], dir);
    expect(a.stdout === b.stdout && a.stdout.length > 1000).toBe(true);

    const empty = join(dir, 'empty.db');
    await (await openLocalBackend({ path: empty, seed: 3, now: FIXED_NOW })).close();
    const no = await run(['--yes', 'db', 'copy', '--from', 'empty.db', '--to', target], dir, { tty: true, confirm: [false] });
    expect(no.code).toBe(130);
    expect(no.stderr).toMatch(/is not empty: the copy replaces all it holds: clients \(2 rows\), api_keys \(1 row\), executions \(2 rows\), policies \(520 rows\), collections \(1,040 rows\), /);
    expect((await onDatabase<{ n: string }>(target, 'select count(*)::text as n from policies'))[0]!.n).toBe('520');

    const yes = await run(['--yes', 'db', 'copy', '--from', 'empty.db', '--to', target], dir, { tty: true, confirm: [true] });
    expect(yes.code, yes.stderr).toBe(0);
    expect((await onDatabase<{ n: string }>(target, 'select count(*)::text as n from policies'))[0]!.n).toBe('0');
    expect(yes.stderr).toMatch(/replacing what it held: clients, api_keys, executions, policies, /);
  });

  it('a copy that does not verify is rolled back: exit 1, the differing table named, the target left empty', async () => {
    // A premia store whose attempts table silently drops one row on insert.
    const lossy = await freshDatabase('copy_lossy');
    await (await openStore({ path: lossy })).close();
    await onDatabase(
      lossy,
      `create function drop_one() returns trigger language plpgsql as $$ begin
         if new.id = 1 then return null; end if; return new; end $$`,
    );
    await onDatabase(lossy, 'create trigger drop_one before insert on attempts for each row execute function drop_one()');
    const r = await run(['db', 'copy', '--from', 'premia.db', '--to', lossy], dir);
    expect(r.code).toBe(1);
    // (The original was advanced to 2026-12-31 above: November's and December's attempts.)
    const line = /\nattempts +(\d+) +(\d+) +(\d+\.\d\d) +(\d+\.\d\d) {2}DIFFERS\n/.exec(r.stdout);
    const source = new Database(join(dir, 'premia.db'), { readonly: true });
    const attempts = (source.prepare('select count(*) as n from attempts').get() as { n: number }).n;
    source.close();
    expect(attempts).toBeGreaterThan(1000);
    expect(line?.slice(1, 3)).toEqual([String(attempts), String(attempts - 1)]);
    expect(line![3]).not.toBe(line![4]);
    expect(r.stdout.match(/DIFFERS/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/the copy differs from its source in attempts; it was rolled back and postgres:\/\/premia_test:\*\*\*@[^ ]+ is unchanged\.\n$/);
    for (const table of ['clients', 'policies', 'attempts', 'meta']) {
      expect((await onDatabase<{ n: string }>(lossy, `select count(*)::text as n from ${table}`))[0]!.n, table).toBe('0');
    }
  });

  it('refuses to copy a store onto itself, however its URL is written (exit 2); --json gives the report', async () => {
    const url = new URL(target);
    const self = await run(['db', 'copy', '--from', target, '--to', `postgres://${url.username}@${url.host}${url.pathname}?pool=2`], dir);
    expect(self.code).toBe(2);
    expect(self.stderr).toContain('--from and --to name the same store: copy it to another one.');
    const file2 = await run(['db', 'copy', '--from', 'premia.db', '--to', './sub/../premia.db'], dir);
    expect(file2.code).toBe(2);
    // Reached another way (localhost for 127.0.0.1; a link to the file): found once both are open, before anything is changed.
    const other = new URL(target);
    other.hostname = 'localhost';
    const byName = await run(['--yes', 'db', 'copy', '--from', target, '--to', other.toString()], dir);
    expect(byName.code, byName.stderr).toBe(2);
    expect(byName.stderr).toContain('--from and --to name the same store: copy it to another one.');
    symlinkSync(join(dir, 'premia.db'), join(dir, 'link.db'));
    const linked = await run(['--yes', 'db', 'copy', '--from', 'premia.db', '--to', 'link.db'], dir);
    expect(linked.code, linked.stderr).toBe(2);
    expect(linked.stderr).toContain('--from and --to name the same store: copy it to another one.');

    const json = await run(['--json', 'db', 'copy', '--from', 'premia.db', '--to', await freshDatabase('copy_json')], dir);
    expect(json.code, json.stderr).toBe(0);
    const body = json.json();
    expect(body.identical).toBe(true);
    expect(body.replaced).toEqual([]);
    expect(body.from).toBe(file);
    expect(body.to).toMatch(/^postgres:\/\/premia_test:\*\*\*@127\.0\.0\.1:\d+\/copy_json_[0-9a-f]+$/);
    const policies = body.tables.find((t: { table: string }) => t.table === 'policies');
    expect(policies).toEqual({ table: 'policies', from: { table: 'policies', rows: '520', money: '51898309' }, to: { table: 'policies', rows: '520', money: '51898309' }, same: true });
    expect(json.stdout).not.toContain(pg.cluster!.password);
  });

  it("mid-month, with the engine's image: its bytes copied as they are, and the month ends the same", async () => {
    // No bank import (which drops the image): the advance keeps its image (engine_image).
    const mid = join(dir, 'mid.db');
    const b = await openLocalBackend({ path: mid, seed: 1, now: FIXED_NOW });
    try {
      await b.setClock('2026-10-31');
      await b.importPolicies(fileUpload(join(FIXTURES, 'policies.csv')));
      await b.executeCollections({ period_month: '2026-11' });
      await b.advanceClock({ to: '2026-11-20' });
    } finally {
      await b.close();
    }
    const lite = new Database(mid, { readonly: true });
    const kept = lite.prepare('select block, data from engine_image order by block').all() as Array<{ block: number; data: Buffer }>;
    lite.close();
    expect(kept.length).toBeGreaterThan(0);
    const to = await freshDatabase('copy_mid');
    const r = await run(['db', 'copy', '--from', 'mid.db', '--to', to], dir);
    expect(r.code, r.stderr).toBe(0);
    const copied = await onDatabase<{ block: string; md5: string }>(to, 'select block::text, md5(data) as md5 from engine_image order by block');
    expect(copied).toEqual(kept.map((k) => ({ block: String(k.block), md5: createHash('md5').update(k.data).digest('hex') })));
    const ends = [];
    for (const db of [mid, to]) {
      const advanced = await run(['--db', db, '--json', 'clock', 'advance', '--to', '2026-11-30'], dir);
      expect(advanced.code, advanced.stderr).toBe(0);
      ends.push((await run(['--db', db, 'collections', 'attempts', '--period', '2026-11'], dir)).stdout);
    }
    expect(ends[0]!.trimEnd().split('\n').length).toBeGreaterThan(500);
    expect(ends[1] === ends[0]).toBe(true);
  });

  it('a month lived in customer shards, copied to a file: the attempts export in day and policy order, as on SQLite', async () => {
    const month = async (b: Awaited<ReturnType<typeof openLocalBackend>>) => ({
      attempts: await readDownload(await b.exportAttempts('2026-11', 'csv')),
      report: await readDownload(await b.collectionsReport('2026-11', 'csv')),
    });
    const solo = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    const url = await freshDatabase('copy_shards');
    const sharded = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
    try {
      await fixtureMonth(solo);
      const want = await month(solo);
      await sharded.admin.settings.set('engine.shards', '4');
      await fixtureMonth(sharded);
      // The shards of a day commit one after another: their attempts' ids are not in policy order.
      expect(await month(sharded)).toEqual(want);
      const r = await run(['db', 'copy', '--from', url, '--to', 'sharded.db'], dir);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      await solo.close();
      await sharded.close();
    }
    const copy = await openLocalBackend({ path: join(dir, 'sharded.db'), now: FIXED_NOW });
    try {
      const solo2 = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
      try {
        await fixtureMonth(solo2);
        expect(await month(copy)).toEqual(await month(solo2));
        // The copy goes on as the original would: December's first days.
        await solo2.advanceClock({ to: '2026-12-02' });
        await copy.advanceClock({ to: '2026-12-02' });
        expect(await month(copy)).toEqual(await month(solo2));
      } finally {
        await solo2.close();
      }
    } finally {
      await copy.close();
    }
  });
});
