/**
 * A stub service that implements ONLY the spec (docs/spec.md section 4), as another vendor's
 * server might: the nine endpoints, the X-API-Key check, the error body of section 7 — and no
 * premia extension, no X-Premia-Version marker. Its answers carry only the fields the spec
 * lists for each response.
 *
 * It also checks every request it receives against the spec and records each departure in
 * `violations`: the method and path must be one of the spec's endpoints (anything else is a 404
 * here, which is fine, but the CLI must only go there for extensions), every request carries
 * X-API-Key, JSON bodies have Content-Type application/json and exactly the spec's fields with
 * the spec's types (money as a number written with two decimals), the import is
 * multipart/form-data with a part named `file` holding the spec's CSV, GETs carry no body, query
 * parameters are the spec's, and Idempotency-Key appears only on writes.
 *
 * Options make it differ from premia's own choices where the spec says "not shown" (or where a
 * server may simply behave badly): how a missing resource is answered, the media types of the
 * downloads, the shape of other errors, the import's error objects, the export's file name; and
 * it can act on a write, then drop the connection without answering, or echo the key it was sent.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';

export interface StubRequest {
  method: string;
  /** Path below the base path, e.g. /policies. */
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

interface StubPolicy {
  id: string;
  policy_number: string;
  customer_id: string;
  external_customer_ref: string;
  product_code: string;
  amount: number; // cents
  status: string;
}

interface StubCollection {
  id: string;
  period_month: string;
  policy: StubPolicy;
  due: number;
  collected: number;
  status: string;
  attempts: number;
}

interface StubSettlement {
  id: string;
  settlement_number: string;
  period_month: string;
  total: number;
}

export interface SpecStub {
  /** The base URL, with its path prefix (default /v1). */
  url: string;
  key: string;
  requests: StubRequest[];
  violations: string[];
  policies: Map<string, StubPolicy>;
  collections: Map<string, StubCollection>;
  settlements: Map<string, StubSettlement>;
  close: () => Promise<void>;
}

const IMPORT_HEADER = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount';
const PERIOD_RE = /^\d{4}-(0[1-9]|1[0-2])$/;
const REPORT_COLUMNS =
  'period_month,customer_id,external_customer_ref,policy_number,product_code,collection_amount_due,collection_amount_collected,shortfall,collection_status,first_attempt_date,last_attempt_date,number_of_attempts,last_failure_reason';
const EXPORT_COLUMNS = 'settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference';

/** The endpoints of spec section 4, and nothing else. */
const SPEC_ROUTES: Array<[string, RegExp, string]> = [
  ['POST', /^\/policies$/, 'POST /policies'],
  ['POST', /^\/policies\/import$/, 'POST /policies/import'],
  ['PATCH', /^\/policies\/[^/]+$/, 'PATCH /policies/{id}'],
  ['POST', /^\/collections\/execute$/, 'POST /collections/execute'],
  ['GET', /^\/collections\/[^/]+$/, 'GET /collections/{id}'],
  ['GET', /^\/reports\/collections$/, 'GET /reports/collections'],
  ['POST', /^\/settlements$/, 'POST /settlements'],
  ['GET', /^\/settlements\/[^/]+$/, 'GET /settlements/{id}'],
  ['GET', /^\/settlements\/[^/]+\/export$/, 'GET /settlements/{id}/export'],
];

const money = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
const ts = '2026-11-21T09:30:00.000Z';

/** JSON with money written as two-decimal numbers (values already formatted are marked by a prefix). */
function json(value: Record<string, unknown>): string {
  return JSON.stringify(value).replace(/"\$money:(-?\d+\.\d{2})"/g, '$1');
}
const m = (cents: number) => `$money:${money(cents)}`;

