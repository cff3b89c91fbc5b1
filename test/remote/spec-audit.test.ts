/**
 * premia against servers written from the spec alone that decide differently where it says
 * "not shown" — each answer scripted by a small node:http server per test, with no premia
 * extension and no X-Premia-Version marker. Each test fails without the fix it names.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { instantRetries, remoteEnv, runPremia } from '../helpers/remote.js';

const KEY = 'spec-audit-key-0123456789';

/** One route's answer: `METHOD /path` below /v1 (a regular expression), and what it sends. */
type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Scripted {
  url: string;
  seen: Array<{ method: string; path: string; body: string }>;
  close: () => Promise<void>;
}

/** A server that checks X-API-Key as spec section 5 says, answers its routes as scripted, and 404s the rest with the spec's error body. */
async function scripted(routes: Record<string, Handler>): Promise<Scripted> {
  const seen: Scripted['seen'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/v1/, '');
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', path, body });
      const error = (status: number, code: string, message: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code, message, request_id: 'req-1' } }));
      };
      if (req.headers['x-api-key'] !== KEY) return error(401, 'UNAUTHORIZED', 'Invalid or missing API key.');
      const route = `${req.method} ${path}`;
      const handler = Object.entries(routes).find(([pattern]) => new RegExp(`^${pattern}$`).test(route))?.[1];
      if (!handler) return error(404, 'NOT_FOUND', `No route ${route}.`);
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An answer: JSON (an object) or text, with a content type (null: none) and headers. */
const answer =
  (status: number, body: unknown, type: string | null = 'application/json', headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { ...(type === null ? {} : { 'content-type': type }), ...headers });
    res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
  };

let dir: string;
let cleanup: () => void;
const servers: Scripted[] = [];

beforeAll(() => {
  ({ dir, cleanup } = tempDir('premia-audit-'));
});
afterAll(() => cleanup());
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function serve(routes: Record<string, Handler>): Promise<Scripted> {
  const s = await scripted(routes);
  servers.push(s);
  return s;
}

const premia = (s: Scripted, args: string[]) => runPremia(args, { cwd: dir, env: remoteEnv(s.url, KEY), tuning: instantRetries() });

