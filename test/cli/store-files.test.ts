/**
 * The store file itself: created private (0600, also its -wal and -shm, whatever the umask), and
 * a warning when an existing store can be read by others.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { BIN } from '../e2e/spawn.js';

let dir: string;
let cleanup: () => void;
let umask: number;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('premia-store-files-'));
  umask = process.umask(0); // the most permissive: nothing but premia's own choice limits the modes
});
afterEach(() => {
  process.umask(umask);
  cleanup();
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe('a new store is private', () => {
  it('the store, its -wal and its -shm are 0600 while it is open, whatever the umask', async () => {
    const db = join(dir, 'premia.db');
    const store = await openStore({ path: db });
    try {
      await store.transaction(async (trx) => {
        await trx.insertInto('meta').values({ key: 'probe', value: '1' }).execute();
      });
      expect([existsSync(`${db}-wal`), existsSync(`${db}-shm`)]).toEqual([true, true]);
      expect([mode(db), mode(`${db}-wal`), mode(`${db}-shm`)]).toEqual([0o600, 0o600, 0o600]);
    } finally {
      await store.close();
    }
  });

  it('made by a command: 0600, and no warning', async () => {
    const r = await runCli(['--db', 'book.db', 'clock', 'set', '2026-10-31'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Clock set to 2026-10-31.\n');
    expect(mode(join(dir, 'book.db'))).toBe(0o600);
  });

  it('an existing store keeps its mode (premia does not change it behind your back)', async () => {
    await runCli(['--db', 'book.db', 'clock', 'set', '2026-10-31'], { cwd: dir });
    chmodSync(join(dir, 'book.db'), 0o640);
    await runCli(['--db', 'book.db', 'clock'], { cwd: dir });
    expect(mode(join(dir, 'book.db'))).toBe(0o640);
  });
});

describe('a store others can read: one warning on stderr', () => {
  beforeEach(async () => {
    const r = await runCli(['--db', 'book.db', 'clock', 'set', '2026-10-31'], { cwd: dir });
    expect(r.code).toBe(0);
  });
  const warning = (m: string) =>
    `warning: other users of this machine can read the store ${join(dir, 'book.db')} (mode ${m}); it holds every client's data and API key hashes. ` +
    `Make it private: chmod 600 ${join(dir, 'book.db')}\n`;

  it.each([
    [0o644, '0644'],
    [0o640, '0640'],
    [0o604, '0604'],
  ])('mode %o: named with the chmod that fixes it', async (m, shown) => {
    chmodSync(join(dir, 'book.db'), m);
    const r = await runCli(['--db', 'book.db', 'clock'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(warning(shown));
    expect(r.stdout).toContain('2026-10-31');
  });

  it('also with --quiet; with --json stdout stays the JSON body', async () => {
    chmodSync(join(dir, 'book.db'), 0o644);
    const quiet = await runCli(['--quiet', '--db', 'book.db', 'clock'], { cwd: dir });
    expect(quiet.stderr).toBe(warning('0644'));
    const json = await runCli(['--json', '--db', 'book.db', 'clock'], { cwd: dir });
    expect(json.stderr).toBe(warning('0644'));
    expect(json.json()).toMatchObject({ date: '2026-10-31' });
  });

  it('0600 and 0700 (only the owner): no warning', async () => {
    for (const m of [0o600, 0o700]) {
      chmodSync(join(dir, 'book.db'), m);
      const r = await runCli(['--db', 'book.db', 'clock'], { cwd: dir });
      expect([r.code, r.stderr]).toEqual([0, '']);
    }
  });
});

describe('a command that does not make a store (one that reads, or writes to an existing one) creates none', () => {
  const message = (db: string, how: string) =>
    `There is no store at ${db} (${how}); this command works on an existing store and does not create one, so nothing was created. ` +
    `Point --db or PREMIA_DB at the store, or run where it is; a new store is made only by 'premia policies import', ` +
    `'policies create', 'clock set', 'bank import', 'bank seed', 'keys create' or 'serve'.`;
  const DEFAULT_HOW = 'the default: ./premia.db in the current directory, as neither --db nor PREMIA_DB is set';

  it.each([
    [['policies', 'list']],
    [['reports', 'collections', '--period', '2026-11']],
    [['clock']],
    [['clock', 'advance', '--days', '1']],
    [['collections', 'execute', '--period', '2026-11']],
    [['settlements', 'list']],
  ])('%j in an empty directory: exit 2 naming ./premia.db, the directory stays empty', async (args) => {
    const r = await runCli(['--json', ...args], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: message(join(dir, 'premia.db'), DEFAULT_HOW),
        request_id: null,
        details: [{ field: 'db', code: 'STORE_NOT_FOUND', message: `${join(dir, 'premia.db')} does not exist` }],
      },
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('--db and PREMIA_DB are named as where the path came from', async () => {
    const flag = await runCli(['policies', 'list', '--db', 'book.db'], { cwd: dir });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(`error: ${message(join(dir, 'book.db'), 'given with --db')}\n  (code VALIDATION_ERROR)\n`);
    const env = await runCli(['--json', 'clock'], { cwd: dir, env: { PREMIA_DB: 'env.db' } });
    expect(env.code).toBe(2);
    expect(JSON.parse(env.stderr).error.message).toBe(message(join(dir, 'env.db'), 'given with PREMIA_DB'));
    expect(JSON.parse(env.stderr).error.details[0].field).toBe('PREMIA_DB');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('policies create and clock set create it (with its tables); :memory: is unaffected', async () => {
    const set = await runCli(['clock', 'set', '2026-10-31'], { cwd: dir });
    expect(set.code).toBe(0);
    expect(readdirSync(dir)).toEqual(['premia.db']);
    const create = await runCli(
      ['--db', 'other.db', 'policies', 'create', '--policy-number', 'POL-1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'P', '--amount', '10.00'],
      { cwd: dir },
    );
    expect(create.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['other.db', 'premia.db']);
    const list = await runCli(['--json', '--db', 'other.db', 'policies', 'list'], { cwd: dir });
    expect(list.json().data.map((p: { policy_number: string }) => p.policy_number)).toEqual(['POL-1']);
    const memory = await runCli(['--db', ':memory:', 'policies', 'list'], { cwd: dir });
    expect(memory.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['other.db', 'premia.db']);
  });

  it('the store layer itself refuses to create a store it may not (no -wal, no -shm)', async () => {
    const db = join(dir, 'x.db');
    await expect(openStore({ path: db, create: false })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: `There is no store at ${db}; nothing was created.` });
    expect(readdirSync(dir)).toEqual([]);
  });
});

// Another user's store: as root (CI here), through runuser as `nobody`; elsewhere there is no
// second user to be, and the case is skipped with that reason in its name.
const asNobody = process.getuid?.() === 0 && spawnSync('runuser', ['-u', 'nobody', '--', 'true']).status === 0;

describe('a store this user cannot write', () => {
  it.skipIf(!asNobody)('(as root through runuser -u nobody; skipped when not root) is exit 2 naming it, not an unexpected failure', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'premia-ro-'));
    try {
      chmodSync(shared, 0o755);
      const db = join(shared, 'premia.db');
      expect((await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: shared })).code).toBe(0);
      chmodSync(db, 0o644);
      const r = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, BIN, '--db', db, 'clock', 'set', '2026-10-30'], { encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`error: The store ${db} cannot be written by this user: it, its -wal or -shm file, or its directory is read-only`);
      expect(r.stderr).toContain('(code VALIDATION_ERROR)');
      expect((await runCli(['--db', db, '--json', 'clock'], { cwd: shared })).json().date).toBe('2026-10-31');
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  // The writes that hold the connection themselves (an advance's lease, the imports' own
  // transaction) are refused the same way as one in a transaction, not as an unexpected failure.
  // In a directory all may write (where the -wal and -shm can be made), as a shared one.
  it.skipIf(!asNobody)('(as root through runuser -u nobody) an advance, a policy import and a bank import are exit 2 naming it', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'premia-ro-'));
    try {
      chmodSync(shared, 0o777);
      const db = join(shared, 'premia.db');
      const policies = join(shared, 'policies.csv');
      writeFileSync(policies, 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,POL-1,P,10.00\n');
      const bank = join(shared, 'bank.csv');
      writeFileSync(bank, 'customer_id,date,amount,description\nC1,2026-10-25,500.00,SALARY\n');
      chmodSync(policies, 0o644);
      chmodSync(bank, 0o644);
      expect((await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: shared })).code).toBe(0);
      chmodSync(db, 0o644);
      for (const command of [['clock', 'advance', '--days', '1'], ['policies', 'import', policies], ['bank', 'import', bank]]) {
        const r = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, BIN, '--json', '--db', db, ...command], { encoding: 'utf8' });
        expect({ command, status: r.status, stdout: r.stdout }).toEqual({ command, status: 2, stdout: '' });
        expect(JSON.parse(r.stderr.split('\n').filter((line) => line.startsWith('{')).join(''))).toEqual({
          error: {
            code: 'VALIDATION_ERROR',
            message:
              `The store ${db} cannot be written by this user: it, its -wal or -shm file, or its directory is read-only (attempt to write a readonly database). ` +
              "Nothing was changed; run as the store's owner, or fix its permissions.",
            request_id: null,
            details: [{ field: 'db', code: 'STORE_READ_ONLY', message: `${db} is read-only for this user` }],
          },
        });
      }
      expect((await runCli(['--db', db, '--json', 'clock'], { cwd: shared })).json().date).toBe('2026-10-31');
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  // A user who is not root is refused by a read-only directory itself; root ignores directory
  // permissions, so it is `nobody` through runuser. A user the permissions do not hold for (root
  // without runuser, or one with CAP_DAC_OVERRIDE) skips the case, saying why.
  it('a new store in a directory this user cannot write is exit 2 (STORE_READ_ONLY) naming the directory, and nothing is created', async (t) => {
    const parent = mkdtempSync(join(tmpdir(), 'premia-ro-dir-'));
    try {
      chmodSync(parent, 0o555);
      const root = process.getuid?.() === 0;
      if (root && !asNobody) t.skip('running as root, which ignores directory permissions, and runuser -u nobody is not available');
      if (!root && probeWrite(parent)) t.skip(`this user (uid ${process.getuid?.()}) can write in a directory of mode 0555: permissions do not hold for it`);
      const db = join(parent, 'premia.db');
      const args = [BIN, '--json', '--db', db, 'clock', 'set', '2026-10-30'];
      const r = root ? spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, ...args], { encoding: 'utf8' }) : spawnSync(process.execPath, args, { encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr)).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message:
            `Cannot create the store ${db}: this user cannot write in its directory ${parent} (EACCES). ` +
            'Nothing was created; choose another path with --db, run as a user who may write there, or fix its permissions.',
          request_id: null,
          details: [{ field: 'db', code: 'STORE_READ_ONLY', message: `${parent} is read-only for this user` }],
        },
      });
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      chmodSync(parent, 0o700);
      rmSync(parent, { recursive: true, force: true });
    }
  });

  // SQLite said "unable to open database file" (INTERNAL, exit 1), as if the store were broken.
  it.skipIf(!existsSync('/proc/self'))('a new store in a directory whose file system makes no files (/proc) is exit 2 saying so', async () => {
    const db = `/proc/premia-${process.pid}.db`;
    const r = await runCli(['--json', '--db', db, 'clock', 'set', '2026-10-30'], { cwd: dir });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: `Cannot create the store ${db}: its directory /proc takes no new files (its file system refused to make one there). Nothing was created; choose another path with --db.`,
        request_id: null,
        details: [{ field: 'db', code: 'STORE_READ_ONLY', message: 'no file can be made in /proc' }],
      },
    });
  });
});

// Another user's store, and a store behind a directory this user may not enter: as root through
// runuser as `nobody` (the store root's, mode 0600; the directory root's, 0700); as another user
// by taking its own permissions away (chmod 000). Root without runuser, or a user the
// permissions do not hold for, skips the case, saying why.
describe('a store this user cannot reach or read', () => {
  /** Run premia as a user the permissions hold for, or skip saying why. */
  function premiaAs(t: { skip: (note: string) => void }, probe: string, args: string[]) {
    const root = process.getuid?.() === 0;
    if (root && !asNobody) t.skip('running as root, which ignores permissions, and runuser -u nobody is not available');
    if (!root && canRead(probe)) t.skip(`this user (uid ${process.getuid?.()}) reads what mode 000 keeps out: permissions do not hold for it`);
    const command = [BIN, '--json', ...args];
    return root ? spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, ...command], { encoding: 'utf8' }) : spawnSync(process.execPath, command, { encoding: 'utf8' });
  }
  const error = (message: string, detail: string) => ({ error: { code: 'VALIDATION_ERROR', message, request_id: null, details: [{ field: 'db', code: 'PERMISSION_DENIED', message: detail }] } });

  // SQLite said "unable to open database file": INTERNAL, exit 1, as if the store were broken.
  it("another user's store (one this user may not read) is exit 2 naming it, for reads and writes", async (t) => {
    const shared = mkdtempSync(join(tmpdir(), 'premia-unreadable-'));
    try {
      chmodSync(shared, 0o777);
      const db = join(shared, 'premia.db');
      expect((await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: shared })).code).toBe(0);
      chmodSync(db, process.getuid?.() === 0 ? 0o600 : 0o000);
      const message = `The store ${db} cannot be read by this user (EACCES): it belongs to another user, or its mode keeps this one out. Nothing was changed; run as the store's owner, or fix its permissions.`;
      for (const command of [['clock'], ['clock', 'set', '2026-10-30'], ['serve', '--port', '0']]) {
        const r = premiaAs(t, db, ['--db', db, ...command]);
        expect({ command, status: r.status, stdout: r.stdout, error: JSON.parse(r.stderr) }).toEqual({ command, status: 2, stdout: '', error: error(message, `${db} cannot be read by this user`) });
      }
      expect(readdirSync(shared)).toEqual(['premia.db']);
      chmodSync(db, 0o600);
      expect((await runCli(['--db', db, '--json', 'clock'], { cwd: shared })).json().date).toBe('2026-10-31');
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  // A read said "There is no store" of a store that is there; a write "cannot write in its
  // directory" where entering it is what fails (a working directory of mode 000, another user's home).
  it('a store in a directory this user may not enter is exit 2 naming that directory, there or not, for reads and writes', async (t) => {
    const parent = mkdtempSync(join(tmpdir(), 'premia-closed-'));
    const closed = join(parent, 'closed');
    try {
      chmodSync(parent, 0o755);
      mkdirSync(closed);
      const db = join(closed, 'premia.db');
      expect((await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: parent })).code).toBe(0);
      chmodSync(closed, process.getuid?.() === 0 ? 0o700 : 0o000);
      for (const [store, command] of [
        [db, ['clock']],
        [db, ['clock', 'set', '2026-10-30']],
        [join(closed, 'new.db'), ['clock', 'set', '2026-10-30']],
      ] as const) {
        const r = premiaAs(t, db, ['--db', store, ...command]);
        const message =
          `Cannot reach the store ${store}: this user may not enter the directory ${closed} (EACCES), so whether a store is there cannot even be seen. ` +
          "Nothing was changed; run as a user who may, fix that directory's permissions, or choose another path with --db.";
        expect({ command, status: r.status, stdout: r.stdout, error: JSON.parse(r.stderr) }).toEqual({ command, status: 2, stdout: '', error: error(message, `${closed} cannot be entered by this user`) });
      }
      chmodSync(closed, 0o700);
      expect(readdirSync(closed)).toEqual(['premia.db']);
      expect((await runCli(['--db', db, '--json', 'clock'], { cwd: parent })).json().date).toBe('2026-10-31');
    } finally {
      if (existsSync(closed)) chmodSync(closed, 0o700);
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

/** Whether this process can read `path` (a file whose mode keeps it out, or one in a directory it may not enter). */
function canRead(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether this process can create a file in `dir` (the probe is removed again). */
function probeWrite(dir: string): boolean {
  try {
    writeFileSync(join(dir, 'probe'), '');
  } catch {
    return false;
  }
  rmSync(join(dir, 'probe'));
  return true;
}

// `--db premia.db-wal` (a tab completion one step too far): a store was made in the WAL's name,
// imported into ("Imported 1 policies"), and deleted by SQLite the next time premia.db opened.
describe('the -wal, -shm or -journal name of an SQLite database is never a store', () => {
  it.each([['-wal'], ['-shm'], ['-journal']])('%s beside premia.db: exit 2 naming both, nothing made, for writes, reads and db copy', async (suffix) => {
    const db = join(dir, 'premia.db');
    expect((await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    const companion = `${db}${suffix}`;
    const message =
      `The store ${companion} (--db) is the ${suffix} file of the SQLite database ${db}, which SQLite alone writes and removes: ` +
      `a store kept there is lost the next time ${db} is opened. Nothing was changed; give the store itself, such as ${db}.`;
    const csv = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,X,1.00\n';
    const write = await runCli(['--json', '--db', companion, 'policies', 'import', '-'], { cwd: dir, stdin: csv });
    expect([write.code, write.stdout, JSON.parse(write.stderr)]).toEqual([
      2,
      '',
      { error: { code: 'VALIDATION_ERROR', message, request_id: null, details: [{ field: '--db', code: 'NOT_A_PREMIA_STORE', message: `${companion} belongs to the SQLite database ${db}` }] } },
    ]);
    const read = await runCli(['clock'], { cwd: dir, env: { PREMIA_DB: companion } });
    expect([read.code, read.stderr]).toEqual([2, `error: ${message.replace('(--db)', '(PREMIA_DB)')}\n  (code VALIDATION_ERROR)\n`]);
    const copy = await runCli(['db', 'copy', '--from', db, '--to', companion], { cwd: dir });
    expect([copy.code, copy.stderr]).toEqual([2, `error: ${message.replace('(--db)', '(--to)')}\n  (code VALIDATION_ERROR)\n`]);
    expect(readdirSync(dir)).toEqual(['premia.db']);
  });

  // `db copy --to /dev/null` was opened by SQLite: "disk I/O error" (exit 1), and a
  // /dev/null-journal left in /dev; `--to /dev/full` said the disk was full.
  it('db copy from or to a device or a directory: exit 2 naming it, nothing made beside it', async () => {
    const db = join(dir, 'premia.db');
    expect((await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    try {
      const device = await runCli(['db', 'copy', '--from', db, '--to', '/dev/null', '--yes'], { cwd: dir });
      expect([device.code, device.stderr]).toEqual([2, 'error: The store /dev/null (--to) is a device, not a store file. Give the path of the store file.\n  (code VALIDATION_ERROR)\n']);
      expect(existsSync('/dev/null-journal')).toBe(false);
    } finally {
      rmSync('/dev/null-journal', { force: true });
    }
    const from = await runCli(['db', 'copy', '--from', '/dev/zero', '--to', join(dir, 'new.db')], { cwd: dir });
    expect([from.code, from.stderr]).toEqual([2, 'error: The store /dev/zero (--from) is a device, not a store file. Give the path of the store file.\n  (code VALIDATION_ERROR)\n']);
    const folder = await runCli(['db', 'copy', '--from', db, '--to', dir, '--yes'], { cwd: dir });
    expect([folder.code, folder.stderr]).toEqual([
      2,
      `error: The store ${dir} (--to) is a directory, not a store file. Give the path of the store file, e.g. ${join(dir, 'premia.db')}.\n  (code VALIDATION_ERROR)\n`,
    ]);
    expect(readdirSync(dir)).toEqual(['premia.db']);
  });

  it('a name ending so with no database beside it is an ordinary store', async () => {
    expect((await runCli(['--db', join(dir, 'acme-journal'), 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    expect(readdirSync(dir)).toEqual(['acme-journal']);
  });
});
