/** `premia profiles`: the saved profiles, keys redacted, the current one marked; no service is asked. */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const { dir, cleanup } = tempDir('premia-profiles-list-');
const home = join(dir, 'home');
afterAll(() => cleanup());

const KEY_DEFAULT = 'pk_live_abcdefgh12345678';
const KEY_STAGING = 'pk_test_zzzzzzzzWXYZ';

beforeAll(() => {
  mkdirSync(join(home, '.config', 'premia'), { recursive: true, mode: 0o700 });
  const file = join(home, '.config', 'premia', 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      profiles: {
        staging: { base_url: 'https://premia.example.com/v1', api_key: KEY_STAGING },
        default: { base_url: 'http://localhost:8080/v1', api_key: KEY_DEFAULT, client: 'acme' },
      },
    }),
  );
  chmodSync(file, 0o600);
});

const premia = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env: { HOME: home, ...env } });

describe('premia profiles', () => {
  it('lists the profiles by name, keys redacted, the default one current', async () => {
    const r = await premia(['profiles']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        '   name     base_url                       client  key',
        '*  default  http://localhost:8080/v1       acme    …5678',
        '   staging  https://premia.example.com/v1  -       …WXYZ',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('');
    expect(r.stdout + r.stderr).not.toContain('abcdefgh');
  });

  it('--profile and PREMIA_PROFILE choose the current one', async () => {
    for (const r of [await premia(['--profile', 'staging', 'profiles']), await premia(['profiles'], { PREMIA_PROFILE: 'staging' })]) {
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n')[2]).toBe('*  staging  https://premia.example.com/v1  -       …WXYZ');
      expect(r.stdout.split('\n')[1]).toBe('   default  http://localhost:8080/v1       acme    …5678');
    }
  });

  it('local mode (PREMIA_DB): none is current, and it says so on stderr', async () => {
    const r = await premia(['profiles'], { PREMIA_DB: join(dir, 'x.db') });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('*');
    expect(r.stderr).toBe('None is in use: the commands run in local mode (--db or PREMIA_DB).\n');
  });

  it('csv, json and --json: redacted too', async () => {
    const csv = await premia(['profiles', '--format', 'csv']);
    expect(csv.stdout).toBe('name,current,base_url,client,api_key\ndefault,true,http://localhost:8080/v1,acme,…5678\nstaging,false,https://premia.example.com/v1,,…WXYZ\n');
    const json = await premia(['--json', 'profiles']);
    expect(json.json()).toEqual({
      current: 'default',
      profiles: [
        { name: 'default', current: true, base_url: 'http://localhost:8080/v1', client: 'acme', api_key: '…5678' },
        { name: 'staging', current: false, base_url: 'https://premia.example.com/v1', client: null, api_key: '…WXYZ' },
      ],
    });
    expect(json.stdout).not.toContain(KEY_STAGING);
  });

  it('no config file: says how to save one', async () => {
    const r = await runCli(['profiles'], { cwd: dir, env: { HOME: join(dir, 'nobody') } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`No saved profiles in ${join(dir, 'nobody', '.config', 'premia', 'config.json')}; save one with 'premia login --base-url URL'.\n`);
  });
});

// Every command reads the config for a default profile: with a directory there, each one (a
// local `clock` too) failed "unexpectedly" (exit 1) with a bare EISDIR and no path.
describe('a config path that is not a file', () => {
  it('is named, exit 2, by profiles and by a local command', async () => {
    const other = join(dir, 'other-home');
    const file = join(other, '.config', 'premia', 'config.json');
    mkdirSync(file, { recursive: true });
    const message = `error: The premia config ${file} is a directory, not a file; remove it or fix it (it holds the profiles of 'premia login'), or set XDG_CONFIG_HOME to another directory.\n  (code VALIDATION_ERROR)\n`;
    for (const args of [['profiles'], ['--db', ':memory:', 'profiles'], ['clock']]) {
      const r = await runCli(args, { cwd: dir, env: { HOME: other } });
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', message]);
    }
  });
});

// A config that is no file of profiles: a link to /dev/zero was read whole (600 MB, then "premia
// failed unexpectedly: Invalid string length", exit 1), a FIFO held every command waiting for a
// writer, and a sparse file of gigabytes was read into memory. Each is refused by its kind or size.
describe('a config that is a device, a pipe or too large', () => {
  const fix = "remove it or fix it (it holds the profiles of 'premia login'), or set XDG_CONFIG_HOME to another directory.";
  const configIn = (name: string) => {
    const other = join(dir, name);
    mkdirSync(join(other, '.config', 'premia'), { recursive: true, mode: 0o700 });
    return { other, file: join(other, '.config', 'premia', 'config.json') };
  };
  const refused = async (other: string, message: string) => {
    for (const args of [['profiles'], ['clock']]) {
      const r = await runCli(args, { cwd: dir, env: { HOME: other } });
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: ${message}\n  (code VALIDATION_ERROR)\n`]);
    }
  };

  it('a link to /dev/zero', async () => {
    const { other, file } = configIn('zero-home');
    symlinkSync('/dev/zero', file);
    await refused(other, `The premia config ${file} is not a regular file (a device, a pipe or a socket); ${fix}`);
  });

  it('a FIFO (no writer: read, it never ends)', async () => {
    const { other, file } = configIn('fifo-home');
    execFileSync('mkfifo', [file]);
    await refused(other, `The premia config ${file} is not a regular file (a device, a pipe or a socket); ${fix}`);
  });

  it('a file over 1 MiB', async () => {
    const { other, file } = configIn('big-home');
    writeFileSync(file, '', { mode: 0o600 });
    truncateSync(file, 4 * 1024 ** 3); // sparse: 4 GiB of NULs that take no disk
    await refused(other, `The premia config ${file} is larger than 1048576 bytes, far more than its profiles take; ${fix}`);
  });
});