export interface SpecStubOptions {
  prefix?: string;
  key?: string;
  /** A missing resource: the spec's error body with this code (default NOT_FOUND), or a bare 'text' or 'html' 404. */
  notFound?: string;
  /** The server validates ids against its own form: an unknown id is a 400, not a 404. */
  strictIds?: boolean;
  /** Content-Type of the CSV downloads (null: none). Default text/csv. */
  csvType?: string | null;
  /** Content-Type of the JSON report. Default application/json. */
  jsonReportType?: string | null;
  /** The collections report's CSV compressed, with this Content-Encoding (premia asks for identity). */
  csvEncoding?: 'gzip' | 'compress';
  /** Every JSON answer (successes and errors) compressed, with this Content-Encoding. */
  jsonEncoding?: 'gzip' | 'deflate' | 'compress';
  /** The CSV downloads' body instead of the file (an error page sent with a neutral type). */
  csvBody?: string;
  /** Errors other than 401 and 404: the spec's body (default), {"message"}, problem+json or plain text. */
  errorShape?: 'spec' | 'message' | 'problem' | 'text';
  /** Routes, e.g. 'POST /policies', where the stub acts, then closes the connection without an answer. */
  dropAfterAct?: string[];
  /** Error messages repeat the key the request carried. */
  echoKey?: boolean;
  /**
   * A write whose Idempotency-Key answered a write before with a success gets that answer again,
   * acting on nothing, and says nothing of it (no `idempotent-replayed` header): a server that
   * honours keys beyond the spec, silently.
   */
  replayKeys?: boolean;
  /** The import's answer has these errors (their shape is not shown in the spec), one failed row each. */
  importErrors?: unknown[];
  /** The import's whole answer instead of the spec's (a server that leaves `errors` out, or answers with a job id). */
  importAnswer?: (imported: number) => unknown;
  /** Content-Disposition of the settlement export. */
  exportDisposition?: string;
  /** Extra fields of the statement's answers (POST /settlements, GET /settlements/{id}). */
  settlementExtra?: Record<string, unknown>;
  /** Cents added to every statement's net_amount (figures that do not follow the fee rule). */
  netOffBy?: number;
  /** Content-Disposition of the collections report's CSV. */
  reportDisposition?: string;
  /** The collections report is always this period's, whatever was asked (a server that reads another query parameter). */
  reportPeriod?: string;
  /** The created statement's id only in the Location header of its answer (a path, or with this origin), not in its body. */
  settlementLocation?: 'path' | 'absolute';
}

/** Above this, the stub refuses an amount (400): a rule of its own that premia does not check. */
export const STUB_MAX_AMOUNT = 100_000_00;

