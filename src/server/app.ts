/**
 * The /v1 HTTP API over the local backend (`createServer` returns a fastify instance; tests use
 * its `inject`, `premia serve` makes it listen). Each request acts for the client of its API key
 * through `backend.forClient(clientId)`; nothing that can go stale is cached, because CLI
 * commands may change the store beside the server at any time (keys, clock, policies).
 *
 * Errors all leave through one handler that writes the spec's body
 * {"error":{"code","message","request_id"[,"details"]}}, and every response carries
 * X-Request-Id (equal to the body's request_id on errors) and X-Premia-Version (see MARKER_HEADER).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import type { LocalBackend } from '../backend/local/index.js';
import type { Principal } from '../backend/types.js';
import { requestHash } from '../backend/wire.js';
import { notFound, PremiaError, validationError } from '../domain/errors.js';
import { stringifyJson } from '../domain/json.js';
import { formatPeriodStateHeader, PERIOD_STATE_HEADER } from '../domain/period-state.js';
import { validatePolicyInput, validatePolicyPatch } from '../domain/policy.js';
import {
  validateAdvanceQuery,
  validateAdvanceRequest,
  validateClockSetRequest,
  validateCollectionListQuery,
  validateDisputeRequest,
  validateExecuteRequest,
  validateExportQuery,
  validateMarkPaidRequest,
  validateNoQuery,
  validatePolicyListQuery,
  validateReportQuery,
  validateSeedRequest,
  validateSettlementListQuery,
  validateSettlementPreviewQuery,
  validateSettlementRequest,
} from '../domain/requests.js';
import { forbidden } from './auth.js';
import { readIdempotencyKey } from './idempotency.js';
import { createJobs, type JobAction, type JobSpec } from './jobs.js';
import { Operations, operationJson } from './operations.js';
import { errorBody, JSON_TYPE, SERVICE_UNAVAILABLE, sendDownload, sendJson, toPremiaError } from './http.js';
import { duplicateKey, duplicateKeyError, jsonDepth, MAX_JSON_DEPTH, tooDeepError } from './json.js';
import { DEFAULT_AUTH_FAILURES, DEFAULT_AUTH_WINDOW_MS, FailedAuthLimiter } from './auth-limit.js';
import { openApiDocument } from './openapi.js';
import { prepareUploadDirectory, receiveFile, type ReceivedFile } from './upload.js';

export const DEFAULT_JSON_LIMIT = 1024 * 1024;
export const DEFAULT_UPLOAD_LIMIT = 100 * 1024 * 1024;
/** Requests per API key per minute. */
export const DEFAULT_RATE_LIMIT = 600;
export const DEFAULT_RATE_WINDOW_MS = 60_000;

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
  /** Failed authentications per source address per window before 429; 0 turns it off. Default 20 a minute. */
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
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

class RateLimited extends PremiaError {
  constructor(
    readonly retryAfter: number,
    what = 'Too many requests for this API key',
  ) {
    super('RATE_LIMITED', `${what}; retry after ${retryAfter} seconds.`);
  }
}

/** What the clock and bank endpoints answer (404) on a server run with --no-simulation. */
export const SIMULATION_OFF_MESSAGE =
  'This service runs without simulation (premia serve --no-simulation): it has no virtual clock to read or move and no simulated bank.';

/** The challenge of a 401 (RFC 9110 §11.6.1): the key goes in the X-API-Key header. */
export const WWW_AUTHENTICATE = 'ApiKey realm="premia", header="X-API-Key"';

