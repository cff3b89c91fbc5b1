/**
 * Progress on a terminal: a fake stderr that claims to be a TTY, with a chosen width. It records
 * what a spinner draws, and refuses to take more than a megabyte, so a runaway redraw loop
 * (ora on a 0-column terminal erases Infinity lines) fails the command instead of hanging the test.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProgress } from '../../src/cli/output/progress.js';
import type { Ui } from '../../src/cli/output/ui.js';
import { PassThrough, Readable, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContext } from '../../src/cli/context.js';
import { run } from '../../src/cli/main.js';
import { runCli, tempDir } from '../helpers/cli.js';

const ESC = '\u001b[';
/** ora's default spinner ("dots"). */
const SPINNER_FRAMES = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const LIMIT = 1 << 20;

class FakeTty extends Writable {
  readonly isTTY = true;
  rows = 24;
  text = '';
  constructor(public columns: number | undefined) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (e?: Error | null) => void): void {
    this.text += chunk.toString('utf8');
    done(this.text.length > LIMIT ? new Error('runaway terminal output') : null);
  }
  override write(chunk: unknown, ...rest: unknown[]): boolean {
    if (this.text.length > LIMIT) throw new Error('runaway terminal output');
    return (super.write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }
  cursorTo(x: number): boolean {
    return this.write(`${ESC}${x + 1}G`);
  }
  moveCursor(_dx: number, dy: number): boolean {
    return this.write(dy < 0 ? `${ESC}${-dy}A` : '');
  }
  clearLine(): boolean {
    return this.write(`${ESC}0K`);
  }
}

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-tty-')));
afterEach(() => cleanup());

async function onTerminal(args: string[], columns: number | undefined, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const out: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  const stderr = new FakeTty(columns);
  const ctx = createContext({
    stdout,
    stderr,
    stdin: Readable.from([]),
    stdoutIsTTY: false,
    stderrIsTTY: true,
    stdinIsTTY: false,
    env: { NO_COLOR: '1', ...env },
    cwd: dir,
    now: () => new Date('2026-11-22T09:30:00.000Z'), // a new store's clock: 2026-11-21
  });
  const code = await run(['--db', join(dir, 'premia.db'), '--seed', '1', ...args], ctx);
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: stderr.text };
}

/** A store for commands that read one (its clock at the tests' date). */
async function makeStore(): Promise<void> {
  expect((await runCli(['--db', join(dir, 'premia.db'), '--seed', '1', 'clock', 'set', '2026-11-21'], { cwd: dir })).code).toBe(0);
}

function oneRowCsv(): string {
  const path = join(dir, 'one.csv');
  writeFileSync(path, 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,ACME-1,P1,FUNERAL,149.50\n');
  return path;
}

describe('a terminal that reports no width', () => {
  it.each([0, undefined])('columns %s: the import finishes with plain status lines and no spinner', async (columns) => {
    const r = await onTerminal(['policies', 'import', oneRowCsv()], columns);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Imported 1 policy; 0 rows failed.\n');
    expect(r.stderr).not.toContain(ESC);
    expect(r.stderr).not.toMatch(SPINNER_FRAMES);
    expect(r.stderr).toContain('Importing one.csv…\n');
  });

  it('columns 0: clock advance finishes with no spinner', async () => {
    await makeStore();
    const r = await onTerminal(['clock', 'advance', '--days', '3'], 0);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain(ESC);
    expect(r.stderr).not.toMatch(SPINNER_FRAMES);
    expect(r.stderr).toContain('Advancing the clock…\n');
    expect(r.stderr).toContain('Clock moved from 2026-11-21 to 2026-11-24: 3 days lived, 0.00 collected.\n');
  });
});

describe('a terminal without cursor movement (TERM=dumb)', () => {
  it('clock advance writes plain status lines, no spinner and no escape sequences', async () => {
    await makeStore();
    const r = await onTerminal(['clock', 'advance', '--days', '3'], 100, { TERM: 'dumb' });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'Local mode: store ' + join(dir, 'premia.db') + '\nAdvancing the clock…\nClock moved from 2026-11-21 to 2026-11-24: 3 days lived, 0.00 collected.\n',
    );
  });

  it('the import writes plain status lines, no spinner and no escape sequences', async () => {
    const r = await onTerminal(['policies', 'import', oneRowCsv()], 100, { TERM: 'dumb' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Imported 1 policy; 0 rows failed.\n');
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).not.toMatch(SPINNER_FRAMES);
    expect(r.stderr).toContain('Importing one.csv…\n');
  });
});

describe('plain status lines', () => {
  it('are a few seconds apart, but a line that must be seen (waiting for another advance) comes at once', async () => {
    const lines: string[] = [];
    const ui = { interactive: true, canAnimate: false, ctx: { stderr: { write: (t: string) => lines.push(t) } } } as unknown as Ui;
    const progress = await startProgress(ui, 'Advancing the clock…');
    progress.update('Day 1 of 30');
    progress.update('Waiting for another clock advance (2026-11-01 to 2026-11-30, process 4242) to finish…', true);
    progress.succeed('done');
    expect(lines).toEqual(['Advancing the clock…\n', 'Waiting for another clock advance (2026-11-01 to 2026-11-30, process 4242) to finish…\n', 'done\n']);
  });
});

describe('a terminal of 100 columns', () => {
  it('the import shows a spinner', async () => {
    const r = await onTerminal(['policies', 'import', oneRowCsv()], 100);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(SPINNER_FRAMES);
    expect(r.stderr).toContain('Importing one.csv');
    // The rows so far and a percentage by the bytes they came from (100% is the summary's).
    expect(r.stderr).toContain('Importing one.csv [███████████████████░] 99% · 1 row');
  });

  it('a live line longer than the terminal is cut to its width, never wrapped', async () => {
    await makeStore();
    const r = await onTerminal(['clock', 'advance', '--days', '2'], 40);
    expect(r.code).toBe(0);
    // 36 characters: the spinner and a space take 2 of the 40 columns, and 2 stay free for the
    // `^C` a terminal echoes (on a full line it wrapped, and the stop cleared the wrong line).
    expect(r.stderr).toContain('Day 1 of 2 (2026-11-22) [██████████…');
    expect(r.stderr).not.toContain('Day 1 of 2 (2026-11-22) [██████████░');
  });

  it('clock advance draws "Day X of Y" while the days run, though the engine never yields to timers', async () => {
    await makeStore();
    const r = await onTerminal(['clock', 'advance', '--days', '3'], 100);
    expect(r.code).toBe(0);
    // A bar, day X of Y and the running collected total (issue 15).
    expect(r.stderr).toContain('Day 1 of 3 (2026-11-22) [██████░░░░░░░░░░░░░░] 33% · 0 attempts · 0.00 collected so far');
    expect(r.stderr).toContain('Clock moved from 2026-11-21 to 2026-11-24: 3 days lived, 0.00 collected.\n');
  });
});
