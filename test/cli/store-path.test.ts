/** A store path whose directory is missing is the user's mistake: exit 2, naming the directory. */
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-store-path-')));
afterEach(() => cleanup());

describe('a store in a directory that does not exist', () => {
  it('--db: VALIDATION_ERROR, exit 2, naming the directory', async () => {
    const missing = join(dir, 'no', 'such');
    const r = await runCli(['--json', '--db', join(missing, 'x.db'), 'clock'], { cwd: dir });
    expect(r.code).toBe(2);
    const message = `The directory ${missing} of the store ${join(missing, 'x.db')} (--db) does not exist. Create it first, or give another path with --db.`;
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: 'VALIDATION_ERROR', message, request_id: null, details: [{ field: '--db', code: 'DIRECTORY_NOT_FOUND', message: `${missing} does not exist` }] },
    });
    expect(existsSync(join(dir, 'no'))).toBe(false);
  });

  it('a relative --db: the directory is resolved against the working directory; text output', async () => {
    const r = await runCli(['--db', 'nope/x.db', 'policies', 'list'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: The directory ${join(dir, 'nope')} of the store ${join(dir, 'nope', 'x.db')} (--db) does not exist. Create it first, or give another path with --db.\n  (code VALIDATION_ERROR)\n`,
    );
  });

  it('PREMIA_DB is named when the path comes from it', async () => {
    const r = await runCli(['--json', 'clock'], { cwd: dir, env: { PREMIA_DB: join(dir, 'gone', 'x.db') } });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toBe(
      `The directory ${join(dir, 'gone')} of the store ${join(dir, 'gone', 'x.db')} (PREMIA_DB) does not exist. Create it first, or give another path with PREMIA_DB.`,
    );
  });

  it('a file where the directory should be: "is not a directory"', async () => {
    writeFileSync(join(dir, 'plain'), 'x');
    const r = await runCli(['--json', '--db', join(dir, 'plain', 'x.db'), 'clock'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.details).toEqual([{ field: '--db', code: 'DIRECTORY_NOT_FOUND', message: `${join(dir, 'plain')} is not a directory` }]);
  });

  it('an existing directory still creates the store (by a command that may create one)', async () => {
    const r = await runCli(['--json', '--db', join(dir, 'x.db'), 'clock', 'set', '2026-11-21'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'x.db'))).toBe(true);
  });
});

// `--db stores/` (a directory meant, none there) made a store file named `stores`, exit 0; and
// `--db acme.db/` opened the store acme.db: the slash that names a directory was dropped.
describe('a store path ending in / names a directory', () => {
  it('none there: VALIDATION_ERROR, exit 2, nothing created', async () => {
    const r = await runCli(['--db', 'stores/', 'clock', 'set', '2026-11-21'], { cwd: dir });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: The store stores/ (--db) ends with '/', so it names a directory, but there is no directory ${join(dir, 'stores')}. ` +
        `Give the path of the store file (such as ${join(dir, 'stores', 'premia.db')}, once that directory exists). Nothing changed.\n  (code VALIDATION_ERROR)\n`,
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a file there (PREMIA_DB): VALIDATION_ERROR, exit 2, NOT_A_DIRECTORY, the file untouched', async () => {
    writeFileSync(join(dir, 'acme.db'), 'x');
    const r = await runCli(['--json', 'clock', 'set', '2026-11-21'], { cwd: dir, env: { PREMIA_DB: 'acme.db/' } });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: `The store acme.db/ (PREMIA_DB) ends with '/', so it names a directory, but ${join(dir, 'acme.db')} is a file, not a directory. Give the path of the store file without the '/': ${join(dir, 'acme.db')}. Nothing changed.`,
        request_id: null,
        details: [{ field: 'PREMIA_DB', code: 'NOT_A_DIRECTORY', message: `${join(dir, 'acme.db')} is a file, not a directory` }],
      },
    });
    expect(readdirSync(dir)).toEqual(['acme.db']);
  });

  it('a directory there: refused as a directory, naming the file to give', async () => {
    mkdirSync(join(dir, 'stores'));
    const r = await runCli(['--json', '--db', 'stores/', 'clock'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toBe(`The store ${join(dir, 'stores')} (--db) is a directory, not a store file. Give the path of the store file, e.g. ${join(dir, 'stores', 'premia.db')}.`);
  });
});

