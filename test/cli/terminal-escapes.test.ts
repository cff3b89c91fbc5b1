/**
 * An error's text reaches the terminal with its control and invisible characters escaped,
 * wherever the text came from: an argument echoed back (a setting's name or value, --period,
 * --as-client, an unknown option), or another server's error message. Before, `settings set`
 * and the others wrote an argument as given, so `\x1b[2J` cleared the operator's screen and
 * U+202E turned the rest of the line around.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

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
