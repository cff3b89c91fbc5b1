/**
 * A file piped in whose first line shows it is not the CSV asked for (a wrong header, a workbook)
 * is refused once that line is read, while the producer is still writing: `(echo wrong,header;
 * sleep 3; …) | premia policies import -` waited for the producer's end before its INVALID_FILE,
 * as a file with a wrong header was refused at once. The writer's end of the pipe stays open
 * here until premia has exited, so a premia that waits for the end of its input never exits and
 * the test fails on its safety timeout, however fast or slow the machine.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { BIN } from './spawn.js';

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir('premia-pipe-header-')));
afterAll(() => cleanup());

const children: ChildProcess[] = [];
afterEach(() => {
  while (children.length > 0) children.pop()!.kill('SIGKILL');
});

/** Only a safety net: a premia that waits for the end of its input never exits before it. */
const SAFETY_MS = 30_000;

interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Whether the producer's end of the pipe was still open when premia exited (always, unless the safety timeout closed it). */
  writerOpen: boolean;
}

/**
 * `premia args` reading `first` from a pipe whose writer keeps it open: more would follow, as from
 * a producer that pauses. The pipe is a named one (a pipe as a shell's `|` makes, which a child's
 * 'pipe' stdio is not: that is a socket); this test holds its writing end. Resolves once premia
 * has exited; the writer's end is closed only after that (or after the safety timeout, to end the test).
 */
function fromOpenPipe(args: string[], first: string | Buffer): Promise<Exited> {
  const fifo = join(dir, `pipe-${++pipes}`);
  execFileSync('mkfifo', [fifo]);
  // Opened for reading without waiting for a writer, then for writing (a reader is there).
  const reading = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  let writing: number | null = openSync(fifo, constants.O_WRONLY);
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env, stdio: [reading, 'pipe', 'pipe'] });
  closeSync(reading);
  children.push(child);
  writeSync(writing, typeof first === 'string' ? Buffer.from(first) : first);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const closeWriter = () => {
    if (writing !== null) closeSync(writing);
    writing = null;
  };
  const safety = setTimeout(closeWriter, SAFETY_MS);
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      const writerOpen = writing !== null;
      clearTimeout(safety);
      closeWriter();
      child.on('close', () => resolve({ code, stdout, stderr, writerOpen }));
    });
  });
}

let pipes = 0;

const POLICY_HEADER = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount';

describe('a piped file refused at its first line, its writer still open', () => {
  it('policies import -: a short wrong header, exit 2, nothing stored', async () => {
    const db = join(dir, 'short.db');
    const r = await fromOpenPipe(['--db', db, 'policies', 'import', '-'], 'wrong,header\n');
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: stdin is not a policy CSV file: line 1: the header must be '${POLICY_HEADER}'; found 'wrong,header'. Nothing was imported.\n  (code INVALID_FILE)\n`,
      writerOpen: true,
    });
    expect(existsSync(db)).toBe(false); // not even a store was made
  });

  it('policies import -: a header longer than a file\'s first bytes (semicolons), exit 2 with its hint', async () => {
    const semicolons = POLICY_HEADER.replaceAll(',', ';');
    const r = await fromOpenPipe(['--db', join(dir, 'long.db'), 'policies', 'import', '-'], `${semicolons}\nC1;E1;P1;LIFE;10.00\n`);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `error: stdin is not a policy CSV file: line 1: the header must be '${POLICY_HEADER}'; found '${semicolons}'. ` +
        "Its columns are separated by ';', not commas (a spreadsheet's list separator); save the file as comma-separated CSV. Nothing was imported.\n  (code INVALID_FILE)\n",
      writerOpen: true,
    });
  });

  it('policies import -: a workbook named as one once its first bytes show it', async () => {
    const r = await fromOpenPipe(['--db', join(dir, 'zip.db'), 'policies', 'import', '-'], Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]));
    expect([r.code, r.writerOpen]).toEqual([2, true]);
    expect(r.stderr).toBe(
      'error: stdin is not a policy CSV file: line 1: the file is a ZIP archive (such as an Excel .xlsx or OpenDocument .ods workbook), not CSV text; save the sheet as "CSV UTF-8" (comma-separated). Nothing was imported.\n  (code INVALID_FILE)\n',
    );
  });

  it('bank import -: a short wrong header, exit 2, nothing stored', async () => {
    const db = join(dir, 'bank.db');
    const r = await fromOpenPipe(['--db', db, 'bank', 'import', '-'], 'wrong,header\n');
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: stdin is not a bank transactions CSV file: line 1: the header must be 'customer_id,date,amount,description'; found 'wrong,header'. Nothing was imported.\n  (code INVALID_FILE)\n",
      writerOpen: true,
    });
    expect(existsSync(db)).toBe(false);
  });

  it('calendar import -: a short wrong header, exit 2, no date imported', async () => {
    const db = join(dir, 'calendar.db');
    const made = await runCli(['--db', db, 'bank', 'seed', '1'], { cwd: dir });
    expect(made.code).toBe(0);
    const r = await fromOpenPipe(['--db', db, 'calendar', 'import', '-'], 'wrong,header\n');
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: stdin is not a holiday CSV file: line 1: the header must be 'date,name'; found 'wrong,header'. Nothing was imported.\n  (code INVALID_FILE)\n",
      writerOpen: true,
    });
    const shown = await runCli(['--db', db, '--json', 'calendar'], { cwd: dir });
    expect(shown.json().imported_dates).toBe(0);
  });

  // Under --idempotency-key stdin is copied to TMPDIR first (to hash it, and to read it again):
  // the copy ran to the producer's end before the import read the header.
  it('under --idempotency-key too: refused at the wrong header, exit 2, the key left free', async () => {
    const db = join(dir, 'keyed.db');
    const policies = await fromOpenPipe(['--db', db, '--idempotency-key', 'book-1', 'policies', 'import', '-'], 'wrong,header\n');
    expect(policies).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: stdin is not a policy CSV file: line 1: the header must be '${POLICY_HEADER}'; found 'wrong,header'. Nothing was imported.\n  (code INVALID_FILE)\n`,
      writerOpen: true,
    });
    const bank = await fromOpenPipe(['--db', db, '--idempotency-key', 'bank-1', 'bank', 'import', '-'], '"customer_id";date;amount;description\n');
    expect([bank.code, bank.writerOpen]).toEqual([2, true]);
    expect(bank.stderr).toMatch(/^error: stdin is not a bank transactions CSV file: line 1: the header must be 'customer_id,date,amount,description'; found /);
    // The refusal kept no answer under the key: the right file imports with it.
    const again = await runCli(['--db', db, '--idempotency-key', 'book-1', '--json', 'policies', 'import', '-'], { cwd: dir, stdin: `${POLICY_HEADER}\nC1,E1,P1,LIFE,10.00\n` });
    expect([again.code, again.stdout]).toEqual([0, '{"imported":1,"failed":0,"errors":[]}\n']);
  });

  it('a right header on an open pipe is not refused: premia waits for the rows, and imports them at the end', async () => {
    const db = join(dir, 'right.db');
    const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
    delete env.FORCE_COLOR;
    const child = spawn('sh', ['-c', 'cat | "$@"', 'sh', process.execPath, BIN, '--db', db, '--json', 'policies', 'import', '-'], { cwd: dir, env });
    children.push(child);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.stdin.write(`${POLICY_HEADER}\n`);
    child.stdin.end('C1,E1,P1,LIFE,10.00\n');
    expect(await exited).toBe(0);
    expect(stdout).toBe('{"imported":1,"failed":0,"errors":[]}\n');
  });
});