export async function startSpecStub(options: SpecStubOptions = {}): Promise<SpecStub> {
  const prefix = options.prefix ?? '/v1';
  const key = options.key ?? 'spec-key-0123456789';
  const dropping = new WeakSet<ServerResponse>();
  /** replayKeys: the key each write's answer is kept under, and the answers kept. */
  const keyOf = new WeakMap<ServerResponse, string>();
  const kept = new Map<string, { status: number; body: string; type: string | null; headers: Record<string, string> }>();
  const requests: StubRequest[] = [];
  const violations: string[] = [];
  const policies = new Map<string, StubPolicy>();
  const collections = new Map<string, StubCollection>();
  const settlements = new Map<string, StubSettlement>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const path = url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : url.pathname;
      const request: StubRequest = { method: req.method ?? '', path, query: Object.fromEntries(url.searchParams), headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(request);
      const violation = (what: string) => violations.push(`${request.method} ${url.pathname}: ${what}`);
      const routeName = SPEC_ROUTES.find(([method, re]) => method === request.method && re.test(request.path))?.[2];
      if (routeName && options.dropAfterAct?.includes(routeName)) dropping.add(res);
      const idempotencyKey = req.headers['idempotency-key'];
      if (options.replayKeys && routeName && typeof idempotencyKey === 'string') {
        const answer = kept.get(idempotencyKey);
        if (answer) return send(res, answer.status, answer.body, answer.type, answer.headers);
        keyOf.set(res, idempotencyKey);
      }
      try {
        handle(request, url.pathname, res, violation);
      } catch (e) {
        violation(`stub failure: ${(e as Error).message}`);
        send(res, 500, errorJson('INTERNAL', 'stub failure'));
      }
    });
  });

  function handle(r: StubRequest, fullPath: string, res: ServerResponse, violation: (what: string) => void): void {
    if (!fullPath.startsWith(`${prefix}/`)) {
      violation(`outside the base path ${prefix}`);
      return send(res, 404, errorJson('NOT_FOUND', 'Not found.'));
    }
    if (r.headers['x-api-key'] === undefined) violation('no X-API-Key header');
    const sentKey = r.headers['x-api-key'];
    const echo = options.echoKey && typeof sentKey === 'string' ? ` (key ${sentKey})` : '';
    if (sentKey !== key) return send(res, 401, errorJson('UNAUTHORIZED', `Invalid or missing API key${echo}.`));
    /** An error of the stub's own, in the configured shape. */
    const fail = (status: number, code: string, message: string) => {
      const text = `${message}${echo}`;
      switch (options.errorShape ?? 'spec') {
        case 'message':
          return send(res, status, JSON.stringify({ message: text }));
        case 'problem':
          return send(res, status, JSON.stringify({ type: 'about:blank', title: code, status, detail: text }), 'application/problem+json');
        case 'text':
          return send(res, status, text, 'text/plain; charset=utf-8');
        default:
          return send(res, status, errorJson(code, text));
      }
    };
    /** A resource that does not exist, answered as configured. */
    const missing = (noun: string, id: string) => {
      if (options.strictIds) return fail(400, 'BAD_ID', `'${id}' is not a ${noun} id of this server.`);
      if (options.notFound === 'text') return send(res, 404, 'Not Found', 'text/plain');
      if (options.notFound === 'html') return send(res, 404, '<html><body><h1>404 Not Found</h1></body></html>', 'text/html');
      return send(res, 404, errorJson(options.notFound ?? 'NOT_FOUND', `${noun} ${id} not found.`));
    };
    const write = r.method === 'POST' || r.method === 'PATCH';
    if (!write && r.headers['idempotency-key'] !== undefined) violation('Idempotency-Key on a request that changes nothing');
    if (r.method === 'GET' && (r.body.length > 0 || r.headers['content-type'] !== undefined)) violation('a body or Content-Type on a GET');

    const seg = r.path.split('/').filter(Boolean).map(decodeURIComponent);
    const route = SPEC_ROUTES.find(([method, re]) => method === r.method && re.test(r.path))?.[2] ?? 'none';
    const query = (allowed: string[]) => {
      for (const k of Object.keys(r.query)) if (!allowed.includes(k)) violation(`query parameter ${k} is not in the spec`);
    };

    switch (route) {
      case 'POST /policies': {
        query([]);
        const body = jsonBody(r, violation, ['policy_number', 'customer_id', 'external_customer_ref', 'product_code', 'collection_amount'], ['policy_number', 'customer_id', 'external_customer_ref', 'product_code', 'collection_amount']);
        if (!body) return send(res, 400, errorJson('VALIDATION_ERROR', 'bad body'));
        for (const f of ['policy_number', 'customer_id', 'external_customer_ref', 'product_code']) {
          if (typeof body[f] !== 'string' || body[f] === '') violation(`${f} is not a non-empty string`);
        }
        const amount = moneyField(r, body, 'collection_amount', violation);
        if (amount > STUB_MAX_AMOUNT) return fail(400, 'VALIDATION_ERROR', `collection_amount must be at most ${money(STUB_MAX_AMOUNT)}.`);
        if ([...policies.values()].some((p) => p.policy_number === body.policy_number)) {
          return fail(409, 'DUPLICATE', `A policy numbered ${String(body.policy_number)} exists already.`);
        }
        const policy: StubPolicy = {
          id: randomUUID(),
          policy_number: String(body.policy_number),
          customer_id: String(body.customer_id),
          external_customer_ref: String(body.external_customer_ref),
          product_code: String(body.product_code),
          amount,
          status: 'active',
        };
        policies.set(policy.id, policy);
        return send(res, 201, json({ id: policy.id, policy_number: policy.policy_number, status: 'active', created_at: ts }));
      }
      case 'POST /policies/import': {
        query([]);
        const rows = multipartCsv(r, violation);
        if (rows === null) return send(res, 400, errorJson('INVALID_FILE', 'not a policy CSV'));
        let imported = 0;
        for (const row of rows) {
          const [customer_id, external_customer_ref, policy_number, product_code, amount] = row.split(',');
          const policy: StubPolicy = {
            id: randomUUID(),
            policy_number: policy_number!,
            customer_id: customer_id!,
            external_customer_ref: external_customer_ref!,
            product_code: product_code!,
            amount: Math.round(Number(amount) * 100),
            status: 'active',
          };
          policies.set(policy.id, policy);
          imported++;
        }
        if (options.importAnswer) return send(res, 200, JSON.stringify(options.importAnswer(imported)));
        const errors = options.importErrors ?? [];
        return send(res, 200, JSON.stringify({ imported, failed: errors.length, errors }));
      }
      case 'PATCH /policies/{id}': {
        query([]);
        const body = jsonBody(r, violation, ['collection_amount', 'status'], []);
        if (!body) return send(res, 400, errorJson('VALIDATION_ERROR', 'bad body'));
        if (Object.keys(body).length === 0) violation('an empty update');
        const policy = policies.get(seg[1]!);
        if (!policy) return missing('Policy', seg[1]!);
        if (body.collection_amount !== undefined) policy.amount = moneyField(r, body, 'collection_amount', violation);
        if (body.status !== undefined) {
          // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the stub takes whatever the client sent
          const status = String(body.status);
          if (!['active', 'lapsed', 'cancelled'].includes(status)) violation(`status ${status} is not in the spec`);
          policy.status = status;
        }
        return send(res, 200, json({ id: policy.id, policy_number: policy.policy_number, collection_amount: m(policy.amount), status: policy.status, updated_at: ts }));
      }
      case 'POST /collections/execute': {
        query([]);
        const body = jsonBody(r, violation, ['period_month', 'policy_ids'], ['period_month']);
        if (!body) return send(res, 400, errorJson('VALIDATION_ERROR', 'bad body'));
        const period = String(body.period_month);
        if (!PERIOD_RE.test(period)) violation('period_month is not YYYY-MM');
        if (body.policy_ids !== undefined && (!Array.isArray(body.policy_ids) || body.policy_ids.some((p) => typeof p !== 'string'))) {
          violation('policy_ids is not an array of strings');
        }
        const wanted = body.policy_ids as string[] | undefined;
        let queued = 0;
        for (const policy of policies.values()) {
          if (policy.status !== 'active' || (wanted && !wanted.includes(policy.id))) continue;
          // Every third pays half; the rest pay in full.
          const collected = queued % 3 === 2 ? Math.floor(policy.amount / 2) : policy.amount;
          const c: StubCollection = {
            id: randomUUID(),
            period_month: period,
            policy,
            due: policy.amount,
            collected,
            status: collected === policy.amount ? 'PAID_FULL' : 'PAID_PARTIAL',
            attempts: collected === policy.amount ? 1 : 3,
          };
          collections.set(c.id, c);
          queued++;
        }
        return send(res, 202, json({ execution_id: randomUUID(), status: 'processing', policies_queued: queued }));
      }
      case 'GET /collections/{id}': {
        query([]);
        const c = collections.get(seg[1]!);
        if (!c) return missing('Collection', seg[1]!);
        return send(res, 200, json({ id: c.id, ...reportRow(c) }));
      }
      case 'GET /reports/collections': {
        query(['period_month', 'format']);
        if (!PERIOD_RE.test(r.query.period_month ?? '')) violation('period_month is missing or not YYYY-MM');
        const period = options.reportPeriod ?? r.query.period_month ?? '';
        const format = r.query.format ?? 'csv';
        if (!['csv', 'json'].includes(format)) violation(`format ${format} is not csv or json`);
        const rows = [...collections.values()].filter((c) => c.period_month === period).sort((a, b) => a.policy.policy_number.localeCompare(b.policy.policy_number));
        if (format === 'json') return send(res, 200, json({ period_month: period, results: rows.map(reportRow) }), options.jsonReportType === undefined ? 'application/json' : options.jsonReportType);
        const lines = rows.map((c) => {
          const row = reportRow(c);
          return [row.period_month, row.customer_id, row.external_customer_ref, row.policy_number, row.product_code, money(c.due), money(c.collected), money(c.due - c.collected), row.collection_status, row.first_attempt_date, row.last_attempt_date, row.number_of_attempts, ''].join(',');
        });
        const csv = options.csvBody ?? `${REPORT_COLUMNS}\n${lines.map((l) => `${l}\n`).join('')}`;
        if (options.csvEncoding) {
          res.writeHead(200, { 'content-type': 'text/csv', 'content-encoding': options.csvEncoding });
          res.end(options.csvEncoding === 'gzip' ? gzipSync(csv) : Buffer.from(csv));
          return;
        }
        const disposition: Record<string, string> = options.reportDisposition ? { 'content-disposition': options.reportDisposition } : {};
        return send(res, 200, csv, options.csvType === undefined ? 'text/csv' : options.csvType, disposition);
      }
      case 'POST /settlements': {
        query([]);
        const body = jsonBody(r, violation, ['period_month'], ['period_month']);
        if (!body) return send(res, 400, errorJson('VALIDATION_ERROR', 'bad body'));
        const period = String(body.period_month);
        if (!PERIOD_RE.test(period)) violation('period_month is not YYYY-MM');
        const total = [...collections.values()].filter((c) => c.period_month === period).reduce((s, c) => s + c.collected, 0);
        const s: StubSettlement = { id: randomUUID(), settlement_number: `SETTLE-${period}-${String(settlements.size + 1).padStart(3, '0')}`, period_month: period, total };
        settlements.set(s.id, s);
        const f = fees(total, options.netOffBy);
        const location = `${options.settlementLocation === 'absolute' ? `http://${String(r.headers.host)}` : ''}${prefix}/settlements/${s.id}`;
        return send(
          res,
          201,
          json({ ...(options.settlementLocation ? {} : { id: s.id }), settlement_number: s.settlement_number, period_month: period, total_collections: m(total), distribution_fee: m(f.distribution), collections_fee: m(f.collections), total_fees: m(f.total), vat: m(f.vat), net_amount: m(f.net), payment_date: '2026-12-03', status: 'pending', ...options.settlementExtra }),
          undefined,
          options.settlementLocation ? { location } : {},
        );
      }
      case 'GET /settlements/{id}': {
        query([]);
        const s = settlements.get(seg[1]!);
        if (!s) return missing('Settlement', seg[1]!);
        const f = fees(s.total, options.netOffBy);
        return send(
          res,
          200,
          json({ id: s.id, settlement_number: s.settlement_number, period_month: s.period_month, total_collections: m(s.total), distribution_fee: m(f.distribution), collections_fee: m(f.collections), total_fees: m(f.total), vat: m(f.vat), net_amount: m(f.net), status: 'pending', payment_date: '2026-12-03', payment_reference: `EFT-${s.settlement_number}`, created_at: ts, ...options.settlementExtra }),
        );
      }
      case 'GET /settlements/{id}/export': {
        query([]);
        const s = settlements.get(seg[1]!);
        if (!s) return missing('Settlement', seg[1]!);
        const f = fees(s.total, options.netOffBy);
        const row = [s.settlement_number, s.period_month, money(s.total), money(f.distribution), money(f.collections), money(f.total), money(f.vat), money(f.net), '2026-12-03', `EFT-${s.settlement_number}`].join(',');
        return send(
          res,
          200,
          options.csvBody ?? `${EXPORT_COLUMNS}\n${row}\n`,
          options.csvType === undefined ? 'text/csv' : options.csvType,
          options.exportDisposition ? { 'content-disposition': options.exportDisposition } : {},
        );
      }
      default: {
        // Not an endpoint of the spec: what any server says of a route it does not have.
        const knownPath = ['/policies', '/policies/import', '/collections/execute', '/reports/collections', '/settlements'].includes(r.path);
        return send(res, knownPath ? 405 : 404, errorJson(knownPath ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND', `No route ${r.method} ${r.path}.`));
      }
    }
  }

  function send(res: ServerResponse, status: number, body: string, type: string | null = 'application/json', headers: Record<string, string> = {}): void {
    if (dropping.has(res)) {
      res.socket?.destroy(); // acted, but the client never hears of it
      return;
    }
    const idempotencyKey = keyOf.get(res);
    if (idempotencyKey !== undefined && status >= 200 && status < 300) kept.set(idempotencyKey, { status, body, type, headers });
    const encoding = options.jsonEncoding && type !== null && /json/.test(type) ? options.jsonEncoding : null;
    if (encoding !== null) headers = { ...headers, 'content-encoding': encoding };
    res.writeHead(status, { ...(type === null ? {} : { 'content-type': type }), ...headers });
    res.end(encoding === 'gzip' ? gzipSync(body) : encoding === 'deflate' ? deflateSync(body) : body);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    key,
    requests,
    violations,
    policies,
    collections,
    settlements,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reportRow(c: StubCollection) {
  return {
    period_month: c.period_month,
    customer_id: c.policy.customer_id,
    external_customer_ref: c.policy.external_customer_ref,
    policy_number: c.policy.policy_number,
    product_code: c.policy.product_code,
    collection_amount_due: m(c.due),
    collection_amount_collected: m(c.collected),
    shortfall: m(c.due - c.collected),
    collection_status: c.status,
    first_attempt_date: '2026-11-03',
    last_attempt_date: c.attempts === 1 ? '2026-11-03' : '2026-11-27',
    number_of_attempts: c.attempts,
    last_failure_reason: c.attempts === 1 ? null : 'INSUFFICIENT_FUNDS',
  };
}

function fees(total: number, netOffBy = 0) {
  const distribution = Math.round(total * 0.25);
  const collections = Math.round(total * 0.035);
  const t = distribution + collections;
  const vat = Math.round(t * 0.15);
  return { distribution, collections, total: t, vat, net: total - t - vat + netOffBy };
}

function errorJson(code: string, message: string): string {
  return JSON.stringify({ error: { code, message, request_id: randomUUID() } });
}



function jsonBody(r: StubRequest, violation: (w: string) => void, allowed: string[], required: string[]): Record<string, unknown> | null {
  const type = String(r.headers['content-type'] ?? '');
  if (!/^application\/json(;\s*charset=utf-8)?$/i.test(type)) violation(`Content-Type is '${type}', not application/json`);
  let body: unknown;
  try {
    body = JSON.parse(r.body.toString('utf8'));
  } catch {
    violation('the body is not JSON');
    return null;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    violation('the body is not a JSON object');
    return null;
  }
  for (const k of Object.keys(body)) if (!allowed.includes(k)) violation(`field ${k} is not in the spec`);
  for (const k of required) if (!(k in body)) violation(`field ${k} is missing`);
  return body as Record<string, unknown>;
}

/** A money field: a JSON number, written in the body with exactly two decimals. */
function moneyField(r: StubRequest, body: Record<string, unknown>, field: string, violation: (w: string) => void): number {
  const value = body[field];
  if (typeof value !== 'number') {
    violation(`${field} is not a number`);
    return 0;
  }
  if (!new RegExp(`"${field}":\\d+\\.\\d{2}[,}]`).test(r.body.toString('utf8'))) violation(`${field} is not written with two decimals`);
  return Math.round(value * 100);
}

/** The rows of the CSV in the multipart part `file`, or null (and a violation) when the form is wrong. */
function multipartCsv(r: StubRequest, violation: (w: string) => void): string[] | null {
  const type = String(r.headers['content-type'] ?? '');
  const boundary = /^multipart\/form-data;\s*boundary=(.+)$/i.exec(type)?.[1];
  if (!boundary) {
    violation(`Content-Type is '${type}', not multipart/form-data with a boundary`);
    return null;
  }
  const text = r.body.toString('utf8');
  const parts = text.split(`--${boundary}`);
  if (parts.length !== 3 || !parts[2]!.startsWith('--')) {
    violation(`expected exactly one part, got ${parts.length - 2}`);
    return null;
  }
  const part = parts[1]!;
  const end = part.indexOf('\r\n\r\n');
  const head = part.slice(0, end);
  if (!/content-disposition: form-data; name="file"; filename="[^"]+"/i.test(head)) violation(`the part is not a file named file: ${head.trim()}`);
  const csv = part.slice(end + 4, -2);
  const lines = csv.split('\n').filter((l) => l !== '');
  if (lines[0]?.replace(/\r$/, '') !== IMPORT_HEADER) {
    return null;
  }
  return lines.slice(1).map((l) => l.replace(/\r$/, ''));
}