/** The answer to what Node's HTTP parser refuses (see clientErrorHandler). */
function clientErrorAnswer(code: string | undefined): { status: number; reason: string; code: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, reason: 'Request Header Fields Too Large', code: 'HEADERS_TOO_LARGE', message: 'The request headers are larger than the server accepts.' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') {
    return { status: 408, reason: 'Request Timeout', code: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time.' };
  }
  return { status: 400, reason: 'Bad Request', code: 'VALIDATION_ERROR', message: 'The request is not valid HTTP (a malformed request line or header).' };
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every response says it comes from premia (and which version). The remote client relies on it
 * to tell "this server has no such route" (an extension missing: no marker) from "no such
 * resource" (a 404 that premia itself wrote).
 */
export const MARKER_HEADER = 'x-premia-version';
const VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const now = options.now ?? (() => new Date());
  const base = options.backend;
  const admin = base.admin;
  const simulation = options.simulation ?? true;
  const jsonLimit = options.jsonLimit ?? DEFAULT_JSON_LIMIT;
  const uploadLimit = options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
  const rateMax = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const log = options.log ?? (() => {});
  const uploadDir = await prepareUploadDirectory(options.tmpDir ?? tmpdir(), admin.storePath, log);
  const jobs = createJobs(base, { offload: options.offload, log });
  const operations = new Operations(() => now().getTime());
  const limits = { jsonLimit, uploadLimit };
  const logLine = (method: string, url: string, status: number, ms: number, id: string) =>
    log(`${new Date().toISOString()} ${method} ${url.split('?', 1)[0]} ${status} ${ms.toFixed(1)}ms ${id}`);

  const app = Fastify({
    logger: false,
    bodyLimit: jsonLimit,
    // Take a caller's X-Request-Id when it is a sane token (tracing across services), else make one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
    },
    // While closing, new requests get premia's 503 (the onRequest hook below), not fastify's body.
    return503OnClosing: false,
    // A URL fastify's router cannot take (a bad percent-escape, an over-long parameter) still gets
    // the spec's error body and an X-Request-Id; it is answered before authentication.
    frameworkErrors: (err, request, reply) => {
      const { error } = toPremiaError(err, limits);
      // No onResponse hook runs for these requests: their access-log line is written here.
      const started = performance.now();
      reply.raw.once('finish', () => logLine(request.method, request.url, error.status, performance.now() - started, request.id));
      void (reply as FastifyReply)
        .code(error.status)
        .header('x-request-id', request.id)
        .header(MARKER_HEADER, VERSION)
        .type(JSON_TYPE)
        .send(errorBody(error, request.id));
    },
    // What Node's HTTP parser refuses before there is a request at all (a malformed request line
    // or header, headers over the size limit, a request that took too long to arrive): a raw
    // response with the spec's body and a request id of its own, then the connection is closed.
    clientErrorHandler: (err, socket) => {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ECONNRESET' || socket.destroyed) return;
      const id = randomUUID();
      const answer = clientErrorAnswer(e.code);
      const pending = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
      if (socket.writable && !pending?.headersSent) {
        const body = errorBody(new PremiaError(answer.code, answer.message, { status: answer.status }), id);
        socket.write(
          `HTTP/1.1 ${answer.status} ${answer.reason}\r\n` +
            `Content-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
            `X-Request-Id: ${id}\r\n${MARKER_HEADER}: ${VERSION}\r\nConnection: close\r\n\r\n${body}`,
        );
        log(`${new Date().toISOString()} - - ${answer.status} 0.0ms ${id} (${e.code ?? 'client error'})`);
      }
      socket.destroy(err);
    },
  });
  app.decorateRequest('principal', null);
  // JSON only: a text/plain body is a 415, not a string handed to a handler.
  app.removeContentTypeParser('text/plain');
  // JSON: fastify's parser (prototype-poisoning refused, the body limit kept), plus two rules of
  // ours: an empty body is no body (so an optional body may be left out even with a JSON
  // Content-Type), and a key given twice in one object is refused, not resolved last-wins.
  const defaultJson = app.getDefaultJsonParser('error', 'error'); // fastify's defaults: __proto__ and constructor.prototype refused
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.length === 0) {
      done(null, undefined);
      return;
    }
    defaultJson(request, text, (err: Error | null, value?: unknown) => {
      if (err) return done(err, undefined);
      // Before anything walks the value (the key scan, validation, the idempotency hash).
      const depth = jsonDepth(text);
      if (depth > MAX_JSON_DEPTH) return done(tooDeepError(depth), undefined);
      const duplicate = duplicateKey(text);
      if (duplicate !== null) return done(duplicateKeyError(duplicate), undefined);
      done(null, value);
    });
  });
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
  const authLimiter = authMax > 0 ? new FailedAuthLimiter(authMax, options.authFailureWindowMs ?? DEFAULT_AUTH_WINDOW_MS, () => now().getTime()) : null;
  /**
   * The principal of a request's key. An address with too many failed authentications in the
   * window is answered 429 before its key is looked up (unless the key worked from it before).
   */
  async function authenticateRequest(request: FastifyRequest): Promise<Principal> {
    const presented = request.headers['x-api-key'];
    if (!authLimiter) return admin.keys.authenticate(presented);
    const address = request.ip;
    const digest = typeof presented === 'string' && presented.length > 0 && presented.length <= 256 ? createHash('sha256').update(presented, 'utf8').digest('hex') : null;
    const wait = authLimiter.blocked(address, digest);
    if (wait !== null) throw new RateLimited(wait, 'Too many requests with a missing or invalid API key from this address');
    try {
      const principal = await admin.keys.authenticate(presented);
      authLimiter.succeeded(address, digest!);
      return principal;
    } catch (e) {
      if (e instanceof PremiaError && e.code === 'UNAUTHORIZED') authLimiter.failed(address);
      throw e;
    }
  }

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
  });
  // A request that arrives while the server shuts down (on a connection opened before) is not
  // started: 503 SERVICE_UNAVAILABLE, and its connection closes. Clients retry a 503.
  app.addHook('onRequest', async () => {
    if (closing) {
      throw new PremiaError(SERVICE_UNAVAILABLE, 'The service is shutting down; retry in a moment (with the same Idempotency-Key).', { status: 503 });
    }
  });
  // Every route (method and path pattern), so that a known path with the wrong method is a 405.
  const routes: Array<{ method: string; pattern: RegExp }> = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}$`);
    for (const method of [route.method].flat()) routes.push({ method, pattern });
  });
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    reply.header(MARKER_HEADER, VERSION);
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    logLine(request.method, request.url, reply.statusCode, reply.elapsedTime, request.id);
  });

  app.setErrorHandler((err, request, reply) => {
    const { error, internal } = toPremiaError(err, limits);
    if (internal) log(`${new Date().toISOString()} error ${request.id}: ${(err as Error)?.stack ?? String(err)}`);
    if (err instanceof RateLimited) reply.header('retry-after', String(err.retryAfter));
    if (error.status === 401) reply.header('www-authenticate', WWW_AUTHENTICATE);
    return reply.code(error.status).type(JSON_TYPE).send(errorBody(error, request.id));
  });
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?', 1)[0]!;
    // Under /v1 the key comes first: without a valid one, a path that exists (405 with Allow)
    // and one that does not (404) both answer 401, so the route map is shown only to callers.
    if (path === '/v1' || path.startsWith('/v1/')) request.principal = await authenticateRequest(request);
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))].sort();
    if (allowed.length > 0) {
      const error = new PremiaError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; it takes ${allowed.join(', ')}.`, { status: 405 });
      return reply.code(405).header('allow', allowed.join(', ')).type(JSON_TYPE).send(errorBody(error, request.id));
    }
    const error = new PremiaError('NOT_FOUND', `There is no endpoint ${request.method} ${path}; see GET /v1/openapi.json for the endpoints.`);
    return reply.code(404).type(JSON_TYPE).send(errorBody(error, request.id));
  });

  await app.register(
    async (v1) => {
      // Every route needs a key, the OpenAPI document included (spec section 5: every request).
      v1.addHook('onRequest', async (request) => {
        request.principal = await authenticateRequest(request);
        if (limiter) {
          const verdict = await limiter(request);
          if (!verdict.isAllowed && verdict.isExceeded) throw new RateLimited(Math.max(1, verdict.ttlInSeconds));
        }
        if (request.method === 'POST' || request.method === 'PATCH' || request.method === 'PUT') {
          // A compressed body is not decoded (nor mistaken for plain JSON): 415 before it is read.
          const encoding = request.headers['content-encoding'];
          if (encoding !== undefined && !/^\s*identity\s*$/i.test(encoding)) {
            throw new PremiaError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding '${encoding.slice(0, 40)}' is not accepted: send the body uncompressed.`, {
              details: [{ field: 'Content-Encoding', code: 'UNSUPPORTED_ENCODING', message: 'only identity (no Content-Encoding) is accepted' }],
            });
          }
        }
        // A bad Idempotency-Key is refused before the body is read.
        if (request.method === 'POST' || request.method === 'PATCH') readIdempotencyKey(request.headers['idempotency-key']);
      });

      const backendOf = (request: FastifyRequest): LocalBackend => base.forClient(principalOf(request).clientId);

      /** What a write does: a backend operation, run as a job (jobs.ts). */
      interface Work {
        action: JobAction;
        args: unknown[];
        /** The spooled upload an import reads; removed once the job has ended. */
        upload?: ReceivedFile;
      }

      /**
       * Run a write as a job, off this thread where the store is a file, and answer with its
       * outcome. With an Idempotency-Key (POST and PATCH) the first response is stored and a retry
       * gets it again (idempotency.ts). Where `async` is allowed and the client sends
       * `Prefer: respond-async` (RFC 7240), a job not done within its `wait` (default 0 s) is
       * answered 202 with a Location to follow (operations.ts); without it, the client gets the
       * answer when the job is done, while the server answers others meanwhile.
       */
      async function run(
        request: FastifyRequest,
        reply: FastifyReply,
        status: number,
        hashBody: unknown,
        work: Work,
        opts: { idempotent?: boolean; async?: boolean } = {},
      ): Promise<FastifyReply> {
        const principal = principalOf(request);
        const key = opts.idempotent === false ? null : readIdempotencyKey(request.headers['idempotency-key']);
        // The path without its query: query parameters of these routes are refused or ignored.
        const path = request.url.split('?', 1)[0]!;
        const spec: JobSpec = {
          clientId: principal.clientId,
          action: work.action,
          args: work.args,
          upload: work.upload ? { path: work.upload.path, name: work.upload.name, size: work.upload.size } : undefined,
          now: base.ctx.now().getTime(),
          status,
          idempotency:
            key === null
              ? undefined
              : { key, hash: requestHash(request.method, path, hashBody, work.upload?.sha256), method: request.method, path, now: now().getTime(), owner: admin.idempotency.owner },
        };
        const preference = opts.async ? respondAsync(request.headers.prefer) : null;
        const op = preference ? operations.create(principal.clientId, request.method, path) : null;
        const ran = jobs.run(spec, op ? { onStart: () => operations.started(op), onProgress: (p) => operations.progressed(op, p) } : {});
        // The spooled file is removed before the outcome is told.
        const job = work.upload ? ran.finally(() => work.upload!.remove()) : ran;
        const finished = job.then((outcome) => {
          if (!outcome.kept) log(`${new Date().toISOString()} warn ${request.id}: its Idempotency-Key was taken over by a retry while it ran; the retry's response is the one kept`);
          // A stored refusal replayed (kept by earlier versions) carries this request's id.
          return outcome.replayed && outcome.status >= 400 ? { ...outcome, body: withRequestId(outcome.body, request.id) } : outcome;
        });
        if (op && preference) {
          let answered202 = false;
          finished.then(
            (outcome) => operations.finished(op, outcome),
            (e: unknown) => {
              const { error, internal } = toPremiaError(e, limits);
              if (internal && answered202) log(`${new Date().toISOString()} error ${request.id}: ${(e as Error)?.stack ?? String(e)}`);
              operations.finished(op, { status: error.status, body: errorBody(error, request.id), replayed: false, kept: true });
            },
          );
          if (!(await settlesWithin(finished, preference.waitMs))) {
            answered202 = true;
            return reply
              .code(202)
              .header('location', `/v1/operations/${op.id}`)
              .header('preference-applied', 'respond-async')
              .header('retry-after', '1')
              .type(JSON_TYPE)
              .send(operationJson(op));
          }
        }
        return sendOutcome(reply, await finished);
      }

      /** A POST or PATCH with a JSON body. */
      function mutate(request: FastifyRequest, reply: FastifyReply, status: number, hashBody: unknown, action: JobAction, ...args: unknown[]): Promise<FastifyReply> {
        return run(request, reply, status, hashBody, { action, args });
      }

      /** An upload route: spool the file, then import it from the spooled copy (removed once imported). */
      async function upload(request: FastifyRequest, reply: FastifyReply, action: 'importPolicies' | 'importBankTransactions', spec: boolean): Promise<FastifyReply> {
        // The spec's import ignores query parameters (see specQuery); premia's bank import refuses them.
        if (!spec) validateNoQuery(query(request));
        const file = await receiveFile(request, uploadLimit, uploadDir);
        return run(request, reply, 200, null, { action, args: [], upload: file }, { async: true });
      }

      // -- operations (202 Accepted answers) -----------------------------------------------
      v1.get<{ Params: { id: string } }>('/operations/:id', async (request, reply) => {
        validateNoQuery(query(request));
        const op = operations.get(principalOf(request).clientId, request.params.id);
        if (!op) throw notFound('Operation', request.params.id);
        if (op.result === null) reply.header('retry-after', '1');
        return reply.code(200).type(JSON_TYPE).send(operationJson(op));
      });

      // -- meta ------------------------------------------------------------------------------
      v1.get('/openapi.json', async (request, reply) => {
        validateNoQuery(query(request));
        return reply.code(200).type(JSON_TYPE).send(JSON.stringify(await openApiDocument()));
      });
      v1.get('/whoami', async (request, reply) => {
        validateNoQuery(query(request));
        const p = principalOf(request);
        return sendJson(reply, 200, { client: p.clientName, key_id: p.keyId, role: p.role, simulation });
      });

      // -- policies --------------------------------------------------------------------------
      // The spec's endpoints ignore query parameters they do not define (specQuery); premia's
      // extensions refuse them (validateNoQuery, the list validators), so a mistyped filter of
      // a premia client is an error rather than a silently unfiltered answer.
      v1.post('/policies', async (request, reply) => {
        const raw = jsonBody(request, false);
        const input = validatePolicyInput(raw);
        return mutate(request, reply, 201, raw, 'createPolicy', input);
      });
      v1.post('/policies/import', async (request, reply) => upload(request, reply, 'importPolicies', true));
      v1.get('/policies', async (request, reply) => {
        const q = validatePolicyListQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).listPolicies(q));
      });
      v1.get<{ Params: { id: string } }>('/policies/:id', async (request, reply) => {
        validateNoQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).getPolicy(request.params.id));
      });
      v1.patch<{ Params: { id: string } }>('/policies/:id', async (request, reply) => {
        const raw = jsonBody(request, false);
        const patch = validatePolicyPatch(raw);
        return mutate(request, reply, 200, raw, 'updatePolicy', request.params.id, patch);
      });
      // What a cancellation would withdraw (the CLI's confirmation); changes nothing.
      v1.get<{ Params: { id: string } }>('/policies/:id/cancel-preview', async (request, reply) => {
        validateNoQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).previewCancellation(request.params.id));
      });

      // -- collections -----------------------------------------------------------------------
      v1.post('/collections/execute', async (request, reply) => {
        const raw = jsonBody(request, false);
        const input = validateExecuteRequest(raw);
        return mutate(request, reply, 202, raw, 'executeCollections', input);
      });
      v1.get('/collections', async (request, reply) => {
        const q = validateCollectionListQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).listCollections(q));
      });
      v1.get<{ Params: { id: string } }>('/collections/:id', async (request, reply) => {
        return sendJson(reply, 200, await backendOf(request).getCollection(request.params.id));
      });
      v1.get<{ Params: { id: string } }>('/collections/:id/explain', async (request, reply) => {
        validateNoQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).explainCollection(request.params.id));
      });
      v1.get<{ Params: { id: string } }>('/executions/:id', async (request, reply) => {
        validateNoQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).getExecution(request.params.id));
      });

      // -- reports ---------------------------------------------------------------------------
      v1.get('/reports/collections', async (request, reply) => {
        const q = validateReportQuery(specQuery(request, ['period_month', 'format']));
        const report = await backendOf(request).collectionsReport(q.period_month, q.format);
        // Whether the report is final: the CSV has no room for it (README, "The collections report").
        if (report.periodState) reply.header(PERIOD_STATE_HEADER, formatPeriodStateHeader(report.periodState));
        return sendDownload(reply, report);
      });
      v1.get('/reports/attempts', async (request, reply) => {
        const q = validateReportQuery(query(request));
        return sendDownload(reply, await backendOf(request).exportAttempts(q.period_month, q.format));
      });

      // -- settlements -----------------------------------------------------------------------
      v1.post('/settlements', async (request, reply) => {
        const raw = jsonBody(request, false);
        const input = validateSettlementRequest(raw);
        return mutate(request, reply, 201, raw, 'createSettlement', input.period_month);
      });
      v1.get('/settlements', async (request, reply) => {
        const q = validateSettlementListQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).listSettlements(q));
      });
      // The statement POST /settlements would make now (the CLI's confirmation); stores nothing.
      v1.get('/settlements/preview', async (request, reply) => {
        const q = validateSettlementPreviewQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).previewSettlement(q.period_month));
      });
      v1.get<{ Params: { id: string } }>('/settlements/:id', async (request, reply) => {
        return sendJson(reply, 200, await backendOf(request).getSettlement(request.params.id));
      });
      v1.get<{ Params: { id: string } }>('/settlements/:id/export', async (request, reply) => {
        const q = validateExportQuery(specQuery(request, ['lines']));
        return sendDownload(reply, await backendOf(request).exportSettlement(request.params.id, { lines: q.lines }));
      });
      v1.post<{ Params: { id: string } }>('/settlements/:id/mark-paid', async (request, reply) => {
        validateNoQuery(query(request));
        const raw = jsonBody(request, true);
        const input = validateMarkPaidRequest(raw);
        return mutate(request, reply, 200, raw, 'markSettlementPaid', request.params.id, input);
      });
      v1.post<{ Params: { id: string } }>('/settlements/:id/dispute', async (request, reply) => {
        validateNoQuery(query(request));
        const raw = jsonBody(request, false);
        const input = validateDisputeRequest(raw);
        return mutate(request, reply, 200, raw, 'disputeSettlement', request.params.id, input.reason);
      });

      // -- simulation: the virtual clock and the simulated bank -------------------------------
      // Reading the clock is open to every key (a client needs the date to know which periods
      // are open); moving it, and the simulated bank, act on the whole store: operator keys only.
      // Checked before the body is read, so a client key's upload is refused before it is sent.
      const operatorOnly = {
        onRequest: async (request: FastifyRequest) => {
          if (principalOf(request).role !== 'operator') throw forbidden();
        },
      };
      if (simulation) {
        v1.get('/clock', async (request, reply) => {
          validateNoQuery(query(request));
          return sendJson(reply, 200, await backendOf(request).getClock());
        });
        v1.put('/clock', operatorOnly, async (request, reply) => {
          validateNoQuery(query(request));
          const input = validateClockSetRequest(jsonBody(request, false));
          return run(request, reply, 200, null, { action: 'setClock', args: [input.date] }, { idempotent: false });
        });
        // What POST /clock/advance would do (clock advance --dry-run, the CLI's confirmation).
        v1.get('/clock/preview', operatorOnly, async (request, reply) => {
          const input = validateAdvanceQuery(query(request));
          return sendJson(reply, 200, await backendOf(request).previewAdvance(input));
        });
        v1.post('/clock/advance', operatorOnly, async (request, reply) => {
          validateNoQuery(query(request));
          const raw = jsonBody(request, false);
          const input = validateAdvanceRequest(raw);
          return run(request, reply, 200, raw, { action: 'advanceClock', args: [input] }, { async: true });
        });
        v1.post('/bank/seed', operatorOnly, async (request, reply) => {
          validateNoQuery(query(request));
          const raw = jsonBody(request, false);
          const input = validateSeedRequest(raw);
          return mutate(request, reply, 200, raw, 'seedBank', input.seed);
        });
        v1.post('/bank/import', operatorOnly, async (request, reply) => upload(request, reply, 'importBankTransactions', false));
        v1.get<{ Params: { customer_id: string } }>('/bank/accounts/:customer_id', operatorOnly, async (request, reply) => {
          validateNoQuery(query(request));
          return sendJson(reply, 200, await backendOf(request).showBankAccount(request.params.customer_id));
        });
      } else {
        // Without simulation (a real deployment) there is no virtual clock to read or move and no
        // simulated bank: those paths answer 404 for every method and every key.
        for (const path of ['/clock', '/clock/advance', '/bank/seed', '/bank/import', '/bank/accounts/:customer_id']) {
          v1.all(path, async () => {
            throw new PremiaError('NOT_FOUND', SIMULATION_OFF_MESSAGE);
          });
        }
      }
    },
    { prefix: '/v1' },
  );

  return app;
}

