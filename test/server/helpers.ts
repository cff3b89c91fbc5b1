/**
 * Helpers of the server tests: a server on a fresh store with two clients' keys, and `call`, which
 * injects a request and checks every JSON response against openapi.yaml (the operation's schema
 * for that status and media type, validated with ajv), so each test also proves conformance.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { parse } from 'yaml';
import { expect } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { createServer, type ServerOptions } from '../../src/server/app.js';
import { uploadDirectory } from '../../src/server/upload.js';
import { REPO, tempDir } from '../helpers/cli.js';

// The wall clock the day after the store's: a new store's clock starts on the day before today
// (backend/local/world.ts), so stores made under it are at 2026-11-21 and stamp 2026-11-21T09:30.
export const NOW = () => new Date('2026-11-22T09:30:00.000Z');
export const OPENAPI = parse(readFileSync(join(REPO, 'openapi.yaml'), 'utf8'));

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
ajv.addSchema({ ...OPENAPI, $id: 'https://premia.test/openapi.json' });

export interface TestServer {
  app: FastifyInstance;
  backend: LocalBackend;
  dir: string;
  dbPath: string;
  /** The store's upload directory (uploads are spooled there). */
  uploads: string;
  logs: string[];
  /** Client keys of two clients, acme ("Acme Life") and other ("Other Insure"), and an operator key of Acme Life. */
  keys: { acme: string; other: string; operator: string };
  close: () => Promise<void>;
}

export async function startServer(options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const { dir, cleanup } = tempDir('premia-server-');
  const dbPath = join(dir, 'premia.db');
  const backend = await openLocalBackend({ path: dbPath, now: NOW, seed: 1 }); // explicit seed: the same ids every run
  const logs: string[] = [];
  // The server's wall clock too: idempotency records expire by it (the real time made the 24-hour
  // expiry test depend on the time of day it ran).
  // The failed-authentication limit is off: the tests send hundreds of keyless requests from one
  // address (auth-limit.test.ts turns it on).
  // Writes run on this thread (offload: false): a job thread costs ~0.2 s to start, and most
  // files here start a server per test. The job thread is exercised by startLiveServer (remote
  // and contract suites), concurrency.test.ts and the spawned `premia serve`; set
  // PREMIA_TEST_SERVER_THREADS=1 to run these tests through it too.
  const offload = process.env.PREMIA_TEST_SERVER_THREADS === '1';
  const app = await createServer({ backend, log: (l) => logs.push(l), tmpDir: dir, now: NOW, authFailureLimit: 0, offload, ...options });
  const acme = await backend.admin.keys.create('Acme Life', 'client');
  const other = await backend.admin.keys.create('Other Insure', 'client');
  const operator = await backend.admin.keys.create('Acme Life', 'operator');
  return {
    app,
    backend,
    dir,
    dbPath,
    uploads: uploadDirectory(dir, dbPath),
    logs,
    keys: { acme: acme.key, other: other.key, operator: operator.key },
    close: async () => {
      await app.close();
      await backend.close();
      cleanup();
    },
  };
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** A raw payload (string or Buffer) sent as is. */
  payload?: string | Buffer;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  json: () => any;
}

/** Inject a request and check its response against the OpenAPI document. */
export async function call(app: FastifyInstance, method: string, url: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null && options.key !== undefined) headers['x-api-key'] = options.key;
  let payload: string | Buffer | undefined = options.payload;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await app.inject({ method: method as any, url, headers, payload });
  const reply: Reply = { status: res.statusCode, headers: res.headers, text: res.body, json: () => JSON.parse(res.body) };
  checkResponse(method, url, reply);
  return reply;
}

