/** `premia fixtures copy DIR`: the shipped fixtures, byte for byte; files already there only with --force/--yes. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-fixtures-')));
afterEach(() => cleanup());

const FILES = ['policies.csv', 'bank-transactions.csv', 'policies-invalid.csv'];
const shipped = (name: string) => readFileSync(join(FIXTURES, name));

describe('premia fixtures copy', () => {
  it('copies the three fixtures into a new directory, byte for byte, and says what to run next', async () => {
    const r = await runCli(['fixtures', 'copy', 'month'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('month/policies.csv\nmonth/bank-transactions.csv\nmonth/policies-invalid.csv\n');
    expect(r.stderr).toBe('Copied the fixtures into month. Next: premia policies import month/policies.csv\n');
    for (const name of FILES) expect(readFileSync(join(dir, 'month', name)).equals(shipped(name))).toBe(true);
    // The copy works for a month by hand from that directory.
    const imp = await runCli(['--db', join(dir, 'p.db'), 'policies', 'import', 'month/policies.csv'], { cwd: dir });
    expect(imp.code).toBe(0);
    expect(imp.stdout).toContain('Imported 520 policies; 0 rows failed.');
  });

  it('refuses to replace files already there, naming them; nothing is copied (exit 6)', async () => {
    mkdirSync(join(dir, 'month'));
    writeFileSync(join(dir, 'month', 'policies.csv'), 'mine\n');
    const r = await runCli(['fixtures', 'copy', 'month'], { cwd: dir });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('month already holds policies.csv; nothing was copied. Run again with --force (or --yes) to replace it, or choose another directory.');
    expect(readFileSync(join(dir, 'month', 'policies.csv'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(dir, 'month', 'bank-transactions.csv'))).toBe(false);
  });

  it.each([[['fixtures', 'copy', 'month', '--force']], [['--yes', 'fixtures', 'copy', 'month']]])('%j replaces them', async (args) => {
    mkdirSync(join(dir, 'month'));
    writeFileSync(join(dir, 'month', 'policies.csv'), 'mine\n');
    const r = await runCli(args, { cwd: dir });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'month', 'policies.csv')).equals(shipped('policies.csv'))).toBe(true);
  });

  it('--json: the directory and the files written', async () => {
    const r = await runCli(['--json', 'fixtures', 'copy', '.'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ directory: dir, files: FILES.map((f) => join(dir, f)) });
  });
});
