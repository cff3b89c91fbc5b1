/**
 * With --json every error reaches stderr as the API's error body, on one line and nothing else:
 * commander's own errors as exit 2 (a bad choice or option value VALIDATION_ERROR; an unknown
 * option or command, a missing argument, value or subcommand USAGE_ERROR), unexpected failures as INTERNAL
 * with exit 1. Without --json the same errors stay plain text.
 */
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir, type CliResult } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-json-errors-')));
afterEach(() => cleanup());

const premia = (args: string[]) => runCli(['--db', join(dir, 'premia.db'), '--seed', '1', ...args], { cwd: dir });

/** The one error body on stderr (and nothing on stdout). */
function errorBody(r: CliResult): unknown {
  expect(r.stdout).toBe('');
  expect(r.stderr.endsWith('\n')).toBe(true);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(r.stderr);
}

const validation = (message: string) => ({ error: { code: 'VALIDATION_ERROR', message, request_id: null } });
const usage = (message: string) => ({ error: { code: 'USAGE_ERROR', message, request_id: null } });

describe('commander errors with --json', () => {
  it.each([
    [
      'a bad choice (--json first)',
      ['--json', 'policies', 'update', 'P1', '--status', 'bogus'],
      "option '--status <status>' argument 'bogus' is invalid. Allowed choices are active, lapsed, cancelled.",
    ],
    [
      'a bad choice (--json last)',
      ['policies', 'update', 'P1', '--status', 'bogus', '--json'],
      "option '--status <status>' argument 'bogus' is invalid. Allowed choices are active, lapsed, cancelled.",
    ],
    [
      'a bad global option value',
      ['--json', '--seed', 'x', 'clock'],
      "option '--seed <n>' argument 'x' is invalid. the seed is a whole number from 0 to 999999999.",
    ],
  ])('%s: VALIDATION_ERROR, exit 2', async (_name, args, message) => {
    const r = await runCli(args, { cwd: dir });
    expect(r.code).toBe(2);
    expect(errorBody(r)).toEqual(validation(message));
  });

  it.each([
    ['an unknown global option', ['--json', '--bogus', 'clock'], "unknown option '--bogus'"],
    ['an unknown option of a command', ['--json', 'clock', 'advance', '--weeks', '2'], "unknown option '--weeks'"],
    ['an unknown subcommand', ['--json', 'policies', 'bogus'], "unknown command 'bogus' for 'premia policies'; its commands are: create, import, update, get, list."],
    ['a mistyped subcommand before options', ['--json', 'settings', 'sett', 'calendar', 'none'], "unknown command 'sett' for 'premia settings'; its commands are: set.\n(Did you mean set?)"],
    ['a missing argument', ['--json', 'policies', 'get'], "missing required argument 'policy'"],
    ['an option without its value', ['--json', 'clock', 'advance', '--days'], "option '--days <n>' argument missing"],
  ])('%s: USAGE_ERROR, exit 2', async (_name, args, message) => {
    const r = await runCli(args, { cwd: dir });
    expect(r.code).toBe(2);
    expect(errorBody(r)).toEqual(usage(message));
  });

  it.each([
    [['--json', 'reports'], "missing command for 'premia reports'; its commands are: collections, summary."],
    [['keys', '--json'], "missing command for 'premia keys'; its commands are: create, list, revoke."],
  ])('a group without its command (%j): USAGE_ERROR naming its commands, exit 2, not its help', async (args, message) => {
    const r = await runCli(args, { cwd: dir });
    expect(r.code).toBe(2);
    expect(errorBody(r)).toEqual(usage(message));
  });

  it('premia --json alone: the same, naming the top-level commands', async () => {
    const r = await runCli(['--json'], { cwd: dir });
    expect(r.code).toBe(2);
    const body = errorBody(r) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('USAGE_ERROR');
    expect(body.error.message).toMatch(/^missing command for 'premia'; its commands are: policies, collections, .*\.$/);
  });

  it('after a "--", --json is an argument, not the flag: commander\'s plain text', async () => {
    const r = await premia(['policies', 'get', '--', '--json', 'extra']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: too many arguments for 'get'. Expected 1 argument but got 2.\n  (code USAGE_ERROR; run with --help for usage)\n");
  });

  it('without --json commander\'s errors stay text, with the hint', async () => {
    const r = await premia(['policies', 'update', 'P1', '--status', 'bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: option '--status <status>' argument 'bogus' is invalid. Allowed choices are active, lapsed, cancelled.\n  (code VALIDATION_ERROR; run with --help for usage)\n",
    );
  });

  it('help and version are not errors', async () => {
    const help = await runCli(['--json', 'clock', '--help'], { cwd: dir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: premia clock');
    const version = await runCli(['--json', '--version'], { cwd: dir });
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('unexpected failures with --json', () => {
  function crash(args: string[]): Promise<CliResult> {
    return runCli(args, {
      cwd: dir,
      prepare: (ctx) => {
        ctx.backend = async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'date')");
        };
      },
    });
  }


  it('INTERNAL, exit 1', async () => {
    const r = await crash(['--json', 'clock']);
    expect(r.code).toBe(1);
    expect(errorBody(r)).toEqual({
      error: {
        code: 'INTERNAL',
        message: "premia failed unexpectedly: Cannot read properties of undefined (reading 'date') (run again with --debug for details)",
        request_id: null,
      },
    });
  });

  it('--debug prints the stack with any key in it redacted, as the message', async () => {
    const key = 'pmk_8Lm7abcdefghijklmnopqrstuvwxyz0123AIcW';
    for (const json of [false, true]) {
      const r = await runCli([...(json ? ['--json'] : []), '--debug', 'clock'], {
        cwd: dir,
        prepare: (ctx) => {
          ctx.backend = async () => {
            throw new Error(`ENOENT: no such file or directory, open '/data/${key}/premia.db'`);
          };
        },
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("Error: ENOENT: no such file or directory, open '/data/pmk_…AIcW/premia.db'\n    at ");
      expect(r.stderr).not.toContain(key.slice(4, 30));
    }
  });

  it('without --json: text', async () => {
    const r = await crash(['clock']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: premia failed unexpectedly: Cannot read properties of undefined (reading 'date')\n  (run again with --debug for details)\n");
  });
});

describe('PremiaErrors with --json are unchanged', () => {
  it('NOT_FOUND, exit 5', async () => {
    await premia(['clock', 'set', '2026-11-21']); // a store to look in
    const r = await premia(['--json', 'policies', 'get', 'NOPE']);
    expect(r.code).toBe(5);
    expect((errorBody(r) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});

describe('an API key typed where something else belongs is never printed whole', () => {
  const KEY = 'pmk_8Lm7abcdefghijklmnopqrstuvwxyz0123AIcW';

  it.each([
    ['as the base URL', ['--base-url', KEY, 'clock'], {}, 2, "'pmk_…AIcW' is not a URL"],
    ['as the base URL, with the key in the environment', ['--base-url', KEY, 'clock'], { PREMIA_API_KEY: KEY }, 2, "'pmk_…AIcW' is not a URL"],
    ['as a client of the store', ['--as-client', KEY, 'clock'], {}, 5, "There is no client 'pmk_…AIcW'"],
    ['to keys revoke', ['keys', 'revoke', KEY], {}, 5, "API key 'pmk_…AIcW' was not found"],
  ] as const)('%s', async (_, args, env, code, shown) => {
    expect((await premia(['clock', 'set', '2026-10-31'])).code).toBe(0);
    for (const json of [false, true]) {
      const local = args[0] !== '--base-url' ? ['--db', join(dir, 'premia.db')] : [];
      const r = await runCli([...local, ...(json ? ['--json'] : []), ...args], { cwd: dir, env: { ...env } });
      expect(r.code).toBe(code);
      expect(r.stderr).toContain(shown);
      expect(r.stderr + r.stdout).not.toContain(KEY.slice(4, 30));
    }
  });
  // `--db "$PREMIA_API_KEY"` (the variables mixed up): a store named by the key was made, and
  // whoami, serve's start line and db copy printed its path, the whole key in it.
  const AS_STORE = (option: string, shown: string) =>
    `${option} holds an API key (${shown}), not a store: give a file such as ./premia.db, :memory:, or a postgres:// URL; an API key is for remote mode (PREMIA_API_KEY). Nothing changed.`;
  it.each([
    ['as the store, to whoami', ['--db', KEY, 'whoami'], {}, '--db', 'pmk_…AIcW'],
    ['as the store, to keys create (which makes a new store)', ['--db', `./${KEY}`, 'keys', 'create', '--client', 'Acme'], {}, '--db', './pmk_…AIcW'],
    ['as the store in PREMIA_DB, to bank seed (which makes a new store)', ['bank', 'seed', '3'], { PREMIA_DB: KEY }, 'PREMIA_DB', 'pmk_…AIcW'],
    ['as the store a copy goes to', ['db', 'copy', '--from', 'premia.db', '--to', KEY], {}, '--to', 'pmk_…AIcW'],
  ] as const)('%s: refused, exit 2, and no file is named by it', async (_, args, env, option, shown) => {
    expect((await premia(['clock', 'set', '2026-10-31'])).code).toBe(0);
    const r = await runCli(['--json', ...args], { cwd: dir, env: { ...env } });
    expect(r.code).toBe(2);
    expect(errorBody(r)).toEqual({
      error: { ...validation(AS_STORE(option, shown)).error, details: [{ field: option.replace(/^--/, ''), code: 'INVALID_FORMAT', message: 'a store is not an API key' }] },
    });
    expect(readdirSync(dir).filter((f) => f.includes('pmk_'))).toEqual([]);
    const text = await runCli([...args], { cwd: dir, env: { ...env } });
    expect(text.code).toBe(2);
    expect(text.stdout).toBe('');
    expect(text.stderr).toBe(`error: ${AS_STORE(option, shown)}\n  (code VALIDATION_ERROR)\n`);
  });
  it('as a file or directory to write: the status lines on stderr show it redacted', async () => {
    const r = await runCli(['fixtures', 'copy', KEY], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Copied the fixtures into pmk_…AIcW. Next: premia policies import pmk_…AIcW/policies.csv\n');
  });
  // A key of another form (not pmk_) is known only as the configured key: from the flag, the
  // environment or a profile. Shown as keys are shown elsewhere: its last 4 characters.
  const OTHER = 'sk_live_TOPSECRET_abcdef123456';
  it.each([
    ['the environment', [], { PREMIA_API_KEY: OTHER }],
    ['the flag', ['--api-key', OTHER], {}],
    ['the flag, written with =', [`--api-key=${OTHER}`], {}],
    ['a profile', [], {}],
  ] as const)('another form of key, configured by %s, given as the base URL', async (source, flags, env) => {
    const config = join(dir, 'config');
    if (source === 'a profile') {
      mkdirSync(join(config, 'premia'), { recursive: true });
      const file = join(config, 'premia', 'config.json');
      writeFileSync(file, JSON.stringify({ profiles: { default: { base_url: 'http://127.0.0.1:9/v1', api_key: OTHER } } }));
      chmodSync(file, 0o600);
    }
    for (const json of [false, true]) {
      const r = await runCli([...flags, ...(json ? ['--json'] : []), '--base-url', OTHER, 'reports', 'collections', '--period', '2026-11'], {
        cwd: dir,
        env: { XDG_CONFIG_HOME: config, ...env },
      });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const message = "'…3456' is not a URL; give the service's base URL, e.g. http://127.0.0.1:8080/v1.";
      if (json) expect(JSON.parse(r.stderr.split('\n').at(-2)!)).toMatchObject({ error: { code: 'VALIDATION_ERROR', message } });
      else expect(r.stderr.endsWith(`error: ${message}\n  (code VALIDATION_ERROR)\n`)).toBe(true);
      expect(r.stderr).not.toContain('TOPSECRET');
    }
  });
});
