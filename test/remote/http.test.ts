/**
 * The HTTP client of remote mode against a scripted server (node:http; each request is answered
 * by the next handler of a list): retries and their waits, Retry-After, what is retried and what
 * is not, idempotency keys across retries and invocations, error bodies mapped to local mode's
 * codes and exit codes, answers that are not the expected JSON, broken downloads, uploads
 * resent from the file but never from stdin, timeouts, redirects, and --debug without the key.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, replayedNote, tempDir } from '../helpers/cli.js';
import { instantRetries, remoteEnv, runPremia } from '../helpers/remote.js';
import { REPORT_COLUMNS, SETTLEMENT_EXPORT_COLUMNS } from '../../src/backend/types.js';

const KEY = 'pmk_test0000000000000000000000000000000Zz9Q';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

let server: Server;
let base: string;
let handlers: Handler[] = [];
let seen: Seen[] = [];
let dir: string;
let cleanup: () => void;
let waits: number[];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const handler = handlers.shift();
      if (!handler) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('no handler left');
        return;
      }
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  ({ dir, cleanup } = tempDir('premia-http-'));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  cleanup();
});
beforeEach(() => {
  handlers = [];
  seen = [];
  waits = [];
});
afterEach(() => {
  expect(handlers, 'every scripted answer was used').toEqual([]);
});

const premia = (args: string[], options: { env?: Record<string, string>; stdin?: string; url?: string } = {}) =>
  runPremia(args, { cwd: dir, env: { ...remoteEnv(options.url ?? base, KEY), ...options.env }, stdin: options.stdin, tuning: instantRetries(waits) });

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-premia-version': '0.1.0', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};
const html = (status: number): Handler => (_req, res) => {
  res.writeHead(status, { 'content-type': 'text/html' });
  res.end(`<html><head><title>${status} Bad Gateway</title></head><body>nginx</body></html>`);
};
/** Close the connection without an answer (after the request arrived). */
const drop: Handler = (req) => req.socket.destroy();
const errorBody = (code: string, message: string, extra: Record<string, unknown> = {}) => ({ error: { code, message, request_id: 'req-123', ...extra } });