describe('import errors of a shape of their own that echo an amount', () => {
  it('are shown with the amount in two decimals (1000000.50, 12.50), never in cents (100000050, 1250)', async () => {
    const file = join(dir, 'two.csv');
    writeFileSync(file, 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,LIFE,10.00\nC2,E2,P2,LIFE,1000000.50\n');
    const s = await serve({
      'POST /policies/import': answer(200, {
        imported: 1,
        failed: 2,
        errors: [
          { row: 3, collection_amount: 1000000.5, message: 'over the limit' },
          { row: 4, collection_amount: '12.50', message: 'duplicate' },
          { row: 5, collection_amount: '12,50' },
        ],
      }),
    });
    const r = await premia(s, ['policies', 'import', file]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      'Imported 1 policy; 2 rows failed.\n\n' +
        '  {"row":3,"collection_amount":1000000.50,"message":"over the limit"}\n' +
        '  {"row":4,"collection_amount":12.50,"message":"duplicate"}\n' +
        '  {"row":5,"collection_amount":"12,50"}\n',
    );
    expect(r.code).toBe(3);
  });

  it('an answer that is not an import result quotes its amounts as sent too', async () => {
    const file = join(dir, 'one.csv');
    writeFileSync(file, 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,LIFE,10.00\n');
    const s = await serve({ 'POST /policies/import': answer(202, { job_id: 'j1', collection_amount: 10.5 }) });
    const r = await premia(s, ['policies', 'import', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The service answered the import with {"job_id":"j1","collection_amount":10.5}, which is not an import result');
  });
});

describe('a large statement whose fees came back unrounded', () => {
  it('is refused as an answer premia cannot read, never rounded on the client', async () => {
    // 25 % of 20,000,000,000.50 is 5,000,000,000.125: a server that does not round sends it so.
    // premia took a millionth of a millionth of the amount (half a cent here) for float noise and
    // showed distribution_fee 5000000000.13, with exit 0.
    const s = await serve({
      'GET /settlements/st-9': answer(
        200,
        '{"id":"st-9","settlement_number":"SETTLE-2026-11-001","period_month":"2026-11","total_collections":20000000000.50,' +
          '"distribution_fee":5000000000.125,"collections_fee":700000000.0175,"total_fees":5700000000.1425,' +
          '"vat":855000000.021375,"net_amount":13444999999.336125,"payment_date":"2026-12-03","status":"pending"}',
      ),
    });
    const r = await premia(s, ['settlements', 'get', 'st-9', '--json']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('answered with an amount premia cannot read: distribution_fee is not a money amount: 5000000000.125.');
    expect(r.code).toBe(1);
  });
});

describe("a statement rounded another way than premia's half-up (the spec does not state the rounding)", () => {
  const statement = (figures: Record<string, number>) => ({
    id: 'st-1',
    settlement_number: 'SETTLE-2026-11-001',
    period_month: '2026-11',
    ...figures,
    payment_date: '2026-12-03',
    status: 'pending',
  });
  // 1000.34 rounded half to even (.NET's Math.Round, Python's round): 250.085 → 250.08 (premia 250.09),
  // 35.0119 → 35.01; fees 285.09, VAT 42.7635 → 42.76, net 672.49 (premia's own figures give 672.47).
  const halfEven = { total_collections: 1000.34, distribution_fee: 250.08, collections_fee: 35.01, total_fees: 285.09, vat: 42.76, net_amount: 672.49 };
  // 1000.15 truncated: 250.0375 → 250.03 (premia 250.04), 35.00525 → 35.00 (premia 35.01); fees
  // 285.03 (premia 285.05), VAT 42.7545 → 42.75, net 672.37 (premia's own figures give 672.34).
  const truncated = { total_collections: 1000.15, distribution_fee: 250.03, collections_fee: 35.0, total_fees: 285.03, vat: 42.75, net_amount: 672.37 };
  const csv = (f: Record<string, number>) =>
    'settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference\r\n' +
    `SETTLE-2026-11-001,2026-11,${[f.total_collections, f.distribution_fee, f.collections_fee, f.total_fees, f.vat, f.net_amount].map((n) => n!.toFixed(2)).join(',')},2026-12-03,EFT-1\r\n`;

  it.each([
    ['half to even', halfEven, '672.49'],
    ['truncating', truncated, '672.37'],
  ])('%s: create, get and export warn of nothing, each rule holding on its own figures', async (_name, figures, net) => {
    const s = await serve({
      'POST /settlements': answer(201, statement(figures)),
      'GET /settlements/st-1': answer(200, { ...statement(figures), payment_reference: 'EFT-1', created_at: '2026-12-02T08:00:00Z' }),
      'GET /settlements/st-1/export': answer(200, csv(figures), 'text/csv'),
    });
    const created = await premia(s, ['settlements', 'create', '--period', '2026-11']);
    expect(created.stderr).toBe(`Created SETTLE-2026-11-001: net ${net} to pay by 2026-12-03.\n`);
    expect(created.code).toBe(0);
    const got = await premia(s, ['settlements', 'get', 'st-1']);
    expect(got.stderr).toBe('');
    expect(got.stdout).toContain(`\nnet_amount          ${net}\n`);
    expect(got.code).toBe(0);
    const exported = await premia(s, ['settlements', 'export', 'st-1']);
    expect(exported.stderr).toBe('');
    expect(exported.stdout).toBe(csv(figures));
    expect(exported.code).toBe(0);
  });

  it('a VAT that is not 15 % of its own total fees is still said, with what the rule gives (control)', async () => {
    const wrong = { ...halfEven, vat: 44.0, net_amount: 671.25 };
    const s = await serve({ 'POST /settlements': answer(201, statement(wrong)) });
    const r = await premia(s, ['settlements', 'create', '--period', '2026-11']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'Created SETTLE-2026-11-001: net 671.25 to pay by 2026-12-03.\n' +
        "warning: the statement's figures do not follow the fee rule (25 % + 3.5 % of 1,000.34, 15 % VAT on the fees): vat 44.00 (the rule gives 42.76). Check them with the service before paying.\n",
    );
  });
});

describe('a download whose file name echoes the API key', () => {
  const HEADER =
    'period_month,customer_id,external_customer_ref,policy_number,product_code,collection_amount_due,collection_amount_collected,shortfall,collection_status,first_attempt_date,last_attempt_date,number_of_attempts,last_failure_reason\n';
  const EXPORT =
    'settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference\n' +
    'SETTLE-2026-11-001,2026-11,1000.00,250.00,35.00,285.00,42.75,672.25,2026-12-03,EFT-1\n';

  it("is written under premia's own name: the key is neither on disk nor in the 'Wrote' line", async () => {
    const out = join(dir, 'named');
    mkdirSync(out);
    const s = await serve({
      'GET /reports/collections': answer(200, HEADER, 'text/csv', { 'content-disposition': `attachment; filename="collections-2026-11-${KEY}.csv"` }),
      'GET /settlements/st-1/export': answer(200, EXPORT, 'text/csv', { 'content-disposition': `attachment; filename="${KEY}.csv"` }),
      'GET /settlements/st-1': answer(200, { id: 'st-1', settlement_number: 'SETTLE-2026-11-001', period_month: '2026-11', total_collections: 1000, distribution_fee: 250, collections_fee: 35, total_fees: 285, vat: 42.75, net_amount: 672.25, status: 'pending', payment_date: '2026-12-03', payment_reference: 'EFT-1', created_at: '2026-12-02T08:00:00Z' }),
    });
    const report = await premia(s, ['reports', 'collections', '--period', '2026-11', '--output', out]);
    expect(report.stderr).toBe(`Wrote the 2026-11 collections report to ${join(out, 'collections-2026-11.csv')} (${HEADER.length} bytes).\n`);
    expect(report.code).toBe(0);
    const exported = await premia(s, ['settlements', 'export', 'st-1', '--output', out]);
    expect(exported.stderr).toBe(`Wrote st-1.csv to ${join(out, 'st-1.csv')} (${EXPORT.length} bytes).\n`);
    expect(exported.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['collections-2026-11.csv', 'st-1.csv']);
    expect(readFileSync(join(out, 'st-1.csv'), 'utf8')).toBe(EXPORT);
  });
});

describe("an extra field of the server's own at the top of an answer, under a money field's name", () => {
  const STATEMENT = { id: 'st-1', settlement_number: 'SETTLE-2026-11-001', period_month: '2026-11', total_collections: 1000, distribution_fee: 250, collections_fee: 35, total_fees: 285, vat: 42.75, net_amount: 672.25, payment_date: '2026-12-03', status: 'pending' };
  const COLLECTION = {
    id: 'c-1',
    period_month: '2026-11',
    customer_id: 'C1',
    external_customer_ref: 'E1',
    policy_number: 'P1',
    product_code: 'LIFE',
    collection_amount_due: 150,
    collection_amount_collected: 100,
    shortfall: 50,
    collection_status: 'PAID_PARTIAL',
    first_attempt_date: '2026-11-03',
    last_attempt_date: '2026-11-20',
    number_of_attempts: 3,
    last_failure_reason: 'INSUFFICIENT_FUNDS',
  };

  it('a statement created with a due date and a count of debits is taken (exit 0), and --json keeps them as they came', async () => {
    const s = await serve({ 'POST /settlements': answer(201, { ...STATEMENT, due: '2026-12-03', debits: 2 }) });
    const human = await premia(s, ['settlements', 'create', '--period', '2026-11']);
    expect(human.stderr).toBe('Created SETTLE-2026-11-001: net 672.25 to pay by 2026-12-03.\n');
    expect(human.code).toBe(0);
    const json = await premia(s, ['settlements', 'create', '--period', '2026-11', '--json']);
    expect(json.stdout).toBe(
      '{"id":"st-1","settlement_number":"SETTLE-2026-11-001","period_month":"2026-11","total_collections":1000.00,"distribution_fee":250.00,"collections_fee":35.00,"total_fees":285.00,"vat":42.75,"net_amount":672.25,"payment_date":"2026-12-03","status":"pending","due":"2026-12-03","debits":2}\n',
    );
    expect(json.code).toBe(0);
  });

  it('a collection with them: its count stays a count (2, not 2.00), its figures are read as money', async () => {
    const s = await serve({ 'GET /collections/c-1': answer(200, { ...COLLECTION, debits: 2, due: '2026-11-30' }) });
    const r = await premia(s, ['collections', 'get', 'c-1', '--json']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      '{"id":"c-1","period_month":"2026-11","customer_id":"C1","external_customer_ref":"E1","policy_number":"P1","product_code":"LIFE","collection_amount_due":150.00,"collection_amount_collected":100.00,"shortfall":50.00,' +
        '"collection_status":"PAID_PARTIAL","first_attempt_date":"2026-11-03","last_attempt_date":"2026-11-20","number_of_attempts":3,"last_failure_reason":"INSUFFICIENT_FUNDS","debits":2,"due":"2026-11-30"}\n',
    );
    expect(r.code).toBe(0);
  });

  it('where the spec puts money, an amount premia cannot read is still refused (control)', async () => {
    const s = await serve({ 'GET /collections/c-1': answer(200, { ...COLLECTION, shortfall: '2026-11-30' }) });
    const r = await premia(s, ['collections', 'get', 'c-1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: GET /v1/collections/c-1 answered with an amount premia cannot read: shortfall is not a money amount: "2026-11-30".\n  (code REMOTE_ERROR)\n');
  });
});

describe("another server's error whose reason is in its details", () => {
  const CREATE = ['policies', 'create', '--policy-number', 'POL-1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '6000'];
  const refused = (details: unknown) =>
    answer(422, { error: { code: 'VALIDATION_ERROR', message: 'Validation failed', request_id: 'req-9', details } });

  it('one detail is shown under the message, named by its field (the message alone says nothing of what is wrong)', async () => {
    const s = await serve({ 'POST /policies': refused([{ field: 'collection_amount', message: 'must be at most 5000.00' }]) });
    const r = await premia(s, CREATE);
    expect(r.stderr).toBe('error: Validation failed\n  - collection_amount: must be at most 5000.00\n  (code VALIDATION_ERROR, request req-9)\n');
    expect(r.code).toBe(2);
  });

  it('a detail given as a string is shown too; several are each named by their field', async () => {
    const one = await serve({ 'POST /policies': refused(['collection_amount must be at most 5000.00']) });
    const r = await premia(one, CREATE);
    expect(r.stderr).toBe('error: Validation failed\n  - collection_amount must be at most 5000.00\n  (code VALIDATION_ERROR, request req-9)\n');
    const two = await serve({
      'POST /policies': refused([
        { field: 'collection_amount', message: 'must be at most 5000.00' },
        { field: 'product_code', message: 'product_code LIFE is not sold' },
      ]),
    });
    const r2 = await premia(two, CREATE);
    expect(r2.stderr).toBe('error: Validation failed\n  - collection_amount: must be at most 5000.00\n  - product_code LIFE is not sold\n  (code VALIDATION_ERROR, request req-9)\n');
    expect(r2.code).toBe(2);
  });

  it('a detail whose reason is under a name of its own (reason, msg) is shown as the server sent it, not dropped', async () => {
    const one = await serve({ 'POST /policies': refused([{ field: 'collection_amount', reason: 'must be at most 5000.00' }]) });
    const r = await premia(one, CREATE);
    expect(r.stderr).toBe('error: Validation failed\n  - {"field":"collection_amount","reason":"must be at most 5000.00"}\n  (code VALIDATION_ERROR, request req-9)\n');
    expect(r.code).toBe(2);
    const two = await serve({
      'POST /policies/import': answer(400, {
        error: { code: 'VALIDATION_ERROR', message: 'Invalid CSV', request_id: 'req-9', details: [{ row: 3, column: 'collection_amount', msg: 'not a number' }, { row: 4, message: 'duplicate POL-2' }] },
      }),
    });
    writeFileSync(join(dir, 'details.csv'), 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,POL-1,LIFE,10.00\n');
    const r2 = await premia(two, ['policies', 'import', 'details.csv']);
    expect(r2.stderr).toBe('error: Invalid CSV\n  - {"row":3,"column":"collection_amount","msg":"not a number"}\n  - row 4: duplicate POL-2\n  (code VALIDATION_ERROR, request req-9)\n');
    expect(r2.code).toBe(2);
  });

  it('a detail the message already says is not said twice (control)', async () => {
    const s = await serve({ 'POST /policies': answer(400, { error: { code: 'VALIDATION_ERROR', message: 'Invalid policy: collection_amount must be at most 5000.00.', request_id: 'req-9', details: [{ field: 'collection_amount', message: 'collection_amount must be at most 5000.00' }] } }) });
    const r = await premia(s, CREATE);
    expect(r.stderr).toBe('error: Invalid policy: collection_amount must be at most 5000.00.\n  (code VALIDATION_ERROR, request req-9)\n');
  });
});

describe("a framework's validation error of another shape than the spec's", () => {
  const CREATE = ['policies', 'create', '--policy-number', 'POL-1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '6000'];

  it("says the reasons listed under errors, not only the title that says there are some (ASP.NET's problem+json, Laravel's)", async () => {
    const aspnet = await serve({
      'POST /policies': answer(
        400,
        { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title: 'One or more validation errors occurred.', status: 400, errors: { collection_amount: ['must be at most 5000.'] }, traceId: '00-1' },
        'application/problem+json',
      ),
    });
    const r = await premia(aspnet, CREATE);
    expect(r.stderr).toBe('error: The service answered HTTP 400: One or more validation errors occurred.: {"collection_amount":["must be at most 5000."]}\n  (code HTTP_400)\n');
    expect(r.code).toBe(2);
    const laravel = await serve({ 'POST /policies': answer(422, { message: 'The given data was invalid.', errors: [{ field: 'collection_amount', reason: 'too large' }] }) });
    const r2 = await premia(laravel, CREATE);
    expect(r2.stderr).toBe('error: The service answered HTTP 422: The given data was invalid.: [{"field":"collection_amount","reason":"too large"}]\n  (code HTTP_422)\n');
    expect(r2.code).toBe(6);
  });

  it("says each field's reason of FastAPI's detail list, rather than a JSON excerpt cut off in the first", async () => {
    const fastapi = await serve({
      'POST /policies': answer(422, {
        detail: [
          { type: 'missing', loc: ['body', 'product_code'], msg: 'Field required', input: { policy_number: 'POL-1', customer_id: 'C1', external_customer_ref: 'E1' } },
          { type: 'less_than_equal', loc: ['body', 'collection_amount'], msg: 'Input should be less than or equal to 5000', input: 6000, ctx: { le: 5000 } },
        ],
      }),
    });
    const r = await premia(fastapi, CREATE);
    expect(r.stderr).toBe('error: The service answered HTTP 422: product_code: Field required; collection_amount: Input should be less than or equal to 5000\n  (code HTTP_422)\n');
    expect(r.code).toBe(6);
    // A detail that is a string (FastAPI's HTTPException) is said as it is (control).
    const plain = await serve({ 'POST /policies': answer(409, { detail: 'Policy number already exists' }) });
    const r2 = await premia(plain, CREATE);
    expect(r2.stderr).toBe('error: The service answered HTTP 409: Policy number already exists\n  (code HTTP_409)\n');
  });

  it("reads the spec's error body that FastAPI's HTTPException wrapped in detail: its code, message and request id", async () => {
    const s = await serve({
      'POST /policies': answer(409, { detail: { error: { code: 'DUPLICATE_POLICY', message: 'Policy number POL-1 already exists.', request_id: 'req-77' } } }),
    });
    const r = await premia(s, CREATE);
    expect(r.stderr).toBe('error: Policy number POL-1 already exists.\n  (code DUPLICATE_POLICY, request req-77)\n');
    expect(r.code).toBe(6);
  });

  it('an empty list of errors adds nothing (control)', async () => {
    const s = await serve({ 'POST /policies': answer(400, { message: 'Bad request', errors: [] }) });
    const r = await premia(s, CREATE);
    expect(r.stderr).toBe('error: The service answered HTTP 400: Bad request\n  (code HTTP_400)\n');
  });
});

// Another server may skip a duplicate or a row it cannot read without counting it: "Imported 2
// policies; 0 rows failed" for a file of four left two policies uncollected, unsaid.
describe("an import whose answer leaves some of the file's rows out of both counts", () => {
  const HEADER = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
  const ROWS = ['C1,E1,P1,LIFE,10.00', 'C2,E2,P2,LIFE,20.00', 'C3,E3,P3,LIFE,30.00', 'C4,E4,P4,LIFE,40.00'];

  it('says how many rows neither count holds; exit as the counts say', async () => {
    const file = join(dir, 'four.csv');
    writeFileSync(file, `${HEADER}${ROWS.join('\n')}\n`);
    const s = await serve({ 'POST /policies/import': answer(200, { imported: 2, failed: 1, errors: [{ row: 4, message: 'bad product' }] }) });
    const r = await premia(s, ['policies', 'import', file]);
    expect([r.code, r.stderr]).toEqual([
      3,
      "warning: four.csv has 4 rows, but the service's answer accounts for 3 (2 imported, 1 failed): 1 row is in neither count. Check what the service holds before relying on this import.\n",
    ]);
    expect(r.stdout.split('\n')[0]).toBe('Imported 2 policies; 1 row failed.');
  });

  it('an answer that counts no row at all (a 202 of a job queued for later) says so: "Imported 0 policies" is not the whole story', async () => {
    const file = join(dir, 'four-queued.csv');
    writeFileSync(file, `${HEADER}${ROWS.join('\n')}\n`);
    const s = await serve({ 'POST /policies/import': answer(202, { imported: 0, failed: 0, errors: [], job_id: 'J1' }) });
    const r = await premia(s, ['policies', 'import', file]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      'Imported 0 policies; 0 rows failed.\n',
      "warning: four-queued.csv has 4 rows, but the service's answer accounts for 0 (0 imported, 0 failed): 4 rows are in neither count. Check what the service holds before relying on this import.\n",
    ]);
  });

  it('counts rows as premia reads a CSV: blank lines and empty rows are none, a quoted line end is one row (control)', async () => {
    const file = join(dir, 'blanks.csv');
    writeFileSync(file, `${HEADER}${ROWS[0]}\r\n\r\n,,,,\r\n"C2","E2","P2","LI\nFE","20.00"\r\n   \r\n`);
    const s = await serve({ 'POST /policies/import': answer(200, { imported: 2, failed: 0, errors: [] }) });
    const r = await premia(s, ['policies', 'import', file]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'Imported 2 policies; 0 rows failed.\n', '']);
  });

  it('nothing imported, or a file premia cannot read as CSV, is left to what the answer says (control)', async () => {
    const file = join(dir, 'none.csv');
    writeFileSync(file, `${HEADER}${ROWS.join('\n')}\n`);
    const none = await serve({ 'POST /policies/import': answer(200, { imported: 0, failed: 1, errors: ['row 2: refused'] }) });
    expect((await premia(none, ['policies', 'import', file])).stderr).toBe('');
    const utf16 = join(dir, 'utf16.csv');
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${HEADER}${ROWS.join('\n')}\n`, 'utf16le')]));
    const some = await serve({ 'POST /policies/import': answer(200, { imported: 1, failed: 0, errors: [] }) });
    expect((await premia(some, ['policies', 'import', utf16])).stderr).toBe('');
  });
});

describe('an import refused (4xx) with its result all the same', () => {
  const FILE = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,LIFE,10.00\nC2,E2,P2,LIFE,abc\nC3,E3,P3,LIFE,-1\n';

  it.each([
    [422, { imported: 1, failed: 2, errors: [{ row: 3, message: 'collection_amount is not a number' }, { row: 4, message: 'collection_amount must be positive' }] }, 'Imported 1 policy; 2 rows failed.'],
    [400, { imported: 0, failed: 2, errors: ['row 3: collection_amount is not a number', 'row 4: collection_amount must be positive'] }, 'Imported 0 policies; 2 rows failed.'],
  ])('%i: its counts are read as the import result (what was imported is said), exit 3 as for rows that failed', async (status, result, said) => {
    const file = join(dir, `bad-rows-${status}.csv`);
    writeFileSync(file, FILE);
    const s = await serve({ 'POST /policies/import': answer(status, result) });
    const r = await premia(s, ['policies', 'import', file]);
    expect(r.stderr).toBe('');
    const lines = result.errors.map((e) => `  ${typeof e === 'string' ? e : JSON.stringify(e)}\n`).join('');
    expect(r.stdout).toBe(`${said}\n\n${lines}`);
    expect(r.code).toBe(3);
    const json = await premia(s, ['policies', 'import', file, '--json']);
    expect(json.stdout).toBe(`${JSON.stringify(result)}\n`);
    expect(json.code).toBe(3);
  });

  it('a refusal without failed rows (an empty file) stays the refusal it is (control)', async () => {
    const file = join(dir, 'empty.csv');
    writeFileSync(file, 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n');
    const s = await serve({ 'POST /policies/import': answer(422, { imported: 0, failed: 0, errors: ['the file has no rows'] }) });
    const r = await premia(s, ['policies', 'import', file]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: The service answered HTTP 422: {"imported":0,"failed":0,"errors":["the file has no rows"]}\n  (code HTTP_422)\n');
    expect(r.code).toBe(6);
  });
});

describe('a read whose answer lacks what it shows', () => {
  const FIGURES = { settlement_number: 'SETTLE-2026-11-001', period_month: '2026-11', total_collections: 1000, distribution_fee: 250, collections_fee: 35, total_fees: 285, vat: 42.75, net_amount: 672.25, payment_date: '2026-12-03', status: 'pending' };

  it('a statement wrapped in data, or without its VAT and net, is refused (exit 1), never shown as dashes with exit 0', async () => {
    const s = await serve({
      'GET /settlements/st-1': answer(200, { data: { id: 'st-1', ...FIGURES } }),
      'GET /settlements/st-2': answer(200, { id: 'st-2', ...FIGURES, vat: null, net_amount: null }),
    });
    const wrapped = await premia(s, ['settlements', 'get', 'st-1']);
    expect(wrapped.stdout).toBe('');
    expect(wrapped.stderr).toBe(
      'error: The service\'s answer to GET /v1/settlements/st-1 lacks settlement_number, period_month, total_collections, distribution_fee, collections_fee, total_fees, vat, net_amount, payment_date, status (its fields: data): ' +
        `it is not an answer premia understands (is something other than the service answering at ${s.url}?).\n  (code REMOTE_ERROR)\n`,
    );
    expect(wrapped.code).toBe(1);
    const partial = await premia(s, ['settlements', 'get', 'st-2']);
    expect(partial.stdout).toBe('');
    expect(partial.stderr).toContain("error: The service's answer to GET /v1/settlements/st-2 lacks vat, net_amount (its fields: id, settlement_number, ");
    expect(partial.code).toBe(1);
  });

  it('a collection wrapped in data is refused the same way', async () => {
    const s = await serve({ 'GET /collections/c-1': answer(200, { data: { id: 'c-1', collection_status: 'UNPAID', collection_amount_due: 10, collection_amount_collected: 0 } }) });
    const r = await premia(s, ['collections', 'get', 'c-1']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      "error: The service's answer to GET /v1/collections/c-1 lacks collection_status, collection_amount_due, collection_amount_collected (its fields: data): " +
        `it is not an answer premia understands (is something other than the service answering at ${s.url}?).\n  (code REMOTE_ERROR)\n`,
    );
    expect(r.code).toBe(1);
  });

  it('an export whose statement cannot be read again is still written, with no note about "undefined"', async () => {
    const EXPORT =
      'settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference\n' +
      'SETTLE-2026-11-001,2026-11,1000.00,250.00,35.00,285.00,42.75,672.25,2026-12-03,EFT-1\n';
    const s = await serve({ 'GET /settlements/st-1/export': answer(200, EXPORT, 'text/csv'), 'GET /settlements/st-1': answer(200, { id: 'st-1', status: 'paid' }) });
    const r = await premia(s, ['settlements', 'export', 'st-1']);
    expect(r.stdout).toBe(EXPORT);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

// The spec's ids are strings; a server keyed by integers sends 17. Refused, the policy was made and
// premia said it could not tell: a retry made it twice.
describe('a write whose answer gives its id as a number', () => {
  it('is taken as the id it is, written as its digits (policies create, update; collections execute)', async () => {
    const s = await serve({
      'POST /policies': answer(201, { id: 17, policy_number: 'POL-1', status: 'active', created_at: '2026-11-01T08:00:00Z' }),
      'PATCH /policies/17': answer(200, { id: 17, policy_number: 'POL-1', collection_amount: 12.5, status: 'active', updated_at: '2026-11-01T09:00:00Z' }),
      'POST /collections/execute': answer(202, { execution_id: 4, status: 'processing', policies_queued: 1 }),
    });
    const create = await premia(s, ['--json', 'policies', 'create', '--policy-number', 'POL-1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '10']);
    expect([create.code, create.json().id]).toEqual([0, '17']);
    const update = await premia(s, ['--json', 'policies', 'update', '17', '--amount', '12.50']);
    expect([update.code, update.json().id]).toEqual([0, '17']);
    const run = await premia(s, ['--json', 'collections', 'execute', '--period', '2026-11']);
    expect([run.code, run.json()]).toEqual([0, { execution_id: '4', status: 'processing', policies_queued: 1 }]);
  });
});

describe('an upload from stdin to a server that wants its length (411 Length Required)', () => {
  const CSV = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,LIFE,10.00\n';
  const lengthRequired: Handler = (req, res) => {
    if (req.headers['content-length'] === undefined) {
      res.writeHead(411, { 'content-type': 'text/html' });
      res.end('<html><body><h1>411 Length Required</h1></body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ imported: 1, failed: 0, errors: [] }));
  };

  it('says to give the file by name (premia sends its length then), which imports it', async () => {
    const s = await serve({ 'POST /policies/import': lengthRequired });
    const piped = await runPremia(['policies', 'import', '-'], { cwd: dir, env: remoteEnv(s.url, KEY), tuning: instantRetries(), stdin: CSV });
    expect(piped.stderr).toBe(
      `error: The service at ${s.url} answered HTTP 411 (length required) with text/html, which is not an API response premia understands. ` +
        "The service wants the upload's length (Content-Length), which premia cannot know of stdin: give the file by name, and premia sends its length.\n  (code REMOTE_ERROR)\n",
    );
    expect(piped.code).toBe(1);
    const file = join(dir, 'named.csv');
    writeFileSync(file, CSV);
    const named = await premia(s, ['policies', 'import', file]);
    expect([named.code, named.stdout]).toEqual([0, 'Imported 1 policy; 0 rows failed.\n']);
  });
});

describe('a collection whose none is an empty string (as in the CSV) rather than null', () => {
  it('shows "-" for the reason and dates, as for null, not a blank that reads as a value cut off', async () => {
    const collection = {
      id: 'c-1', period_month: '2026-11', customer_id: 'C1', external_customer_ref: 'E1', policy_number: 'P1', product_code: 'LIFE',
      collection_amount_due: 150, collection_amount_collected: 0, shortfall: 150, collection_status: 'UNPAID',
      first_attempt_date: '', last_attempt_date: '', number_of_attempts: 0, last_failure_reason: '',
    };
    const s = await serve({ 'GET /collections/c-1': answer(200, collection) });
    const r = await premia(s, ['collections', 'get', 'c-1']);
    expect(r.stdout).toBe(
      'id                           c-1\nperiod_month                 2026-11\npolicy_number                P1\ncustomer_id                  C1\nexternal_customer_ref        E1\nproduct_code                 LIFE\n' +
        'collection_amount_due        150.00\ncollection_amount_collected  0.00\nshortfall                    150.00\ncollection_status            UNPAID\n' +
        'first_attempt_date           -\nlast_attempt_date            -\nnumber_of_attempts           0\nlast_failure_reason          -\n',
    );
    expect(r.code).toBe(0);
    const json = await premia(s, ['collections', 'get', 'c-1', '--json']);
    expect(json.json()).toMatchObject({ first_attempt_date: '', last_failure_reason: '' });
  });
});

describe('a read redirected by the server', () => {
  const COLLECTION = {
    id: 'c1', period_month: '2026-11', customer_id: 'C1', external_customer_ref: 'E1', policy_number: 'POL-1', product_code: 'LIFE',
    collection_amount_due: 10, collection_amount_collected: 10, shortfall: 0, collection_status: 'PAID_FULL',
    first_attempt_date: '2026-11-05', last_attempt_date: '2026-11-05', number_of_attempts: 1, last_failure_reason: null,
  };

  it('to another path of the same service (a trailing slash added, relative or absolute) is followed with the key', async () => {
    let base = '';
    const s = await serve({
      'GET /collections/c1': (_req, res) => res.writeHead(307, { location: `${base}/collections/c1/` }).end(),
      'GET /collections/c1/': answer(200, COLLECTION),
      'GET /collections/c2': answer(301, '', null, { location: 'c2/' }),
      'GET /collections/c2/': answer(200, { ...COLLECTION, id: 'c2' }),
    });
    base = s.url;
    const r = await premia(s, ['--json', 'collections', 'get', 'c1']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'c1', collection_status: 'PAID_FULL' });
    const r2 = await premia(s, ['--json', 'collections', 'get', 'c2']);
    expect([r2.code, r2.stderr]).toEqual([0, '']);
    expect(JSON.parse(r2.stdout)).toMatchObject({ id: 'c2' });
    // The scripted server answers 401 to a request without the key: each followed request carried it.
    expect(s.seen.map((q) => q.path)).toEqual(['/collections/c1', '/collections/c1/', '/collections/c2', '/collections/c2/']);
  });

  it('to another host (the same server by another name), outside the base path, or round in a loop: refused, the key sent nowhere else', async () => {
    let other = '';
    const s = await serve({
      'GET /collections/c1': (_req, res) => res.writeHead(308, { location: `${other}/collections/c1/` }).end(),
      'GET /collections/c2': answer(302, '', null, { location: '/login' }),
      'GET /collections/c3': answer(301, '', null, { location: '/v1/collections/c3' }),
    });
    other = s.url.replace('127.0.0.1', 'localhost');
    const r = await premia(s, ['collections', 'get', 'c1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`answered with a redirect (308 to ${other}/collections/c1/); premia does not follow redirects with your key.`);
    const r2 = await premia(s, ['collections', 'get', 'c2']);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('answered with a redirect (302 to /login)');
    const r3 = await premia(s, ['collections', 'get', 'c3']);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toContain('answered with a redirect (301 to /v1/collections/c3)');
    // c3 redirected to itself: followed three times, then refused.
    expect(s.seen.map((q) => q.path)).toEqual(['/collections/c1', '/collections/c2', '/collections/c3', '/collections/c3', '/collections/c3', '/collections/c3']);
  });
});