describe('an empty --db', () => {
  it.each([[''], ['  ']])('--db %j is said to be empty (USAGE_ERROR, exit 2), not taken for the working directory', async (db) => {
    const json = await runCli(['--json', '--db', db, 'clock'], { cwd: dir });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'USAGE_ERROR', message: '--db is empty; give the store: a file such as ./premia.db, :memory:, or a postgres:// URL.', request_id: null },
    });
    const text = await runCli([`--db=${db}`, 'clock', 'set', '2026-11-21'], { cwd: dir });
    expect(text.code).toBe(2);
    expect(text.stderr).toBe('error: --db is empty; give the store: a file such as ./premia.db, :memory:, or a postgres:// URL.\n  (code USAGE_ERROR)\n');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('an empty PREMIA_DB', () => {
  const message = 'PREMIA_DB is set but empty; give the store in it (a file such as ./premia.db, :memory:, or a postgres:// URL), or unset it for the default ./premia.db. Nothing changed.';

  it.each([[''], ['  ']])('PREMIA_DB=%j is refused (USAGE_ERROR, exit 2), not taken for ./premia.db: nothing is created', async (value) => {
    const r = await runCli(['clock', 'set', '2026-11-21'], { cwd: dir, env: { PREMIA_DB: value } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: ${message}\n  (code USAGE_ERROR)\n`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('nor for the service of a saved default profile; with --db it is not read, nor by simulate', async () => {
    const config = join(dir, 'config');
    mkdirSync(join(config, 'premia'), { recursive: true });
    writeFileSync(join(config, 'premia', 'config.json'), JSON.stringify({ profiles: { default: { base_url: 'http://127.0.0.1:9/v1', api_key: 'pmk_0000000000000000000000000000000000000000' } } }), { mode: 0o600 });
    const env = { PREMIA_DB: '', XDG_CONFIG_HOME: config };
    const r = await runCli(['--json', 'policies', 'list'], { cwd: dir, env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({ error: { code: 'USAGE_ERROR', message, request_id: null } });
    expect((await runCli(['--db', 'x.db', 'clock', 'set', '2026-10-31'], { cwd: dir, env })).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['config', 'x.db']);
    // simulate passes it by (it never reads PREMIA_DB) and goes on to its own inputs.
    const sim = await runCli(['simulate', '--policies', 'none.csv'], { cwd: dir, env: { PREMIA_DB: '' } });
    expect(sim.code).toBe(2);
    expect(sim.stderr).not.toContain('PREMIA_DB');
    expect(sim.stderr).toContain('none.csv');
  });
});

describe('an API key with no service named', () => {
  it('is refused (exit 2), not taken for local mode on ./premia.db: nothing is created', async () => {
    const { dir, cleanup } = tempDir('premia-key-no-url-');
    try {
      const r = await runCli(['policies', 'list'], { cwd: dir, env: { PREMIA_API_KEY: 'pmk_0000000000000000000000000000000000000000', PREMIA_BASEURL: 'http://127.0.0.1:9/v1' } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'PREMIA_API_KEY is set but no service is named (PREMIA_BASE_URL, --base-url or a profile), so premia would work on the local store ./premia.db instead.',
      );
      expect(readdirSync(dir)).toEqual([]);
      // With a store named, the key is simply not used.
      expect((await runCli(['--db', 'x.db', 'clock', 'set', '2026-10-31'], { cwd: dir, env: { PREMIA_API_KEY: 'pmk_0000000000000000000000000000000000000000' } })).code).toBe(0);
    } finally {
      cleanup();
    }
  });
});

// better-sqlite3 trims the file name it opens: with PREMIA_DB="x.db " premia checked and created
// "x.db " (an empty 0600 file left behind) while SQLite made "x.db" with the umask's mode 0644,
// a store every user could read; a read with "x.db " was refused as no store beside the real one.
describe('spaces or a line end around the store path', () => {
  it('are dropped: the store is the trimmed file, private (0600), with nothing made beside it', async () => {
    const made = await runCli(['clock', 'set', '2026-10-31'], { cwd: dir, env: { PREMIA_DB: 'x.db ' } });
    expect([made.code, made.stderr]).toEqual([0, 'Clock set to 2026-10-31.\n']);
    expect(readdirSync(dir)).toEqual(['x.db']);
    expect(statSync(join(dir, 'x.db')).mode & 0o777).toBe(0o600);
    const read = await runCli(['--db', ' x.db\n', 'clock'], { cwd: dir });
    expect([read.code, read.stdout, read.stderr]).toEqual([0, 'date    2026-10-31\nseed    1\nlocked  no\n', '']);
    const who = await runCli(['--json', 'whoami'], { cwd: dir, env: { PREMIA_DB: 'x.db\n' } });
    expect(who.json()).toMatchObject({ mode: 'local', db: join(dir, 'x.db') });
  });

  it('a missing store is named without them', async () => {
    const r = await runCli(['--json', 'clock'], { cwd: dir, env: { PREMIA_DB: 'y.db ' } });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.details).toEqual([{ field: 'PREMIA_DB', code: 'STORE_NOT_FOUND', message: `${join(dir, 'y.db')} does not exist` }]);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('a new store made by a command that then fails', () => {
  const BAD = 'bad,header\n1,2\n';
  const GOOD = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
  const files = () => readdirSync(dir).filter((f) => f.startsWith('typo.db')).sort();

  it('is removed when nothing was written to it: a refused import, an unknown --as-client (no file, -wal or -shm left)', async () => {
    writeFileSync(join(dir, 'bad.csv'), BAD);
    writeFileSync(join(dir, 'good.csv'), `${GOOD}C1,R1,POL-1,FUNERAL,100.00\n`);
    const bad = await runCli(['--db', 'typo.db', 'policies', 'import', 'bad.csv'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(files()).toEqual([]);
    const client = await runCli(['--db', 'typo.db', '--as-client', 'Nobody', 'policies', 'import', 'good.csv'], { cwd: dir });
    expect(client.code).toBe(5);
    expect(files()).toEqual([]);
    // The next command that reads finds no store, as it should, instead of an empty one.
    expect((await runCli(['--db', 'typo.db', 'policies', 'list'], { cwd: dir })).stderr).toContain('There is no store at');
  });

  it('is kept when the command wrote to it before failing (an import with a bad row: exit 3, the good row stored)', async () => {
    writeFileSync(join(dir, 'mixed.csv'), `${GOOD}C1,R1,POL-1,FUNERAL,100.00\nC2,R2,POL-2,FUNERAL,-5\n`);
    const r = await runCli(['--json', '--db', 'typo.db', 'policies', 'import', 'mixed.csv'], { cwd: dir });
    expect(r.code).toBe(3);
    expect(files()).toContain('typo.db');
    expect((await runCli(['--json', '--db', 'typo.db', 'policies', 'list'], { cwd: dir })).json().data.map((p: { policy_number: string }) => p.policy_number)).toEqual(['POL-1']);
  });

  it('a store that existed before is never removed, even empty, when a command on it fails', async () => {
    expect((await runCli(['--db', 'typo.db', 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, 'bad.csv'), BAD);
    expect((await runCli(['--db', 'typo.db', 'policies', 'import', 'bad.csv'], { cwd: dir })).code).toBe(2);
    expect(files()).toContain('typo.db');
    expect((await runCli(['--db', 'typo.db', 'clock'], { cwd: dir })).stdout).toContain('2026-10-31');
  });
});

// A --db that is a loop of symbolic links: a read said "There is no store" (as if a path were
// mistyped), and a write failed "unexpectedly" (exit 1) on ELOOP. Refused as what it is, both.
describe('a --db that is a loop of symbolic links', () => {
  it.each([
    ['a read', ['policies', 'list']],
    ['a write', ['policies', 'create', '--customer-id', 'C1', '--external-ref', 'E1', '--policy-number', 'P1', '--product-code', 'LIFE', '--amount', '10.00']],
  ])('%s: VALIDATION_ERROR, exit 2, nothing made', async (_name, args) => {
    symlinkSync('loop-b.db', join(dir, 'loop-a.db'));
    symlinkSync('loop-a.db', join(dir, 'loop-b.db'));
    const r = await runCli(['--db', 'loop-a.db', ...args], { cwd: dir });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: The store ${join(dir, 'loop-a.db')} (--db) is a loop of symbolic links, not a store file. Give the path of the store file.\n  (code VALIDATION_ERROR)\n`,
    ]);
    expect(readdirSync(dir).sort()).toEqual(['loop-a.db', 'loop-b.db']);
  });
});

// A --db name over the system's limit: a read said "There is no store", a write failed
// "unexpectedly" (ENAMETOOLONG, exit 1).
describe('a --db whose name is too long', () => {
  it.each([
    ['a read', ['policies', 'list']],
    ['a write', ['clock', 'set', '2026-10-31']],
  ])('%s: VALIDATION_ERROR, exit 2, nothing made', async (_name, args) => {
    const db = `${'s'.repeat(300)}.db`;
    const r = await runCli(['--db', db, ...args], { cwd: dir });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: The store ${join(dir, db)} (--db) is too long a path (a name of more than 255 bytes, or a path of more than 4096). Give the path of the store file.\n  (code VALIDATION_ERROR)\n`,
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });
});

// A crontab's `PREMIA_DB=~/acme.db` (cron expands no '~'), or a quoted "~/acme.db": the path names
// a directory called '~' in the working directory. "Create it first" led to `mkdir '~'` (and a
// directory named '~' is one `rm -rf ~` away from the home directory).
describe("a path beginning with a '~' no shell expanded", () => {
  const TILDE = "('~' is not the home directory here: only a shell expands it, and not inside quotes nor in a crontab's variables; give the full path)";

  it('PREMIA_DB=~/acme.db: says so, rather than "create it first"', async () => {
    const r = await runCli(['clock'], { cwd: dir, env: { PREMIA_DB: '~/acme.db' } });
    expect([r.code, r.stderr]).toEqual([
      2,
      `error: The directory ${join(dir, '~')} of the store ${join(dir, '~', 'acme.db')} (PREMIA_DB) does not exist ${TILDE}.\n  (code VALIDATION_ERROR)\n`,
    ]);
  });

  it('an input file, an --output, fixtures copy and simulate --out: none makes or looks for a directory named ~', async () => {
    const imp = await runCli(['--db', join(dir, 'x.db'), 'policies', 'import', '~/policies.csv'], { cwd: dir });
    expect([imp.code, imp.stderr]).toEqual([2, `error: Cannot read ~/policies.csv: no such file ${TILDE}.\n  (code VALIDATION_ERROR)\n`]);
    expect((await runCli(['--db', join(dir, 'x.db'), '--quiet', 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    const out = await runCli(['--db', join(dir, 'x.db'), 'reports', 'collections', '--period', '2026-11', '--output', '~/r.csv'], { cwd: dir });
    expect([out.code, out.stderr]).toEqual([2, `error: Cannot write --output ~/r.csv: the directory ${join(dir, '~')} does not exist ${TILDE}.\n  (code VALIDATION_ERROR)\n`]);
    const copy = await runCli(['fixtures', 'copy', '~/fixtures'], { cwd: dir });
    expect([copy.code, copy.stdout, copy.stderr]).toEqual([2, '', `error: Cannot write DIR ~/fixtures: the directory ${join(dir, '~')} does not exist ${TILDE}.\n  (code VALIDATION_ERROR)\n`]);
    const sim = await runCli(['simulate', '--out', '~/sim'], { cwd: dir });
    expect([sim.code, sim.stdout, sim.stderr]).toEqual([2, '', `error: Cannot write --out ~/sim: the directory ${join(dir, '~')} does not exist ${TILDE}.\n  (code VALIDATION_ERROR)\n`]);
    expect(existsSync(join(dir, '~'))).toBe(false);
  });
});