const CLOCK = { date: '2026-11-21', locked: false, seed: 1 };
const WHOAMI = { client: 'Acme Life' };
const POLICY = ['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'X', '--amount', '10'];
const CREATED = { id: 'a', policy_number: 'P1', status: 'active', created_at: '2026-11-21T09:30:00.000Z' };

describe('retries', () => {
  it('retries 502, 503 and 504 with backoff, then succeeds, with the same idempotency key (a premia service)', async () => {
    handlers = [json(503, errorBody('STORE_BUSY', 'busy')), html(502), html(504), json(201, CREATED)];
    const r = await premia([...POLICY, '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual(CREATED);
    expect(seen).toHaveLength(4);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^premia-[0-9a-f-]{36}$/);
    expect(seen.every((s) => s.body.equals(seen[0]!.body))).toBe(true);
    // Full jitter (the random draw is 0.5 here): half of 250, 500, 1000 ms.
    expect(waits).toEqual([125, 250, 500]);
  });

  it('an advance by days that failed on the service (503) is reported, not resent: its days would count from a later clock', async () => {
    const MESSAGE = 'The service cannot reach its database just now. What this request had committed before stays.';
    handlers = [json(503, errorBody('STORE_UNAVAILABLE', MESSAGE))];
    const r = await premia(['--yes', 'clock', 'advance', '--days', '40']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(MESSAGE);
    expect(seen.map((q) => `${q.method} ${q.url}`)).toEqual(['POST /v1/clock/advance']);
    expect(waits).toEqual([]);
  });

  it("an advance that got a gateway's page is not resent and says to resume by date, not to try again", async () => {
    handlers = [html(504), json(200, WHOAMI)];
    const r = await premia(['--yes', 'clock', 'advance', '--days', '2']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: The service at ${base} failed (HTTP 504 with text/html, not an API error); a proxy or gateway in front of it may be down. ` +
        "Whether the service acted on it is unknown (it may have lived some or all of its days): 'premia clock' shows the date it reached; " +
        'resume from there with --to DATE rather than running the same command again.\n  (code REMOTE_ERROR)\n',
    );
    expect(seen.map((q) => `${q.method} ${q.url}`)).toEqual(['POST /v1/clock/advance', 'GET /v1/whoami']);
    expect(waits).toEqual([]);
  });

  it('honours Retry-After on 429', async () => {
    handlers = [json(429, errorBody('RATE_LIMITED', 'Too many requests'), { 'retry-after': '3' }), json(200, CLOCK)];
    const r = await premia(['clock', '--json']);
    expect(r.code).toBe(0);
    expect(waits).toEqual([3000]);
  });

  it('a Retry-After in fractional seconds is waited for; one that is neither seconds nor a date gets the backoff, never no wait', async () => {
    // Date.parse reads '1.5' as 5 January 2001 and '-5' as the year 2001: a date long past, 0 ms.
    const cases: Array<[string, number]> = [
      ['1.5', 1500],
      ['0.25', 250],
      ['-5', 125],
      ['2', 2000],
    ];
    for (const [value, wait] of cases) {
      waits = [];
      handlers = [json(429, errorBody('RATE_LIMITED', 'Too many requests'), { 'retry-after': value }), json(200, CLOCK)];
      const r = await premia(['clock', '--json']);
      expect([r.code, r.stderr], value).toEqual([0, '']);
      expect(waits, value).toEqual([wait]);
    }
  });

  it('does not wait for a Retry-After of more than a minute: RATE_LIMITED, exit 1', async () => {
    handlers = [json(429, errorBody('RATE_LIMITED', 'Too many requests for this API key; retry after 120 seconds.'), { 'retry-after': '120' })];
    const r = await premia(['clock', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr)).toEqual(
      errorBody(
        'RATE_LIMITED',
        'Too many requests for this API key; retry after 120 seconds. The service asked to wait 120 s before trying again, longer than premia waits (60 s): try again later.',
      ),
    );
    expect(waits).toEqual([]);
  });

  it('gives up after 4 attempts with a clear REMOTE_ERROR (an HTML page from a proxy)', async () => {
    handlers = [html(502), html(502), html(502), html(502)];
    const r = await premia(['clock']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: The service at ${base} failed (HTTP 502 with text/html, not an API error); a proxy or gateway in front of it may be down. Try again later (4 attempts).\n  (code REMOTE_ERROR)\n`,
    );
    expect(seen).toHaveLength(4);
  });

  it.each([['whoami'], ['login']])('%s says how many attempts it made when a gateway kept failing', async (command) => {
    handlers = [html(502), html(502), html(502), html(502)];
    const r = await premia([command], { env: { XDG_CONFIG_HOME: join(dir, `cfg-${command}`) } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: The service at ${base} failed (HTTP 502 with text/html, not an API error); a proxy or gateway in front of it may be down. Try again later (4 attempts).\n  (code REMOTE_ERROR)\n`,
    );
    expect(seen.map((q) => `${q.method} ${q.url}`)).toEqual(Array<string>(4).fill('GET /v1/whoami'));
    expect(existsSync(join(dir, `cfg-${command}`, 'premia', 'config.json'))).toBe(false);
  });

  it("a write that got only a gateway's pages from a premia service says to rerun it with its idempotency key", async () => {
    // The first page says nothing of the server: GET /whoami shows it is premia, so the write is resent with its key.
    handlers = [html(502), json(200, WHOAMI), html(502), html(504), html(502)];
    const r = await premia(['--idempotency-key', 'job-9', ...POLICY]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: The service at ${base} failed (HTTP 502 with text/html, not an API error); a proxy or gateway in front of it may be down. Try again later (4 attempts). ` +
        'Whether the service acted on it is unknown: rerun the same command with --idempotency-key job-9 to complete it without acting twice.\n  (code REMOTE_ERROR)\n',
    );
    expect(seen.map((q) => `${q.method} ${q.url} ${String(q.headers['idempotency-key'] ?? '-')}`)).toEqual([
      'POST /v1/policies job-9',
      'GET /v1/whoami -',
      'POST /v1/policies job-9',
      'POST /v1/policies job-9',
      'POST /v1/policies job-9',
    ]);
  });

  it('retries a connection closed without an answer', async () => {
    handlers = [drop, json(200, CLOCK)];
    const r = await premia(['clock', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual(CLOCK);
    expect(seen).toHaveLength(2);
  });

  it('a refused connection is retried, then REMOTE_ERROR naming the URL, exit 1', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const url = `http://127.0.0.1:${port}/v1`;
    const r = await premia([...POLICY], { url });
    expect(r.code).toBe(1);
    // Refused: the request was never sent, so retrying a write is safe and nothing was done.
    expect(r.stderr).toBe(
      `error: Cannot talk to the service at ${url}: the connection was refused (is the service running, and is the URL right?) (4 attempts). The request was never sent, so nothing was done.\n  (code REMOTE_ERROR)\n`,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(waits).toHaveLength(3);
  });

  it('https:// to a service that speaks plain HTTP: one clear line, the write never sent (not OUTCOME_UNKNOWN)', async () => {
    // The scripted server speaks plain HTTP: the TLS handshake fails before any request is written.
    const url = base.replace(/^http:/, 'https:');
    const r = await premia([...POLICY], { url });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: Cannot talk to the service at ${url}: the other side does not speak TLS (is the service at http://, not https://?). The request was never sent, so nothing was done.\n  (code REMOTE_ERROR)\n`,
    );
    expect(seen).toEqual([]);
  });

  it('a gateway 502 to a write, on a server not known to honour Idempotency-Key: asked, not resent (OUTCOME_UNKNOWN, exit 1)', async () => {
    const notPremia: Handler = (_q, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"NOT_FOUND","message":"no route"}}');
    handlers = [html(502), notPremia];
    const r = await premia([...POLICY]);
    expect(r.code).toBe(1);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/policies', 'GET /v1/whoami']);
    expect(r.stderr).toBe(
      `error: POST /v1/policies: it answered HTTP 502 with text/html (from a gateway, not the API), so the service at ${base} may or may not have done it. ` +
        'premia did not send it again, because this server has not shown that it honours Idempotency-Key and a second request could act twice. ' +
        'Check whether policy P1 exists at the service (a second create may be refused as a duplicate or make a second policy) before running the command again.\n  (code OUTCOME_UNKNOWN)\n',
    );
    expect(waits).toEqual([]);
  });

  it("a 500 page to a write (a framework's default for a handler that failed, perhaps after acting): OUTCOME_UNKNOWN, never 'try again later'", async () => {
    const notPremia: Handler = (_q, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"NOT_FOUND","message":"no route"}}');
    const page: Handler = (_q, res) => res.writeHead(500, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><html><body><pre>Internal Server Error</pre></body></html>');
    handlers = [page, notPremia];
    const r = await premia(['collections', 'execute', '--period', '2026-11']);
    expect(r.code).toBe(1);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/collections/execute', 'GET /v1/whoami']);
    expect(r.stderr).toBe(
      `error: POST /v1/collections/execute: it answered HTTP 500 with text/html (an error page, not the API's error), so the service at ${base} may or may not have done it. ` +
        'premia did not send it again, because this server has not shown that it honours Idempotency-Key and a second request could act twice. ' +
        'Check whether the 2026-11 run was queued (premia reports collections --period 2026-11) before running the command again.\n  (code OUTCOME_UNKNOWN)\n',
    );
    // The API's own 500 error body is that error (control).
    handlers = [(_q, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"INTERNAL","message":"Database down.","request_id":"r-5"}}')];
    const api = await premia(['collections', 'execute', '--period', '2026-11']);
    expect([api.code, api.stderr]).toEqual([1, 'error: Database down.\n  (code INTERNAL, request r-5)\n']);
  });

  it('a 429 refused the write (nothing was done): retried even on a server not known to honour Idempotency-Key', async () => {
    const limited: Handler = (_q, res) => res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"message":"slow down"}');
    const created: Handler = (_q, res) => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(CREATED));
    handlers = [limited, created];
    const r = await premia([...POLICY, '--json']);
    expect(r.code).toBe(0);
    expect(seen.map((s) => s.method)).toEqual(['POST', 'POST']);
    expect(waits).toEqual([1000]);
  });

  it('a 429 to a write whose Retry-After outlasts its time is reported as refused, not as an unknown outcome', async () => {
    // --timeout 4 to a server not yet known: the write has 3 s, 1 s is kept for GET /whoami. A
    // wait of 3 s would end after the write's time, with no attempt left to send: premia reports
    // the 429 (nothing was done) instead of a timeout of a write that "may have acted".
    const limited: Handler = (_q, res) =>
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' }).end(JSON.stringify(errorBody('RATE_LIMITED', 'Too many requests')));
    handlers = [limited];
    const r = await premia(['--timeout', '4', ...POLICY]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: Too many requests\n  (code RATE_LIMITED, request req-123)\n');
    expect(seen.map((s) => s.method)).toEqual(['POST']);
    expect(waits).toEqual([]);
  });

  it('after retries of a GET, the error names the attempts and the Retry-After it would not wait for', async () => {
    const limited = (after: string): Handler => (_q, res) => res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': after }).end('slow down');
    handlers = [limited('1'), limited('1'), limited('1'), limited('90')];
    const r = await premia(['collections', 'get', 'c1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: The service answered HTTP 429: slow down (4 attempts). The service asked to wait 90 s before trying again, longer than premia waits (60 s): try again later.\n  (code HTTP_429)\n',
    );
  });

  it('a bare 429 (no body) after retries says it was rate limited, not an answer premia cannot read', async () => {
    const bare: Handler = (_q, res) => res.writeHead(429, { 'retry-after': '1' }).end();
    handlers = [bare, bare, bare, bare];
    const r = await premia(['collections', 'get', 'c1']);
    expect(r.code).toBe(1);
    expect(seen).toHaveLength(4);
    expect(r.stderr).toBe(
      `error: The service at ${base} answered HTTP 429 (too many requests: the service is limiting the request rate; try again later) without an error body (4 attempts).\n  (code HTTP_429)\n`,
    );
  });

  it('an empty 4xx takes the exit code of its status (403: 4, 409: 6), never a stack trace', async () => {
    handlers = [(_q, res) => res.writeHead(403).end()];
    const forbidden = await premia(['collections', 'get', 'c1']);
    expect(forbidden.code).toBe(4);
    expect(forbidden.stderr).toContain(`error: The service at ${base} refused the request (HTTP 403, forbidden): the API key …Zz9Q may not do this`);
    handlers = [(_q, res) => res.writeHead(409, { 'content-type': 'application/json' }).end()];
    const conflict = await premia([...POLICY, '--json']);
    expect(conflict.code).toBe(6);
    expect(conflict.stderr).toContain('answered HTTP 409 (conflict) without an error body');
    expect(seen).toHaveLength(2);
  });

  it("a proxy's HTML 413 page to an import names the status (payload too large): exit 1, not resent", async () => {
    handlers = [(_q, res) => res.writeHead(413, { 'content-type': 'text/html' }).end('<html><body><h1>413 Request Entity Too Large</h1><hr>nginx</body></html>')];
    const r = await premia(['policies', 'import', join(FIXTURES, 'policies.csv')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: The service at ${base} answered HTTP 413 (payload too large) with text/html, which is not an API response premia understands.\n  (code REMOTE_ERROR)\n`);
    expect(seen).toHaveLength(1);
  });

  it('a 303 to a write says the service may have acted (check before rerunning); a 307 does not', async () => {
    handlers = [(_q, res) => res.writeHead(303, { location: '/v1/policies/p-1' }).end()];
    const seeOther = await premia(POLICY);
    expect(seeOther.code).toBe(1);
    expect(seeOther.stderr).toBe(
      `error: The service at ${base} answered with a redirect (303 to /v1/policies/p-1); premia does not follow redirects with your key. Use the final URL as the base URL. ` +
        'The service may have acted on the write before redirecting: check whether policy P1 exists at the service (a second create may be refused as a duplicate or make a second policy) before running the command again.\n  (code REMOTE_ERROR)\n',
    );
    handlers = [(_q, res) => res.writeHead(307, { location: 'https://elsewhere.example/v1/policies' }).end()];
    const temporary = await premia(POLICY);
    expect(temporary.code).toBe(1);
    expect(temporary.stderr).not.toContain('may have acted');
    expect(seen).toHaveLength(2);
  });

  it('a redirect to another host or scheme names the base URL the service moved to, not the URL of one request', async () => {
    const moved = (location: string): Handler => (_q, res) => res.writeHead(301, { location }).end();
    handlers = [moved('https://127.0.0.1:1/v1/collections/c1')];
    const get = await premia(['collections', 'get', 'c1']);
    expect([get.code, get.stderr]).toEqual([
      1,
      `error: The service at ${base} answered with a redirect (301 to https://127.0.0.1:1/v1/collections/c1); premia does not follow redirects with your key. ` +
        'If the service has moved there, use https://127.0.0.1:1/v1 as the base URL.\n  (code REMOTE_ERROR)\n',
    ]);
    handlers = [moved('http://other.example:8080/api/v1/reports/collections?period_month=2026-11&format=csv')];
    const out = join(dir, 'moved-report.csv');
    const report = await premia(['reports', 'collections', '--period', '2026-11', '--output', out]);
    expect([report.code, report.stderr.includes('use http://other.example:8080/api/v1 as the base URL.\n')], report.stderr).toEqual([1, true]);
    expect(existsSync(out)).toBe(false);
  });

  it('does not retry a 4xx', async () => {
    handlers = [json(409, errorBody('DUPLICATE_POLICY', 'Policy number P1 already exists.', { details: [{ id: 'x' }] }))];
    const r = await premia([...POLICY, '--json']);
    expect(r.code).toBe(6);
    expect(seen).toHaveLength(1);
  });

  it('--json keeps what the server said beside code and message: details of any shape, and its own fields', async () => {
    handlers = [json(409, { error: { code: 'SETTLEMENT_EXISTS', message: 'exists', request_id: 'r-1', settlement_id: 's-9', details: { field: 'period_month' } } })];
    const r = await premia(['settlements', 'create', '--period', '2026-11', '--json']);
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stderr).error).toEqual({
      code: 'SETTLEMENT_EXISTS',
      message: 'exists',
      request_id: 'r-1',
      details: [{ field: 'period_month' }, { settlement_id: 's-9' }],
    });
  });

  it("waits out IDEMPOTENCY_IN_PROGRESS when its own earlier attempt is still running", async () => {
    handlers = [drop, json(200, WHOAMI), json(409, errorBody('IDEMPOTENCY_IN_PROGRESS', 'still running')), json(201, CREATED, { 'idempotent-replayed': 'true' })];
    const r = await premia([...POLICY, '--json']);
    expect(r.code).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/policies', 'GET /v1/whoami', 'POST /v1/policies', 'POST /v1/policies']);
    const writes = seen.filter((s) => s.method === 'POST');
    expect(new Set(writes.map((s) => s.headers['idempotency-key'])).size).toBe(1);
  });
});

describe('errors as local mode words them', () => {
  it.each([
    [400, 'VALIDATION_ERROR', 2],
    [404, 'NOT_FOUND', 5],
    [409, 'PERIOD_CLOSED', 6],
    [422, 'IDEMPOTENCY_KEY_REUSED', 6],
    [413, 'PAYLOAD_TOO_LARGE', 2],
    [500, 'INTERNAL', 1],
    [501, 'NOT_SUPPORTED', 1],
  ])('%i %s → exit %i, the body on stderr with --json, the request id in human output', async (status, code, exit) => {
    const body = errorBody(code, `something about ${code}`, { details: [{ field: 'x', code: 'BAD', message: 'bad x' }] });
    handlers = [json(status, body)];
    const r = await premia(['collections', 'get', 'c1', '--json']);
    expect(r.code).toBe(exit);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual(body);
    handlers = [json(status, body)];
    const human = await premia(['collections', 'get', 'c1']);
    expect(human.stderr).toBe(`error: something about ${code}\n  (code ${code}, request req-123)\n`);
  });

  it('an error body that starts with a byte order mark is read as the error body it is (as a success body is)', async () => {
    const bom = (status: number, body: unknown): Handler => (_q, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(`\uFEFF${JSON.stringify(body)}`);
    handlers = [bom(409, errorBody('duplicate_policy', 'policy_number P1 already exists'))];
    const r = await premia(POLICY);
    expect([r.code, r.stderr]).toEqual([6, 'error: policy_number P1 already exists\n  (code duplicate_policy, request req-123)\n']);
    handlers = [bom(401, errorBody('UNAUTHORIZED', 'Invalid or missing API key'))];
    const k = await premia(['collections', 'get', 'c1']);
    expect(k.code).toBe(4);
    expect(k.stderr).toContain('refused the API key (the service said: Invalid or missing API key).');
  });

  it("a server's error text cannot drive the terminal: its control characters are shown as spaces", async () => {
    const esc = '\u001b[2J\u001b[31m';
    const body = errorBody('bad_request', `Bad amount${esc}\rAll good`, {
      request_id: `req-1${esc}`,
      details: [
        { field: 'a', message: `first${esc}` },
        { field: 'b', message: 'second\r\u009b2J' },
      ],
    });
    handlers = [(_q, res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(body))];
    const r = await premia(['collections', 'get', 'c1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: Bad amount [2J [31m All good\n  - a: first [2J [31m\n  - b: second 2J\n  (code bad_request, request req-1 [2J [31m)\n');
  });

  it("nor can a server's data: a field of an answer is shown with its control characters as spaces", async () => {
    const collection = {
      id: 'c1', period_month: '2026-11', customer_id: 'C1', external_customer_ref: 'EXT\u001b[2J\u001b[31mPWNED\r', policy_number: 'P1', product_code: 'LIFE',
      collection_amount_due: 1, collection_amount_collected: 1, shortfall: 0, collection_status: 'PAID_FULL',
      first_attempt_date: '2026-11-03', last_attempt_date: '2026-11-03', number_of_attempts: 1, last_failure_reason: null,
    };
    for (const json of [false, true]) {
      handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(collection))];
      const r = await premia(['collections', 'get', 'c1', ...(json ? ['--json'] : [])]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(json ? '"external_customer_ref":"EXT [2J [31mPWNED "' : 'EXT [2J [31mPWNED \n');
      // eslint-disable-next-line no-control-regex -- control characters are what must not be there
      expect(r.stdout).not.toMatch(/[\u001b\r]/);
    }
  });

  it("another server's 403 says where, which key, and what to check: exit 4, the key never shown whole", async () => {
    const refused = (said: string) =>
      `error: The service at ${base} refused the request (HTTP 403, forbidden${said}): the API key …Zz9Q may not do this, or the service does not know it (some gateways answer 403 to an unknown key). ` +
      "Check the key, and ask the service's operator what it may do.\n";
    const cases: Array<[Handler, string]> = [
      [(_q, res) => res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify(errorBody('FORBIDDEN', 'Forbidden'))), `${refused(': Forbidden')}  (code FORBIDDEN, request req-123)\n`],
      [(_q, res) => res.writeHead(403, { 'content-type': 'text/plain' }).end(`Forbidden for ${KEY}`), `${refused(': Forbidden for …Zz9Q')}  (code HTTP_403)\n`],
      // The key cut short by the server: masked as the key (not as a pmk_ key of its own, whose last 4 are the key's).
      [(_q, res) => res.writeHead(403, { 'content-type': 'text/plain' }).end(`Forbidden for ${KEY.slice(0, 16)}...`), `${refused(': Forbidden for …Zz9Q...')}  (code HTTP_403)\n`],
      [(_q, res) => res.writeHead(403).end(), `${refused('')}  (code HTTP_403)\n`],
    ];
    for (const [handler, stderr] of cases) {
      handlers = [handler];
      const r = await premia(['collections', 'get', 'c1']);
      expect([r.code, r.stdout, r.stderr]).toEqual([4, '', stderr]);
    }
  });

  it('an unknown code keeps the exit code of its status', async () => {
    handlers = [json(403, errorBody('FORBIDDEN_REGION', 'Not from here.'))];
    const r = await premia(['clock']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('error: Not from here.\n  (code FORBIDDEN_REGION, request req-123)\n');
  });

  it("the spec's error body under another type (Express's text/html) is read as the error it is", async () => {
    handlers = [(_q, res) => res.writeHead(409, { 'content-type': 'text/html; charset=utf-8' }).end(JSON.stringify(errorBody('DUPLICATE_POLICY', 'Policy number P1 already exists.')))];
    const r = await premia(POLICY);
    expect([r.code, r.stderr]).toEqual([6, 'error: Policy number P1 already exists.\n  (code DUPLICATE_POLICY, request req-123)\n']);
  });

  it('401 says how to fix the key, exit 4, and never shows the key', async () => {
    handlers = [json(401, errorBody('UNAUTHORIZED', 'Invalid or missing API key: send a valid key in the X-API-Key header.'))];
    const r = await premia(['clock']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(
      `error: The service at ${base} refused the API key (the service said: Invalid or missing API key: send a valid key in the X-API-Key header.). ` +
        "The key comes from PREMIA_API_KEY: set it to a valid key (it was not revoked?), or unset it and run 'premia login'.\n" +
        '  (code UNAUTHORIZED, request req-123)\n',
    );
    expect(r.stderr).not.toContain(KEY.slice(4, 20));
    expect(seen[0]!.headers['x-api-key']).toBe(KEY);
  });

  it('a key the server echoes in its X-Request-Id header is shown redacted, as in --json', async () => {
    const echoing: Handler = (req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain', 'x-request-id': `rid-${String(req.headers['x-api-key'])}` });
      res.end('oops');
    };
    handlers = [echoing, echoing];
    const r = await premia(['clock']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: The service at ${base} failed (HTTP 500): oops\n  (code REMOTE_ERROR, request rid-pmk_…Zz9Q)\n`);
    const j = await premia(['clock', '--json']);
    expect(JSON.parse(j.stderr)).toEqual({ error: { code: 'REMOTE_ERROR', message: `The service at ${base} failed (HTTP 500): oops`, request_id: 'rid-pmk_…Zz9Q' } });
  });

  it('remote mode without any key is exit 4 before any request', async () => {
    const r = await runPremia(['clock'], { cwd: dir, env: { PREMIA_BASE_URL: base } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`No API key for ${base}: set PREMIA_API_KEY, or run 'premia login --base-url ${base}'`);
    expect(seen).toEqual([]);
  });

  it('a password written into the base URL is refused, never shown, before any request (exit 2)', async () => {
    const withPassword = base.replace('http://', 'http://user:hunter2secret@');
    for (const [args, env] of [
      [['--base-url', withPassword, 'clock'], {}],
      [['clock'], { PREMIA_BASE_URL: withPassword }],
      [['--base-url', withPassword, 'login'], { PREMIA_API_KEY: KEY }],
      [['--base-url', 'http://user:hunter2secret@127.0.0.1:99999/v1', 'clock'], {}],
    ] as const) {
      const r = await runPremia([...args], { cwd: dir, env: { HOME: dir, ...env } });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: (The base URL must not contain a user name or password \(http:\/\/\*\*\*@127\.0\.0\.1:\d+\/v1\)|'http:\/\/\*\*\*@127\.0\.0\.1:99999\/v1' is not a URL)/);
      expect(r.stderr).not.toContain('hunter2');
    }
    expect(seen).toEqual([]);
  });
});

describe('answers that are not the expected JSON', () => {
  it.each<[string, Handler, string]>([
    ['an HTML page with 200', (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>'), `GET /v1/collections/c1 answered 200 with text/html instead of JSON`],
    ['a cut-off JSON body', (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"date":"2026-'), 'GET /v1/collections/c1 answered 200 with a body that is not valid JSON (cut off?): 14 bytes received.'],
    ['an empty body', (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(), 'GET /v1/collections/c1 answered 200 with an empty body instead of JSON.'],
    ['JSON that is not an object', (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[1,2]'), 'GET /v1/collections/c1 answered 200 with JSON that is not an object.'],
    ['a redirect', (_q, res) => res.writeHead(302, { location: 'https://elsewhere.example/v1/collections/c1' }).end(), 'answered with a redirect (302 to https://elsewhere.example/v1/collections/c1); premia does not follow redirects with your key.'],
  ])('%s is REMOTE_ERROR, exit 1, no stack trace', async (_name, handler, message) => {
    handlers = [handler];
    const r = await premia(['collections', 'get', 'c1']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('code REMOTE_ERROR');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a JSON answer of over 64 MiB is refused once that much has come, not read whole (REMOTE_ERROR, exit 1)', async () => {
    let sent = 0;
    const endless: Handler = (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-premia-version': '0.1.0' });
      res.write('{"date":"');
      const chunk = 'x'.repeat(1024 * 1024);
      // Up to 80 MiB, unless the client hangs up first.
      const more = () => {
        while (sent < 80 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        if (!res.destroyed) res.end('"}');
      };
      res.on('error', () => undefined);
      more();
    };
    handlers = [endless];
    const r = await premia(['clock']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error: GET /v1/clock answered 200 with a JSON body of over 64 MiB, far more than any answer of the API; premia stopped reading it.\n  (code REMOTE_ERROR)\n',
    );
  });

  it('a small gzip that decodes past 64 MiB is refused the same way, without decoding it whole', async () => {
    const inner = Buffer.concat([Buffer.from('{"date":"'), Buffer.alloc(80 * 1024 * 1024, 0x78), Buffer.from('"}')]);
    const gz = gzipSync(inner);
    handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-premia-version': '0.1.0' }).end(gz)];
    const r = await premia(['clock']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error: GET /v1/clock answered 200 with a JSON body of over 64 MiB, far more than any answer of the API; premia stopped reading it.\n  (code REMOTE_ERROR)\n',
    );
  });

  it.each<[string, string[], string, string]>([
    ['policies list', ['policies', 'list'], 'GET /v1/policies', 'data'],
    ['collections list', ['collections', 'list', '--period', '2026-11'], 'GET /v1/collections', 'data'],
    ['settlements list', ['settlements', 'list'], 'GET /v1/settlements', 'data'],
    ['collections execution', ['collections', 'execution', 'e1'], 'GET /v1/executions/e1', 'counts'],
    ['collections explain', ['collections', 'explain', 'c1'], 'GET /v1/collections/c1/explain', 'collection, income, plan, attempts'],
    ['bank show', ['bank', 'show', 'C1'], 'GET /v1/bank/accounts/C1', 'income, recent_transactions'],
  ])('%s answered with JSON of another shape is REMOTE_ERROR naming what it lacks, not an internal error', async (_name, args, request, lacking) => {
    handlers = [json(200, { items: [] })];
    const r = await premia(args);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: The service's answer to ${request} lacks ${lacking} (its fields: items), so it is not an answer premia understands: is something other than a premia service answering at ${base}?\n  (code REMOTE_ERROR)\n`,
    );
  });

  it('an extension route answered by a non-API 404 page: NOT_SUPPORTED, with a hint about the base URL', async () => {
    handlers = [(_q, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>')];
    const r = await premia(['clock']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error: This server does not offer the virtual clock (GET /clock): it is one of premia's own extensions, and the service at this URL implements only the spec's endpoints. " +
        '(It answered HTTP 404 with text/html; if every command fails like this, check the base URL: it includes the version, e.g. http://host:8080/v1.)\n  (code NOT_SUPPORTED)\n',
    );
  });

  it('a premia service without the simulated bank: the clock is NOT_SUPPORTED with the reason', async () => {
    // Its /whoami answers: the API is at this URL, and only the clock is missing.
    handlers = [json(404, errorBody('NOT_FOUND', 'There is no endpoint GET /v1/clock; see GET /v1/openapi.json for the endpoints.')), json(200, WHOAMI)];
    const r = await premia(['clock']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: This server does not offer the virtual clock (GET /clock). A premia service offers the clock and bank endpoints only while it runs on the simulated bank; ' +
        "without them, those commands are local-only (run them with --db on the service's store).\n  (code NOT_SUPPORTED, request req-123)\n",
    );
  });

  it.each([
    ['clock', ['clock'], '/clock'],
    ['policies list', ['policies', 'list'], '/policies'],
  ])('a premia service under another path (/v2): %s says the base URL is wrong, not that the route is not offered', async (_name, args, path) => {
    const v2 = base.replace(/\/v1$/, '/v2');
    const missing = (p: string) => json(404, errorBody('NOT_FOUND', `There is no endpoint GET /v2${p}; see GET /v1/openapi.json for the endpoints.`));
    handlers = [missing(path), missing('/whoami')];
    const r = await premia(args, { url: v2 });
    expect([r.code, r.stdout, seen.map((q) => q.url.replace(/\?.*$/, ''))]).toEqual([1, '', [`/v2${path}`, '/v2/whoami']]);
    expect(r.stderr).toBe(
      `error: The base URL ${v2} does not lead to the API: it is a premia service (X-Premia-Version 0.1.0), but it has no GET /v2/whoami. ` +
        'Check the base URL: it includes the version, e.g. http://host:8080/v1.\n  (code REMOTE_ERROR)\n',
    );
  });

  it('a premia 404 on an extension route with an id is NOT_FOUND (the resource, not the route)', async () => {
    handlers = [json(404, errorBody('NOT_FOUND', "Policy 'POL-X' was not found. Check the id or number and try again."))];
    const r = await premia(['policies', 'get', 'POL-X']);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe("error: Policy 'POL-X' was not found. Check the id or number and try again.\n  (code NOT_FOUND, request req-123)\n");
  });

  it('a body shorter than its Content-Length is retried, then REMOTE_ERROR', async () => {
    const short: Handler = (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"date":');
      setTimeout(() => res.socket?.destroy(), 10);
    };
    handlers = [short, short, short, short];
    const r = await premia(['collections', 'get', 'c1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: Cannot talk to the service at ${base}:`);
    expect(r.stderr).toContain('(4 attempts)');
  });

  it('a chunked body cut off where the server closes its connection (Connection: close) is retried like any broken answer', async () => {
    // undici reports this cut as a parser error (HPE_INVALID_EOF_STATE), not as a closed socket.
    const cut: Handler = (_q, res) => {
      res.socket!.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n{"date":\r\n');
    };
    handlers = [cut, json(200, CLOCK)];
    const r = await premia(['clock', '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.json()).toEqual(CLOCK);
    expect(seen).toHaveLength(2);

    handlers = [cut, cut, cut, cut];
    const g = await premia(['clock']);
    expect([g.code, g.stdout, g.stderr]).toEqual([
      1,
      '',
      `error: Cannot talk to the service at ${base}: the connection was closed by the other side before the answer was complete (4 attempts).\n  (code REMOTE_ERROR)\n`,
    ]);
  });

  it('a download that breaks off: REMOTE_ERROR, and --output leaves no file behind', async () => {
    const broken: Handler = (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8', 'content-length': '100000' });
      res.write(`${REPORT_COLUMNS.join(',')}\n2026-11,C1\n`);
      setTimeout(() => res.socket?.destroy(), 10);
    };
    handlers = [broken];
    const out = join(dir, 'broken-out');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(out, { recursive: true });
    const r = await premia(['reports', 'collections', '--period', '2026-11', '--output', join(out, 'report.csv')]);
    expect(r.code).toBe(1);
    // In words, never undici's code (UND_ERR_SOCKET).
    expect(r.stderr).toBe(
      'error: GET /v1/reports/collections: the download broke off before it was complete (the connection was closed by the other side before the answer was complete); nothing complete was received, run it again.\n  (code REMOTE_ERROR)\n',
    );
    expect(readdirSync(out)).toEqual([]);
  });

  it('a body that ends where the connection closed (HTTP/1.0, no length) and is cut off: exit 1, no file, never a half statement', async () => {
    /** An HTTP/1.0 answer: its body ends where the connection closes, so a cut looks like its end. */
    const http10 = (type: string, body: string): Handler => (_q, res) => {
      res.socket!.end(`HTTP/1.0 200 OK\r\nContent-Type: ${type}\r\nConnection: close\r\n\r\n${body}`);
    };
    const header = REPORT_COLUMNS.join(',');
    const row = '2026-11,C1,E1,P1,LIFE,250.50,125.25,125.25,PAID_PARTIAL,2026-11-03,2026-11-03,1,INSUFFICIENT_FUNDS';
    const statement = `${SETTLEMENT_EXPORT_COLUMNS.join(',')}\r\nSETTLE-2026-11-001,2026-11,1425.25,356.31,49.88,406.19,60.93,958.13,2026-12-03,EFT1\r\n`;
    const settle = ['settlements', 'export', '00000000-0000-4000-8000-000000000001'];
    const report = ['reports', 'collections', '--period', '2026-11'];
    const cases: Array<[string, Handler, string[], string]> = [
      ['a report cut in a row', http10('text/csv', `${header}\n${row}\n${row.slice(0, 40)}`), report, 'a CSV cut off: its last row has 8 of the 13 columns'],
      ['a report cut in a quoted field', http10('text/csv', `${header}\n${row}\n2026-11,C1,"Acme, Inc`), report, 'it ends inside a quoted field'],
      ['a statement cut in its net amount', http10('text/csv', statement.slice(0, statement.indexOf('958.13') + 3)), settle, 'its last row has 8 of the 10 columns'],
      ['a JSON report cut', http10('application/json', '{"period_month":"2026-11","results":[{"period_month":"2026-11"},{"period'), [...report, '--format', 'json'], 'JSON that does not end'],
      // Cut where the end checks above see nothing amiss: inside the last cell, after a row's '}'.
      ['a statement cut in its payment reference', http10('text/csv', statement.slice(0, statement.indexOf('EFT1') + 2)), settle, 'a CSV that may be cut off in its last cell: the server sent no length'],
      ['a report cut in its last cell', http10('text/csv', `${header}\n${row}\n${row.slice(0, -6)}`), report, 'a CSV that may be cut off in its last cell'],
      ['a JSON report cut after a row', http10('application/json', '{"period_month":"2026-11","results":[{"period_month":"2026-11"}'), [...report, '--format', 'json'], 'JSON that ends before all it opened is closed'],
    ];
    for (const [name, handler, args, said] of cases) {
      const out = join(dir, `cut-${name.replace(/ /g, '-')}.out`);
      handlers = [handler];
      const r = await premia([...args, '--output', out]);
      expect(r.code, name).toBe(1);
      expect(r.stderr, name).toContain(said);
      expect(r.stderr, name).toContain('nothing complete was received');
      expect(existsSync(out), name).toBe(false);
    }
    // Whole ones are taken: quoted commas and a quoted line end (without a length, a final line end shows the last row whole).
    const whole = `${header}\r\n${row}\r\n2026-11,C2,"Acme, ""Inc""\r\nLtd",P2,LIFE,1.00,1.00,0.00,PAID_FULL,2026-11-03,2026-11-03,1,\r\n`;
    handlers = [http10('text/csv', whole)];
    const r = await premia(report);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, whole, '']);
    // Longer than the tail premia keeps, quoted fields wherever the tail may begin: whole is whole, cut is cut.
    const quotedRow = '2026-11,C1,"Acme, ""Inc""",P1,LIFE,1.00,1.00,0.00,PAID_FULL,2026-11-03,2026-11-03,1,\n';
    for (let rows = 60; rows < 60 + quotedRow.length; rows += 7) {
      const big = `${header}\n${quotedRow.repeat(rows)}`;
      handlers = [http10('text/csv', big)];
      const b = await premia(report);
      expect([b.code, b.stderr], `${rows} rows`).toEqual([0, '']);
      handlers = [http10('text/csv', big.slice(0, -30))];
      const c = await premia(report);
      expect(c.code, `${rows} rows, cut`).toBe(1);
      expect(c.stderr).toContain('a CSV cut off: its last row has 9 of the 13 columns');
    }
    handlers = [http10('text/csv', statement)];
    const s = await premia(settle);
    expect([s.code, s.stdout, s.stderr]).toEqual([0, statement, '']);
  });

  it('a CSV of other columns whose connection closes after its first lines (no length): exit 1 with the reason, never a silent exit 0', async () => {
    const other = `${SETTLEMENT_EXPORT_COLUMNS.join(',')}\nSETTLE-2026-11-001,2026-11,1425.25,356.31,49.88,406.19,60.93,958.13,2026-12-03,EFT1\n`;
    handlers = [(_q, res) => res.socket!.end(`HTTP/1.0 200 OK\r\nContent-Type: text/csv\r\nConnection: close\r\n\r\n${other}`)];
    const out = join(dir, 'other-columns.csv');
    const r = await premia(['reports', 'collections', '--period', '2026-11', '--output', out]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      `error: GET /v1/reports/collections answered with a CSV whose header is '${SETTLEMENT_EXPORT_COLUMNS.join(',').slice(0, 120)}', not the spec's columns (${REPORT_COLUMNS.join(',')}), instead of a CSV file; is something other than the service answering at ${base}?\n  (code REMOTE_ERROR)\n`,
    ]);
    expect(existsSync(out)).toBe(false);
  });

  it('a download that trickles (a byte now and then, never idle long) is stopped by the low-speed limit: exit 1, no file', async () => {
    const trickle: Handler = (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.write(`${REPORT_COLUMNS.join(',')}\n`);
      const row = '2026-11,C1,E1,P1,LIFE,1.00,1.00,0.00,PAID_FULL,2026-11-03,2026-11-03,1,\n';
      let i = 0;
      const timer = setInterval(() => res.write(row[i++ % row.length]!), 10);
      res.on('close', () => clearInterval(timer));
    };
    const out = join(dir, 'trickle-out');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(out, { recursive: true });
    // The window is --timeout; here a tenth of a second, so that the test does not wait for one.
    const tuning = { ...instantRetries(waits), lowSpeedWindowMs: 100 };
    for (const output of [[], ['--output', join(out, 'report.csv')]]) {
      handlers = [trickle];
      const r = await runPremia(['reports', 'collections', '--period', '2026-11', ...output], { cwd: dir, env: remoteEnv(base, KEY), tuning });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^error: GET \/v1\/reports\/collections: the server is too slow: only \d+ bytes? arrived in 0\.1 s, where premia needs at least 1024 bytes every 0\.1 s \(--timeout\); premia stopped the download, nothing complete was received \(an --output file is not kept\), run it again\.\n {2}\(code REMOTE_ERROR\)\n$/,
      );
      expect(readdirSync(out)).toEqual([]);
    }
  });

  it('a download that is not what was asked (another header, nothing, a first page, a statement without its row): exit 1, no file', async () => {
    const header = REPORT_COLUMNS.join(',');
    const cases: Array<[string, Handler, string[], string]> = [
      ['another header', (_q, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end('policy_number,amount\nP1,1.00\n'), ['--period', '2026-11'], "a CSV whose header is 'policy_number,amount', not the spec's columns"],
      ['an empty body', (_q, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(''), ['--period', '2026-11'], 'answered with an empty body instead of a CSV file'],
      ['a first page', (_q, res) => res.writeHead(200, { 'content-type': 'text/csv', link: '<http://x/v1/reports/collections?page=2>; rel="next"' }).end(`${header}\n`), ['--period', '2026-11'], 'one page of a longer answer (Link: rel="next")'],
      [
        'a JSON first page',
        (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"period_month":"2026-11","results":[],"has_more":true,"next_cursor":"c2"}'),
        ['--period', '2026-11', '--format', 'json'],
        'one page of a longer answer (has_more / a next cursor)',
      ],
    ];
    for (const [name, handler, args, said] of cases) {
      handlers = [handler];
      const out = join(dir, `shape-${name.replace(/ /g, '-')}.out`);
      const r = await premia(['reports', 'collections', ...args, '--output', out]);
      expect(r.code, name).toBe(1);
      expect(r.stderr, name).toContain(said);
      expect(existsSync(out), name).toBe(false);
    }
    handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(`${SETTLEMENT_EXPORT_COLUMNS.join(',')}\n`)];
    const out = join(dir, 'statement.csv');
    const r = await premia(['settlements', 'export', '00000000-0000-4000-8000-000000000001', '--output', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('a CSV with 0 data rows where 1 was expected');
    expect(existsSync(out)).toBe(false);
  });

  it("a JSON report without the spec's results array (a bare list, a job's answer, results null) is refused: exit 1, no file", async () => {
    const bodies = [
      '[]',
      '{"period_month":"2026-11"}',
      '{"period_month":"2026-11","results":null}',
      '{"period_month":"2026-11","results":{"rows":[]}}',
      '{"status":"queued","job_id":"rep-1"}',
      '{"data":{"period_month":"2026-11","results":[]}}',
    ];
    for (const body of bodies) {
      handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body)];
      const out = join(dir, 'not-a-report.json');
      const r = await premia(['reports', 'collections', '--period', '2026-11', '--format', 'json', '--output', out]);
      expect([r.code, r.stdout, r.stderr], body).toEqual([
        1,
        '',
        "error: GET /v1/reports/collections answered with JSON that is not a collections report (the spec's object with a results array of collections); nothing complete was received.\n  (code REMOTE_ERROR)\n",
      ]);
      expect(existsSync(out), body).toBe(false);
    }
    // The spec's report, empty or not, its members in any order, extra members beside them: taken.
    for (const body of ['{"results":[],"period_month":"2026-11","generated_at":"2026-12-01T00:00:00Z"}', '{"period_month":"2026-11","results":[{"period_month":"2026-11","results":null}]}']) {
      handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body)];
      const r = await premia(['reports', 'collections', '--period', '2026-11', '--format', 'json']);
      expect([r.code, r.stdout, r.stderr], body).toEqual([0, body, '']);
    }
  });

  it('a last page (has_more false, an empty next cursor) and blank lines after the statement are the whole download', async () => {
    const report = '{"period_month":"2026-11","results":[],"has_more":false,"next_cursor":""}';
    handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(report)];
    const r = await premia(['reports', 'collections', '--period', '2026-11', '--format', 'json']);
    expect(r.stderr).toBe('');
    expect([r.code, r.stdout]).toEqual([0, report]);
    const statement = `${SETTLEMENT_EXPORT_COLUMNS.join(',')}\r\nSETTLE-2026-11-001,2026-11,10.00,2.50,0.35,2.85,0.43,6.72,2026-12-03,EFT1\r\n\r\n`;
    handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(statement)];
    const out = join(dir, 'statement-blank-line.csv');
    const e = await premia(['settlements', 'export', '00000000-0000-4000-8000-000000000001', '--output', out]);
    expect(e.code, e.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(statement);
  });

  it('a JSON report paged in other words than has_more (a count of all results, a page of pages, a next token): exit 1, no file', async () => {
    const row = (n: number) =>
      `{"period_month":"2026-11","customer_id":"C${n}","external_customer_ref":"E${n}","policy_number":"P${n}","product_code":"LIFE","collection_amount_due":1.00,"collection_amount_collected":1.00,"shortfall":0.00,"collection_status":"PAID_FULL","first_attempt_date":"2026-11-03","last_attempt_date":"2026-11-03","number_of_attempts":1,"last_failure_reason":null}`;
    const rows = `[${row(1)},${row(2)}]`;
    const cases: Array<[string, string]> = [
      [`{"period_month":"2026-11","results":${rows},"pagination":{"page":1,"per_page":2,"total":6,"total_pages":3}}`, 'one page of a longer answer (2 of the 6 results its pagination.total counts)'],
      [`{"period_month":"2026-11","results":${rows},"total_count":3}`, 'one page of a longer answer (2 of the 3 results its total_count counts)'],
      [`{"count":3,"next":null,"previous":null,"results":${rows}}`, 'one page of a longer answer (2 of the 3 results its count counts)'],
      [`{"meta":{"current_page":1,"last_page":2},"period_month":"2026-11","results":${rows}}`, 'one page of a longer answer (page 1 of 2, by its meta.last_page)'],
      [`{"period_month":"2026-11","results":${rows},"nextPageToken":"t2"}`, 'one page of a longer answer (has_more / a next cursor)'],
      [`{"period_month":"2026-11","results":${rows},"_links":{"next":{"href":"/v1/reports/collections?page=2"}}}`, 'one page of a longer answer (has_more / a next cursor)'],
    ];
    for (const [body, said] of cases) {
      handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body)];
      const out = join(dir, 'paged-report.json');
      const r = await premia(['reports', 'collections', '--period', '2026-11', '--format', 'json', '--output', out]);
      expect(r.code, body).toBe(1);
      expect(r.stderr, body).toBe(`error: GET /v1/reports/collections answered with ${said}, which premia cannot follow; nothing complete was received.\n  (code REMOTE_ERROR)\n`);
      expect(existsSync(out), body).toBe(false);
    }
    // In headers: a count of all results beyond those that came, or a next page, of a CSV or JSON report.
    const csv = `${REPORT_COLUMNS.join(',')}\r\n2026-11,C1,E1,P1,LIFE,1.00,1.00,0.00,PAID_FULL,2026-11-03,2026-11-03,1,\r\n`;
    const headerCases: Array<[Record<string, string>, string, string[], string]> = [
      [{ 'content-type': 'text/csv', 'x-total-count': '2' }, csv, [], '1 of the 2 results its X-Total-Count counts'],
      [{ 'content-type': 'application/json', 'x-total-count': '3' }, `{"period_month":"2026-11","results":${rows}}`, ['--format', 'json'], '2 of the 3 results its X-Total-Count counts'],
      [{ 'content-type': 'text/csv', 'x-next-cursor': 'c2' }, csv, [], 'x-next-cursor'],
    ];
    for (const [headers, body, args, said] of headerCases) {
      handlers = [(_q, res) => res.writeHead(200, headers).end(body)];
      const out = join(dir, 'paged-report.out');
      const r = await premia(['reports', 'collections', '--period', '2026-11', ...args, '--output', out]);
      expect(r.code, said).toBe(1);
      expect(r.stderr, said).toContain(`answered with one page of a longer answer (${said})`);
      expect(existsSync(out), said).toBe(false);
    }
    handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'text/csv', 'x-total-count': '1', 'x-has-more': 'false' }).end(csv)];
    const all = await premia(['reports', 'collections', '--period', '2026-11']);
    expect([all.code, all.stderr, all.stdout]).toEqual([0, '', csv]);
    // The whole answer in those words, and rows or a summary with words of their own, are the report.
    const whole = [
      `{"period_month":"2026-11","results":${rows},"pagination":{"page":1,"per_page":100,"total":2,"total_pages":1,"next":null}}`,
      `{"period_month":"2026-11","summary":{"total":2.00,"count":2},"next_period":"2026-12","results":[${row(1).replace('}', ',"next_attempt_date":"2026-12-03","next":"x"}')}]}`,
    ];
    for (const body of whole) {
      handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body)];
      const r = await premia(['reports', 'collections', '--period', '2026-11', '--format', 'json']);
      expect([r.code, r.stderr, r.stdout], body).toEqual([0, '', body]);
    }
  });

  it('a report whose first line has no line end yet, or never: its header is checked all the same, before anything is written', async () => {
    const header = REPORT_COLUMNS.join(',');
    const cases: Array<[string, Handler]> = [
      ['one line without a line end', (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('No collections for 2026-11')],
      [
        'a header written in two parts',
        (_q, res) => {
          res.writeHead(200, { 'content-type': 'text/csv' });
          res.write('policy_number,customer_id');
          setTimeout(() => res.end(',amount\nP1,C1,1.00\n'), 20);
        },
      ],
    ];
    for (const [name, handler] of cases) {
      handlers = [handler];
      const r = await premia(['reports', 'collections', '--period', '2026-11']);
      expect(r.code, name).toBe(1);
      expect(r.stdout, name).toBe('');
      expect(r.stderr, name).toContain("answered with a CSV whose header is '");
    }
    // A report without rows: the header alone, without a line end.
    handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(header)];
    const empty = await premia(['reports', 'collections', '--period', '2026-11']);
    expect([empty.code, empty.stderr, empty.stdout]).toEqual([0, '', header]);
  });

  it('a download of the wrong type is refused before anything is written', async () => {
    handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>')];
    const r = await premia(['reports', 'collections', '--period', '2026-11']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('error: GET /v1/reports/collections answered with text/html instead of a CSV file; is something other than the service answering at');
  });

  const STATEMENT = { settlement_number: 'SETTLE-2026-11-001', period_month: '2026-11', total_collections: 10, distribution_fee: 2.5, collections_fee: 0.35, total_fees: 2.85, vat: 0.43, net_amount: 6.72, payment_date: '2026-12-03', status: 'pending' };
  const SETTLEMENT_ID = '00000000-0000-4000-8000-000000000001';
  it.each<[string, string[], unknown, string]>([
    [
      'policies create without policy_number',
      POLICY,
      { id: 'p-1', status: 'active', created_at: '2026-11-21T09:30:00Z' },
      "The service's answer to the policy creation lacks policy_number (its fields: id, status, created_at): premia cannot tell what was done. Check whether policy P1 exists at the service (a second create may be refused as a duplicate or make a second policy).",
    ],
    [
      'policies update without the amount, a status that is not a string',
      ['policies', 'update', 'a', '--amount', '61'],
      { id: 'a', policy_number: 'P1', status: 3, updated_at: '2026-11-21T09:30:00Z' },
      "The service's answer to the policy update lacks collection_amount, status as a string (its fields: id, policy_number, status, updated_at): premia cannot tell what was done. Check policy a at the service (its amount and status).",
    ],
    [
      'collections execute with only an execution id',
      ['collections', 'execute', '--period', '2026-11'],
      { execution_id: 'e1' },
      "The service's answer to the collections run lacks status, policies_queued (its fields: execution_id): premia cannot tell what was done. Check whether the 2026-11 run was queued (premia reports collections --period 2026-11).",
    ],
    [
      'settlements create with only an id and a status',
      ['settlements', 'create', '--period', '2026-11'],
      { id: 's1', status: 'pending' },
      "The service's answer to the settlement creation lacks settlement_number, period_month, total_collections, distribution_fee, collections_fee, total_fees, vat, net_amount, payment_date (its fields: id, status): premia cannot tell what was done. Check whether a settlement for 2026-11 exists at the service.",
    ],
    [
      'settlements mark-paid without the payment',
      ['settlements', 'mark-paid', SETTLEMENT_ID, '--yes'],
      { ...STATEMENT, status: 'paid' },
      `The service's answer to the payment record lacks paid_on, paid_reference (its fields: ${Object.keys(STATEMENT).join(', ')}): premia cannot tell what was done. Check settlement ${SETTLEMENT_ID} at the service (premia settlements get ${SETTLEMENT_ID}).`,
    ],
    [
      'settlements dispute with an empty object',
      ['settlements', 'dispute', SETTLEMENT_ID, '--reason', 'fees', '--yes'],
      {},
      `The service's answer to the dispute lacks settlement_number, period_month, total_collections, distribution_fee, collections_fee, total_fees, vat, net_amount, payment_date, status (its fields: none): premia cannot tell what was done. Check settlement ${SETTLEMENT_ID} at the service (premia settlements get ${SETTLEMENT_ID}).`,
    ],
  ])('a write answered without what premia prints (%s): REMOTE_ERROR, exit 1, nothing claimed', async (_name, args, answer, message) => {
    // policies update first reads the policy as it was (to say whether anything changed): that read answers well.
    const before = { id: 'a', policy_number: 'P1', customer_id: 'C1', external_customer_ref: 'E1', product_code: 'X', collection_amount: 60, status: 'active', created_at: '2026-11-21T09:30:00Z', updated_at: '2026-11-21T09:30:00Z' };
    handlers = [...(args[1] === 'update' ? [json(200, before)] : []), json(args[1] === 'execute' ? 202 : 201, answer)];
    const r = await premia(args);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: ${message}\n  (code REMOTE_ERROR)\n`);
  });

  it('a write answered 2xx with what premia cannot read says it may have been done, and what to check', async () => {
    handlers = [(_q, res) => res.writeHead(201, { 'content-type': 'text/plain' }).end('Created policy P1')];
    const r = await premia(POLICY);
    expect([r.code, r.stderr]).toEqual([
      1,
      'error: POST /v1/policies answered 201 with text/plain instead of JSON; is something other than the service answering there? The service answered 201, so it may have done it: ' +
        'Check whether policy P1 exists at the service (a second create may be refused as a duplicate or make a second policy) before running the command again.\n  (code REMOTE_ERROR)\n',
    ]);
    handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"imported":520,"failed":0,"errors":[')];
    const i = await premia(['policies', 'import', join(FIXTURES, 'policies.csv')]);
    expect(i.code).toBe(1);
    expect(i.stderr).toContain('a body that is not valid JSON (cut off?): 37 bytes received. The service answered 200, so it may have done it: Check which policies of policies.csv exist at the service');
  });

  it("a JSON answer under another type (Go's sniffed text/plain, Express's text/html, none) is taken by its body", async () => {
    const created = { id: 'p-1', policy_number: 'P1', status: 'active', created_at: '2026-11-21T09:30:00Z' };
    for (const type of ['text/plain; charset=utf-8', 'text/html; charset=utf-8', null]) {
      handlers = [(_q, res) => res.writeHead(201, type === null ? {} : { 'content-type': type }).end(JSON.stringify(created))];
      const r = await premia(['--json', ...POLICY]);
      expect([r.code, r.stderr], String(type)).toEqual([0, '']);
      expect(JSON.parse(r.stdout), String(type)).toEqual(created);
    }
    // JSON that is not an object, or not JSON at all, is still refused by its type.
    handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('[1,2]')];
    const list = await premia(['collections', 'get', 'c1']);
    expect([list.code, list.stderr]).toEqual([1, 'error: GET /v1/collections/c1 answered 200 with text/plain instead of JSON; is something other than the service answering there?\n  (code REMOTE_ERROR)\n']);
  });

  it('a write answer with extra fields, and a statement without the id the spec leaves out, is taken', async () => {
    handlers = [json(201, { ...STATEMENT, links: { self: '/v1/settlements/x' } })];
    const r = await premia(['settlements', 'create', '--period', '2026-11']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Created SETTLE-2026-11-001: net 6.72 to pay by 2026-12-03.');
    expect(r.stderr).toContain("warning: the service gave no id for SETTLE-2026-11-001");
  });

  it('a 404 page on a spec route without an id (a wrong base URL) is REMOTE_ERROR, exit 1', async () => {
    handlers = [(_q, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>')];
    const r = await premia(['reports', 'collections', '--period', '2026-11']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: The service at ${base} answered HTTP 404 with text/html, not an API error: check the base URL (it includes the version, e.g. http://host:8080/v1).\n  (code REMOTE_ERROR)\n`,
    );
  });
});

