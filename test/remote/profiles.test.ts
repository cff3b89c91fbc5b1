/**
 * Choosing the mode and the credentials; premia login, logout and whoami against a real premia
 * service; the config file's permissions; keys never shown whole; the status line of
 * state-changing commands on a terminal; local-only commands in remote mode.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { runPremia, scriptedPrompter, startLiveServer, type LiveServer } from '../helpers/remote.js';

let server: LiveServer;
let dir: string;
let cleanup: () => void;
let home: string;
let n = 0;

beforeAll(async () => {
  server = await startLiveServer();
  ({ dir, cleanup } = tempDir('premia-profiles-'));
});
afterAll(async () => {
  await server.close();
  cleanup();
});
beforeEach(() => {
  home = join(dir, `home-${++n}`);
  mkdirSync(home);
});

/** An address of this machine other than loopback (for a service reached as from another machine), if it has one. */
const EXTERNAL_IPV4 = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && !a.internal && a.family === 'IPv4')?.address;

const configFile = () => join(home, '.config', 'premia', 'config.json');
const premia = (args: string[], env: Record<string, string> = {}, options: { tty?: boolean; answers?: string[]; asked?: string[] } = {}) =>
  runPremia(args, {
    cwd: dir,
    env: { HOME: home, ...env },
    tty: options.tty,
    prompter: options.answers ? scriptedPrompter(options.answers, options.asked) : undefined,
  });

function saveConfig(profiles: Record<string, { base_url: string; api_key: string; client?: string }>, mode = 0o600): void {
  mkdirSync(join(home, '.config', 'premia'), { recursive: true, mode: 0o700 });
  writeFileSync(configFile(), JSON.stringify({ profiles }), { mode });
  chmodSync(configFile(), mode);
}

