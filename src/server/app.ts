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
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import { initWorld, LOCAL_CLIENT_ID } from '../backend/local/world.js';
import { LocalBackend } from '../backend/local/index.js';
import { PremiaError, validationError } from '../domain/errors.js';
import { stringifyJson } from '../domain/json.js';
import { validatePolicyInput, validatePolicyPatch } from '../domain/policy.js';
import {
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
  validateSettlementRequest,
} from '../domain/requests.js';
import type { Store } from '../store/store.js';
import { claimKey, completeKey, readIdempotencyKey, releaseKey, requestHash } from './idempotency.js';
import { errorBody, JSON_TYPE, sendDownload, sendJson, toPremiaError } from './http.js';
import { authenticate, type Principal } from './keys.js';
import { openApiDocument } from './openapi.js';
import { receiveFile, type ReceivedFile } from './upload.js';

export const DEFAULT_JSON_LIMIT = 1024 * 1024;
export const DEFAULT_UPLOAD_LIMIT = 100 * 1024 * 1024;
/** Requests per API key per minute. */
export const DEFAULT_RATE_LIMIT = 600;
export const DEFAULT_RATE_WINDOW_MS = 60_000;

export interface ServerOptions {
  /** The backend to serve (its store is shared; each request acts for its key's client). */
  backend?: LocalBackend;
  /** Or a store: a backend is made on it. */
  store?: Store;
  /** Serve the clock and bank endpoints (the simulated bank). Default true. */
  simulation?: boolean;
  /** Largest JSON body in bytes (default 1 MiB). */
  jsonLimit?: number;
  /** Largest uploaded file in bytes (default 100 MiB). */
  uploadLimit?: number;
  /** Requests per API key per window; 0 turns rate limiting off. Default 600. */
  rateLimit?: number;
  rateLimitWindowMs?: number;
  /** Where uploads are spooled (default the OS temporary directory). */
  tmpDir?: string;
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
  constructor(readonly retryAfter: number) {
    super('RATE_LIMITED', `Too many requests for this API key; retry after ${retryAfter} seconds.`);
  }
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
  const base = await baseBackend(options, now);
  const store = base.store;
  const simulation = options.simulation ?? true;
  const jsonLimit = options.jsonLimit ?? DEFAULT_JSON_LIMIT;
  const uploadLimit = options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
  const rateMax = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const tmpDir = options.tmpDir ?? tmpdir();
  const log = options.log ?? (() => {});
  const limits = { jsonLimit, uploadLimit };

  const app = Fastify({
    logger: false,
    bodyLimit: jsonLimit,
    // Take a caller's X-Request-Id when it is a sane token (tracing across services), else make one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
  });
  app.decorateRequest('principal', null);
  // JSON only: a text/plain body is a 415, not a string handed to a handler.
  app.removeContentTypeParser('text/plain');
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