interface Outcome {
  status: number;
  body: string;
  replayed: boolean;
}

/**
 * `Prefer: respond-async` (RFC 7240), with the time the client will wait for a synchronous answer
 * (`wait=N` seconds, at most 60), or null when the client did not ask for an asynchronous one.
 */
function respondAsync(header: string | string[] | undefined): { waitMs: number } | null {
  const text = [header ?? []].flat().join(',');
  let asked = false;
  let wait = 0;
  for (const token of text.split(/[,;]/)) {
    const [name, value] = token.split('=', 2).map((t) => t.trim().toLowerCase());
    if (name === 'respond-async') asked = true;
    else if (name === 'wait' && value !== undefined && /^\d{1,6}$/.test(value.replace(/"/g, ''))) wait = Math.min(60, Number(value.replace(/"/g, '')));
  }
  return asked ? { waitMs: wait * 1000 } : null;
}

/** Whether the promise settles within `ms` (0: only if it already has, by the next timer tick). */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}

function sendOutcome(reply: FastifyReply, outcome: Outcome): FastifyReply {
  if (outcome.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(outcome.status).type(JSON_TYPE).send(outcome.body);
}

function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new PremiaError('UNAUTHORIZED', 'Invalid or missing API key.');
  return request.principal;
}

function query(request: FastifyRequest): Record<string, unknown> {
  return (request.query ?? {}) as Record<string, unknown>;
}

