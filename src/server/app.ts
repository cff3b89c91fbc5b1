/**
 * The /v1 HTTP API over the local backend (`createServer` returns a fastify instance; tests use
 * its `inject`, `premia serve` makes it listen). This file is the wiring: the body parsers, the
 * key and the rate limit, the error body, 404 and 405; the routes are the operations table's
 * (backend/operations.ts), registered by the resource plugins of routes/ through dispatch.ts.
 * Each request acts for the client of its API key through `backend.forClient(clientId)`;
 * nothing that can go stale is cached, because CLI commands may change the store beside the
 * server at any time (keys, clock, policies). Keys and idempotency records are the backend's
 * admin object's.
 *
 * Errors all leave through one handler that writes the spec's body
 * {"error":{"code","message","request_id"[,"details"]}}, and every response carries
 * X-Request-Id (equal to the body's request_id on errors) and X-Premia-Version (see MARKER_HEADER).
 */
import { randomUUID } from 'node:crypto';
import { maxHeaderSize, ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import type { LocalBackend } from '../backend/local/index.js';
import { OPERATION_LIST } from '../backend/operations.js';
import type { Principal } from '../backend/types.js';
import { PremiaError, validationError, type ErrorCode } from '../domain/errors.js';
import { holdsKey, redactKeysIn } from '../lib/key-text.js';
import { AsyncOperations } from './async-operations.js';
import { DEFAULT_AUTH_FAILURES, DEFAULT_AUTH_WINDOW_MS, FailedAuthLimiter } from './auth-limit.js';
import { authenticator, forbidden, RateLimited, retryAfterOf, WWW_AUTHENTICATE } from './auth.js';
import { checkRoutes, fastifyPath, type ResourceRoutes, type RouteDeps } from './dispatch.js';
import { errorBody, JSON_TYPE, SERVICE_UNAVAILABLE, toPremiaError } from './http.js';
import { idempotencyKeyHeader, readIdempotencyKey } from './idempotency.js';
import { createJobs } from './jobs.js';
import { useJsonParser } from './json.js';
import { RESOURCE_ROUTES } from './routes/index.js';
import { prepareUploadDirectory, UploadSlots } from './upload.js';
import { VERSION } from '../lib/version.js';

export const DEFAULT_JSON_LIMIT = 1024 * 1024;
export const DEFAULT_UPLOAD_LIMIT = 100 * 1024 * 1024;
/** Requests per API key per minute. */
export const DEFAULT_RATE_LIMIT = 600;
export const DEFAULT_RATE_WINDOW_MS = 60_000;
/**
 * How long one request may take to arrive whole, its headers and body (then 408
 * REQUEST_TIMEOUT). fastify turns Node's own limit (5 minutes) off, so a client trickling a
 * body a byte at a time held its connection, and a worker of the server's, for ever: enough of
 * them exhaust the server. 10 minutes takes the largest upload (100 MiB) at 1.4 Mbit/s.
 */
export const REQUEST_TIMEOUT_MS = 10 * 60_000;
/** The health check (no key): see its route below. */
export const HEALTH_PATH = '/healthz';
/** How long a request's headers may take to arrive (Node's default, said here: slowloris). */
export const HEADERS_TIMEOUT_MS = 60_000;

export interface ServerOptions {
  /** The backend to serve (its store is shared; each request acts for its key's client). */
  backend: LocalBackend;
  /** Serve the clock and bank endpoints (the simulated bank). Default true. */
  simulation?: boolean;
  /** Largest JSON body in bytes (default 1 MiB). */
  jsonLimit?: number;
  /** Largest uploaded file in bytes (default 100 MiB). */
  uploadLimit?: number;
  /** Requests per API key per window; 0 turns rate limiting off. Default 600. */
  rateLimit?: number;
  rateLimitWindowMs?: number;
  /** Failed authentications per source address per window before 401 with Retry-After; 0 turns it off. Default 100 a minute. */
  authFailureLimit?: number;
  authFailureWindowMs?: number;
  /** Where the store's upload directory is made (default the OS temporary directory). */
  tmpDir?: string;
  /**
   * Run writes on the request thread instead of the job thread (jobs.ts); for tests that
   * substitute backend methods. Default: offloaded wherever the store is a file.
   */
  offload?: boolean;
  /** One line per call: the access log and the stacks of internal errors. Default: none. */
  log?: (line: string) => void;
  /** Wall clock, for idempotency expiry (default: the system clock). */
  now?: () => Date;
  /** The route plugins, one per resource (default: routes/index.ts); the server starts only when they cover the operations table. */
  routes?: readonly ResourceRoutes[];
  /** The uploads each client holds at once (default: a new UploadSlots); for tests that watch them. */
  uploadSlots?: UploadSlots;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** What the clock and bank endpoints answer (404) on a server run with --no-simulation. */
export const SIMULATION_OFF_MESSAGE =
  'This service runs without simulation (premia serve --no-simulation): it has no virtual clock to read or move and no simulated bank.';

/** The answer to what Node's HTTP parser refuses (see clientErrorHandler). */
function clientErrorAnswer(code: string | undefined): { status: number; reason: string; code: ErrorCode; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    // Node counts the request line (the URL and its query) with the headers: a long query is refused so too.
    const message = `The request line and headers together are larger than the server accepts (${maxHeaderSize} bytes): shorten the URL (its query) or the headers.`;
    return { status: 431, reason: 'Request Header Fields Too Large', code: 'HEADERS_TOO_LARGE', message };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') {
    return { status: 408, reason: 'Request Timeout', code: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time.' };
  }
  if (code === 'HPE_INVALID_EOF_STATE') {
    // The client closed its side before sending the whole body its Content-Length announced.
    return { status: 400, reason: 'Bad Request', code: 'VALIDATION_ERROR', message: 'The request ended before its body was complete (fewer bytes than its Content-Length); nothing was done.' };
  }
  return { status: 400, reason: 'Bad Request', code: 'VALIDATION_ERROR', message: 'The request is not valid HTTP (a malformed request line or header).' };
}

/**
 * What HTTP forbids and Node's parser lets through, refused as a malformed request (400) before
 * the key is read, as the parser's own refusals are: an HTTP/1.1 request without a Host header,
 * one with several (RFC 9112 3.2: which one a proxy and this server each took could differ), and
 * a request target holding '#' (a fragment never leaves the client; the rest was read as a query).
 */
function refuseBadFraming(req: IncomingMessage): void {
  const hosts = headerLines(req, 'host');
  if (hosts === 0 && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
    throw validationError('The request has no Host header, which HTTP/1.1 requires: send the host (and port) of the service.', [
      { field: 'Host', code: 'REQUIRED', message: 'an HTTP/1.1 request must have a Host header' },
    ]);
  }
  if (hosts > 1) {
    throw validationError(`The request has ${hosts} Host headers; HTTP allows one.`, [{ field: 'Host', code: 'REPEATED', message: 'Host was sent more than once' }]);
  }
  if (req.url?.includes('#') === true) {
    throw validationError("The request target holds '#': a URL's fragment (from '#' on) is the client's own and is never sent; send the URL without it.", [
      { field: 'path', code: 'INVALID_FORMAT', message: "the request target holds '#'" },
    ]);
  }
}

/** How many times header `name` (lower case) came in the request. */
function headerLines(req: IncomingMessage, name: string): number {
  let n = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === name) n++;
  return n;
}

/** An Expect header asking for 100 Continue (as Node's HTTP server reads it). */
const EXPECTS_CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id a request was given, kept on its Node request for the answer clientErrorHandler may write to it. */
const REQUEST_ID = Symbol('premia.requestId');
/** The status clientErrorHandler answered a request with whose body was cut short (its access-log line says so). */
const ANSWERED_EARLY = Symbol('premia.answeredEarly');
type IdentifiedRequest = IncomingMessage & { [REQUEST_ID]?: string; [ANSWERED_EARLY]?: number };

/** The scheme and authority of a request target in absolute-form (`GET http://host:8080/v1/whoami`). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/** A percent-escape of an unreserved character (RFC 3986 2.3: `%76` is `v`), which names the same path as the character. */
const ESCAPED_UNRESERVED = /%(2[DdEe]|3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|5[Ff]|6[1-9A-Fa-f]|7[0-9Aa]|7[Ee])/g;

/**
 * The request target as the rest of the server reads it: its origin-form path and query, with
 * unreserved characters in the path unescaped (RFC 3986 6.2.2.2). fastify's router finds the route
 * of `GET http://host/v1/whoami` (absolute-form, which a server must accept: RFC 9112 3.2.2;
 * clients set to go through a proxy send it) and of `/v1/who%61mi`, but everything else here
 * reads the path from the URL: the 401 before any route under /v1 (a keyless caller could tell
 * `/%761/whoami` from `/%761/nothing`), the 405 of a known path, the path an Idempotency-Key's
 * request is recorded with (a retry written the usual way was 422) and the access log. Other
 * escapes (`%2F` in an id) are left as they are.
 */
function originForm(url: string): string {
  const authority = ABSOLUTE_FORM.exec(url);
  const target = authority ? url.slice(authority[0].length) : url;
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  const decoded = path.replace(ESCAPED_UNRESERVED, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  // A client that joins a base URL written with a trailing slash (`…/v1/`, or the host's `…/`)
  // and a path `/policies` sends `/v1//policies` (`//v1/policies`): the slashes where the version
  // prefix meets the path are one. Only there: an empty id (`/v1/settlements//export`) stays empty.
  const normal = decoded.replace(/^\/{2,}(?=v1(?:\/|$))/, '/').replace(/^\/v1\/{2,}/, '/v1/');
  const rest = query < 0 ? '' : target.slice(query);
  return authority && !normal.startsWith('/') ? `/${normal}${rest}` : normal + rest;
}

/**
 * Every response says it comes from premia (and which version). The remote client relies on it
 * to tell "this server has no such route" (an extension missing: no marker) from "no such
 * resource" (a 404 that premia itself wrote).
 */
export const MARKER_HEADER = 'x-premia-version';

/**
 * Every answer is one client's (its key picks the client), but the key travels in X-API-Key,
 * which caches do not know as credentials (they know Authorization): a shared cache in front of
 * the service (a proxy, a CDN) keys on the URL alone and could hand one client's report or
 * statement, cached, to another asking the same URL. No answer is stored anywhere.
 */
const NO_STORE = 'no-store';

export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const now = options.now ?? (() => new Date());
  const resources = options.routes ?? RESOURCE_ROUTES;
  checkRoutes(resources);
  const base = options.backend;
  const admin = base.admin;
  const simulation = options.simulation ?? true;
  const jsonLimit = options.jsonLimit ?? DEFAULT_JSON_LIMIT;
  const uploadLimit = options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
  const rateMax = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const log = options.log ?? (() => {});
  const uploadDir = await prepareUploadDirectory(options.tmpDir ?? tmpdir(), admin.storePath, log);
  /** The uploads being received (dispatch.ts): a stop waits for them before removing the directory. */
  const receiving = new Set<Promise<unknown>>();
  const jobs = createJobs(base, { offload: options.offload, log });
  const operations = new AsyncOperations(() => now().getTime());
  const limits = { jsonLimit, uploadLimit };
  // A key pasted as an id (GET /v1/policies/pmk_…) is logged redacted, like every key. The
  // request id may be the caller's own (X-Request-Id), so two clients' requests can share one:
  // the id of the key that sent it (never the key) says whose each line is.
  const logLine = (request: FastifyRequest, status: number, ms: number, note = '') =>
    log(
      `${new Date().toISOString()} ${request.method} ${redactKeysIn(request.url.split('?', 1)[0]!)} ${status} ${ms.toFixed(1)}ms ${request.id}` +
        `${request.principal ? ` key ${request.principal.keyId}` : ''}${note}`,
    );
  /** Requests whose answer was handed to the connection (onSend ran): see the access log's hooks below. */
  const answered = new WeakSet<object>();

  const app = Fastify({
    logger: false,
    // Node answers an HTTP/1.1 request without a Host header with a bare 400 of its own (no error
    // body, no X-Request-Id, no access-log line): the onRequest hook below refuses it instead.
    http: { requireHostHeader: false },
    bodyLimit: jsonLimit,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Take a caller's X-Request-Id when it is a sane token (tracing across services), else make
    // one. Never one holding an API key (a tracing header filled from the wrong variable): the id
    // is echoed in X-Request-Id and written to the access log, which never hold a whole key.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID_RE.test(given) && !holdsKey(given) ? given : randomUUID();
      (req as IdentifiedRequest)[REQUEST_ID] = id;
      return id;
    },
    // While closing, new requests get premia's 503 (the onRequest hook below), not fastify's body.
    return503OnClosing: false,
    rewriteUrl: (req) => originForm(req.url ?? '/'),
    // A URL fastify's router cannot take (a bad percent-escape, an over-long parameter) still gets
    // the spec's error body and an X-Request-Id. Under /v1 the key is checked first, as for any
    // other request: without a valid one the answer is 401, whatever the path, so a caller
    // without a key cannot tell a route (`/v1/policies/<101 characters>`) from no route.
    frameworkErrors: (err, request, reply) => {
      const started = performance.now();
      const answer = (cause: unknown): void => {
        const { error, internal } = toPremiaError(cause, limits);
        if (internal) log(`${new Date().toISOString()} error ${request.id}: ${redactKeysIn((cause as Error)?.stack ?? String(cause))}`);
        // No onResponse hook runs for these requests: their access-log line is written here.
        reply.raw.once('finish', () => logLine(request, error.status, performance.now() - started));
        const retryAfter = retryAfterOf(cause);
        if (retryAfter !== null) reply.header('retry-after', String(retryAfter));
        if (error.status === 401) reply.header('www-authenticate', WWW_AUTHENTICATE);
        void (reply as FastifyReply)
          .code(error.status)
          .header('x-request-id', request.id)
          .header(MARKER_HEADER, VERSION)
          .header('cache-control', NO_STORE)
          .type(JSON_TYPE)
          .send(errorBody(error, request.id));
      };
      const path = request.url.split('?', 1)[0]!;
      if (path !== '/v1' && !path.startsWith('/v1/')) return answer(err);
      // A request is a request: one whose URL the router cannot take counts against its key's
      // limit as any other (429 once over it), or a client could send them without bound.
      authenticateRequest(request)
        .then(async (principal) => {
          request.principal = principal;
          await checkRateLimit(request);
        })
        .then(
          () => answer(err),
          (refused: unknown) => answer(refused),
        );
    },
    // What Node's HTTP parser refuses before there is a request at all (a malformed request line
    // or header, headers over the size limit, a request that took too long to arrive): a raw
    // response with the spec's body and a request id of its own, then the connection is closed.
    clientErrorHandler: (err, socket) => {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ECONNRESET' || socket.destroyed) return;
      const answer = clientErrorAnswer(e.code);
      const pending = (socket as { _httpMessage?: { headersSent?: boolean; req?: IdentifiedRequest } })._httpMessage;
      // A request under way (its body cut short) is answered under its own id, and its own access-log
      // line (method, path, key) is written when its work ends: one line, the id the client was given.
      const inFlight = pending?.req?.[REQUEST_ID];
      const id = inFlight ?? randomUUID();
      if (socket.writable && !pending?.headersSent) {
        const body = errorBody(new PremiaError(answer.code, answer.message, { status: answer.status }), id);
        socket.write(
          `HTTP/1.1 ${answer.status} ${answer.reason}\r\n` +
            `Content-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
            `X-Request-Id: ${id}\r\n${MARKER_HEADER}: ${VERSION}\r\nCache-Control: ${NO_STORE}\r\nConnection: close\r\n\r\n${body}`,
        );
        if (inFlight === undefined) log(`${new Date().toISOString()} - - ${answer.status} 0.0ms ${id} (${e.code ?? 'client error'})`);
        else pending!.req![ANSWERED_EARLY] = answer.status;
      }
      socket.destroy(err);
    },
  });
  // An Expect other than 100-continue (`Expect: 200-ok`, a client's mistake): Node would answer
  // 417 itself, with no body, no X-Request-Id, no key check (417, not 401, without a key) and no
  // access-log line, leaving the body it did not read on the connection. RFC 9110 (10.1.1) lets a
  // server ignore an expectation it does not know: the request is served as any other.
  app.server.headersTimeout = HEADERS_TIMEOUT_MS;
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => app.server.emit('request', req, res));
  // Expect: 100-continue (curl sends it with a file over 1 KiB): Node would say 100 Continue at
  // once, before the key is checked, so a client with a bad key, or a client key on an operator
  // upload, sent its whole file only to be refused. The 100 is said once the request is accepted
  // and its body is about to be read (the preParsing hook of /v1 below); refused before, the
  // client gets the refusal and never sends the body.
  app.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => app.server.emit('request', req, res));
  // CONNECT asks for a tunnel, as of a proxy, which premia is not. Node hands such a request's
  // connection to a 'connect' listener and, with none, closes it unanswered: no status, no error
  // body, no X-Request-Id, no log line. It is served as any request with a method its path does
  // not take (401 without a key, then 405 or 404), on a response of its own; the connection,
  // Node's no longer, is closed after it.
  app.server.on('connect', (req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy()); // Node took its own handler off with the connection
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once('finish', () => {
      res.detachSocket(socket);
      socket.end();
    });
    app.server.emit('request', req, res);
  });
  app.decorateRequest('principal', null);
  // JSON only: a text/plain body is a 415, not a string handed to a handler.
  app.removeContentTypeParser('text/plain');
  useJsonParser(app);
  await app.register(multipart, { limits: { fileSize: uploadLimit, files: 1 } });
  await app.register(rateLimit, { global: false });
  const limiter =
    rateMax > 0
      ? app.createRateLimit({
          max: rateMax,
          timeWindow: options.rateLimitWindowMs ?? DEFAULT_RATE_WINDOW_MS,
          keyGenerator: (req) => `key:${req.principal?.keyRowId ?? 0}`,
        })
      : null;

  const authMax = options.authFailureLimit ?? DEFAULT_AUTH_FAILURES;
  const authenticateRequest = authenticator(
    admin,
    authMax > 0 ? new FailedAuthLimiter(authMax, options.authFailureWindowMs ?? DEFAULT_AUTH_WINDOW_MS, () => now().getTime()) : null,
  );

  // While closing, answers to requests still in flight end their connection, so that close()
  // does not wait for idle keep-alive connections to time out.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Once the requests in flight are answered: the jobs still queued or running (operations
  // answered 202) finish, then the job thread closes its connection.
  app.addHook('onClose', async () => {
    await jobs.close();
    // An upload cut off by the stop (its body still arriving after the grace) removes its
    // half-received file as its reception fails: waited for, or the process ended first and
    // left the file (and so the directory) as a killed server's.
    await Promise.allSettled([...receiving]);
    // The store's upload directory goes with the last server using it: removed when empty (a
    // server still running on the store makes it again for its next upload).
    await rmdir(uploadDir).catch(() => {});
  });
  // A request that arrives while the server shuts down (on a connection opened before) is not
  // started: 503 SERVICE_UNAVAILABLE, and its connection closes. Clients retry a 503.
  // The access log has a line for every request, also one whose client left: onResponse runs only
  // for an answer delivered whole. A client gone before the answer (the work still finished: an
  // advance committed, an import stored) is logged by onSend with the work's status; one gone
  // while the answer streamed, when its connection closes.
  app.addHook('onRequest', async (request, reply) => {
    reply.raw.once('close', () => {
      // answered: onSend ran and onResponse did not (it comes first for an answer delivered whole).
      if (answered.has(request) && !reply.raw.writableFinished) {
        logLine(request, reply.statusCode, reply.elapsedTime, ' (the client left during the answer: not delivered whole)');
      }
    });
    if (closing) {
      throw new PremiaError(SERVICE_UNAVAILABLE, 'The service is shutting down; retry in a moment (with the same Idempotency-Key).', { status: 503 });
    }
    refuseBadFraming(request.raw);
  });
  // Every route (method and path pattern), so that a known path with the wrong method is a 405.
  const routes: Array<{ method: string; pattern: RegExp }> = [];
  /** The methods of each path without parameters (`/v1/collections/execute`): see the 405 in the API's onRequest. */
  const literalPaths = new Map<string, string[]>();
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}$`);
    for (const method of [route.method].flat()) {
      routes.push({ method, pattern });
      if (!route.url.includes(':')) literalPaths.set(route.url, [...(literalPaths.get(route.url) ?? []), method]);
    }
  });
  const methodNotAllowed = (reply: FastifyReply, method: string, path: string, allowed: string[]): PremiaError => {
    const sorted = [...new Set(allowed)].sort();
    reply.header('allow', sorted.join(', '));
    return new PremiaError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}; it takes ${sorted.join(', ')}.`, { status: 405 });
  };
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.raw.destroyed) {
      const early = (request.raw as IdentifiedRequest)[ANSWERED_EARLY];
      if (early !== undefined) logLine(request, early, reply.elapsedTime, ` (its body was cut short: answered ${early} at once)`);
      else logLine(request, reply.statusCode, reply.elapsedTime, ' (the client had left: the answer was not delivered)');
      return payload;
    }
    answered.add(request);
    reply.header('x-request-id', request.id);
    reply.header(MARKER_HEADER, VERSION);
    reply.header('cache-control', NO_STORE);
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    answered.delete(request);
    logLine(request, reply.statusCode, reply.elapsedTime);
  });

  app.setErrorHandler((err, request, reply) => {
    const { error, internal } = toPremiaError(err, { ...limits, body: request.routeOptions.config.operation?.body });
    // Redacted as the access log's lines: a stack starts with its message, which may quote a request's value.
    if (internal) log(`${new Date().toISOString()} error ${request.id}: ${redactKeysIn((err as Error)?.stack ?? String(err))}`);
    const retryAfter = retryAfterOf(err);
    if (retryAfter !== null) reply.header('retry-after', String(retryAfter));
    if (error.status === 401) reply.header('www-authenticate', WWW_AUTHENTICATE);
    return reply.code(error.status).type(JSON_TYPE).send(errorBody(error, request.id));
  });
  /** Counts an authenticated request against its key's limit: 429 RATE_LIMITED once it is over. */
  const checkRateLimit = async (request: FastifyRequest): Promise<void> => {
    if (!limiter) return;
    const verdict = await limiter(request);
    if (!verdict.isAllowed && verdict.isExceeded) throw new RateLimited(Math.max(1, verdict.ttlInSeconds));
  };
  /** A request no route takes, its key checked: 405 with Allow for a known path, else 404. */
  const noRoute = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = request.url.split('?', 1)[0]!;
    // A path of its own (`/v1/policies/import`) takes its own methods, not those of a pattern it also matches.
    const allowed = literalPaths.get(path) ?? routes.filter((r) => r.pattern.test(path)).map((r) => r.method);
    if (allowed.length > 0) {
      const error = methodNotAllowed(reply, request.method, path, allowed);
      return reply.code(405).type(JSON_TYPE).send(errorBody(error, request.id));
    }
    const error = new PremiaError('NOT_FOUND', `There is no endpoint ${request.method} ${path}; see GET /v1/openapi.json for the endpoints.`);
    return reply.code(404).type(JSON_TYPE).send(errorBody(error, request.id));
  };
  const notFound = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    // Under /v1 the key comes first: without a valid one, a path that exists (405 with Allow)
    // and one that does not (404) both answer 401, so the route map is shown only to callers.
    const path = request.url.split('?', 1)[0]!;
    if (path === '/v1' || path.startsWith('/v1/')) {
      request.principal = await authenticateRequest(request);
      // A request is a request: one to no endpoint counts against its key's limit as any other.
      await checkRateLimit(request);
    }
    return noRoute(request, reply);
  };
  // Answered before its body is read: fastify would parse it first (a malformed or over-large
  // body, or a QUERY without Content-Type, answering 400 or 413 to a caller without a key).
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return notFound(request, reply);
  });
  app.setNotFoundHandler(notFound);

  // A load balancer's or a service manager's check, outside /v1 and without a key (it holds
  // none): 200 while the service takes requests. Once it stops it accepts no connection (and
  // answers one already open 503, the onRequest hook above), so a balancer takes it out. It
  // touches no store: it is polled every few seconds, and a store out of reach is said by every
  // request's 503 STORE_UNAVAILABLE.
  app.get(HEALTH_PATH, async (_request, reply) => reply.type(JSON_TYPE).send('{"status":"ok"}'));

  /** The API: the key and rate limit of every request, then the operations table's routes. */
  const api = async (v1: FastifyInstance): Promise<void> => {
    // Every route needs a key, the OpenAPI document included (spec section 5: every request).
    v1.addHook('onRequest', async (request, reply) => {
      request.principal = await authenticateRequest(request);
      await checkRateLimit(request);
      // A path of its own taken by a pattern with another method (GET /collections/execute
      // matching GET /collections/{id}): the path is known, the method is not its: 405, not a
      // lookup of a collection called 'execute'.
      if (request.routeOptions.url?.includes(':') === true) {
        // An empty id (`/policies/`, `/settlements//export`) names nothing: no such path, as `POST /policies/`.
        if (Object.values(request.params as Record<string, string>).includes('')) return noRoute(request, reply);
        const path = request.url.split('?', 1)[0]!;
        const own = literalPaths.get(path);
        if (own !== undefined && !own.includes(request.method)) throw methodNotAllowed(reply, request.method, path, own);
      }
      // What the route is comes before what the request carries (its headers, then its body): a
      // simulation path under --no-simulation is no endpoint (404), and an operator row refuses a
      // client key (403, before a 100 Continue), whatever the Content-Encoding, Idempotency-Key,
      // Content-Type or body sent with it.
      const config = request.routeOptions.config;
      if (config.simulationOff === true) throw new PremiaError('NOT_FOUND', SIMULATION_OFF_MESSAGE);
      if (config.operation?.role === 'operator' && request.principal.role !== 'operator') throw forbidden();
      if (request.method === 'POST' || request.method === 'PATCH' || request.method === 'PUT') {
        // Node keeps the first of two Content-Types: which one the client meant is not the server's guess.
        if (headerLines(request.raw, 'content-type') > 1) {
          throw validationError('Send one Content-Type header, not several.', [
            { field: 'Content-Type', code: 'REPEATED', message: 'Content-Type was sent more than once' },
          ]);
        }
        // A compressed body is not decoded (nor mistaken for plain JSON): 415 before it is read.
        const encoding = request.headers['content-encoding'];
        if (encoding !== undefined && !/^\s*identity\s*$/i.test(encoding)) {
          throw new PremiaError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding '${encoding.slice(0, 40)}' is not accepted: send the body uncompressed.`, {
            details: [{ field: 'Content-Encoding', code: 'UNSUPPORTED_ENCODING', message: 'only identity (no Content-Encoding) is accepted' }],
          });
        }
      }
      // A bad Idempotency-Key is refused before the body is read (POST and PATCH: the rows that take one).
      if (request.method === 'POST' || request.method === 'PATCH') readIdempotencyKey(idempotencyKeyHeader(request));
    });
    // After every check of the request (the key, the rate limit, the route's role, the headers):
    // the client that asked for it may now send its body (see 'checkContinue' above).
    v1.addHook('preParsing', async (request, reply, payload) => {
      const http11 = request.raw.httpVersionMajor === 1 && request.raw.httpVersionMinor >= 1; // never a 1xx to an HTTP/1.0 client
      // A JSON body its Content-Length puts over the limit is refused (413) without being read: not asked for either.
      const body = request.routeOptions.config.operation?.body;
      const tooLarge = (body === 'json' || body === 'json-optional') && Number(request.headers['content-length']) > jsonLimit;
      if (http11 && EXPECTS_CONTINUE.test(request.headers.expect ?? '') && !tooLarge && !reply.raw.headersSent) reply.raw.writeContinue();
      return payload;
    });
    // Only the operations table's rows are served under /v1 (and, without simulation, the 404 of its simulation paths).
    v1.addHook('onRoute', (route) => {
      if (!route.config?.operation && !route.config?.simulationOff) {
        throw new Error(`The route ${[route.method].flat().join(',')} ${route.url} has no row in the operations table (src/backend/operations.ts).`);
      }
    });

    const deps: RouteDeps = {
      base,
      jobs,
      state: { simulation, operations },
      limits,
      uploadDir,
      uploads: options.uploadSlots ?? new UploadSlots(),
      receiving,
      log,
      now,
    };
    for (const resource of resources) await v1.register(resource.plugin, deps);

    if (!simulation) {
      // Without simulation (a real deployment) there is no virtual clock to read or move and no
      // simulated bank: those paths answer 404 for every method and every key.
      const paths = new Set(OPERATION_LIST.filter((row) => row.simulation).map((row) => fastifyPath(row.path)));
      for (const path of paths) {
        v1.all(path, { config: { simulationOff: true } }, async () => {
          throw new PremiaError('NOT_FOUND', SIMULATION_OFF_MESSAGE);
        });
      }
    }
  };
  try {
    await app.register(api, { prefix: '/v1' });
  } catch (e) {
    // A route outside the operations table (or a plugin that failed): no server.
    await app.close();
    throw e;
  }
  return app;
}
