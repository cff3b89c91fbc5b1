/**
 * The built CLI on a real pseudo-terminal (docs/cli.md and docs/bank-and-clock.md, "The virtual clock"):
 * Ctrl-C pressed while the progress line shows a day stops the advance after the day being
 * committed, exit 130; a confirmation appears with its text, n leaves the store as it was and
 * y goes ahead. Every wait ends when the text appears on the screen (nothing here depends on
 * how fast the machine is); the store is small enough for an advance of a few seconds.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupedCents } from '../helpers/grouped.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { premiaOnTerminal, ptyUnavailable } from '../helpers/pty.js';

const unavailable = ptyUnavailable();
if (unavailable) console.warn(`Skipping the pseudo-terminal tests: ${unavailable}.`);
const onPty = unavailable ? describe.skip : describe;

const BIG_BOOK = 2_000;
const SMALL_BOOK = 100;
const tmp = tempDir('premia-pty-');
afterAll(() => tmp.cleanup());

const cli = (db: string, args: string[]) => runCli(['--db', db, ...args], { cwd: tmp.dir, env: { NO_COLOR: '1' } });

/** A book of generated policies (no bank file: every account is generated from the seed). */
function book(policies: number): { path: string; due: number } {
  const lines = ['customer_id,external_customer_ref,policy_number,product_code,collection_amount'];
  let due = 0;
  for (let i = 1; i <= policies; i++) {
    const amount = 50 + (i % 200);
    due += amount * 100;
    lines.push(`C${i},R${i},P${String(i).padStart(6, '0')},FUNERAL,${amount}.00`);
  }
  const path = join(tmp.dir, `book-${policies}.csv`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { path, due };
}

/** A store with the book imported, `periods` queued, the clock on 2026-10-31; returns it and what is due a month. */
async function storeWith(policies: number, periods: string[]): Promise<{ db: string; due: number }> {
  const db = join(tmp.dir, `base-${policies}.db`);
  const b = book(policies);
  for (const args of [['--seed', '1', 'clock', 'set', '2026-10-31'], ['policies', 'import', b.path], ...periods.map((p) => ['collections', 'execute', '--period', p])]) {
    expect((await cli(db, args)).code).toBe(0);
  }
  return { db, due: b.due };
}

// Enough work for an advance to take a few seconds (November and December, 61 days); a small one for the questions.
let big: string;
let small: { db: string; due: number };
beforeAll(async () => {
  if (unavailable) return;
  big = (await storeWith(BIG_BOOK, ['2026-11', '2026-12'])).db;
  small = await storeWith(SMALL_BOOK, ['2026-11']);
});

let copies = 0;
function copyOf(db: string): string {
  const copy = join(tmp.dir, `store-${++copies}.db`);
  copyFileSync(db, copy);
  return copy;
}

function bytesOf(db: string): string {
  const hash = createHash('sha256').update(readFileSync(db));
  if (existsSync(`${db}-wal`)) hash.update(readFileSync(`${db}-wal`));
  return hash.digest('hex');
}

const attemptsOf = async (db: string) =>
  (await cli(db, ['collections', 'attempts', '--period', '2026-11'])).stdout + (await cli(db, ['collections', 'attempts', '--period', '2026-12'])).stdout;

onPty('on a pseudo-terminal', () => {
  it('Ctrl-C during clock advance stops after the day being committed, exit 130; resuming gives the uninterrupted run', async () => {
    const db = copyOf(big);
    const term = premiaOnTerminal(['--db', db, '--yes', 'clock', 'advance', '--to', '2026-12-31'], { cwd: tmp.dir });
    await term.waitFor(/Day \d+ of 61 \(2026-1\d-\d\d\)/);
    term.type('\x03');
    const end = await term.ended;
    expect(end.code).toBe(130);
    expect(end.screen).toContain('Ctrl-C: stopping after the day in progress (press Ctrl-C again to quit at once).\n');
    const stop = end.screen.match(/\nStopped by Ctrl-C after (2026-1\d-\d\d): (\d+) of 61 days lived, (\d{1,3}(?:,\d{3})*\.\d\d) collected; the clock is at \1\.\n/);
    expect(stop, end.screen).not.toBeNull();
    const [, day, lived] = stop!;
    expect(Number(lived)).toBe(Math.round((Date.parse(day!) - Date.parse('2026-10-31')) / 86_400_000));
    expect(Number(lived)).toBeLessThan(61);

    // The clock is at the reported day; no later day has an attempt.
    expect((await cli(db, ['--json', 'clock'])).json().date).toBe(day);
    const kept = (await attemptsOf(db)).split('\n').filter((l) => /^[0-9a-f-]{36},/.test(l));
    expect(kept.filter((l) => l.split(',')[3]! > day!)).toEqual([]);

    // Advancing again ends exactly where an uninterrupted run ends.
    const straight = copyOf(big);
    expect((await cli(straight, ['--yes', 'clock', 'advance', '--to', '2026-12-31'])).code).toBe(0);
    expect((await cli(db, ['--yes', 'clock', 'advance', '--to', '2026-12-31'])).code).toBe(0);
    expect(await attemptsOf(db)).toBe(await attemptsOf(straight));
  });

  it('a confirmation shows its text; n leaves the store as it was (exit 130), y goes ahead', async () => {
    const db = copyOf(small.db);
    const before = bytesOf(db);
    const question = 'Advance the clock 30 days, to 2026-11-30, and close 2026-11?';
    const owed = groupedCents(small.due);
    const no = premiaOnTerminal(['--db', db, 'clock', 'advance', '--to-month-end'], { cwd: tmp.dir });
    await no.waitFor(new RegExp(`\\? ${question.replace(/[?()]/g, '\\$&')} \\(y/N\\)`));
    expect(no.screen()).toContain(
      'Advancing the clock 30 days, from 2026-10-31 to 2026-11-30, closes 2026-11 for good.\n' +
        `  2026-11: none of its 100 collections is fully paid yet (100 with nothing collected; ${owed} still owed); ` +
        'what is not collected by 2026-11-30 stays unpaid for good (UNPAID or PAID_PARTIAL).\n',
    );
    no.type('n\r');
    const declined = await no.ended;
    expect(declined.code).toBe(130);
    expect(declined.screen).toMatch(/\nNothing changed\.\n?$/);
    expect(bytesOf(db)).toBe(before);

    const yes = premiaOnTerminal(['--db', db, 'clock', 'advance', '--to-month-end'], { cwd: tmp.dir });
    await yes.waitFor(/\(y\/N\)/);
    yes.type('y\r');
    const done = await yes.ended;
    expect(done.code, done.screen).toBe(0);
    expect(done.screen).toMatch(/\nClock moved from 2026-10-31 to 2026-11-30: 30 days lived, \d{1,3}(?:,\d{3})*\.\d\d collected\.\n/);
    expect((await cli(db, ['--json', 'clock'])).json().date).toBe('2026-11-30');
  });

  it('clock set more than a year away asks (a mistyped year); n leaves the clock, y sets it (issue 12)', async () => {
    const db = join(tmp.dir, 'clock-jump.db');
    expect((await cli(db, ['clock', 'set', '2026-10-31'])).code).toBe(0);
    const before = bytesOf(db);
    const no = premiaOnTerminal(['--db', db, 'clock', 'set', '2062-10-31'], { cwd: tmp.dir });
    await no.waitFor(/\? Set the clock to 2062-10-31\? \(y\/N\)/);
    expect(no.screen()).toContain('Setting the clock from 2026-10-31 to 2062-10-31 moves it 13,149 days (about 36 years) ahead.');
    no.type('n\r');
    const declined = await no.ended;
    expect(declined.code).toBe(130);
    expect(declined.screen).toMatch(/\nNothing changed\.\n?$/);
    expect(bytesOf(db)).toBe(before);

    const yes = premiaOnTerminal(['--db', db, 'clock', 'set', '2062-10-31'], { cwd: tmp.dir });
    await yes.waitFor(/\(y\/N\)/);
    yes.type('y\r');
    const done = await yes.ended;
    expect(done.code, done.screen).toBe(0);
    expect(done.screen).toContain('Clock set to 2062-10-31.');
    expect((await cli(db, ['--json', 'clock'])).json().date).toBe('2062-10-31');
  });

  // `y` and Enter typed with the command, before the figures and the question showed, answered it:
  // the month closed unseen. Such keys are discarded when the question is asked. (Typed before
  // premia starts: they wait in the terminal's queue, read by nothing until the question.)
  it('keys typed before a question shows do not answer it', async () => {
    const db = copyOf(small.db);
    const before = bytesOf(db);
    const term = premiaOnTerminal(['--db', db, 'clock', 'advance', '--to-month-end'], { cwd: tmp.dir, typedAhead: 'y\r' });
    await term.waitFor(/\(y\/N\)/);
    term.type('n\r');
    const ended = await term.ended;
    expect(ended.code, ended.screen).toBe(130);
    expect(bytesOf(db)).toBe(before);
  });

  // A colour sequence (SGR with a foreground colour: red, cyan, their reset); the cursor and erase
  // sequences a spinner needs are not colour.
  // eslint-disable-next-line no-control-regex -- the escape character is what is looked for
  const COLOUR = /\u001b\[(?:3\d|9\d)m/;

  it('NO_COLOR: the spinner is drawn without colour', async () => {
    const db = copyOf(small.db);
    const term = premiaOnTerminal(['--db', db, 'clock', 'advance', '--days', '3'], { cwd: tmp.dir, env: { NO_COLOR: '1', FORCE_COLOR: undefined } });
    const done = await term.ended;
    expect(done.code, done.screen).toBe(0);
    expect(term.raw()).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Advancing the clock/);
    expect(term.raw()).not.toMatch(COLOUR);
  });

  it('--no-color: a failed import\'s mark is drawn without colour', async () => {
    const bad = join(tmp.dir, 'not-policies.csv');
    writeFileSync(bad, 'a,b\n1,2\n');
    const term = premiaOnTerminal(['--db', copyOf(small.db), '--no-color', 'policies', 'import', bad], { cwd: tmp.dir, env: { NO_COLOR: undefined, FORCE_COLOR: undefined } });
    const done = await term.ended;
    expect(done.code).toBe(2);
    expect(done.screen).toContain('✖ Import of not-policies.csv failed\n');
    expect(term.raw()).not.toMatch(COLOUR);
  });
});