/**
 * The query parameters of one of the spec's endpoints that it (or premia, like `lines`) defines;
 * any other is ignored, as a spec-only client may add one (a cache-buster such as `_=1`).
 */
function specQuery(request: FastifyRequest, names: readonly string[]): Record<string, unknown> {
  const all = query(request);
  const known: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(all, name)) known[name] = all[name];
  return known;
}

/**
 * The JSON object body of a request. `optional`: a request without a body counts as `{}`.
 * Anything but a JSON object (an array, a string, a multipart form) is refused.
 */
function jsonBody(request: FastifyRequest, optional: boolean): Record<string, unknown> {
  if (request.isMultipart()) {
    throw new PremiaError('UNSUPPORTED_MEDIA_TYPE', 'This endpoint takes a JSON body: send Content-Type: application/json.');
  }
  const body = request.body;
  if (body === undefined || body === null) {
    if (optional) return {};
    throw validationError('The request needs a JSON object body (Content-Type: application/json).', [
      { field: 'body', code: 'REQUIRED', message: 'a JSON object body is required' },
    ]);
  }
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw validationError('The body must be a JSON object.', [
      { field: 'body', code: 'INVALID_TYPE', message: `expected a JSON object, got ${Array.isArray(body) ? 'an array' : typeof body}` },
    ]);
  }
  return body as Record<string, unknown>;
}

/** A stored error body with the request id of this (replayed) request; the rest byte for byte. */
function withRequestId(body: string, requestId: string): string {
  return body.replace(/"request_id":"(?:[^"\\]|\\.)*"/, () => `"request_id":${JSON.stringify(requestId)}`);
}
