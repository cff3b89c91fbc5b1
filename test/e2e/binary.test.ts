/** Smoke tests of the installed launcher, `node bin/premia.js`, on the compiled dist/. */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, REPO, tempDir } from '../helpers/cli.js';
import { premiaBin } from './spawn.js';

const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

let dir: string;
let cleanup: () => void;
beforeAll(() => {
  expect(existsSync(join(REPO, 'dist', 'app', 'premia.js'))).toBe(true); // npm test builds dist first
  ({ dir, cleanup } = tempDir('premia-e2e-'));
});
afterAll(() => cleanup());

describe('bin/premia.js', () => {
  it('--version prints the package version', async () => {
    const r = await premiaBin(['--version'], { cwd: dir });
    expect(r).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('--help lists the commands and the exit codes, and opens no store', async () => {
    const r = await premiaBin(['--help'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: premia \[options\] \[command\]\n/);
    expect(r.stdout).toMatch(/\n {2}policies +create, import, update and read policies\n/);
    expect(r.stdout).toMatch(/\n {2}clock +the virtual clock of local mode/);
    expect(r.stdout).toContain('Exit codes:');
    expect(existsSync(join(dir, 'premia.db'))).toBe(false);
  });

  it('imports the fixture book with --json: exactly the API body on stdout', async () => {
    const r = await premiaBin(['--db', join(dir, 'book.db'), 'policies', 'import', join(FIXTURES, 'policies.csv'), '--json'], { cwd: dir });
    expect(r).toEqual({ code: 0, stdout: '{"imported":520,"failed":0,"errors":[]}\n', stderr: '' });
  });

  it('imports from a pipe with `-`, and exits 3 when rows fail', async () => {
    const csv = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,X,1.00\nC2,E2,P2,X,0\n';
    const r = await premiaBin(['--db', join(dir, 'pipe.db'), 'policies', 'import', '-', '--json'], { cwd: dir, stdin: csv });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      imported: 1,
      failed: 1,
      errors: [{ row: 3, policy_number: 'P2', field: 'collection_amount', code: 'AMOUNT_OUT_OF_RANGE', message: "collection_amount '0' must be greater than 0.00" }],
    });
  });

  it('a reader that closes the pipe early (premia … | head) does not change the exit code: the rows are imported, exit 3', async () => {
    const csv = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n' + 'C1,E1,P1,X,1.00\nC2,E2,P2,X,0\n';
    const db = join(dir, 'closed-pipe.db');
    // The shell's `| true` closes the read end at once: premia's first write meets EPIPE.
    const r = spawnSync('bash', ['-c', `set -o pipefail; printf '%s' "$CSV" | "$NODE" "$BIN" --db "$DB" policies import - --json | true; echo "\${PIPESTATUS[@]}"`], {
      env: { ...process.env, CSV: csv, NODE: process.execPath, BIN: join(REPO, 'bin', 'premia.js'), DB: db },
      encoding: 'utf8',
    });
    expect(r.stdout.trim()).toBe('0 3 0');
    const list = spawnSync(process.execPath, [join(REPO, 'bin', 'premia.js'), '--db', db, '--json', 'policies', 'list'], { encoding: 'utf8' });
    expect(JSON.parse(list.stdout).data.map((p: { policy_number: string }) => p.policy_number)).toEqual(['P1']);
    // A report whose reader left: what it wanted was sent; exit 0 and no error.
    const report = spawnSync('bash', ['-c', `"$NODE" "$BIN" --db "$DB" reports collections --period 2026-11 | true; echo "\${PIPESTATUS[@]}"`], {
      env: { ...process.env, NODE: process.execPath, BIN: join(REPO, 'bin', 'premia.js'), DB: db },
      encoding: 'utf8',
    });
    expect(report.stdout.trim()).toBe('0 0');
    expect(report.stderr).toBe('');
  });

  it('a reader of stderr that leaves (premia … 2>&1 | head) neither stops the command nor changes its exit code', () => {
    const db = join(dir, 'closed-stderr.db');
    const env = { ...process.env, NODE: process.execPath, BIN: join(REPO, 'bin', 'premia.js'), DB: db };
    expect(spawnSync(process.execPath, [join(REPO, 'bin', 'premia.js'), '--db', db, 'clock', 'set', '2026-10-31'], { encoding: 'utf8' }).status).toBe(0);
    // Readable by others: every command warns on stderr as it opens the store, before it acts.
    chmodSync(db, 0o644);
    const advance = spawnSync('bash', ['-c', `"$NODE" "$BIN" --db "$DB" clock advance --days 2 2>&1 >/dev/null | true; echo "\${PIPESTATUS[@]}"`], { env, encoding: 'utf8' });
    expect(advance.stdout.trim()).toBe('0 0');
    const clock = spawnSync(process.execPath, [join(REPO, 'bin', 'premia.js'), '--db', db, '--json', 'clock'], { encoding: 'utf8' });
    expect(JSON.parse(clock.stdout).date).toBe('2026-11-02');
    // A refusal keeps its own code too, its message unread.
    const refused = spawnSync('bash', ['-c', `"$NODE" "$BIN" --db "$DB" clock advance --days x 2>&1 >/dev/null | true; echo "\${PIPESTATUS[@]}"`], { env, encoding: 'utf8' });
    expect(refused.stdout.trim()).toBe('2 0');
  });

  it.skipIf(!existsSync('/dev/full'))('a full disk under `> file` is exit 1 with the reason, never a cut output passed for done', () => {
    const db = join(dir, 'full.db');
    const csv = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n' + 'C1,E1,P1,X,1.00\n';
    spawnSync(process.execPath, [join(REPO, 'bin', 'premia.js'), '--db', db, 'policies', 'import', '-'], { input: csv, encoding: 'utf8' });
    for (const args of [['policies', 'list'], ['clock'], ['reports', 'collections', '--period', '2026-11']]) {
      const r = spawnSync('bash', ['-c', `"$NODE" "$BIN" --db "$DB" ${args.join(' ')} > /dev/full`], {
        env: { ...process.env, NODE: process.execPath, BIN: join(REPO, 'bin', 'premia.js'), DB: db },
        encoding: 'utf8',
      });
      expect([args, r.status, r.stderr]).toEqual([
        args,
        1,
        'error: Writing to standard output failed: no space left on the device; what was written there is incomplete.\n  (code INTERNAL)\n',
      ]);
    }
  });

  it('a usage error exits 2 with the message on stderr and nothing on stdout', async () => {
    const r = await premiaBin(['policies', 'list', '--bogus'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("error: unknown option '--bogus'\n  (code USAGE_ERROR; run with --help for usage)\n");
    expect(existsSync(join(dir, 'premia.db'))).toBe(false);
  });
});
