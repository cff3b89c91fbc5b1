/**
 * premia against servers that implement the spec but decide differently where it says "not
 * shown" (test/helpers/remote-spec-stub.ts with options), and against wrong base URLs: the
 * gaps of the issue 6 audit (G1-G8, G12, G14). Each test would fail without its fix.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { instantRetries, remoteEnv, runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';
import { startSpecStub, type SpecStub, type SpecStubOptions } from '../helpers/remote-spec-stub.js';

const PROBE = '/collections/00000000-0000-4000-8000-000000000000';
const CREATE = (n: string, amount = '10') => ['policies', 'create', '--policy-number', n, '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', amount];

let dir: string;
let cleanup: () => void;
const stubs: SpecStub[] = [];

beforeAll(() => {
  ({ dir, cleanup } = tempDir('premia-variants-'));
});
afterAll(() => cleanup());
afterEach(async () => {
  for (const s of stubs.splice(0)) await s.close();
});

async function stub(options: SpecStubOptions = {}): Promise<SpecStub> {
  const s = await startSpecStub(options);
  stubs.push(s);
  return s;
}

/** A fresh HOME for each run that may save a profile. */
function home(): Record<string, string> {
  const h = join(dir, `home-${Math.random().toString(36).slice(2)}`);
  mkdirSync(h, { recursive: true });
  return { HOME: h, XDG_CONFIG_HOME: join(h, '.config') };
}

const premia = (s: { url: string; key: string }, args: string[], env: Record<string, string> = {}) =>
  runPremia(args, { cwd: dir, env: { ...remoteEnv(s.url, s.key), ...env }, tuning: instantRetries() });