  // While closing, answers to requests still in flight end their connection, so that close()
  // does not wait for idle keep-alive connections to time out.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    reply.header(MARKER_HEADER, VERSION);
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const path = request.url.split('?', 1)[0];
    log(`${new Date().toISOString()} ${request.method} ${path} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms ${request.id}`);
  });

  app.setErrorHandler((err, request, reply) => {
    const { error, internal } = toPremiaError(err, limits);
    if (internal) log(`${new Date().toISOString()} error ${request.id}: ${(err as Error)?.stack ?? String(err)}`);
    if (err instanceof RateLimited) reply.header('retry-after', String(err.retryAfter));
    return reply.code(error.status).type(JSON_TYPE).send(errorBody(error, request.id));
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0];
    const error = new PremiaError('NOT_FOUND', `There is no endpoint ${request.method} ${path}; see GET /v1/openapi.json for the endpoints.`);
    return reply.code(404).type(JSON_TYPE).send(errorBody(error, request.id));
  });

  await app.register(
    async (v1) => {
      // Every route needs a key, the OpenAPI document included (spec section 5: every request).
      v1.addHook('onRequest', async (request) => {
        request.principal = await authenticate(store, request.headers['x-api-key']);
        if (limiter) {
          const verdict = await limiter(request);
          if (!verdict.isAllowed && verdict.isExceeded) throw new RateLimited(Math.max(1, verdict.ttlInSeconds));
        }
        // A bad Idempotency-Key is refused before the body is read.
        if (request.method === 'POST' || request.method === 'PATCH') readIdempotencyKey(request.headers['idempotency-key']);
      });

      const backendOf = (request: FastifyRequest): LocalBackend => base.forClient(principalOf(request).clientId);

      /**
       * Run a POST or PATCH: without an Idempotency-Key it simply runs; with one, the first
       * response is stored and a retry gets it again (see idempotency.ts).
       */
      async function mutate(
        request: FastifyRequest,
        reply: FastifyReply,
        status: number,
        hashBody: unknown,
        action: () => Promise<unknown>,
      ): Promise<FastifyReply> {
        return sendOutcome(reply, await run(request, status, hashBody, action));
      }

      async function run(
        request: FastifyRequest,
        status: number,
        hashBody: unknown,
        action: () => Promise<unknown>,
        fileSha256?: string,
      ): Promise<Outcome> {
        const key = readIdempotencyKey(request.headers['idempotency-key']);
        if (key === null) return { status, body: stringifyJson(await action()), replayed: false };
        const clientId = principalOf(request).clientId;
        const claim = await claimKey(store, {
          clientId,
          key,
          hash: requestHash(request.method, request.url, hashBody, fileSha256),
          method: request.method,
          path: request.url.split('?', 1)[0]!,
          now: now().getTime(),
        });
        if (claim.kind === 'replay') {
          const { status: stored, body } = claim.response;
          return { status: stored, body: stored >= 400 ? withRequestId(body, request.id) : body, replayed: true };
        }
        let value: unknown;
        try {
          value = await action();
        } catch (e) {
          const { error, internal } = toPremiaError(e, limits);
          if (internal || error.status >= 500) await releaseKey(store, clientId, key).catch(() => {});
          else {
            // Keep the refusal for replay; if even that fails, free the key rather than leave it in progress.
            await completeKey(store, clientId, key, { status: error.status, contentType: JSON_TYPE, body: errorBody(error, request.id) }).catch(
              () => releaseKey(store, clientId, key).catch(() => false),
            );
          }
          throw e;
        }
        const body = stringifyJson(value);
        try {
          const kept = await completeKey(store, clientId, key, { status, contentType: JSON_TYPE, body });
          if (!kept) log(`${new Date().toISOString()} warn ${request.id}: its Idempotency-Key was taken over by a retry while it ran; the retry's response is the one kept`);
        } catch (e) {
          await releaseKey(store, clientId, key).catch(() => {});
          throw e;
        }
        return { status, body, replayed: false };
      }

      /** An upload route: spool the file, run the import from the spooled copy, remove it, answer. */
      async function upload(
        request: FastifyRequest,
        reply: FastifyReply,
        importFile: (b: LocalBackend, file: ReceivedFile) => Promise<unknown>,
      ): Promise<FastifyReply> {
        validateNoQuery(query(request));
        const file = await receiveFile(request, uploadLimit, tmpDir);
        let outcome: Outcome;
        try {
          outcome = await run(request, 200, null, () => importFile(backendOf(request), file), file.sha256);
        } finally {
          await file.remove();
        }
        return sendOutcome(reply, outcome);
      }

      // -- meta ------------------------------------------------------------------------------
      v1.get('/openapi.json', async (request, reply) => {
        validateNoQuery(query(request));
        return reply.code(200).type(JSON_TYPE).send(JSON.stringify(await openApiDocument()));
      });
      v1.get('/whoami', async (request, reply) => {
        validateNoQuery(query(request));
        const p = principalOf(request);
        return sendJson(reply, 200, { client: p.clientName, key_id: p.keyId, simulation });
      });

      // -- policies --------------------------------------------------------------------------
      v1.post('/policies', async (request, reply) => {
        validateNoQuery(query(request));
        const raw = jsonBody(request, false);
        const input = validatePolicyInput(raw);
        return mutate(request, reply, 201, raw, () => backendOf(request).createPolicy(input));
      });
      v1.post('/policies/import', async (request, reply) =>
        upload(request, reply, (b, file) => b.importPolicies(file.open())),
      );
      v1.get('/policies', async (request, reply) => {
        const q = validatePolicyListQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).listPolicies(q));
      });
      v1.get<{ Params: { id: string } }>('/policies/:id', async (request, reply) => {
        validateNoQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).getPolicy(request.params.id));
      });
      v1.patch<{ Params: { id: string } }>('/policies/:id', async (request, reply) => {
        validateNoQuery(query(request));
        const raw = jsonBody(request, false);
        const patch = validatePolicyPatch(raw);
        return mutate(request, reply, 200, raw, () => backendOf(request).updatePolicy(request.params.id, patch));
      });

      // -- collections -----------------------------------------------------------------------
      v1.post('/collections/execute', async (request, reply) => {
        validateNoQuery(query(request));
        const raw = jsonBody(request, false);
        const input = validateExecuteRequest(raw);
        return mutate(request, reply, 202, raw, () => backendOf(request).executeCollections(input));
      });
      v1.get('/collections', async (request, reply) => {
        const q = validateCollectionListQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).listCollections(q));
      });
      v1.get<{ Params: { id: string } }>('/collections/:id', async (request, reply) => {
        validateNoQuery(query(request));
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
        const q = validateReportQuery(query(request));
        return sendDownload(reply, await backendOf(request).collectionsReport(q.period_month, q.format));
      });
      v1.get('/reports/attempts', async (request, reply) => {
        const q = validateReportQuery(query(request));
        return sendDownload(reply, await backendOf(request).exportAttempts(q.period_month, q.format));
      });

      // -- settlements -----------------------------------------------------------------------
      v1.post('/settlements', async (request, reply) => {
        validateNoQuery(query(request));
        const raw = jsonBody(request, false);
        const input = validateSettlementRequest(raw);
        return mutate(request, reply, 201, raw, () => backendOf(request).createSettlement(input.period_month));
      });
      v1.get('/settlements', async (request, reply) => {
        const q = validateSettlementListQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).listSettlements(q));
      });
      v1.get<{ Params: { id: string } }>('/settlements/:id', async (request, reply) => {
        validateNoQuery(query(request));
        return sendJson(reply, 200, await backendOf(request).getSettlement(request.params.id));
      });
      v1.get<{ Params: { id: string } }>('/settlements/:id/export', async (request, reply) => {
        const q = validateExportQuery(query(request));
        return sendDownload(reply, await backendOf(request).exportSettlement(request.params.id, { lines: q.lines }));
      });
      v1.post<{ Params: { id: string } }>('/settlements/:id/mark-paid', async (request, reply) => {
        validateNoQuery(query(request));
        const raw = jsonBody(request, true);
        const input = validateMarkPaidRequest(raw);
        return mutate(request, reply, 200, raw, () => backendOf(request).markSettlementPaid(request.params.id, input));
      });
      v1.post<{ Params: { id: string } }>('/settlements/:id/dispute', async (request, reply) => {
        validateNoQuery(query(request));
        const raw = jsonBody(request, false);
        const input = validateDisputeRequest(raw);
        return mutate(request, reply, 200, raw, () => backendOf(request).disputeSettlement(request.params.id, input.reason));
      });

      // -- simulation: the virtual clock and the simulated bank -------------------------------
      if (simulation) {
        v1.get('/clock', async (request, reply) => {
          validateNoQuery(query(request));
          return sendJson(reply, 200, await backendOf(request).getClock());
        });
        v1.put('/clock', async (request, reply) => {
          validateNoQuery(query(request));
          const input = validateClockSetRequest(jsonBody(request, false));
          return sendJson(reply, 200, await backendOf(request).setClock(input.date));
        });
        v1.post('/clock/advance', async (request, reply) => {
          validateNoQuery(query(request));
          const raw = jsonBody(request, false);
          const input = validateAdvanceRequest(raw);
          return mutate(request, reply, 200, raw, () => backendOf(request).advanceClock(input));
        });
        v1.post('/bank/seed', async (request, reply) => {
          validateNoQuery(query(request));
          const raw = jsonBody(request, false);
          const input = validateSeedRequest(raw);
          return mutate(request, reply, 200, raw, () => backendOf(request).seedBank(input.seed));
        });
        v1.post('/bank/import', async (request, reply) =>
          upload(request, reply, (b, file) => b.importBankTransactions(file.open())),
        );
        v1.get<{ Params: { customer_id: string } }>('/bank/accounts/:customer_id', async (request, reply) => {
          validateNoQuery(query(request));
          return sendJson(reply, 200, await backendOf(request).showBankAccount(request.params.customer_id));
        });
      }
    },
    { prefix: '/v1' },
  );

  return app;
}

async function baseBackend(options: ServerOptions, now: () => Date): Promise<LocalBackend> {
  if (options.backend) return options.backend;
  if (!options.store) throw new TypeError('createServer needs a backend or a store');
  await initWorld(options.store, { realToday: now().toISOString().slice(0, 10) });
  return new LocalBackend({ store: options.store, clientId: LOCAL_CLIENT_ID, now }, false);
}

interface Outcome {
  status: number;
  body: string;
  replayed: boolean;
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