/** Every response: X-Request-Id; errors: the spec's body with the same id; JSON: the documented schema. */
export function checkResponse(method: string, url: string, reply: Reply): void {
  const requestId = reply.headers['x-request-id'];
  expect(typeof requestId, `X-Request-Id on ${method} ${url}`).toBe('string');
  const contentType = String(reply.headers['content-type'] ?? '');
  // HEAD is a GET without its body (RFC 9110 9.3.2): checked as the GET, its body as empty.
  const head = method === 'HEAD';
  if (head) {
    expect(reply.text, `no body for HEAD ${url}`).toBe('');
    method = 'GET';
  }
  if (reply.status >= 400 && !head) {
    expect(contentType).toBe('application/json; charset=utf-8');
    expect(reply.json().error.request_id).toBe(requestId);
  }
  const path = url.split('?', 1)[0]!.replace(/^\/v1/, '');
  const template = matchPath(path);
  if (template === null) {
    // 401 first under /v1 without a valid key (the route map is not revealed), 429 for a key
    // over its rate limit (a request is a request), else 404.
    expect([401, 404, 429], `undocumented path ${path}`).toContain(reply.status);
    return;
  }
  const operation = OPENAPI.paths[template][method.toLowerCase()];
  if (!operation) {
    // A documented path with another method: 405 with the methods it takes (404 for a simulation
    // path while simulation is off, where the path is not served at all); 429 for a key over its limit.
    expect([401, 404, 405, 429], `undocumented operation ${method} ${template}`).toContain(reply.status);
    if (reply.status === 405) {
      const allowed = String(reply.headers['allow']).split(', ');
      const documented = Object.keys(OPENAPI.paths[template]).filter((m) => m !== 'parameters').map((m) => m.toUpperCase());
      // Every documented method of the path (a path may match two templates: /policies/import and /policies/{id}).
      for (const m of documented) expect(allowed, `Allow of ${path}`).toContain(m);
    }
    return;
  }
  const documented = operation.responses[String(reply.status)];
  expect(documented, `status ${reply.status} of ${method} ${template} is documented`).toBeDefined();
  const mediaType = contentType.split(';', 1)[0]!.trim();
  const responseRef = documented.$ref ? documented.$ref : `#/paths/${pointer(template)}/${method.toLowerCase()}/responses/${reply.status}`;
  const resolved = documented.$ref ? OPENAPI.components.responses[documented.$ref.split('/').pop()] : documented;
  expect(resolved.content?.[mediaType], `${mediaType} documented for ${reply.status} of ${method} ${template}`).toBeDefined();
  // Headers sent with every such response: X-Request-Id, and those marked required (Retry-After of a 429).
  for (const [header, spec] of Object.entries<{ $ref?: string; required?: boolean }>(resolved.headers ?? {})) {
    const required = header === 'X-Request-Id' || (spec.$ref ? OPENAPI.components.headers[spec.$ref.split('/').pop()!]?.required : spec.required) === true;
    if (required) expect(reply.headers[header.toLowerCase()], header).toBeDefined();
  }
  if (mediaType === 'text/csv') {
    // CSV downloads are attachments with a filename (documented as Content-Disposition).
    expect(resolved.headers?.['Content-Disposition'], `Content-Disposition documented for ${method} ${template}`).toBeDefined();
    expect(String(reply.headers['content-disposition']), `Content-Disposition of ${method} ${url}`).toMatch(/^attachment; filename="[^"/\\]+\.csv"$/);
  }
  if (mediaType !== 'application/json' || head) return;
  const schemaRef = `https://premia.test/openapi.json${responseRef}/content/${pointer('application/json')}/schema`;
  const validate = ajv.getSchema(schemaRef);
  expect(validate, `schema ${schemaRef}`).toBeDefined();
  const ok = validate!(reply.json());
  expect(ok ? [] : validate!.errors, `${method} ${url} ${reply.status} conforms to openapi.yaml`).toEqual([]);
}

/** The ajv errors of `value` against a schema of openapi.yaml (`#/components/schemas/Name`); [] when it conforms. */
export function schemaErrors(ref: string, value: unknown): unknown[] {
  const validate = ajv.getSchema(`https://premia.test/openapi.json${ref}`);
  if (!validate) throw new Error(`no schema ${ref}`);
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

function pointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function matchPath(path: string): string | null {
  for (const template of Object.keys(OPENAPI.paths)) {
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(path)) return template;
  }
  return null;
}

/** A multipart/form-data body with one file part. */
export function multipart(fieldName: string, filename: string, content: string | Buffer): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----premia-test-boundary-7MA4YWxkTrZu0gW';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${fieldName}"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    payload: Buffer.concat([head, Buffer.isBuffer(content) ? content : Buffer.from(content), tail]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

export const POLICY = {
  policy_number: 'POL-0001',
  customer_id: 'C100001',
  external_customer_ref: 'EXT-1',
  product_code: 'LIFE_BASIC',
  collection_amount: 149.5,
};
