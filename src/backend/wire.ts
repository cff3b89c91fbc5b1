/**
 * Wire conventions of the /v1 API shared by the server, the remote client and local
 * --idempotency-key: a backend call as the request of its row of the operations table, and what
 * makes two requests "the same" for an Idempotency-Key; and the base URL a client takes, checked
 * as soon as it is known (before any message quotes it: a password written into it is refused,
 * not printed), with no HTTP stack loaded.
 */
import { createHash } from 'node:crypto';
import { idless, type HttpMethod, type Operation, type QueryValues } from './operations.js';
import type { Upload } from './types.js';
import { PremiaError } from '../domain/errors.js';
import { stringifyJson } from '../domain/json.js';

/** What a client asks of a long request it will follow (RFC 7240): 202 unless done within a second. */
export const RESPOND_ASYNC = 'respond-async, wait=1';

/** One backend call as an HTTP request. */
export interface BuiltRequest {
  method: HttpMethod;
  /** The path below the base URL (no /v1), its parameters percent-encoded. */
  path: string;
  query?: QueryValues;
  /** A JSON body (money in cents; written with two decimals). */
  json?: unknown;
  /** A file, sent as multipart/form-data in the part `file`. */
  upload?: Upload;
  /** The status of a success. */
  status: number;
  /** Send an Idempotency-Key: a retry or a rerun then never acts twice. */
  idempotencyKey: boolean;
  /** The Prefer header (RESPOND_ASYNC for a long request that may be answered 202), or null. */
  prefer: string | null;
  /** For messages: the operation in words, whether it is an extension, whether a 404 can only mean the route is missing. */
  route: { what: string; extension: boolean; idless: boolean; inParts?: true };
  /** Operation.notIdentity: body fields left out of the request's identity for its key. */
  notIdentity?: readonly string[];
}

/** The request of one call of `row`'s backend method with these arguments. */
export function buildRequest<A extends unknown[]>(row: Operation<unknown, unknown, A>, ...args: A): BuiltRequest {
  const wire = row.encode(...args);
  const path = row.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = wire.params?.[name];
    if (value === undefined) throw new TypeError(`${row.name}: no value for the path parameter {${name}}`);
    return encodeURIComponent(value);
  });
  const request: BuiltRequest = {
    method: row.method,
    path,
    status: row.status,
    idempotencyKey: row.idempotent,
    prefer: row.async ? RESPOND_ASYNC : null,
    route: { what: `${row.what} (${row.method} ${row.path})`, extension: !row.spec, idless: idless(row), ...(row.commitsInParts === true ? { inParts: true as const } : {}) },
  };
  if (wire.query !== undefined) request.query = wire.query;
  if (wire.json !== undefined) request.json = wire.json;
  if (wire.upload !== undefined) request.upload = wire.upload;
  if (row.notIdentity !== undefined) request.notIdentity = row.notIdentity;
  return request;
}

/** JSON with object keys sorted, so that the same body hashes the same however it was written. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
    .join(',')}}`;
}

/**
 * Hash of what makes two requests "the same": method, path, and the body (or the uploaded file's
 * hash), without the body's fields `notIdentity` names (Operation.notIdentity).
 */
export function requestHash(method: string, path: string, body: unknown, fileSha256?: string, notIdentity?: readonly string[]): string {
  const h = createHash('sha256');
  h.update(`${method}\n${path}\n`);
  h.update(fileSha256 !== undefined ? `file:${fileSha256}` : `json:${canonical(without(body ?? null, notIdentity))}`);
  return h.digest('hex');
}

/** `body` without the fields `omitted` (an object's own; any other body as it is). */
function without(body: unknown, omitted: readonly string[] | undefined): unknown {
  if (omitted === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const kept: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of omitted) delete kept[field];
  return kept;
}

/**
 * A request as an Idempotency-Key's record knows it: method, path with /v1, and requestHash of
 * the JSON body as the service receives it (money as two-decimal numbers), or of the uploaded
 * file (its SHA-256). What local --idempotency-key records, and what the CLI compares a key's
 * record with (GET /idempotency-keys).
 */
export function recordedRequest(request: BuiltRequest, fileSha256?: string): { method: HttpMethod; path: string; hash: string } {
  const path = `/v1${request.path}`;
  const body = fileSha256 !== undefined ? null : (JSON.parse(stringifyJson(request.json ?? null)) as unknown);
  return { method: request.method, path, hash: requestHash(request.method, path, body, fileSha256, request.notIdentity) };
}

/** `text` with any user-info of a URL in it (`//user:password@`) shown as `//***@`. */
function withoutUserInfo(text: string): string {
  return text.replace(/\/\/[^/?#\s]*@/g, '//***@');
}

/** A base URL must be http(s), without credentials, query or fragment. */
export function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new PremiaError('VALIDATION_ERROR', `'${withoutUserInfo(text.slice(0, 200))}' is not a URL; give the service's base URL, e.g. http://127.0.0.1:8080/v1.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PremiaError('VALIDATION_ERROR', `The base URL must start with http:// or https://; got '${url.protocol}'.`);
  }
  if (url.username || url.password) {
    throw new PremiaError(
      'VALIDATION_ERROR',
      `The base URL must not contain a user name or password (${withoutUserInfo(url.href)}); the API key goes in PREMIA_API_KEY or a profile.`,
    );
  }
  if (url.search || url.hash) throw new PremiaError('VALIDATION_ERROR', 'The base URL must not have a query string or fragment.');
  return url;
}
