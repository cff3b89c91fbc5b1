/**
 * A file name is shown in messages with its control and bidirectional characters escaped: a
 * name holding U+202E (RIGHT-TO-LEFT OVERRIDE) or an escape sequence was written to the terminal
 * as it was, reordering the rest of the line or acting on the terminal (`evil\u202Egpj.csv`
 * shows as `evilvsc.jpg`). Every import reads its file through the same opening (input.ts).
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-names-')));
afterEach(() => cleanup());

const RLO = 'evil\u202egpj.csv';
const ESC = 'red\u001b[31m.csv';

async function stderrOf(args: string[]): Promise<{ code: number; stderr: string }> {
  const r = await runCli(['--db', join(dir, 'p.db'), ...args], { cwd: dir });
  return { code: r.code, stderr: r.stderr };
}

describe('a file name with control or bidirectional characters is escaped in messages', () => {
  it('a file that does not exist', async () => {
    expect(await stderrOf(['policies', 'import', RLO])).toEqual({ code: 2, stderr: 'error: Cannot read evil\\u202egpj.csv: no such file.\n  (code VALIDATION_ERROR)\n' });
    expect(await stderrOf(['bank', 'import', ESC])).toEqual({ code: 2, stderr: 'error: Cannot read red\\u001b[31m.csv: no such file.\n  (code VALIDATION_ERROR)\n' });
  });

  it('a directory', async () => {
    mkdirSync(join(dir, RLO));
    expect(await stderrOf(['policies', 'import', RLO])).toEqual({ code: 2, stderr: 'error: evil\\u202egpj.csv is a directory; give a CSV file.\n  (code VALIDATION_ERROR)\n' });
  });

  it('a holiday file with a bad row (its message names the file)', async () => {
    copyFileSync(join(FIXTURES, 'policies.csv'), join(dir, 'policies.csv'));
    expect((await stderrOf(['policies', 'import', 'policies.csv'])).code).toBe(0);
    writeFileSync(join(dir, RLO), 'date,name\n2026-02-30,X\n');
    const before = readFileSync(join(dir, 'p.db'));
    expect(await stderrOf(['calendar', 'import', RLO])).toEqual({
      code: 2,
      stderr:
        "error: evil\\u202egpj.csv: 1 row with errors (first on line 2: date '2026-02-30' is not a day of the calendar: 2026-02 has 28 days). Nothing was imported.\n" +
        '  (code VALIDATION_ERROR)\n',
    });
    expect(readFileSync(join(dir, 'p.db')).equals(before)).toBe(true);
  });

  it('simulate: a policy file of a header and no rows', async () => {
    writeFileSync(join(dir, ESC), 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n');
    const r = await runCli(['simulate', '--policies', ESC, '--bank', 'none', '--out', 'out'], { cwd: dir });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 2,
      stderr:
        'error: The policy file red\\u001b[31m.csv holds no policies (a header and no rows), so there is nothing to simulate. Nothing was run.\n' +
        '  (code INVALID_FILE)\n',
    });
  });
});

// A socket given for the file: its stream failed to open (ENXIO) with nothing listening for the
// error, and the process died with Node's trace (exit 1), or "premia failed unexpectedly".
describe('a socket given for the file is refused (VALIDATION_ERROR, exit 2), nothing imported', () => {
  let server: Server;
  beforeEach(async () => {
    server = createServer();
    await new Promise<void>((done) => server.listen(join(dir, 'in.sock'), done));
  });
  afterEach(async () => {
    await new Promise<void>((done) => server.close(() => done()));
  });

  it.each([
    ['policies import', ['policies', 'import', 'in.sock']],
    ['bank import', ['bank', 'import', 'in.sock']],
  ])('%s', async (_name, args) => {
    expect(await stderrOf(args)).toEqual({ code: 2, stderr: 'error: in.sock is a socket, not a file; give a CSV file.\n  (code VALIDATION_ERROR)\n' });
    expect(readdirSync(dir).sort()).toEqual(['in.sock']);
  });

  it('simulate --policies', async () => {
    const r = await runCli(['simulate', '--policies', 'in.sock', '--bank', 'none', '--out', 'out'], { cwd: dir });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: 'error: in.sock is a socket, not a file; give a CSV file.\n  (code VALIDATION_ERROR)\n' });
  });
});
