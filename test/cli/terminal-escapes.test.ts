/**
 * An error's text reaches the terminal with its control and invisible characters escaped,
 * wherever the text came from: an argument echoed back (a setting's name or value, --period,
 * --as-client, an unknown option), or another server's error message. Before, `settings set`
 * and the others wrote an argument as given, so `\x1b[2J` cleared the operator's screen and
 * U+202E turned the rest of the line around. So are the paths and names given that a status
 * line, a warning or a list of files written echoes (`Wrote the 2026-11 collections report to
 * PATH`): those were written raw, and `--output $'r\e]0;…\a.csv'` retitled the terminal's window.
 */
import { EventEmitter } from 'node:events';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count } from '../../src/domain/words.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { SMALL_POLICIES } from '../helpers/small-month.js';
import { premiaBin } from '../e2e/spawn.js';

let dir: string;
let cleanup: () => void;
beforeAll(async () => {
  ({ dir, cleanup } = tempDir('premia-escapes-'));
  expect((await premia(['clock', 'set', '2026-10-31'])).code).toBe(0);
});
afterAll(() => cleanup());

const premia = (args: string[], env: Record<string, string> = {}) => runCli(['--db', join(dir, 's.db'), ...args], { cwd: dir, env });

describe('arguments echoed in errors', () => {
  it('a setting name with an escape sequence', async () => {
    expect(await premia(['settings', 'set', 'ab\u001b[31mc', '1'])).toMatchObject({
      code: 2,
      stderr:
        "error: 'ab\\u001b[31mc' is not a setting; the settings are engine.max_failed_attempts, lapse.unpaid_periods, calendar, engine.shards.\n  (code VALIDATION_ERROR)\n",
    });
  });

  it('a setting value with a right-to-left override', async () => {
    expect(await premia(['settings', 'set', 'calendar', '\u202ezz'])).toMatchObject({
      code: 2,
      stderr: "error: calendar must be one of za, none; got '\\u202ezz'.\n  (code VALIDATION_ERROR)\n",
    });
  });

  it('--period and --as-client', async () => {
    expect(await premia(['reports', 'collections', '--period', '2026-1\u001b'])).toMatchObject({
      code: 2,
      stderr: "error: --period '2026-1\\u001b' is not a period; write it as YYYY-MM, e.g. 2026-11.\n  (code VALIDATION_ERROR)\n",
    });
    const r = await premia(['--as-client', 'x\u001b[2J', 'policies', 'list']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("There is no client 'x\\u001b[2J' in ");
    expect(r.stderr).not.toContain('\u001b');
  });

  it("an unknown option (commander's own message)", async () => {
    expect(await premia(['policies', 'list', '--x\u001b[2J'])).toMatchObject({
      code: 2,
      stderr: "error: unknown option '--x\\u001b[2J'\n  (code USAGE_ERROR; run with --help for usage)\n",
    });
  });
});

describe("another server's error message", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(422, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'VALIDATION_ERROR', message: 'period \u001b[2Jis closed\u202e here', request_id: 'r\u00071' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  // Remote mode makes a server's control characters spaces as it reads the answer (its data
  // too); the override, not a control character, is escaped where the error is printed.
  it('is shown without its escape sequence and with its override escaped, its request id too', async () => {
    const r = await runCli(['collections', 'execute', '--period', '2026-11'], {
      cwd: dir,
      env: { PREMIA_BASE_URL: url, PREMIA_API_KEY: 'pk_test_0123456789abcdef0123456789abcdef', HOME: dir },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: period  [2Jis closed\\u202e here\n  (code VALIDATION_ERROR, request r 1)\n');
  });
});

describe('paths and names given, echoed in status lines and lists of files written', () => {
  /** Retitles the terminal's window (OSC 0, ended by BEL). */
  const TITLE = 'out\u001b]0;pwned\u0007.csv';
  const TITLE_SHOWN = 'out\\u001b]0;pwned\\u0007.csv';
  /** Clears the screen. */
  const CLEAR = 'x\u001b[2J';
  const CLEAR_SHOWN = 'x\\u001b[2J';
  let here: string;
  beforeAll(() => {
    here = join(dir, 'status');
    mkdirSync(here);
  });
  const inHere = (args: string[], env: Record<string, string> = {}) => runCli(['--db', join(dir, 's.db'), ...args], { cwd: here, env });
  const size = (name: string) => count(statSync(join(here, name)).size);

  it('reports collections --output, the built CLI', async () => {
    const r = await premiaBin(['--db', join(dir, 's.db'), 'reports', 'collections', '--period', '2026-11', '--output', TITLE], { cwd: here, env: { NO_COLOR: '1' } });
    expect(r).toEqual({ code: 0, stdout: '', stderr: `Wrote the 2026-11 collections report to ${here}/${TITLE_SHOWN} (${size(TITLE)} bytes).\n` });
  });

  it('reports summary --html and collections attempts --output', async () => {
    const page = await inHere(['reports', 'summary', '--period', '2026-11', '--html', `${CLEAR}.html`]);
    expect([page.code, page.stderr]).toEqual([0, `Wrote the 2026-11 summary page to ${here}/${CLEAR_SHOWN}.html (${size(`${CLEAR}.html`)} bytes).\n`]);
    const attempts = await inHere(['collections', 'attempts', '--period', '2026-11', '--output', `a${CLEAR}.csv`]);
    expect([attempts.code, attempts.stderr]).toEqual([0, `Wrote the 2026-11 attempts to ${here}/a${CLEAR_SHOWN}.csv (${size(`a${CLEAR}.csv`)} bytes).\n`]);
  });

  it("simulate's files written, and settlements export --output", async () => {
    writeFileSync(join(here, 'small.csv'), SMALL_POLICIES);
    const db = join(here, 'month.db');
    const run = await runCli(['--db', db, '--seed', '1', 'simulate', '--policies', 'small.csv', '--out', CLEAR], { cwd: here });
    expect(run.code).toBe(0);
    const files = ['collections-2026-11.csv', 'attempts-2026-11.csv', 'SETTLE-2026-11-001.csv', 'SETTLE-2026-11-001-lines.csv', 'summary-2026-11.html'];
    expect(run.stdout.split('\n').filter((l) => l.startsWith('Files: '))).toEqual([`Files: ${files.map((f) => `${CLEAR_SHOWN}/2026-11/${f}`).join(', ')}`]);
    const exported = await runCli(['--db', db, 'settlements', 'export', 'SETTLE-2026-11-001', '--output', `s${TITLE}`], { cwd: here });
    expect([exported.code, exported.stderr]).toEqual([0, `Wrote SETTLE-2026-11-001.csv as ${here}/s${TITLE_SHOWN} (${size(`s${TITLE}`)} bytes).\n`]);
  });

  it('fixtures copy: the files copied and the line after them', async () => {
    const r = await inHere(['fixtures', 'copy', CLEAR]);
    expect(r).toMatchObject({
      code: 0,
      stdout: `${CLEAR_SHOWN}/policies.csv\n${CLEAR_SHOWN}/bank-transactions.csv\n${CLEAR_SHOWN}/policies-invalid.csv\n`,
      stderr: `Copied the fixtures into ${CLEAR_SHOWN}. Next: premia policies import ${CLEAR_SHOWN}/policies.csv\n`,
    });
  });

  it('db copy: the store copied to', async () => {
    const r = await inHere(['db', 'copy', '--from', join(dir, 's.db'), '--to', `${CLEAR}.db`]);
    expect(r.code).toBe(0);
    const [copying, copied, ...rest] = r.stderr.split('\n');
    expect([copying, rest]).toEqual([`Copying ${dir}/s.db to ${here}/${CLEAR_SHOWN}.db…`, ['']]);
    expect(copied).toMatch(new RegExp(`^Copied ${dir}/s\\.db to ${here}/x\\\\u001b\\[2J\\.db: \\d+ tables, \\d+ rows; counts and money totals identical\\.$`));
  });

  it('db copy --yes onto a store that holds data, on a terminal: the line before the question, and the question', async () => {
    const to = join(here, `t${CLEAR}.db`);
    expect((await runCli(['--db', to, 'clock', 'set', '2026-10-31'], { cwd: here })).code).toBe(0);
    const asked: string[] = [];
    const r = await runCli(['--yes', 'db', 'copy', '--from', join(dir, 's.db'), '--to', to], {
      cwd: here,
      tty: true,
      env: { NO_COLOR: '1' },
      prompter: {
        password: () => Promise.reject(new Error('no password asked')),
        input: () => Promise.reject(new Error('no input asked')),
        confirm: (message) => {
          asked.push(message);
          return Promise.resolve(false);
        },
      },
    });
    const shown = `${here}/t${CLEAR_SHOWN}.db`;
    expect([r.code, r.stderr, asked]).toEqual([
      130,
      `Copying ${dir}/s.db to ${shown}…\n${shown} is not empty: the copy replaces all it holds: clients (1 row), meta (3 rows).\nNothing changed.\n`,
      [`Replace everything in ${shown} with the copy of ${dir}/s.db?`],
    ]);
  });

  it('the store named on a terminal, and the warning of a store others can read', async () => {
    const db = join(here, `w${CLEAR}.db`);
    const made = await runCli(['--db', db, 'clock', 'set', '2026-10-31'], { cwd: here, tty: true, env: { NO_COLOR: '1' } });
    expect([made.code, made.stderr]).toEqual([0, `Local mode: new store (created now) ${here}/w${CLEAR_SHOWN}.db\nClock set to 2026-10-31.\n`]);
    chmodSync(db, 0o644);
    const read = await runCli(['--db', db, 'clock'], { cwd: here });
    expect([read.code, read.stderr]).toEqual([
      0,
      `warning: other users of this machine can read the store ${here}/w${CLEAR_SHOWN}.db (mode 0644); it holds every client's data and API key hashes. ` +
        `Make it private: chmod 600 '${here}/w${CLEAR_SHOWN}.db'\n`,
    ]);
  });

  it('logout: the config file named', async () => {
    const r = await runCli(['logout'], { cwd: here, env: { XDG_CONFIG_HOME: join(here, CLEAR) } });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: `There was no profile 'default' in ${here}/${CLEAR_SHOWN}/premia/config.json; nothing to remove.\n` });
  });

  it("serve's start line: the store it serves", async () => {
    const signals = new EventEmitter();
    let url = '';
    const r = await runCli(['--db', join(here, `s${CLEAR}.db`), 'serve', '--port', '0'], {
      cwd: here,
      signals,
      prepare: (ctx) => {
        const serve = ctx.serve;
        ctx.serve = (backend, options, io) =>
          serve(backend, options, {
            ...io,
            onListening: (at) => {
              url = at;
              signals.emit('SIGTERM');
            },
          });
      },
    });
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([
      0,
      `premia: serving ${url} (new store, created now: ${here}/s${CLEAR_SHOWN}.db; simulated bank; SIGTERM or Ctrl-C stops)`,
    ]);
  });
});