describe('premia login', () => {
  it('on a terminal asks for the key (masked), checks it, saves the profile 0600 in a 0700 directory', async () => {
    const asked: string[] = [];
    const r = await premia(['login', '--base-url', server.url], {}, { tty: true, answers: [server.keys.acme], asked });
    expect(r.code).toBe(0);
    expect(asked).toEqual([`API key for ${server.url}:`]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `Logged in to ${server.url} as Acme Life with key …${server.keys.acme.slice(-4)}.\nSaved profile 'default' in ${configFile()} (readable only by you).\n`,
    );
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.config', 'premia')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual({
      profiles: { default: { base_url: server.url, api_key: server.keys.acme, client: 'Acme Life' } },
    });
    // The saved default profile now selects remote mode by itself.
    const who = await premia(['whoami', '--json']);
    expect(who.json()).toEqual({
      mode: 'remote',
      base_url: server.url,
      profile: 'default',
      client: 'Acme Life',
      api_key: `…${server.keys.acme.slice(-4)}`,
      key_source: 'profile',
      server_version: '0.1.0',
    });
  });

  it('makes an existing premia directory private and leaves no temporary file', async () => {
    mkdirSync(join(home, '.config', 'premia'), { recursive: true, mode: 0o755 });
    chmodSync(join(home, '.config', 'premia'), 0o755);
    const r = await premia(['login', '--base-url', server.url], { PREMIA_API_KEY: server.keys.acme });
    expect(r.code).toBe(0);
    expect(statSync(join(home, '.config', 'premia')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(home, '.config', 'premia'))).toEqual(['config.json']);
  });

  it('without a terminal reads PREMIA_API_KEY, into $XDG_CONFIG_HOME, under a named profile', async () => {
    const xdg = join(home, 'xdg');
    const r = await premia(['login', '--profile', 'acme', '--base-url', server.url, '--json'], { XDG_CONFIG_HOME: xdg, PREMIA_API_KEY: server.keys.other });
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ profile: 'acme', base_url: server.url, client: 'Other Insure', api_key: `…${server.keys.other.slice(-4)}`, config: join(xdg, 'premia', 'config.json') });
    expect(statSync(join(xdg, 'premia', 'config.json')).mode & 0o777).toBe(0o600);
    expect(existsSync(configFile())).toBe(false);
  });

  it('a config directory that cannot be made is exit 2 saying where and why, nothing saved', async () => {
    const file = join(home, 'not-a-dir');
    writeFileSync(file, 'x');
    const r = await premia(['login', '--base-url', server.url, '--json'], { XDG_CONFIG_HOME: file, PREMIA_API_KEY: server.keys.other });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!).error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: `Cannot write the premia config at ${join(file, 'premia', 'config.json')} (no such directory); nothing was saved. Point XDG_CONFIG_HOME (or HOME) at a directory you can write, or pass --base-url and PREMIA_API_KEY without a profile.`,
    });
    expect(r.stderr).not.toContain(server.keys.other.slice(4, -4));
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  // Such a directory failed every command, local ones too: "premia failed unexpectedly: ENAMETOOLONG" (exit 1).
  it('a config directory of a name too long (over 255 bytes): login is exit 2 saying so; other commands find no profile', async () => {
    const long = join(home, 'c'.repeat(300));
    const r = await premia(['login', '--base-url', server.url, '--json'], { XDG_CONFIG_HOME: long, PREMIA_API_KEY: server.keys.other });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!).error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: `Cannot write the premia config at ${join(long, 'premia', 'config.json')} (the path is too long); nothing was saved. Point XDG_CONFIG_HOME (or HOME) at a directory you can write, or pass --base-url and PREMIA_API_KEY without a profile.`,
    });
    expect(await premia(['profiles', '--json'], { XDG_CONFIG_HOME: long })).toMatchObject({ code: 0, stdout: '{"current":null,"profiles":[]}\n' });
    expect((await premia(['whoami', '--json'], { XDG_CONFIG_HOME: long })).json()).toEqual({ mode: 'local', db: join(dir, 'premia.db'), client: null });
    expect(readdirSync(home)).toEqual([]);
  });

  it('without a terminal and without PREMIA_API_KEY it never prompts: a usage error naming what to set', async () => {
    const r = await premia(['login', '--base-url', server.url], {}, { answers: [] });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: No terminal to ask for the API key: set PREMIA_API_KEY to the key and run premia login again.\n  (code USAGE_ERROR)\n');
    expect(existsSync(configFile())).toBe(false);
  });

  it('on a terminal asks for the base URL too when none is known', async () => {
    const asked: string[] = [];
    const r = await premia(['login', '--profile', 'asked'], {}, { tty: true, answers: [server.url, server.keys.acme], asked });
    expect(r.code).toBe(0);
    expect(asked).toEqual(['Base URL of the service (including /v1):', `API key for ${server.url}:`]);
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.asked.base_url).toBe(server.url);
  });

  it('needs to know the service', async () => {
    const r = await premia(['login'], { PREMIA_API_KEY: server.keys.acme });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('give --base-url URL');
  });

  it('a refused key is exit 4 and nothing is saved; the key is not shown', async () => {
    const wrong = 'pmk_wrongwrongwrongwrongwrongwrongwrong1234';
    const r = await premia(['login', '--base-url', server.url], {}, { tty: true, answers: [wrong] });
    expect(r.code).toBe(4);
    // eslint-disable-next-line no-control-regex
    expect(r.stderr.replace(/\u001b\[\d+m/g, '')).toMatch(/^error: The service at http:\/\/127\.0\.0\.1:\d+\/v1 refused the key …1234; nothing was saved\. /);
    expect(r.stderr).not.toContain(wrong);
    expect(existsSync(configFile())).toBe(false);
  });

  it('a revoked key is refused too', async () => {
    const created = await server.backend.admin.keys.create('Acme Life', 'client');
    await server.backend.admin.keys.revoke(created.id);
    const r = await premia(['login', '--base-url', server.url], { PREMIA_API_KEY: created.key });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`refused the key …${created.key.slice(-4)}; nothing was saved`);
    expect(existsSync(configFile())).toBe(false);
  });

  it.skipIf(EXTERNAL_IPV4 === undefined)('warns, before asking for the key, that plain http:// to another machine sends the key unencrypted', async () => {
    const other = await startLiveServer({}, EXTERNAL_IPV4);
    try {
      const asked: string[] = [];
      const r = await premia(['login', '--base-url', other.url], { NO_COLOR: '1' }, { tty: true, answers: [other.keys.acme], asked });
      expect(r.code).toBe(0);
      expect(asked).toEqual([`API key for ${other.url}:`]);
      const host = new URL(other.url).host;
      expect(r.stderr).toBe(
        `warning: ${host} is reached over plain http://: the API key crosses the network unencrypted with every request. ` +
          'Use https:// unless every network between here and the service is private.\n' +
          `Logged in to ${other.url} as Acme Life with key …${other.keys.acme.slice(-4)}.\nSaved profile 'default' in ${configFile()} (readable only by you).\n`,
      );
    } finally {
      await other.close();
    }
  });

  it('--api-key works but warns', async () => {
    const r = await premia(['login', '--base-url', server.url, '--api-key', server.keys.acme]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: --api-key puts the key where others can see it/);
    expect(r.stderr).not.toContain(server.keys.acme);
  });
});