describe("another server's policy lookup", () => {
  it('a policy whose answer carries no premium (its own field name) asks nothing about the premium: the update is made', async () => {
    const id = '11111111-1111-4111-8111-111111111111';
    const plain = (body: unknown): Handler => (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    handlers = [
      // GET /policies/{id} (premia's extension, a server's own shape: its premium named `premium`)
      plain({ id, policy_number: 'POL-1', customer_id: 'C1', external_customer_ref: 'E1', product_code: 'LIFE', premium: 149.5, status: 'active' }),
      // PATCH /policies/{id} (spec 4.3)
      plain({ id, policy_number: 'POL-1', collection_amount: 10, status: 'active', updated_at: '2026-11-21T09:30:00.000Z' }),
    ];
    const r = await premia(['policies', 'update', id, '--amount', '10']);
    expect([r.code, r.stderr.includes('NaN'), r.stderr.startsWith('Updated policy POL-1.\n')], r.stderr).toEqual([0, false, true]);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([`GET /v1/policies/${id}`, `PATCH /v1/policies/${id}`]);
  });
});

describe('list pages', () => {
  const POLICY_ROW = { id: 'p1', policy_number: 'POL-1', customer_id: 'C1', external_customer_ref: 'E1', product_code: 'LIFE', collection_amount: 149.5, status: 'active', created_at: '2026-11-01T00:00:00.000Z', updated_at: '2026-11-01T00:00:00.000Z' };
  const page = (body: unknown): Handler => (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  it('a page without next_after, or with an empty one, is the last: no "--after undefined", no page read twice', async () => {
    for (const last of [{ data: [POLICY_ROW] }, { data: [POLICY_ROW], next_after: '' }]) {
      handlers = [page(last)];
      const t = await premia(['policies', 'list']);
      expect([t.code, t.stderr], JSON.stringify(last)).toEqual([0, '']);
      seen = [];
      handlers = [page(last)];
      const c = await premia(['policies', 'list', '--format', 'csv']);
      expect([c.code, c.stderr], JSON.stringify(last)).toEqual([0, '']);
      expect(c.stdout.trimEnd().split('\n'), JSON.stringify(last)).toHaveLength(2);
      expect(seen.map((s) => s.url)).toEqual(['/v1/policies?limit=10000']);
    }
  });
});

describe('idempotency keys', () => {
  it('one key per invocation: two runs of a command send two keys', async () => {
    handlers = [json(201, CREATED), json(201, CREATED)];
    await premia(POLICY);
    await premia(POLICY);
    const [a, b] = seen.map((s) => s.headers['idempotency-key']);
    expect(a).not.toBe(b);
  });

  it('--idempotency-key is sent as given, on writes only', async () => {
    handlers = [json(201, CREATED), json(200, CLOCK)];
    await premia(['--idempotency-key', 'nightly-2026-11-30', ...POLICY]);
    await premia(['--idempotency-key', 'nightly-2026-11-30', 'clock']);
    expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['nightly-2026-11-30', undefined]);
  });

  it('a key that is not printable ASCII, or too long, is a usage error before any request', async () => {
    for (const key of ['naïve', 'x'.repeat(241), ' lead']) {
      const r = await premia(['--idempotency-key', key, ...POLICY]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--idempotency-key must be 1-240 printable ASCII characters');
    }
    expect(seen).toEqual([]);
  });
});

describe('a replay the service says it made (idempotent-replayed)', () => {
  const REPLAYED = { 'idempotent-replayed': 'true' };

  it('an import answered 202 and followed: the operation result says it was replayed', async () => {
    const OP = '6f1c2d3e-0000-4000-8000-000000000002';
    const operation = (result: unknown) => ({ id: OP, status: result === null ? 'running' : 'succeeded', request: { method: 'POST', path: '/v1/policies/import' }, completed_at: null, result });
    handlers = [
      json(202, operation(null), { location: `/v1/operations/${OP}`, 'preference-applied': 'respond-async', 'retry-after': '1' }),
      json(200, operation({ status: 200, replayed: true, body: { imported: 520, failed: 0, errors: [] } })),
    ];
    const r = await premia(['--idempotency-key', 'nightly-2026-11-30', 'policies', 'import', join(FIXTURES, 'policies.csv')]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'Imported 520 policies; 0 rows failed.\n', replayedNote('nightly-2026-11-30', 'nothing was imported now')]);
  });

  it('after a 429 (nothing done), the replay is an earlier run\'s: said', async () => {
    handlers = [json(429, errorBody('RATE_LIMITED', 'Too many requests'), { 'retry-after': '1' }), json(201, CREATED, REPLAYED)];
    const r = await premia(['--idempotency-key', 'pol-1', ...POLICY]);
    expect([r.code, r.stderr]).toEqual([0, `Created policy P1.\n${replayedNote('pol-1', 'no policy was created now')}`]);
  });

  it('answering a resend after a 503 or a broken connection, it may be this run\'s own answer: not said', async () => {
    handlers = [json(503, errorBody('STORE_BUSY', 'busy')), json(201, CREATED, REPLAYED)];
    const busy = await premia(['--idempotency-key', 'pol-1', ...POLICY]);
    expect([busy.code, busy.stderr]).toEqual([0, 'Created policy P1.\n']);
    handlers = [drop, json(200, WHOAMI), json(201, CREATED, REPLAYED)];
    const broken = await premia(['--idempotency-key', 'pol-1', ...POLICY]);
    expect([broken.code, broken.stderr]).toEqual([0, 'Created policy P1.\n']);
  });
});

describe('uploads', () => {
  const drained: Handler = (req) => req.socket.destroy();
  const imported = json(200, { imported: 520, failed: 0, errors: [] });

  it('a file is sent again from the start when the connection broke', async () => {
    // The broken answer says nothing of the server: GET /whoami shows it is premia (it honours the key).
    handlers = [drained, json(200, WHOAMI), imported];
    const r = await premia(['policies', 'import', join(FIXTURES, 'policies.csv'), '--json']);
    expect(r.code).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/policies/import', 'GET /v1/whoami', 'POST /v1/policies/import']);
    expect(seen[2]!.body.length).toBe(seen[0]!.body.length);
    expect(seen[2]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);
    const file = readFileSync(join(FIXTURES, 'policies.csv'));
    expect(seen[2]!.body.includes(file)).toBe(true);
  });

  it('a file is sent with its Content-Length (a server may answer 411 to a chunked body); stdin, whose size is unknown, is chunked', async () => {
    handlers = [imported];
    const r = await premia(['policies', 'import', join(FIXTURES, 'policies.csv'), '--json']);
    expect(r.code).toBe(0);
    expect(seen[0]!.headers['content-length']).toBe(String(seen[0]!.body.length));
    expect(seen[0]!.headers['transfer-encoding']).toBeUndefined();
    handlers = [imported];
    const s = await premia(['policies', 'import', '-', '--json'], { stdin: 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,X,1.00\n' });
    expect(s.code).toBe(0);
    expect(seen[1]!.headers['transfer-encoding']).toBe('chunked');
    // A pipe given by name (`<(command)`) has no size either (stat says 0): chunked, whole.
    const fifo = join(dir, 'policies.fifo');
    execFileSync('mkfifo', [fifo]);
    const csv = readFileSync(join(FIXTURES, 'policies.csv'));
    const writer = writeFile(fifo, csv);
    handlers = [imported];
    const p = await premia(['policies', 'import', fifo, '--json']);
    await writer;
    expect(p.code, p.stderr).toBe(0);
    expect(seen[2]!.headers['transfer-encoding']).toBe('chunked');
    expect(seen[2]!.body.includes(csv)).toBe(true);
  });

  it('stdin read once is not sent again after a 429 either (the retry would carry an empty file): exit 1, the file by name advised', async () => {
    const stdin = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,X,1.00\n';
    const limited: Handler = (_q, res) =>
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' }).end(JSON.stringify(errorBody('rate_limited', 'Too many requests')));
    handlers = [limited];
    const r = await premia(['policies', 'import', '-'], { stdin });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body.includes(stdin)).toBe(true);
    expect([r.code, r.stderr]).toEqual([
      1,
      'error: Too many requests. An upload from stdin cannot be sent again; give the file by name to let premia retry.\n  (code rate_limited, request req-123)\n',
    ]);
    // A file is read again from its start: retried.
    handlers = [limited, imported];
    const f = await premia(['policies', 'import', join(FIXTURES, 'policies.csv'), '--json']);
    expect(f.code).toBe(0);
    expect(seen[2]!.body.equals(seen[1]!.body)).toBe(true);
  });

  it('stdin is not sent twice: after a broken upload it says to give the file by name', async () => {
    handlers = [drained, json(200, WHOAMI)];
    const r = await premia(['policies', 'import', '-'], { stdin: 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,X,1.00\n' });
    expect(r.code).toBe(1);
    expect(seen.map((s) => s.method)).toEqual(['POST', 'GET']);
    expect(r.stderr).toContain('An upload from stdin cannot be sent again; give the file by name to let premia retry.');
  });
});

describe('timeouts and --debug', () => {
  it('an advance accepted (202) whose following breaks off says it was accepted, how to get its answer and how to resume', async () => {
    const OP = '6f1c2d3e-0000-4000-8000-000000000001';
    const accepted: Handler = (_q, res) => {
      res.writeHead(202, {
        'content-type': 'application/json',
        'x-premia-version': '0.1.0',
        location: `/v1/operations/${OP}`,
        'preference-applied': 'respond-async',
        'retry-after': '1',
      });
      res.end(JSON.stringify({ id: OP, status: 'running', request: { method: 'POST', path: '/v1/clock/advance' }, completed_at: null, result: null }));
    };
    // The key's record is read first (a premia service, nothing on record), then the advance.
    handlers = [json(200, WHOAMI), json(200, { data: [] }), accepted, drop, drop, drop, drop];
    const r = await premia(['--yes', '--idempotency-key', 'adv-7', 'clock', 'advance', '--to', '2026-11-30']);
    expect(r.code).toBe(1);
    expect(seen.map((q) => `${q.method} ${q.url}`)).toEqual([
      'GET /v1/whoami',
      'GET /v1/idempotency-keys?key=adv-7&operation=advanceClock',
      'POST /v1/clock/advance',
      ...Array<string>(4).fill(`GET /v1/operations/${OP}`),
    ]);
    expect(r.stderr).toBe(
      `error: POST /v1/clock/advance was accepted by the service, but following it failed: Cannot talk to the service at ${base}: the connection was closed by the other side before the answer was complete (4 attempts). ` +
        `Whether it has finished is unknown: see GET /v1/operations/${OP} once the service answers, or rerun the same command with --idempotency-key adv-7 to get its answer. ` +
        "If the service stopped before the end, 'premia clock' shows the date it reached: resume from there with --to DATE.\n  (code REMOTE_ERROR)\n",
    );
  });

  it('an advance whose service stops answering after some days says how many at least, not where the clock is', async () => {
    const OP = '6f1c2d3e-0000-4000-8000-000000000002';
    const day = (date: string) => ({ date, attempts: 0, succeeded: 0, failed: 0, collected: 0, closed_period: null, lapsed_policies: 0 });
    const op = { id: OP, request: { method: 'POST', path: '/v1/clock/advance' }, completed_at: null, result: null };
    const accepted: Handler = (_q, res) => {
      res.writeHead(202, { 'content-type': 'application/json', 'x-premia-version': '0.1.0', location: `/v1/operations/${OP}`, 'preference-applied': 'respond-async', 'retry-after': '0' });
      res.end(JSON.stringify({ ...op, status: 'running', progress: null }));
    };
    // Two days seen in its progress; then the service is gone (it may have lived more meanwhile).
    const running = json(200, { ...op, status: 'running', progress: { unit: 'days', done: 2, total: 29 }, days: [day('2026-11-01'), day('2026-11-02')] });
    handlers = [json(200, WHOAMI), json(200, { data: [] }), accepted, running, drop, drop, drop, drop];
    const r = await premia(['--yes', '--idempotency-key', 'adv-8', 'clock', 'advance', '--to', '2026-11-29']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "premia: at least 2 days of this advance committed (the last seen 2026-11-02); the service may have lived more. 'premia clock' shows where the clock is. " +
        "To finish this advance, run 'premia clock advance --to 2026-11-29' (--days would count from where it is).\n",
    );
    expect(r.stderr).not.toContain('the clock is at 2026-11-02');
  });

  it('--timeout bounds a request: REMOTE_ERROR naming the limit', async () => {
    handlers = [() => undefined]; // never answers
    const r = await premia(['--timeout', '1', ...POLICY]);
    expect(r.code).toBe(1);
    // Nothing has shown that this server honours Idempotency-Key: the rerun advice would not be safe.
    expect(r.stderr).toBe(
      `error: POST /v1/policies: no complete answer came within 1 s (raise it with --timeout or PREMIA_TIMEOUT), so the service at ${base} may or may not have done it. ` +
        'premia did not send it again, because this server has not shown that it honours Idempotency-Key and a second request could act twice. ' +
        'Check whether policy P1 exists at the service (a second create may be refused as a duplicate or make a second policy) before running the command again.\n  (code OUTCOME_UNKNOWN)\n',
    );
    server.closeAllConnections();
  });

  it('--timeout before any answer from a premia service: it asks who the service is, then advises the rerun with the key', async () => {
    handlers = [() => undefined, json(200, WHOAMI)]; // the write never answers; /whoami does, as premia
    // --timeout 4: the write has 3 s and /whoami the 1 s left, the most premia keeps back for it.
    const started = Date.now();
    const r = await premia(['--timeout', '4', '--debug', '--idempotency-key', 'job-7', ...POLICY]);
    const took = Date.now() - started;
    expect(r.code).toBe(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/policies' });
    if (r.stderr.includes('does the service honour Idempotency-Key? GET /v1/whoami → 200, premia 0.1.0: yes')) {
      expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/policies', 'GET /v1/whoami']);
      expect(r.stderr).toContain('Whether it was done is unknown: rerun the same command with --idempotency-key job-7 to finish it safely.');
      expect(r.stderr).not.toContain('OUTCOME_UNKNOWN');
    } else {
      // Only a machine so busy that the write's timer fired when the second kept back for the
      // check had gone (or too little of it was left for the answer to come): then the command
      // used all of its 4 s, and reports the outcome unknown. (A pass that does not depend on
      // how busy the machine is; a check skipped or failed for any other reason ends sooner.)
      expect(r.stderr).toMatch(/does the service honour Idempotency-Key\? (no time is left of --timeout to ask|GET \/v1\/whoami failed \([^)]*\)): not known\n/);
      expect(took).toBeGreaterThanOrEqual(3_990);
      expect(r.stderr).toContain('(code OUTCOME_UNKNOWN)');
      handlers = []; // /whoami's answer, not asked for in time
    }
    server.closeAllConnections();
  });

  it('--timeout bounds a write with the check that follows it: GET /whoami gets only what is left of the limit', async () => {
    handlers = [() => undefined, () => undefined]; // neither the write nor /whoami ever answers
    // --timeout 4 rather than 2: the check is asked only while some of the limit is left, and a
    // loaded machine can fire the write's timer late by much of the 0.5 s left of 2 s.
    const started = Date.now();
    const r = await premia(['--timeout', '4', '--debug', 'settlements', 'create', '--period', '2026-11']);
    const took = Date.now() - started;
    expect(r.code).toBe(1);
    // The write waited 3 s; the check had at most the 1 s left of the 4 s (it had 10 s of its own
    // before), and the command did not end before the limit.
    const asked = /does the service honour Idempotency-Key\? asking GET \/v1\/whoami within (\d+) ms\n/.exec(r.stderr);
    if (asked) {
      expect(Number(asked[1])).toBeGreaterThan(0);
      expect(Number(asked[1])).toBeLessThanOrEqual(1000);
      // The check's request reaches this server unless the machine left it almost no time.
      expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/settlements', 'GET /v1/whoami'].slice(0, Math.max(1, seen.length)));
      if (seen.length === 1) handlers = []; // the check's, its request cut off before it arrived
    } else {
      // Only when the write's timer fired after the whole second kept back had gone (a busy machine).
      expect(r.stderr).toContain('does the service honour Idempotency-Key? no time is left of --timeout to ask: not known\n');
      expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/settlements']);
      handlers = []; // the check's, never asked
    }
    expect(took).toBeGreaterThanOrEqual(3_990);
    expect(r.stderr).toContain(
      `error: POST /v1/settlements: no complete answer came within 4 s (raise it with --timeout or PREMIA_TIMEOUT), so the service at ${base} may or may not have done it. ` +
        'premia did not send it again, because this server has not shown that it honours Idempotency-Key and a second request could act twice. ' +
        'Check whether a settlement for 2026-11 exists at the service before running the command again.\n  (code OUTCOME_UNKNOWN)\n',
    );
    server.closeAllConnections();
  });

  it('a bad --timeout is a usage error', async () => {
    const r = await premia(['--timeout', 'soon', 'clock']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--timeout (or its environment variable) is a number of seconds from 1 to 86400; got 'soon'.");
  });

  it('--debug redacts a key pasted as an id, in the request line too', async () => {
    const other = 'pmk_1ao6qYmAWWfzOfDz04KWxQWtwO91Vt1W1SqLeVEj';
    handlers = [json(404, errorBody('NOT_FOUND', 'Not found.'))];
    const r = await premia(['--debug', 'settlements', 'get', other]);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`debug: → GET ${base}/settlements/pmk_…eVEj (attempt 1 of 4`);
    expect(r.stderr).not.toContain(other.slice(4, 30));
  });

  it('--debug prints request lines and timings on stderr, the key redacted', async () => {
    handlers = [html(503), json(200, CLOCK)];
    const r = await premia(['--debug', 'clock', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${JSON.stringify(CLOCK)}\n`);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe(`debug: remote mode: ${base}, key …Zz9Q from env`);
    expect(lines[1]).toBe(`debug: → GET ${base}/clock (attempt 1 of 4, X-API-Key …Zz9Q)`);
    expect(lines[2]).toMatch(/^debug: ← 503 text\/html in \d+\.\d ms$/);
    expect(lines[3]).toBe('debug:   retrying in 125 ms');
    expect(lines[4]).toBe(`debug: → GET ${base}/clock (attempt 2 of 4, X-API-Key …Zz9Q)`);
    expect(lines[5]).toMatch(/^debug: ← 200 application\/json in \d+\.\d ms$/);
    expect(r.stderr).not.toContain(KEY.slice(0, -4));
  });
});

describe('money on the wire', () => {
  // --yes: no lookup of the premium it has first (a premium moved tenfold asks, or needs --yes), so each answer below is the update's.
  it('bodies carry money with two decimals; answers are read back to cents', async () => {
    handlers = [json(200, '{"id":"a","policy_number":"P1","collection_amount":1234.50,"status":"active","updated_at":"2026-11-21T09:30:00.000Z"}')];
    const r = await premia(['policies', 'update', 'a', '--amount', '1234.5', '--json', '--yes']);
    expect(r.code).toBe(0);
    expect(seen[0]!.body.toString()).toBe('{"collection_amount":1234.50}');
    expect(r.stdout).toBe('{"id":"a","policy_number":"P1","collection_amount":1234.50,"status":"active","updated_at":"2026-11-21T09:30:00.000Z"}\n');
  });

  it("another server's floating-point noise is read as the cent it stands for", async () => {
    // 149.55 - 50.35 as JavaScript computes it: a server summing in binary floating point.
    handlers = [json(200, '{"id":"a","policy_number":"P1","collection_amount":99.20000000000002,"status":"active","updated_at":"2026-11-21T09:30:00.000Z"}')];
    const r = await premia(['policies', 'update', 'a', '--amount', '99.2', '--json', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"id":"a","policy_number":"P1","collection_amount":99.20,"status":"active","updated_at":"2026-11-21T09:30:00.000Z"}\n');
  });

  it('an amount premia cannot read is REMOTE_ERROR', async () => {
    handlers = [json(200, '{"id":"a","collection_amount":12.345}')];
    const r = await premia(['policies', 'update', 'a', '--amount', '1', '--json', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('answered with an amount premia cannot read');
  });
});

describe('no stray files', () => {
  it('wrote nothing into the working directory but what was asked', () => {
    expect(existsSync(join(dir, 'premia.db'))).toBe(false);
    writeFileSync(join(dir, '.keep'), '');
  });
});

describe('--json in remote mode', () => {
  it('prints the answer re-serialised: compact, keys in the order sent, money with two decimals, other numbers as JavaScript writes them', async () => {
    handlers.push(
      json(
        200,
        '{ "policy_number" : "X",\n  "collection_amount": 100, "status": "active", "extra": 1.50, "n": 1.0, "old_amount": 1e2, "dup": 1, "dup": 2 }',
      ),
    );
    const r = await premia(['--json', 'policies', 'get', 'X']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"policy_number":"X","collection_amount":100.00,"status":"active","extra":1.5,"n":1,"old_amount":100.00,"dup":2}\n');
  });

  it("passes a download's JSON on byte for byte as the service sent it", async () => {
    const body = '{ "period_month": "2026-11",\n  "results": [ {"policy_number": "P1", "collection_amount_due": 100, "x": 1.50} ] }\n';
    handlers.push(json(200, body));
    const r = await premia(['--json', 'reports', 'collections', '--period', '2026-11']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(body);
  });
});
