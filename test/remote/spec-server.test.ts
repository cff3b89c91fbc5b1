/**
 * premia as a client of a server that implements ONLY the spec (test/helpers/remote-spec-stub.ts,
 * which checks every request it receives against the spec). Given ids, the spec's own operations
 * work; premia's extensions say plainly that this server does not offer them (exit 1), never a
 * stack trace; and the base URL is used exactly as given.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { remoteEnv, runPremia } from '../helpers/remote.js';
import { startSpecStub, type SpecStub } from '../helpers/remote-spec-stub.js';

const POLICIES = join(FIXTURES, 'policies.csv');

describe('against a server that implements only the spec', () => {
  let stub: SpecStub;
  let dir: string;
  let cleanup: () => void;
  const premia = (args: string[], env: Record<string, string> = {}) => runPremia(args, { cwd: dir, env: { ...remoteEnv(stub.url, stub.key), ...env } });
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    stub = await startSpecStub();
    ({ dir, cleanup } = tempDir('premia-spec-'));
  });
  afterAll(async () => {
    await stub.close();
    cleanup();
  });

  it('creates a policy: the spec body, money with two decimals, the answer printed as the server gave it', async () => {
    const r = await premia(['policies', 'create', '--policy-number', 'POL-1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '149.5', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const body = r.json();
    expect(Object.keys(body)).toEqual(['id', 'policy_number', 'status', 'created_at']);
    expect(body).toMatchObject({ policy_number: 'POL-1', status: 'active' });
    ids.policy = body.id;
    const sent = stub.requests.at(-1)!;
    expect(sent.body.toString()).toBe('{"policy_number":"POL-1","customer_id":"C1","external_customer_ref":"E1","product_code":"LIFE","collection_amount":149.50}');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers['idempotency-key']).toMatch(/^premia-[0-9a-f-]{36}$/);
  });

  it('shows a sparse answer to a human without inventing fields', async () => {
    const r = await premia(['policies', 'create', '--policy-number', 'POL-2', '--customer-id', 'C2', '--external-ref', 'E2', '--product-code', 'LIFE', '--amount', '20']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^id +[0-9a-f-]{36}\npolicy_number +POL-2\ncustomer_id +-\n/);
    expect(r.stdout).toContain('\ncollection_amount      -\nstatus                 active\n');
  });

  it('imports a file streamed as multipart (not buffered into one body), with its Content-Length', async () => {
    const r = await premia(['policies', 'import', POLICIES, '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ imported: 520, failed: 0, errors: [] });
    const sent = stub.requests.at(-1)!;
    expect(sent.headers['transfer-encoding']).toBeUndefined();
    expect(sent.headers['content-length']).toBe(String(sent.body.length));
    const boundary = /boundary=(.+)$/.exec(String(sent.headers['content-type']))![1]!;
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="policies.csv"\r\nContent-Type: text/csv\r\n\r\n`;
    const file = readFileSync(POLICIES);
    expect(sent.body.equals(Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${boundary}--\r\n`)]))).toBe(true);
    expect(createHash('sha256').update(file).digest('hex')).toHaveLength(64);
  });

  it('updates a policy by id: amount and status', async () => {
    const amount = await premia(['policies', 'update', ids.policy!, '--amount', '200', '--json']);
    expect(amount.code).toBe(0);
    expect(amount.json()).toEqual({ id: ids.policy, policy_number: 'POL-1', collection_amount: 200, status: 'active', updated_at: '2026-11-21T09:30:00.000Z' });
    expect(amount.stdout).toContain('"collection_amount":200.00');
    expect(stub.requests.at(-1)!.body.toString()).toBe('{"collection_amount":200.00}');
    const cancelled = await premia(['policies', 'update', ids.policy!, '--status', 'cancelled', '--json']);
    expect(cancelled.code).toBe(0);
    expect(cancelled.json().status).toBe('cancelled');
  });

  it('triggers the run with only the spec fields (no strategy unless asked)', async () => {
    const r = await premia(['collections', 'execute', '--period', '2026-11', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ status: 'processing', policies_queued: 521 });
    expect(stub.requests.at(-1)!.body.toString()).toBe('{"period_month":"2026-11"}');
    ids.collection = [...stub.collections.values()][0]!.id;
  });

  it('gets a collection by id', async () => {
    const r = await premia(['collections', 'get', ids.collection!, '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ id: ids.collection, period_month: '2026-11', collection_status: 'PAID_FULL', number_of_attempts: 1 });
    const human = await premia(['collections', 'get', ids.collection!]);
    expect(human.stdout).toMatch(/^id +[0-9a-f-]{36}\nperiod_month +2026-11\n/);
  });

  it('exports the report in both formats, byte for byte what the server sent', async () => {
    const csv = await premia(['reports', 'collections', '--period', '2026-11']);
    expect(csv.code).toBe(0);
    const direct = await request(`${stub.url}/reports/collections?period_month=2026-11`, { headers: { 'x-api-key': stub.key } });
    expect(csv.stdout).toBe(await direct.body.text());
    expect(csv.stdout.split('\n')).toHaveLength(523);
    expect(stub.requests.at(-2)!.query).toEqual({ period_month: '2026-11', format: 'csv' });
    const json = await premia(['reports', 'collections', '--period', '2026-11', '--format', 'json']);
    expect(json.code).toBe(0);
    expect(json.json().results).toHaveLength(521);
    const file = await premia(['reports', 'collections', '--period', '2026-11', '--output', 'nov.csv']);
    expect(file.code).toBe(0);
    expect(readFileSync(join(dir, 'nov.csv'), 'utf8')).toBe(csv.stdout);
  });

  it('creates, gets and exports a settlement by id', async () => {
    const created = await premia(['settlements', 'create', '--period', '2026-11', '--json']);
    expect(created.code).toBe(0);
    const s = created.json();
    expect(s).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', status: 'pending', payment_date: '2026-12-03' });
    const cents = (n: number) => Math.round(n * 100);
    expect(cents(s.net_amount)).toBe(cents(s.total_collections) - cents(s.total_fees) - cents(s.vat));
    ids.settlement = s.id;
    const human = await premia(['settlements', 'get', s.id]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('collections        -\n');
    const got = await premia(['settlements', 'get', s.id, '--json']);
    expect(Object.keys(got.json())).toEqual(['id', 'settlement_number', 'period_month', 'total_collections', 'distribution_fee', 'collections_fee', 'total_fees', 'vat', 'net_amount', 'status', 'payment_date', 'payment_reference', 'created_at']);
    const exported = await premia(['settlements', 'export', s.id]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toMatch(/^settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference\nSETTLE-2026-11-001,2026-11,/);
  });

  it.each([
    ['policies get', () => ['policies', 'get', ids.policy!], 'reading a policy (GET /policies/{id})'],
    ['policies list', () => ['policies', 'list'], 'policy lists (GET /policies)'],
    ['collections list', () => ['collections', 'list', '--period', '2026-11'], 'collection lists (GET /collections)'],
    ['collections explain', () => ['collections', 'explain', ids.collection!], 'collection explanations'],
    ['collections execution', () => ['collections', 'execution', ids.collection!], 'execution status (GET /executions/{id})'],
    ['collections attempts', () => ['collections', 'attempts', '--period', '2026-11'], 'the attempts export (GET /reports/attempts)'],
    ['collections execute --strategy', () => ['collections', 'execute', '--period', '2026-12', '--strategy', 'naive'], 'collection strategies (--strategy)'],
    ['clock', () => ['clock'], 'the virtual clock (GET /clock)'],
    ['clock set', () => ['clock', 'set', '2026-12-01'], 'setting the virtual clock (PUT /clock)'],
    ['clock advance', () => ['clock', 'advance', '--days', '1'], 'advancing the virtual clock'],
    ['bank seed', () => ['bank', 'seed', '5'], 'the simulated bank (POST /bank/seed)'],
    ['bank import', () => ['bank', 'import', join(FIXTURES, 'bank-transactions.csv')], 'the simulated bank (POST /bank/import)'],
    ['bank show', () => ['bank', 'show', 'C100001'], 'the simulated bank (GET /bank/accounts/{customer_id})'],
    ['settlements export --lines', () => ['settlements', 'export', ids.settlement!, '--lines'], 'settlement lines (export --lines)'],
    ['settlements list', () => ['settlements', 'list'], 'settlement lists (GET /settlements)'],
    ['settlements mark-paid', () => ['settlements', 'mark-paid', ids.settlement!], 'recording payments'],
    ['settlements dispute', () => ['settlements', 'dispute', ids.settlement!, '--reason', 'fees'], 'disputes'],
  ])('%s: "this server does not offer" it (NOT_SUPPORTED, exit 1)', async (_name, args, what) => {
    const before = stub.requests.length;
    const r = await premia(args());
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`This server does not offer ${what}`);
    expect(r.stderr).toContain('code NOT_SUPPORTED');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(stub.requests.length).toBeGreaterThan(before);
  });

  it.each([
    ['policies update', ['policies', 'update', 'POL-9', '--amount', '61'], "Policy POL-9 not found. If 'POL-9' is the policy's number"],
    ['settlements get', ['settlements', 'get', 'SETTLE-2026-11-001'], "Settlement SETTLE-2026-11-001 not found. If 'SETTLE-2026-11-001' is the settlement's number"],
    ['settlements export', ['settlements', 'export', 'SETTLE-2026-11-001'], "Settlement SETTLE-2026-11-001 not found. If 'SETTLE-2026-11-001' is the settlement's number"],
  ])('%s of a reference that is not UUID-shaped (a number, or this server\'s own id): a 404 is not found, exit 5', async (_name, args, said) => {
    const r = await premia(args);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    const noun = args[0] === 'policies' ? 'policy' : 'settlement';
    expect(r.stderr).toContain(
      `error: ${said}: looking a ${noun} up by number is a premia extension this server does not offer; give the ${noun}'s id as the service returned it.\n  (code NOT_FOUND, request `,
    );
  });

  it('asks before sending a strategy, so an ignored field can never start the wrong run', async () => {
    const runs = stub.requests.filter((q) => q.path === '/collections/execute').length;
    const r = await premia(['collections', 'execute', '--period', '2026-12', '--strategy', 'oracle', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error.code).toBe('NOT_SUPPORTED');
    expect(stub.requests.filter((q) => q.path === '/collections/execute')).toHaveLength(runs);
  });

  it('whoami proves the key with a spec request on a server without /whoami', async () => {
    const r = await premia(['whoami', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({
      mode: 'remote',
      base_url: stub.url,
      profile: null,
      client: null,
      api_key: `…${stub.key.slice(-4)}`,
      key_source: 'env',
      server_version: null,
    });
    // The proof: the id that cannot exist, with the key (404) and without one (401: an API that checks keys answers here).
    expect(stub.requests.slice(-3).map((q) => [q.path, q.headers['x-api-key'] !== undefined])).toEqual([
      ['/whoami', true],
      ['/collections/00000000-0000-4000-8000-000000000000', true],
      ['/collections/00000000-0000-4000-8000-000000000000', false],
    ]);
    const human = await premia(['whoami']);
    expect(human.stdout).toContain('server   another server implementing the spec\n');
    const refused = await premia(['whoami'], { PREMIA_API_KEY: 'wrong-key-9999' });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('refused the API key');
    expect(refused.stderr).not.toContain('wrong-key-9999');
  });

  it('says the server collects a queued run, naming no engine or clock it cannot know of', async () => {
    const r = await premia(['collections', 'execute', '--period', '2027-03', '--policy', ids.policy!]);
    expect(r.code).toBe(0);
    // The policy was cancelled above: the server queued nothing, which is said.
    expect(r.stderr).toBe(
      "warning: The server queued 0 of the 1 policy given for 2027-03: it may not know them (it may match the service's policy ids only, not policy numbers), hold them as not active, or have queued them before. Check with 'premia reports collections --period 2027-03'.\n" +
        'Queued 0 policies for 2027-03; the server collects them.\n',
    );
    expect(stub.requests.at(-1)!.body.toString()).toBe(`{"period_month":"2027-03","policy_ids":["${ids.policy}"]}`);
  });

  it('sent every request as the spec says (the checker found nothing)', () => {
    // whoami's probe without a key (twice: the json and the human run) is deliberate: it proves the URL.
    const probe = 'GET /v1/collections/00000000-0000-4000-8000-000000000000: no X-API-Key header';
    expect(stub.violations.filter((v) => v === probe)).toHaveLength(2);
    expect(stub.violations.filter((v) => v !== probe)).toEqual([]);
    const keyed = stub.requests.filter((q) => q.headers['x-api-key'] !== undefined);
    expect(keyed.every((q) => q.headers['x-api-key'] === stub.key || q.headers['x-api-key'] === 'wrong-key-9999')).toBe(true);
    expect(stub.requests.length - keyed.length).toBe(2);
    const writes = stub.requests.filter((q) => q.method === 'POST' || q.method === 'PATCH');
    const keys = writes.map((q) => q.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(keys.length); // one invocation, one key: never shared by two commands
  });

  it('the checker does catch a request that departs from the spec (control)', async () => {
    const seen = stub.violations.length;
    await request(`${stub.url}/policies`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-api-key': stub.key },
      body: '{"policy_number":"P","customer_id":"C","external_customer_ref":"E","product_code":"X","collection_amount":1.5,"strategy":"smart"}',
    }).then((res) => res.body.dump());
    await request(`${stub.url}/reports/collections?period_month=2026-11&lines=true`, { headers: {} }).then((res) => res.body.dump());
    expect(stub.violations.slice(seen)).toEqual([
      "POST /v1/policies: Content-Type is 'text/plain', not application/json",
      'POST /v1/policies: field strategy is not in the spec',
      'POST /v1/policies: collection_amount is not written with two decimals',
      'GET /v1/reports/collections: no X-API-Key header',
    ]);
    stub.violations.splice(seen);
  });
});

describe('the base URL is used exactly as given', () => {
  it.each([['without'], ['with']])('a path prefix %s a trailing slash', async (slash) => {
    const stub = await startSpecStub({ prefix: '/gateway/premia/v1' });
    const { dir, cleanup } = tempDir('premia-spec-prefix-');
    try {
      const url = slash === 'with' ? `${stub.url}/` : stub.url;
      const r = await runPremia(['policies', 'create', '--policy-number', 'P9', '--customer-id', 'C9', '--external-ref', 'E9', '--product-code', 'X', '--amount', '1', '--json'], {
        cwd: dir,
        env: remoteEnv(url, stub.key),
      });
      expect(r.code).toBe(0);
      expect(stub.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['POST /policies']);
      expect(stub.violations).toEqual([]);
    } finally {
      await stub.close();
      cleanup();
    }
  });
});