describe('premia logout', () => {
  it('removes the profile and keeps the file private', async () => {
    saveConfig({ default: { base_url: server.url, api_key: server.keys.acme }, other: { base_url: server.url, api_key: server.keys.other } });
    const r = await premia(['logout']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Removed profile 'default' and its key from ${configFile()}.`);
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles).toEqual({ other: { base_url: server.url, api_key: server.keys.other, client: null } });
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    const again = await premia(['logout', '--json']);
    expect(again.json()).toEqual({ profile: 'default', removed: false });
    // Without a default profile, commands are local again.
    expect((await premia(['whoami', '--json', '--db', ':memory:'])).json()).toEqual({ mode: 'local', db: ':memory:', client: 'Local' });
  });
});

describe('choosing the mode and the key', () => {
  it('local by default, on ./premia.db (which whoami does not create)', async () => {
    const r = await premia(['whoami', '--json']);
    expect(r.json()).toEqual({ mode: 'local', db: join(dir, 'premia.db'), client: null });
    expect(existsSync(join(dir, 'premia.db'))).toBe(false);
    expect((await premia(['whoami'])).stdout).toBe(`mode    local\nstore   ${join(dir, 'premia.db')} (not created yet)\nclient  -\n`);
    const db = join(home, 'made.db');
    expect((await premia(['--db', db, 'clock', 'set', '2026-11-21'])).code).toBe(0);
    expect((await premia(['--db', db, 'whoami', '--json'])).json()).toEqual({ mode: 'local', db, client: 'Local' });
  });

  it('PREMIA_DB beats a saved default profile; --db beats everything but is refused beside --base-url', async () => {
    saveConfig({ default: { base_url: server.url, api_key: server.keys.acme } });
    expect((await premia(['whoami', '--json'], { PREMIA_DB: ':memory:' })).json().mode).toBe('local');
    expect((await premia(['whoami', '--json', '--db', ':memory:'], { PREMIA_BASE_URL: server.url })).json().mode).toBe('local');
    const both = await premia(['whoami', '--db', ':memory:', '--base-url', server.url]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Give either --db (local mode) or --base-url/--profile (remote mode), not both.');
  });

  // Both exported (a cron line's and an old shell's): the service wins, said, not in silence.
  it('PREMIA_BASE_URL or PREMIA_PROFILE beside PREMIA_DB: remote mode, with a warning naming both', async () => {
    saveConfig({ acme: { base_url: server.url, api_key: server.keys.acme } });
    const byUrl = await premia(['whoami', '--json'], { PREMIA_DB: ':memory:', PREMIA_BASE_URL: server.url, PREMIA_API_KEY: server.keys.acme });
    expect([byUrl.json().mode, byUrl.stderr]).toEqual([
      'remote',
      'warning: PREMIA_DB is set but PREMIA_BASE_URL is too, and chooses remote mode: this command goes to the service, not to the store. Unset one of them (or give --db).\n',
    ]);
    const byProfile = await premia(['whoami', '--json'], { PREMIA_DB: ':memory:', PREMIA_PROFILE: 'acme' });
    expect([byProfile.json().mode, byProfile.stderr]).toEqual([
      'remote',
      'warning: PREMIA_DB is set but PREMIA_PROFILE is too, and chooses remote mode: this command goes to the service, not to the store. Unset one of them (or give --db).\n',
    ]);
    // --db decides, and no word is needed.
    expect((await premia(['whoami', '--json', '--db', ':memory:'], { PREMIA_DB: ':memory:', PREMIA_PROFILE: 'acme' })).stderr).toBe('');
  });

  // A cron line run in the store's folder, once someone saved a default profile on the machine.
  it('a saved default profile beside ./premia.db: remote mode, with a warning naming the store; --db or --profile settle it', async () => {
    saveConfig({ default: { base_url: server.url, api_key: server.keys.acme } });
    const folder = join(dir, `store-folder-${n}`);
    mkdirSync(folder);
    const inFolder = (args: string[]) => runPremia(args, { cwd: folder, env: { HOME: home } });
    // No store here: nothing to say.
    const none = await inFolder(['whoami', '--json']);
    expect([none.json().mode, none.stderr]).toEqual(['remote', '']);
    expect((await inFolder(['--db', 'premia.db', 'clock', 'set', '2026-11-21'])).code).toBe(0);
    const r = await inFolder(['whoami', '--json']);
    expect([r.code, r.json().mode, r.json().client]).toEqual([0, 'remote', 'Acme Life']);
    expect(r.stderr).toBe(
      "warning: the saved profile 'default' chooses remote mode: this command goes to its service, not to the store ./premia.db in this directory. " +
        'Give --db premia.db to use the store (or --profile default to say the service is meant).\n',
    );
    const local = await inFolder(['--db', 'premia.db', 'whoami', '--json']);
    expect([local.json().mode, local.stderr]).toEqual(['local', '']);
    const meant = await inFolder(['--profile', 'default', 'whoami', '--json']);
    expect([meant.json().mode, meant.stderr]).toEqual(['remote', '']);
  });

  it('PREMIA_API_KEY beats the profile key; --api-key beats both (with a warning)', async () => {
    saveConfig({ default: { base_url: server.url, api_key: server.keys.acme } });
    expect((await premia(['whoami', '--json'])).json()).toMatchObject({ client: 'Acme Life', key_source: 'profile' });
    expect((await premia(['whoami', '--json'], { PREMIA_API_KEY: server.keys.other })).json()).toMatchObject({ client: 'Other Insure', key_source: 'env' });
    const flag = await premia(['whoami', '--json', '--api-key', server.keys.acme], { PREMIA_API_KEY: server.keys.other });
    expect(flag.json()).toMatchObject({ client: 'Acme Life', key_source: 'flag' });
    expect(flag.stderr).toBe('warning: --api-key puts the key where others can see it (process listings, shell history); prefer PREMIA_API_KEY or premia login.\n');
  });

  it('a profile named with --profile brings its own key: PREMIA_API_KEY (another client\'s) does not act under it', async () => {
    saveConfig({ acme: { base_url: server.url, api_key: server.keys.acme } });
    const named = await premia(['whoami', '--json', '--profile', 'acme'], { PREMIA_API_KEY: server.keys.other });
    expect(named.json()).toMatchObject({ client: 'Acme Life', key_source: 'profile', profile: 'acme' });
    expect(named.stderr).toBe("note: PREMIA_API_KEY is set, but --profile acme was given: its own key is used, not the environment's.\n");
    // The same key in both: nothing to say. PREMIA_PROFILE (the environment's) still yields to PREMIA_API_KEY.
    const same = await premia(['whoami', '--json', '--profile', 'acme'], { PREMIA_API_KEY: server.keys.acme });
    expect([same.json().key_source, same.stderr]).toEqual(['profile', '']);
    expect((await premia(['whoami', '--json'], { PREMIA_PROFILE: 'acme', PREMIA_API_KEY: server.keys.other })).json()).toMatchObject({ client: 'Other Insure', key_source: 'env' });
  });

  it('a saved key is never sent to another URL', async () => {
    saveConfig({ default: { base_url: 'http://127.0.0.1:9/v1', api_key: server.keys.acme } });
    const r = await premia(['whoami'], { PREMIA_BASE_URL: server.url });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`No API key for ${server.url}`);
  });

  it('--profile and PREMIA_PROFILE select a named profile; an unknown one is a usage error', async () => {
    saveConfig({ acme: { base_url: server.url, api_key: server.keys.acme }, other: { base_url: server.url, api_key: server.keys.other } });
    expect((await premia(['whoami', '--json', '--profile', 'acme'])).json()).toMatchObject({ profile: 'acme', client: 'Acme Life' });
    expect((await premia(['whoami', '--json'], { PREMIA_PROFILE: 'other' })).json()).toMatchObject({ profile: 'other', client: 'Other Insure' });
    const missing = await premia(['whoami', '--profile', 'nope']);
    expect(missing.code).toBe(2);
    // The profiles there are named: a mistyped name was only told to make a profile of that name.
    expect(missing.stderr).toContain(
      `There is no profile 'nope' in ${configFile()} (its profiles: acme and other); give one of them, or create it with 'premia login --profile nope --base-url URL'.`,
    );
    const typo = await premia(['whoami'], { PREMIA_PROFILE: 'acmee' });
    expect([typo.code, typo.stdout]).toEqual([2, '']);
    expect(typo.stderr).toContain(`There is no profile 'acmee' in ${configFile()} (its profiles: acme and other);`);
    // Without a default profile and no URL, commands are local.
    expect((await premia(['whoami', '--json', '--db', ':memory:'])).json().mode).toBe('local');
  });

  it('refuses a key from a config file others can read, saying how to fix it', async () => {
    saveConfig({ default: { base_url: server.url, api_key: server.keys.acme } }, 0o644);
    const r = await premia(['whoami']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: The premia config ${configFile()} can be read by other users (mode 644), so its API keys are not used. Run 'chmod 600 ${configFile()}' (and consider rotating the keys), then try again.\n  (code VALIDATION_ERROR)\n`,
    );
    expect(r.stderr).not.toContain(server.keys.acme);
    // The URL alone is harmless: with PREMIA_API_KEY the file's key is not needed.
    expect((await premia(['whoami', '--json'], { PREMIA_API_KEY: server.keys.acme })).code).toBe(0);
  });

  it('a broken config file is a clear usage error', async () => {
    mkdirSync(join(home, '.config', 'premia'), { recursive: true });
    writeFileSync(configFile(), '{"profiles": ', { mode: 0o600 });
    const r = await premia(['whoami']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`The premia config ${configFile()} is not valid JSON`);
    // JSON, but not a premia config: an array, or profiles given as one, are not taken for no profiles.
    for (const text of ['[]', '{"profiles": []}', '{"profiles": null}']) {
      writeFileSync(configFile(), text, { mode: 0o600 });
      const wrong = await premia(['whoami']);
      expect([wrong.code, wrong.stderr]).toEqual([2, `error: The premia config ${configFile()} is not a premia config (expected {"profiles": {...}}); fix it or remove it.\n  (code VALIDATION_ERROR)\n`]);
    }
  });

  it('--as-client is for local mode only', async () => {
    const r = await premia(['whoami', '--as-client', 'Acme Life'], { PREMIA_BASE_URL: server.url, PREMIA_API_KEY: server.keys.acme });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--as-client selects a client of a local store');
  });
});