/** A stub with one policy, its collection for 2026-11 and a settlement; returns their ids. */
async function seeded(s: SpecStub): Promise<{ policy: string; collection: string; settlement: string }> {
  const created = await premia(s, [...CREATE('POL-1'), '--json']);
  expect(created.code).toBe(0);
  expect((await premia(s, ['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
  const settlement = await premia(s, ['settlements', 'create', '--period', '2026-11', '--json']);
  expect(settlement.code).toBe(0);
  return { policy: created.json().id, collection: [...s.collections.keys()][0]!, settlement: settlement.json().id };
}

describe('G1: login and whoami do not accept a wrong base URL', () => {
  let server: LiveServer;
  beforeAll(async () => {
    server = await startLiveServer();
  });
  afterAll(async () => server.close());

  it.each([
    ['without /v1', (u: string) => u.replace(/\/v1$/, '')],
    ['with /api/v1', (u: string) => u.replace(/\/v1$/, '/api/v1')],
    ['with /v2', (u: string) => u.replace(/\/v1$/, '/v2')],
  ])('premia service %s: exit 1, nothing saved, even with a made-up key', async (name, wrong) => {
    const url = wrong(server.url);
    const env = home();
    for (const key of [server.keys.acme, 'pmk_totallywrongkey0000']) {
      const login = await runPremia(['login', '--base-url', url], { cwd: dir, env: { ...env, PREMIA_API_KEY: key } });
      expect(login.code).toBe(1);
      if (name === 'without /v1') {
        // The service answers under /v1 (401 for the made-up key, with premia's marker): say to add it.
        expect(login.stderr).toContain(`error: The base URL ${url} lacks the API version: the API answers at ${url}/v1 (a premia service, X-Premia-Version 0.1.0, answers there).`);
      } else {
        expect(login.stderr).toContain(`error: The base URL ${url} does not lead to the API: it is a premia service (X-Premia-Version 0.1.0), but it has no GET `);
        expect(login.stderr).toContain('Check the base URL: it includes the version, e.g. http://host:8080/v1.');
      }
      expect(existsSync(join(env.XDG_CONFIG_HOME!, 'premia', 'config.json'))).toBe(false);
      const who = await runPremia(['whoami'], { cwd: dir, env: remoteEnv(url, key) });
      expect(who.code).toBe(1);
      expect(who.stdout).toBe('');
    }
  });

  it('the right URL still logs in (premia service)', async () => {
    const env = home();
    const r = await runPremia(['login', '--base-url', server.url], { cwd: dir, env: { ...env, PREMIA_API_KEY: server.keys.acme } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Logged in to');
    expect(existsSync(join(env.XDG_CONFIG_HOME!, 'premia', 'config.json'))).toBe(true);
  });

  it('a spec-only server at a wrong path: nothing checks keys there, so exit 1 and nothing saved', async () => {
    const s = await stub({ prefix: '/api/v1' });
    const env = home();
    const url = s.url.replace(/\/api\/v1$/, '/v1');
    const r = await runPremia(['login', '--base-url', url], { cwd: dir, env: { ...env, PREMIA_API_KEY: 'pmk_totallywrongkey0000' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'Using the API key in PREMIA_API_KEY.\n' +
      `error: The base URL ${url} does not lead to the API: GET /v1${PROBE} answered HTTP 404 with application/json with the API key and HTTP 404 without one, ` +
        'where a service implementing the spec answers 401 to a request without a key. Check the base URL: it includes the version, e.g. http://host:8080/v1.\n  (code REMOTE_ERROR)\n',
    );
    expect(existsSync(join(env.XDG_CONFIG_HOME!, 'premia', 'config.json'))).toBe(false);
  });

  it('a spec-only server at the right URL: login proves the key (404 with it, 401 without) and saves it; a wrong key is exit 4', async () => {
    const s = await stub();
    const env = home();
    const r = await runPremia(['login', '--base-url', s.url], { cwd: dir, env: { ...env, PREMIA_API_KEY: s.key } });
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(env.XDG_CONFIG_HOME!, 'premia', 'config.json'), 'utf8')).profiles.default).toMatchObject({ base_url: s.url, api_key: s.key });
    expect(s.requests.map((q) => [q.method, q.path, q.headers['x-api-key'] !== undefined])).toEqual([
      ['GET', '/whoami', true],
      ['GET', PROBE, true],
      ['GET', PROBE, false],
    ]);
    const wrong = await runPremia(['login', '--profile', 'w', '--base-url', s.url], { cwd: dir, env: { ...env, PREMIA_API_KEY: 'spec-key-wrong-000' } });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('refused the key …-000; nothing was saved.');
  });
});

describe('a base URL without /v1 is diagnosed as such, with the corrected URL (issue 10, item 16)', () => {
  let server: LiveServer;
  beforeAll(async () => {
    server = await startLiveServer();
  });
  afterAll(async () => server.close());

  const fix = (base: string) =>
    `error: The base URL ${base} lacks the API version: the API answers at ${base}/v1`;

  it.each([
    ['policies list', ['policies', 'list']],
    ['reports collections', ['reports', 'collections', '--period', '2026-11']],
    ['collections get', ['collections', 'get', '00000000-0000-8000-8000-000000000000']],
    ['settlements create', ['settlements', 'create', '--period', '2026-11']],
    ['clock', ['clock']],
    ['whoami', ['whoami']],
  ])('premia serve, %s: exit 1, and the error says to add /v1', async (_name, args) => {
    const base = server.url.replace(/\/v1$/, '');
    const r = await runPremia(args, { cwd: dir, env: remoteEnv(base, server.keys.acme) });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      `${fix(base)} (a premia service, X-Premia-Version 0.1.0, answers there). ` +
        `Add /v1: --base-url ${base}/v1 (or PREMIA_BASE_URL, or premia login --base-url ${base}/v1).\n  (code REMOTE_ERROR)\n`,
    );
  });

  it('premia login: nothing saved, the corrected URL named; a trailing slash is dropped', async () => {
    const base = server.url.replace(/\/v1$/, '');
    const env = home();
    const r = await runPremia(['login', '--base-url', `${base}/`], { cwd: dir, env: { ...env, PREMIA_API_KEY: server.keys.acme } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${fix(`${base}/`.replace(/\/$/, ''))} (a premia service`);
    expect(existsSync(join(env.XDG_CONFIG_HOME!, 'premia', 'config.json'))).toBe(false);
    // With the corrected URL it logs in.
    expect((await runPremia(['login', '--base-url', `${base}/v1`], { cwd: dir, env: { ...env, PREMIA_API_KEY: server.keys.acme } })).code).toBe(0);
  });

  it.each([
    ['reports collections', ['reports', 'collections', '--period', '2026-11']],
    ['collections get', ['collections', 'get', '00000000-0000-8000-8000-000000000000']],
    ['policies list', ['policies', 'list']],
    ['whoami', ['whoami']],
  ])('a spec-only server, %s: exit 1, and the error says to add /v1', async (_name, args) => {
    const s = await stub();
    const base = s.url.replace(/\/v1$/, '');
    const r = await runPremia(args, { cwd: dir, env: remoteEnv(base, s.key) });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      `${fix(base)} (a service implementing the spec: it answers 401 to a request without a key at ${base}/v1${PROBE}, and HTTP 404 at ${base}${PROBE}). ` +
        `Add /v1: --base-url ${base}/v1 (or PREMIA_BASE_URL, or premia login --base-url ${base}/v1).\n  (code REMOTE_ERROR)\n`,
    );
  });

  it('a base URL with /v1 that is not found, or a /v2, is not told to add /v1', async () => {
    const s = await stub();
    const r = await runPremia(['collections', 'get', 'nope-1'], { cwd: dir, env: remoteEnv(s.url, s.key) });
    expect(r.code).toBe(5);
    const v2 = server.url.replace(/\/v1$/, '/v2');
    const wrong = await runPremia(['reports', 'collections', '--period', '2026-11'], { cwd: dir, env: remoteEnv(v2, server.keys.acme) });
    expect(wrong.stderr).not.toContain('Add /v1');
  });
});

describe('G2: any non-401 answer proves the key; a 404 on a spec route with an id is NOT_FOUND (exit 5)', () => {
  it.each<[string, SpecStubOptions]>([
    ['code COLLECTION_NOT_FOUND', { notFound: 'COLLECTION_NOT_FOUND' }],
    ['lower-case not_found', { notFound: 'not_found' }],
    ['a text/plain 404', { notFound: 'text' }],
    ['an HTML 404', { notFound: 'html' }],
    ['a 400 for an id the server dislikes', { strictIds: true }],
  ])('whoami and login with %s: key accepted', async (_name, options) => {
    const s = await stub(options);
    const who = await premia(s, ['whoami', '--json']);
    expect(who.stderr).toBe('');
    expect(who.code).toBe(0);
    expect(who.json()).toMatchObject({ mode: 'remote', client: null, server_version: null, api_key: '…6789' });
    const env = home();
    const login = await runPremia(['login', '--base-url', s.url], { cwd: dir, env: { ...env, PREMIA_API_KEY: s.key } });
    expect(login.code).toBe(0);
  });

  const uuid = '0b7c6a52-2f1e-4c8e-9d3a-5f0e1a2b3c4d';
  it.each<[string, SpecStubOptions, string]>([
    ['COLLECTION_NOT_FOUND', { notFound: 'COLLECTION_NOT_FOUND' }, `error: Collection ${uuid} not found.\n  (code COLLECTION_NOT_FOUND, request `],
    ['not_found', { notFound: 'not_found' }, `error: Collection ${uuid} not found.\n  (code not_found, request `],
    ['text', { notFound: 'text' }, `error: The service found no collection with the id '${uuid}' (it answered HTTP 404 with text/plain: Not Found).\n  (code NOT_FOUND)\n`],
    [
      'html',
      { notFound: 'html' },
      `error: The service found no collection with the id '${uuid}' (it answered HTTP 404 with text/html). If every command fails like this, check the base URL: it includes the version, e.g. http://host:8080/v1.\n  (code NOT_FOUND)\n`,
    ],
  ])('collections get <unknown id> with a %s 404: exit 5', async (_name, options, message) => {
    const s = await stub(options);
    const r = await premia(s, ['collections', 'get', uuid]);
    expect(r.code).toBe(5);
    expect(r.stderr.startsWith(message)).toBe(true);
  });

  it('policies update, settlements get and settlements export of an unknown id with a text 404: exit 5', async () => {
    const s = await stub({ notFound: 'text' });
    for (const args of [
      ['policies', 'update', uuid, '--amount', '5'],
      ['settlements', 'get', uuid],
      ['settlements', 'export', uuid],
    ]) {
      const r = await premia(s, args);
      expect(r.code, args.join(' ')).toBe(5);
      expect(r.stderr).toContain(`with the id '${uuid}' (it answered HTTP 404 with text/plain: Not Found).`);
    }
  });
});

describe('G3: a write is not sent again to a server that has not shown it honours Idempotency-Key', () => {
  it.each<[string, string, (s: SpecStub) => string[], (s: SpecStub) => number, string]>([
    ['policies create', 'POST /policies', () => CREATE('POL-D'), (s) => s.policies.size, 'Check whether policy POL-D exists at the service'],
    ['policies import', 'POST /policies/import', () => ['policies', 'import', join(FIXTURES, 'policies.csv')], (s) => s.policies.size, 'Check which policies of policies.csv exist at the service'],
    ['settlements create', 'POST /settlements', () => ['settlements', 'create', '--period', '2026-11'], (s) => s.settlements.size, 'Check whether a settlement for 2026-11 exists at the service'],
  ])('%s: the server acts, then drops the connection → OUTCOME_UNKNOWN, exit 1, done once', async (_name, route, args, count, verify) => {
    const s = await stub({ dropAfterAct: [route] });
    const r = await premia(s, args(s));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const path = route.split(' ')[1];
    expect(r.stderr).toContain(`error: POST /v1${path}: the connection failed before an answer came (the connection was closed by the other side before the answer was complete), so the service at ${s.url} may or may not have done it. `);
    expect(r.stderr).toContain('premia did not send it again, because this server has not shown that it honours Idempotency-Key and a second request could act twice.');
    expect(r.stderr).toContain(verify);
    expect(r.stderr).toContain('(code OUTCOME_UNKNOWN)');
    expect(count(s)).toBe(route === 'POST /policies/import' ? 520 : route === 'POST /settlements' ? 1 : 1);
    // Sent once; the only other request asked whether the server is premia (it is not).
    expect(s.requests.filter((q) => `${q.method} ${q.path}` === route)).toHaveLength(1);
    expect(s.requests.at(-1)!.path).toBe('/whoami');
  });

  it('collections execute: the run is triggered once', async () => {
    const s = await stub({ dropAfterAct: ['POST /collections/execute'] });
    expect((await premia(s, CREATE('POL-E'))).code).toBe(0);
    const r = await premia(s, ['collections', 'execute', '--period', '2026-11']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Check whether the 2026-11 run was queued (premia reports collections --period 2026-11)');
    expect(s.requests.filter((q) => q.path === '/collections/execute')).toHaveLength(1);
    expect(s.collections.size).toBe(1);
  });

  it('a premia service behind the same drop: asked, then resent with the same key (it replays)', async () => {
    // The contract suite (dropped-connection.test.ts) runs this against the real server; here the
    // point is the contrast: the same failure, a server that says it is premia.
    const server = await startLiveServer();
    try {
      const r = await runPremia([...CREATE('POL-P'), '--json'], { cwd: dir, env: remoteEnv(server.url, server.keys.acme), tuning: instantRetries() });
      expect(r.code).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('G4: downloads of any CSV-ish media type', () => {
  it.each([['text/plain; charset=utf-8'], ['application/csv'], ['application/octet-stream'], [null]])('CSV report and settlement export sent as %s', async (type) => {
    const s = await stub({ csvType: type });
    const ids = await seeded(s);
    const report = await premia(s, ['reports', 'collections', '--period', '2026-11']);
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/^period_month,customer_id,external_customer_ref,policy_number,product_code,collection_amount_due,.*\n2026-11,C1,E1,POL-1,LIFE,10\.00,10\.00,0\.00,PAID_FULL,/);
    const exported = await premia(s, ['settlements', 'export', ids.settlement]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe('settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference\nSETTLE-2026-11-001,2026-11,10.00,2.50,0.35,2.85,0.43,6.72,2026-12-03,EFT-SETTLE-2026-11-001\n');
  });

  it('a CSV report and settlement export sent as application/json are taken when the body is the CSV', async () => {
    const s = await stub({ csvType: 'application/json' });
    const ids = await seeded(s);
    const report = await premia(s, ['reports', 'collections', '--period', '2026-11', '--output', 'json-typed.csv']);
    expect([report.code, report.stderr]).toEqual([0, `Wrote the 2026-11 collections report to ${join(dir, 'json-typed.csv')} (305 bytes).\n`]);
    expect(readFileSync(join(dir, 'json-typed.csv'), 'utf8')).toMatch(/^period_month,customer_id,.*\n2026-11,C1,E1,POL-1,LIFE,10\.00,10\.00,0\.00,PAID_FULL,/);
    const exported = await premia(s, ['settlements', 'export', ids.settlement]);
    expect([exported.code, exported.stderr]).toEqual([0, '']);
    expect(exported.stdout).toBe('settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference\nSETTLE-2026-11-001,2026-11,10.00,2.50,0.35,2.85,0.43,6.72,2026-12-03,EFT-SETTLE-2026-11-001\n');
  });

  it("the spec's CSV and a JSON report sent as text/html (Express's res.send of a string) are taken by their body", async () => {
    const s = await stub({ csvType: 'text/html; charset=utf-8', jsonReportType: 'text/html; charset=utf-8' });
    const ids = await seeded(s);
    const report = await premia(s, ['reports', 'collections', '--period', '2026-11']);
    expect([report.code, report.stderr]).toEqual([0, '']);
    expect(report.stdout).toMatch(/^period_month,customer_id,external_customer_ref,policy_number,product_code,collection_amount_due,.*\n2026-11,C1,E1,POL-1,LIFE,10\.00,10\.00,0\.00,PAID_FULL,/);
    const exported = await premia(s, ['settlements', 'export', ids.settlement]);
    expect([exported.code, exported.stderr]).toEqual([0, '']);
    expect(exported.stdout).toBe('settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference\nSETTLE-2026-11-001,2026-11,10.00,2.50,0.35,2.85,0.43,6.72,2026-12-03,EFT-SETTLE-2026-11-001\n');
    const json = await premia(s, ['reports', 'collections', '--period', '2026-11', '--format', 'json']);
    expect([json.code, json.stderr]).toEqual([0, '']);
    expect(JSON.parse(json.stdout).results).toHaveLength(1);
  });

  it('a JSON report sent as text/plain or with no type is taken when the body is JSON', async () => {
    for (const type of ['text/plain', null]) {
      const s = await stub({ jsonReportType: type });
      await seeded(s);
      const r = await premia(s, ['reports', 'collections', '--period', '2026-11', '--format', 'json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).results).toHaveLength(1);
    }
  });

  it.each<[string, SpecStubOptions, string]>([
    ['an HTML page sent as octet-stream', { csvType: 'application/octet-stream', csvBody: '<!DOCTYPE html><html><body>Sign in</body></html>' }, 'answered with an HTML page (application/octet-stream) instead of a CSV file'],
    ['JSON when CSV was asked', { csvType: 'application/json', csvBody: '{"error":"nope"}' }, 'answered with application/json instead of a CSV file'],
    ['an HTML page with text/html', { csvType: 'text/html', csvBody: '<html></html>' }, 'answered with text/html instead of a CSV file'],
    ['a fragment of HTML with text/html', { csvType: 'text/html', csvBody: '<p>Sign in</p>' }, 'answered with text/html instead of a CSV file'],
    ['another CSV with text/html', { csvType: 'text/html', csvBody: 'name,amount\nA,1.00\n' }, 'answered with text/html instead of a CSV file'],
  ])('refused: %s (exit 1, no file written)', async (_name, options, message) => {
    const s = await stub(options);
    const out = join(dir, `refused-${Math.random().toString(36).slice(2)}`);
    mkdirSync(out);
    const r = await premia(s, ['reports', 'collections', '--period', '2026-11', '--output', join(out, 'r.csv')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: GET /v1/reports/collections ${message}`);
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('G5/G11: the key is never printed, even when the server echoes it', () => {
  it('a 401 that repeats the key', async () => {
    const s = await stub({ echoKey: true });
    const key = 'stub-key-SECRETSECRET-WXYZ';
    const r = await premia({ url: s.url, key }, ['collections', 'get', 'c1']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('(the service said: Invalid or missing API key (key …WXYZ).)');
    expect(r.stderr).not.toContain('SECRETSECRET');
    const json = await premia({ url: s.url, key }, ['collections', 'get', 'c1', '--json']);
    expect(json.stderr).not.toContain('SECRETSECRET');
  });

  it('a validation error that repeats the key (message and --json body)', async () => {
    const s = await stub({ echoKey: true });
    for (const args of [CREATE('POL-K', '500000'), [...CREATE('POL-K', '500000'), '--json']]) {
      const r = await premia(s, args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('collection_amount must be at most 100000.00. (key …6789)');
      expect(r.stderr).not.toContain(s.key);
    }
  });

  it('a key of 8 characters or fewer shows nothing of itself in --debug or whoami', async () => {
    const s = await stub({ key: 'k3y9' });
    const r = await premia(s, ['--debug', 'whoami', '--json']);
    expect(r.code).toBe(0);
    expect(r.json().api_key).toBe('…');
    expect(r.stderr).toContain('key … from env');
    expect(r.stderr).not.toContain('k3y9');
  });
});

describe('G6: simulate is local-only whichever way remote mode was chosen', () => {
  it('PREMIA_BASE_URL and a default profile are refused like --base-url', async () => {
    const s = await stub();
    const byEnv = await premia(s, ['simulate', '--months', '1']);
    expect(byEnv.code).toBe(1);
    const chosen =
      "error: 'premia simulate' is local-only: it lives its months on a temporary store of its own (or the one --db names), never through a service. " +
      'Here PREMIA_BASE_URL, PREMIA_PROFILE or a saved default profile chose a service: give --db :memory: (a temporary store) or --db FILE to run it on this machine.\n  (code NOT_SUPPORTED)\n';
    expect(byEnv.stderr).toBe(chosen);
    const env = home();
    expect((await runPremia(['login', '--base-url', s.url], { cwd: dir, env: { ...env, PREMIA_API_KEY: s.key } })).code).toBe(0);
    const byProfile = await runPremia(['simulate', '--months', '1'], { cwd: dir, env });
    expect(byProfile.code).toBe(1);
    expect(byProfile.stderr).toBe(chosen);
    expect(s.requests.filter((q) => q.method !== 'GET')).toEqual([]);
    // The way round the message gives: a temporary store, the saved profile left as it is.
    const here = await runPremia(['--db', ':memory:', 'simulate', '--months', '1', '--out', join(dir, 'sim-here')], { cwd: dir, env });
    expect(here.code).toBe(0);
    expect(readdirSync(join(dir, 'sim-here', '2026-11'))).toContain('collections-2026-11.csv');
  });
});

describe('G7/G8: errors and import results of other shapes', () => {
  it.each<[SpecStubOptions['errorShape'], string, string]>([
    ['message', 'error: The service answered HTTP 400: collection_amount must be at most 100000.00.\n  (code HTTP_400)\n', 'error: The service answered HTTP 409: A policy numbered POL-1 exists already.\n  (code HTTP_409)\n'],
    [
      'problem',
      'error: The service answered HTTP 400: VALIDATION_ERROR: collection_amount must be at most 100000.00.\n  (code HTTP_400)\n',
      'error: The service answered HTTP 409: DUPLICATE: A policy numbered POL-1 exists already.\n  (code HTTP_409)\n',
    ],
    ['text', 'error: The service answered HTTP 400: collection_amount must be at most 100000.00.\n  (code HTTP_400)\n', 'error: The service answered HTTP 409: A policy numbered POL-1 exists already.\n  (code HTTP_409)\n'],
  ])('%s bodies: the server\'s words, exit 2 for 400 and 6 for 409', async (shape, invalid, duplicate) => {
    const s = await stub({ errorShape: shape });
    const bad = await premia(s, CREATE('POL-1', '500000'));
    expect(bad.stderr).toBe(invalid);
    expect(bad.code).toBe(2);
    expect((await premia(s, CREATE('POL-1'))).code).toBe(0);
    const dup = await premia(s, CREATE('POL-1'));
    expect(dup.stderr).toBe(duplicate);
    expect(dup.code).toBe(6);
  });

  it('an import with errors of another shape prints each readably (and --json keeps them as sent)', async () => {
    const errors = [{ line: 3, reason: 'bad amount' }, 'row 7: duplicate'];
    const s = await stub({ importErrors: errors });
    const r = await premia(s, ['policies', 'import', join(FIXTURES, 'policies.csv')]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('Imported 520 policies; 2 rows failed.\n\n  {"line":3,"reason":"bad amount"}\n  row 7: duplicate\n');
    const json = await premia(s, ['policies', 'import', join(FIXTURES, 'policies.csv'), '--json']);
    expect(json.json().errors).toEqual(errors);
  });

  it('an import answer without errors (left out, or null) is no errors: exit 0, not a crash after the import', async () => {
    for (const errors of [undefined, null]) {
      const s = await stub({ importAnswer: (imported) => ({ imported, failed: 0, ...(errors === null ? { errors } : {}) }) });
      const r = await premia(s, ['policies', 'import', join(FIXTURES, 'policies.csv')]);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, 'Imported 520 policies; 0 rows failed.\n', '']);
    }
  });

  it('an import answered with something else (a job id): exit 1, the outcome said to be unknown, nothing claimed', async () => {
    const s = await stub({ importAnswer: () => ({ job_id: 'j-1' }) });
    const r = await premia(s, ['policies', 'import', join(FIXTURES, 'policies.csv')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'The service answered the import with {"job_id":"j-1"}, which is not an import result (imported, failed, errors): premia cannot tell what was imported. Check which policies of policies.csv exist at the service',
    );
    expect(r.stderr).not.toContain('undefined');
  });
});

describe('a compressed download (Content-Encoding), though premia asks for identity', () => {
  it('gzip is decompressed: the report is written as CSV, never as gzip bytes; an unknown encoding is refused, no file', async () => {
    const plain = await stub();
    await seeded(plain);
    const expected = (await premia(plain, ['reports', 'collections', '--period', '2026-11'])).stdout;
    expect(expected.startsWith('period_month,customer_id,')).toBe(true);
    const gz = await stub({ csvEncoding: 'gzip' });
    await seeded(gz);
    const out = join(dir, `gz-${Date.now()}.csv`);
    const r = await premia(gz, ['reports', 'collections', '--period', '2026-11', '--output', out]);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(expected);
    expect(gz.requests.some((q) => q.headers['accept-encoding'] === 'identity')).toBe(true);
    const odd = await stub({ csvEncoding: 'compress' });
    await seeded(odd);
    const refused = await premia(odd, ['reports', 'collections', '--period', '2026-11', '--output', join(dir, 'never.csv')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("a body encoded as 'compress', which premia cannot decode,");
    expect(existsSync(join(dir, 'never.csv'))).toBe(false);
  });
});

describe('G12: a key with whitespace around it', () => {
  it('a trailing newline (a key from a secret file) is trimmed; a control character inside is exit 4 before any request', async () => {
    const s = await stub();
    const ok = await premia({ url: s.url, key: `${s.key}\n` }, ['whoami', '--json']);
    expect(ok.code).toBe(0);
    expect(s.requests.every((q) => q.headers['x-api-key'] === undefined || q.headers['x-api-key'] === s.key)).toBe(true);
    const before = s.requests.length;
    const bad = await premia({ url: s.url, key: 'spec-key\u0007-0123' }, ['whoami']);
    expect(bad.code).toBe(4);
    expect(bad.stderr).toBe('error: The API key has characters an HTTP header cannot carry (control characters or non-ASCII): check where it was copied from.\n  (code UNAUTHORIZED)\n');
    expect(s.requests.length).toBe(before);
  });
});

describe("G14: --output DIR with the server's file name", () => {
  it.each([
    ['attachment; filename="statement.csv"', 'statement.csv'],
    ['attachment; filename=".profile"', 'SID.csv'],
    ['attachment; filename="../escape.csv"', 'SID.csv'],
    ['attachment; filename="a/b.csv"', 'SID.csv'],
    ['attachment; filename="a\\\\b.csv"', 'SID.csv'],
    ['attachment; filename=..', 'SID.csv'],
  ])('Content-Disposition %s → %s', async (disposition, expected) => {
    const s = await stub({ exportDisposition: disposition });
    const ids = await seeded(s);
    const out = join(dir, `out-${Math.random().toString(36).slice(2)}`);
    mkdirSync(out);
    const r = await premia(s, ['settlements', 'export', ids.settlement, '--output', out]);
    expect(r.code).toBe(0);
    expect(readdirSync(out)).toEqual([expected.replace('SID', ids.settlement)]);
  });

  it.each([
    // The same name every month: each month's report would replace the last one's in the directory.
    ['attachment; filename="report.csv"', 'collections-2026-11.csv'],
    ['attachment; filename="acme-2026-11.csv"', 'acme-2026-11.csv'],
  ])('a report: %s → %s (the server\'s name only when it holds the period)', async (disposition, expected) => {
    const s = await stub({ reportDisposition: disposition });
    await seeded(s);
    const out = join(dir, `out-${Math.random().toString(36).slice(2)}`);
    mkdirSync(out);
    const r = await premia(s, ['reports', 'collections', '--period', '2026-11', '--output', out]);
    expect(r.code).toBe(0);
    expect(readdirSync(out)).toEqual([expected]);
  });
});

describe('compressed JSON answers (Content-Encoding), though premia asks for identity', () => {
  it.each(['gzip', 'deflate'] as const)('%s: writes, reads and errors are read as the JSON they carry', async (encoding) => {
    const s = await stub({ jsonEncoding: encoding });
    const created = await premia(s, [...CREATE('POL-1', '12.34'), '--json']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const policy = [...s.policies.values()][0]!;
    expect(created.stdout).toBe(`{"id":"${policy.id}","policy_number":"POL-1","status":"active","created_at":"2026-11-21T09:30:00.000Z"}\n`);
    const queued = await premia(s, ['collections', 'execute', '--period', '2026-11', '--json']);
    expect(queued.code).toBe(0);
    expect(JSON.parse(queued.stdout).policies_queued).toBe(1);
    const settlement = await premia(s, ['settlements', 'create', '--period', '2026-11', '--json']);
    expect(settlement.code).toBe(0);
    expect(JSON.parse(settlement.stdout).total_collections).toBe(12.34);
    const missing = await premia(s, ['collections', 'get', '00000000-0000-4000-8000-00000000abcd']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('error: Collection 00000000-0000-4000-8000-00000000abcd not found.');
  });

  it('a compressed error page larger than premia reads of it (64 KiB) is shown by its start', async () => {
    const { createServer } = await import('node:http');
    const { gzipSync } = await import('node:zlib');
    const page = `Not found at this gateway. ${'upstream said nothing more. '.repeat(5000)}`;
    const server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(gzipSync(page));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as import('node:net').AddressInfo;
      const r = await premia({ url: `http://127.0.0.1:${port}/v1`, key: 'spec-key-0123456789' }, ['collections', 'get', '00000000-0000-4000-8000-00000000abcd']);
      expect(r.code).toBe(5);
      expect(r.stderr).toContain('(it answered HTTP 404 with text/plain: Not found at this gateway. upstream said nothing more.');
      expect(r.stderr).not.toContain('cannot decode');
    } finally {
      server.close();
    }
  });

  it('an encoding premia cannot undo is a clear error that says the write may have been done', async () => {
    const s = await stub({ jsonEncoding: 'compress' });
    const r = await premia(s, CREATE('POL-1'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("POST /v1/policies answered 201 with a body encoded as 'compress', which premia cannot decode. The service answered 201, so it may have done it:");
  });
});

describe('a statement whose figures do not follow the fee rule', () => {
  it('settlements get warns as create does: the net is not shown as if it added up', async () => {
    const s = await stub({ netOffBy: 500 });
    const { settlement } = await seeded(s);
    const warning =
      "warning: the statement's figures do not follow the fee rule (25 % + 3.5 % of 10.00, 15 % VAT on the fees): net_amount 11.72 (the rule gives 6.72). Check them with the service before paying.\n";
    const shown = await premia(s, ['settlements', 'get', settlement]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('net_amount         11.72\n');
    expect(shown.stderr).toBe(warning);
    const json = await premia(s, ['settlements', 'get', settlement, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).net_amount).toBe(11.72);
    expect(json.stderr).toBe(warning);
    await expectQuietOnRuleFollowing('get');
  });
});

/** The control: a statement that follows the fee rule, read with `settlements <verb>`, warns of nothing. */
async function expectQuietOnRuleFollowing(verb: 'get' | 'export'): Promise<void> {
  const fine = await stub();
  const ok = await seeded(fine);
  const quiet = await premia(fine, ['settlements', verb, ok.settlement]);
  expect(quiet.code).toBe(0);
  expect(quiet.stderr).toBe('');
}

describe('a statement export whose figures do not follow the fee rule', () => {
  it('settlements export writes the server\'s bytes and warns on stderr, exit 0', async () => {
    const s = await stub({ netOffBy: 500, csvType: 'text/csv' });
    const { settlement } = await seeded(s);
    const warning =
      "warning: the statement's figures do not follow the fee rule (25 % + 3.5 % of 10.00, 15 % VAT on the fees): net_amount 11.72 (the rule gives 6.72). Check them with the service before paying.\n";
    const out = join(dir, `statement-off-${Date.now()}.csv`);
    const r = await premia(s, ['settlements', 'export', settlement, '--output', out]);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(
      `settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference\nSETTLE-2026-11-001,2026-11,10.00,2.50,0.35,2.85,0.43,11.72,2026-12-03,EFT-SETTLE-2026-11-001\n`,
    );
    expect(r.stderr).toBe(`Wrote ${settlement}.csv as ${out} (232 bytes).\n${warning}`);
    await expectQuietOnRuleFollowing('export');
  });
});

describe('extra fields of its own under the name of a money field', () => {
  it('a statement with rates (0.035) beside its figures is taken, and --json writes them as they came', async () => {
    const s = await stub({ settlementExtra: { rates: { distribution_fee: 0.25, collections_fee: 0.035, vat: 0.15 }, notes: [{ amount: 'R 12,50' }] } });
    expect((await premia(s, [...CREATE('POL-1'), '--json'])).code).toBe(0);
    expect((await premia(s, ['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    const created = await premia(s, ['settlements', 'create', '--period', '2026-11', '--json']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const id = [...s.settlements.keys()][0]!;
    expect(created.stdout).toBe(
      `{"id":"${id}","settlement_number":"SETTLE-2026-11-001","period_month":"2026-11","total_collections":10.00,"distribution_fee":2.50,"collections_fee":0.35,"total_fees":2.85,"vat":0.43,"net_amount":6.72,"payment_date":"2026-12-03","status":"pending","rates":{"distribution_fee":0.25,"collections_fee":0.035,"vat":0.15},"notes":[{"amount":"R 12,50"}]}\n`,
    );
    const shown = await premia(s, ['settlements', 'get', id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('collections_fee     0.35\n');
  });

  it('the figures premia reads are still held to two decimals', async () => {
    const s = await stub({ settlementExtra: { collections_fee: 0.035 } });
    expect((await premia(s, [...CREATE('POL-1'), '--json'])).code).toBe(0);
    const created = await premia(s, ['settlements', 'create', '--period', '2026-11']);
    expect(created.code).toBe(1);
    expect(created.stderr).toContain('answered with an amount premia cannot read: collections_fee is not a money amount: 0.035.');
  });

  it.each([
    // Past 10^13 a double no longer keeps every cent: a server that wrote 90071992547409.91 is
    // read as 90071992547409.9 (the stub, a double too, sends just that), so the range is refused.
    [90071992547409.91, '90071992547409.9'],
    // Cents beyond 2^53: were printed as raw cents (12345678901234567000), or an internal error with --json.
    [123456789012345680, '123456789012345680'],
  ])('an amount too large for a JSON number to carry to the cent (%s) is refused, never shown as another', async (total, shown) => {
    const s = await stub({ settlementExtra: { total_collections: total } });
    expect((await premia(s, [...CREATE('POL-1'), '--json'])).code).toBe(0);
    for (const json of [[], ['--json']]) {
      const created = await premia(s, ['settlements', 'create', '--period', '2026-11', ...json]);
      expect(created.code).toBe(1);
      expect(created.stdout).toBe('');
      expect(created.stderr).toContain(`answered with an amount premia cannot read: total_collections is too large an amount to read to the cent: ${shown}.`);
    }
  });

  it('the largest amount a JSON number carries exactly (9999999999999.99) is read to the cent', async () => {
    const s = await stub({ settlementExtra: { total_collections: 9999999999999.99 } });
    expect((await premia(s, [...CREATE('POL-1'), '--json'])).code).toBe(0);
    const created = await premia(s, ['settlements', 'create', '--period', '2026-11', '--json']);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('"total_collections":9999999999999.99,');
  });
});

describe('a server that answers a settled period with the statement it made before', () => {
  it('a statement of another period than the one asked for: no "Created … to pay by", a warning naming both (exit 0)', async () => {
    const s = await stub({ settlementExtra: { period_month: '2026-10', settlement_number: 'SETTLE-2026-10-001' } });
    expect((await premia(s, [...CREATE('POL-1'), '--json'])).code).toBe(0);
    const r = await premia(s, ['settlements', 'create', '--period', '2026-11']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'warning: the service answered with SETTLE-2026-10-001 for 2026-10, not the period asked for (2026-11): check with the service which statement was made before paying anything.\n',
    );
    expect(r.stdout).toContain('period_month       2026-10\n');
  });

  it.each([
    ['paid', ': it is paid already, do not pay it again'],
    ['disputed', ''],
  ])('status %s: no "Created … to pay by", a warning instead (exit 0)', async (status, paid) => {
    const s = await stub({ settlementExtra: { status } });
    expect((await premia(s, [...CREATE('POL-1'), '--json'])).code).toBe(0);
    const r = await premia(s, ['settlements', 'create', '--period', '2026-11']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: the service answered with SETTLE-2026-11-001, whose status is ${status}: a statement it had made before, not a new one${paid}.\n`);
    expect(r.stdout).toContain(`status             ${status}\n`);
    const pending = await stub();
    expect((await premia(pending, [...CREATE('POL-1'), '--json'])).code).toBe(0);
    const created = await premia(pending, ['settlements', 'create', '--period', '2026-11']);
    // mark-paid is premia's extension, which this server does not offer: not advised.
    expect(created.stderr).toBe('Created SETTLE-2026-11-001: net 0.00: nothing to pay for 2026-11.\n');
  });

  it('a status the spec does not name (PENDING, created) is said as such, not taken for a statement made before (exit 0)', async () => {
    for (const status of ['PENDING', 'created']) {
      const s = await stub({ settlementExtra: { status } });
      expect((await premia(s, [...CREATE('POL-1'), '--json'])).code).toBe(0);
      const r = await premia(s, ['settlements', 'create', '--period', '2026-11']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(
        `warning: the service answered with SETTLE-2026-11-001, whose status is ${status}, not one of the spec's (pending, paid, disputed): check with the service whether it is a new statement to pay before paying anything.\n`,
      );
      expect(r.stdout).toContain(`status             ${status}\n`);
    }
  });
});

describe('a run that queued fewer policies than given', () => {
  it('is said when the server matches ids only and was given a policy number (the policy would go uncollected); exit 0', async () => {
    const s = await stub();
    const { policy } = await seeded(s);
    const byNumber = await premia(s, ['collections', 'execute', '--period', '2026-12', '--policy', 'POL-1', '--policy', 'POL-1']);
    expect(byNumber.code).toBe(0);
    expect(byNumber.stderr).toBe(
      "warning: The server queued 0 of the 1 policy given for 2026-12: it may not know them (it may match the service's policy ids only, not policy numbers), hold them as not active, or have queued them before. Check with 'premia reports collections --period 2026-12'.\n" +
        'Queued 0 policies for 2026-12; the server collects them.\n',
    );
    const all = await premia(s, ['collections', 'execute', '--period', '2027-01', '--policy', policy, '--policy', 'POL-2']);
    expect(all.stderr).toContain('warning: The server queued 1 of the 2 policies given for 2027-01');
    // Every policy given was queued, or all of them when none was given: no warning (control).
    expect((await premia(s, ['collections', 'execute', '--period', '2027-02', '--policy', policy])).stderr).toBe('Queued 1 policy for 2027-02; the server collects them.\n');
    expect((await premia(s, ['collections', 'execute', '--period', '2027-03'])).stderr).toBe('Queued 1 policy for 2027-03; the server collects them.\n');
  });

  it('a run of all policies that queued none is said too', async () => {
    const s = await stub();
    const r = await premia(s, ['collections', 'execute', '--period', '2026-11']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "warning: The server queued no policy for 2026-11: it may hold no active policy, or have queued them before. Check with 'premia reports collections --period 2026-11'.\n" +
        'Queued 0 policies for 2026-11; the server collects them.\n',
    );
  });
});

describe('a statement created with its id only in the Location header', () => {
  it.each([['path'], ['absolute']] as const)('the id is taken from a Location %s: shown, no warning, and get and export work with it', async (form) => {
    const s = await stub({ settlementLocation: form });
    expect((await premia(s, [...CREATE('POL-1'), '--json'])).code).toBe(0);
    expect((await premia(s, ['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    const created = await premia(s, ['settlements', 'create', '--period', '2026-11']);
    // No warning that the service gave no id.
    expect([created.code, created.stderr]).toEqual([0, 'Created SETTLE-2026-11-001: net 6.72 to pay by 2026-12-03.\n']);
    const settlementId = [...s.settlements.keys()][0]!;
    expect(created.stdout).toContain(`id                 ${settlementId}\n`);
    const json = await premia(s, ['settlements', 'create', '--period', '2026-12', '--json']);
    expect([json.code, json.stderr]).toEqual([0, '']);
    expect(json.json().id).toBe([...s.settlements.keys()][1]);
    expect((await premia(s, ['settlements', 'export', json.json().id])).code).toBe(0);
  });
});

describe("a collections report of another period than the one asked for (a server that did not read period_month)", () => {
  it.each([['csv'], ['json']])('%s: refused, exit 1, --output keeps no file; the period asked is taken (control)', async (format) => {
    const s = await stub({ reportPeriod: '2026-11' });
    await seeded(s);
    const out = join(dir, `other-period-${format}`);
    mkdirSync(out);
    const r = await premia(s, ['reports', 'collections', '--period', '2026-12', '--format', format, '--output', join(out, `r.${format}`)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: GET /v1/reports/collections answered with the report of 2026-11, not of 2026-12 as asked (did the server read period_month?): it is not the 2026-12 report; nothing complete was received.\n  (code REMOTE_ERROR)\n`,
    );
    expect(readdirSync(out)).toEqual([]);
    const asked = await premia(s, ['reports', 'collections', '--period', '2026-11', '--format', format, '--output', join(out, `r.${format}`)]);
    expect(asked.code).toBe(0);
    expect(readdirSync(out)).toEqual([`r.${format}`]);
  });
});