describe('whoami', () => {
  it('shows mode, URL, profile, client and the key redacted', async () => {
    saveConfig({ default: { base_url: server.url, api_key: server.keys.acme } });
    const r = await premia(['whoami']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'mode     remote',
        `url      ${server.url}`,
        'profile  default',
        'client   Acme Life',
        `api_key  …${server.keys.acme.slice(-4)} (from the profile)`,
        'server   premia 0.1.0',
        '',
      ].join('\n'),
    );
    expect(r.stdout + r.stderr).not.toContain(server.keys.acme.slice(0, -4));
  });

  it('a refused key shows here: exit 4 with how to fix it', async () => {
    saveConfig({ default: { base_url: server.url, api_key: 'pmk_revokedrevokedrevokedrevokedrevoked9876' } });
    const r = await premia(['whoami']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("The key comes from profile 'default': run 'premia login' to save a valid one, or set PREMIA_API_KEY.");
    expect(r.stderr).not.toContain('revokedrevoked');
  });
});

describe('on a terminal', () => {
  it('a state-changing command says which mode and target it acts on', async () => {
    saveConfig({ default: { base_url: server.url, api_key: server.keys.operator } });
    const r = await premia(['clock', 'set', '2026-10-31'], {}, { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe(`\u001b[2mRemote mode: ${server.url} (profile default, key …${server.keys.operator.slice(-4)})\u001b[22m`);
    const local = await premia(['--db', join(home, 'tty.db'), 'clock', 'set', '2026-10-31'], {}, { tty: true });
    expect(local.stderr.split('\n')[0]).toBe(`\u001b[2mLocal mode: new store (created now) ${join(home, 'tty.db')}\u001b[22m`);
    const again = await premia(['--db', join(home, 'tty.db'), 'clock', 'set', '2026-10-30'], {}, { tty: true });
    expect(again.stderr.split('\n')[0]).toBe(`\u001b[2mLocal mode: store ${join(home, 'tty.db')}\u001b[22m`);
    const read = await premia(['clock'], {}, { tty: true });
    expect(read.stderr).toBe('');
  });

  it('not with --quiet, nor off a terminal', async () => {
    saveConfig({ default: { base_url: server.url, api_key: server.keys.operator } });
    expect((await premia(['--quiet', 'clock', 'set', '2026-10-31'], {}, { tty: true })).stderr).toBe('');
    expect((await premia(['clock', 'set', '2026-10-31'])).stderr).toBe('Clock set to 2026-10-31.\n');
  });
});

describe('local-only commands in remote mode', () => {
  it.each([
    [['keys', 'list'], 'premia keys list'],
    [['keys', 'create', '--client', 'X'], 'premia keys create'],
    // With an idempotency key too: refused before anything is sent (no endpoint makes keys).
    [['--idempotency-key', 'nightly-keys', 'keys', 'create', '--client', 'X'], 'premia keys create'],
    [['keys', 'revoke', 'k'], 'premia keys revoke'],
    [['serve', '--port', '0'], 'premia serve'],
  ])('%j says plainly that it is local-only (exit 1)', async (args, what) => {
    const r = await premia(args, { PREMIA_BASE_URL: server.url, PREMIA_API_KEY: server.keys.acme });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: '${what}' is local-only: it works on a store file, not through the service. Run it with --db on the machine that holds the store (without --base-url, --profile or PREMIA_BASE_URL).\n  (code NOT_SUPPORTED)\n`,
    );
  });

  it('premia simulate runs on a temporary local store: asked for a service, it says it is local-only', async () => {
    const r = await premia(['--base-url', server.url, 'simulate'], { PREMIA_API_KEY: server.keys.acme });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error: 'premia simulate' is local-only: it lives its months on a temporary store of its own (or the one --db names), never through a service. Run it without --base-url and --profile.\n  (code NOT_SUPPORTED)\n",
    );
  });

  it('the clock and bank commands use the service simulation endpoints', async () => {
    const env = { PREMIA_BASE_URL: server.url, PREMIA_API_KEY: server.keys.operator };
    const r = await premia(['clock', '--json'], env);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ seed: 1, locked: false });
    // No policy names C100001 yet and nothing was imported for it: the service does not know it (404, exit 5).
    const unknown = await premia(['bank', 'show', 'C100001'], env);
    expect([unknown.code, unknown.stdout]).toEqual([5, '']);
    expect(unknown.stderr).toContain("error: Customer 'C100001' is not known");
    const policy = ['policies', 'create', '--policy-number', 'POL-BANK-1', '--customer-id', 'C100001', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '10.00'];
    expect((await premia(policy, env)).code).toBe(0);
    const shown = await premia(['bank', 'show', 'C100001', '--json'], env);
    expect(shown.code).toBe(0);
    expect(shown.json().customer_id).toBe('C100001');
  });
});
