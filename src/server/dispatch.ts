/**
 * The routes of the /v1 API, registered from the operations table (backend/operations.ts). Each
 * resource's plugin (routes/<resource>.ts) holds one handler per operation name, and handlers
 * do only what is particular to their operation: check the input and name the backend call. What
 * every operation shares is applied here, once, from its row:
 *   - the query: refused (`none`), handed over whole (`all`), or the names a spec endpoint defines;
 *   - the body: a JSON object (optional or not) or a spooled upload;
 *   - a write runs as a job (jobs.ts), with its Idempotency-Key claimed and its response stored
 *     when the row takes one, and answered 202 with a Location when the row may be and the
 *     client asked (`Prefer: respond-async`);
 *   - the answer: JSON with the row's status, or a streamed download with the period-state
 *     header where the row says so.
 * Authentication, the rate limit, the role (an operator row refuses a client key, 403, before
 * its headers and body are looked at) and the error body are the /v1 scope's (app.ts), for every row.
 *
 * Every row needs a handler and every handler a row: `checkRoutes` refuses to start a server
 * otherwise, and app.ts refuses a route under /v1 that no row declares.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { LocalBackend } from '../backend/local/index.js';
import { OPERATION_LIST, OPERATIONS, type AnyOperation, type OperationsOf, type Operations, type Resource, type ResponseOf } from '../backend/operations.js';
import type { Download, Principal } from '../backend/types.js';
import { requestHash } from '../backend/wire.js';
import { PremiaError, validationError } from '../domain/errors.js';
import { formatPeriodStateHeader, PERIOD_STATE_HEADER } from '../domain/period-state.js';
import { validateNoQuery } from '../domain/requests.js';
import { operationJson, type AsyncOperations } from './async-operations.js';
import { errorBody, JSON_TYPE, sendDownload, sendJson, toPremiaError, unsupportedMediaType, type ErrorContext } from './http.js';
import { idempotencyKeyHeader, readIdempotencyKey } from './idempotency.js';
import type { JobAction, Jobs, JobSpec } from './jobs.js';
import { receiveHeldFile, type ReceivedFile, type UploadSlots } from './upload.js';

/** What a handler gets: the request as its row takes it, and who it acts for. */
export interface RequestContext {
  params: Record<string, string>;
  /** All of the query (`all`), the names a spec endpoint defines, or {} (`none`: any was refused). */
  query: Record<string, unknown>;
  /** The JSON object body ({} for an absent optional one, and for rows without a JSON body). */
  body: Record<string, unknown>;
  principal: Principal;
  /** The backend acting for the key's client. */
  readonly backend: LocalBackend;
  /** For a header of an operation's own (Retry-After of a running operation). */
  reply: FastifyReply;
  server: ServerState;
}

/** What the handlers of the service itself read. */
export interface ServerState {
  simulation: boolean;
  operations: AsyncOperations;
}

/** A write's work: its backend method's arguments (an upload's file comes first, added here), and what identifies the request (default: its body). */
export interface Work {
  args: unknown[];
  hashBody?: unknown;
}

/** A JSON body already written (the OpenAPI document, an operation with its stored response spliced in). */
export class JsonText {
  constructor(readonly text: string) {}
}

export type Handler<T = unknown> =
  | { kind: 'read'; run: (req: RequestContext) => Promise<T | JsonText> | T | JsonText }
  | { kind: 'download'; run: (req: RequestContext) => Promise<Download> }
  | { kind: 'write'; run: (req: RequestContext) => Work };

/** A read answered with JSON. */
export function read<T>(run: (req: RequestContext) => Promise<T | JsonText> | T | JsonText): Handler<T> {
  return { kind: 'read', run };
}

/** A read answered with a file (CSV or JSON), streamed. */
export function download(run: (req: RequestContext) => Promise<Download>): Handler<Download> {
  return { kind: 'download', run };
}

/** A write: the checked arguments of the row's backend method, run as a job. */
export function write(run: (req: RequestContext) => Work): Handler<never> {
  return { kind: 'write', run };
}

export type Handlers<R extends Resource> = { [N in OperationsOf<R>]: Handler<ResponseOf<Operations[N]>> };

/** One resource's routes: a fastify plugin registering a handler per operation of the resource. */
export interface ResourceRoutes {
  resource: string;
  handlers: Readonly<Record<string, Handler>>;
  plugin: FastifyPluginAsync<RouteDeps>;
}

/** What the generic parts need from the server. */
export interface RouteDeps {
  base: LocalBackend;
  jobs: Jobs;
  state: ServerState;
  limits: ErrorContext;
  uploadDir: string;
  /** The uploads each client holds (at most MAX_UPLOADS_PER_CLIENT at once). */
  uploads: UploadSlots;
  /** The uploads being received now: a stop waits for each to settle (a cut-off one removes its file). */
  receiving: Set<Promise<unknown>>;
  log: (line: string) => void;
  now: () => Date;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The row a /v1 route serves (or `simulationOff`: the 404 of a simulation path under --no-simulation). */
    operation?: AnyOperation;
    simulationOff?: boolean;
  }
}

/** The routes of a resource, registered from their rows. */
export function defineRoutes<R extends Resource>(resource: R, handlers: Handlers<R>): ResourceRoutes {
  const all = handlers as unknown as Record<string, Handler>;
  return {
    resource,
    handlers: all,
    plugin: async (app, deps) => {
      for (const [name, handler] of Object.entries(all)) {
        const row = (OPERATIONS as Record<string, AnyOperation>)[name];
        // checkRoutes has refused these; a plugin registered on its own refuses them too.
        if (!row || row.resource !== resource) throw new Error(`The route handler ${name} has no row of resource '${resource}' in the operations table.`);
        if (row.simulation && !deps.state.simulation) continue;
        app.route(routeOf(row, handler, deps));
      }
    },
  };
}

/**
 * Every row has exactly one handler, of its kind, in the plugin of its resource; every handler
 * has a row. Throws (the server does not start) naming each one that does not.
 */
export function checkRoutes(resources: readonly ResourceRoutes[], rows: readonly AnyOperation[] = OPERATION_LIST): void {
  const problems: string[] = [];
  const handled = new Map<string, string>();
  for (const { resource, handlers } of resources) {
    for (const [name, handler] of Object.entries(handlers)) {
      const row = rows.find((r) => r.name === name);
      if (!row) problems.push(`the handler ${name} (routes of ${resource}) has no row in the operations table`);
      else if (row.resource !== resource) problems.push(`the handler ${name} is in the routes of ${resource}, its row in those of ${row.resource}`);
      else if (handler.kind !== kindOf(row)) problems.push(`the handler ${name} is a ${handler.kind}, its row a ${kindOf(row)}`);
      if (handled.has(name)) problems.push(`the operation ${name} has two handlers (routes of ${handled.get(name)} and ${resource})`);
      handled.set(name, resource);
    }
  }
  for (const row of rows) if (!handled.has(row.name)) problems.push(`the operation ${row.name} (${row.method} ${row.path}) has no route handler`);
  if (problems.length > 0) throw new Error(`The routes do not match the operations table: ${problems.join('; ')}.`);
}

function kindOf(row: AnyOperation): Handler['kind'] {
  return row.job ? 'write' : row.response === 'download' ? 'download' : 'read';
}

/** The row's path as fastify writes it: /policies/{id} → /v1 scope's /policies/:id. */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** The fastify route of one row. */
function routeOf(row: AnyOperation, handler: Handler, deps: RouteDeps): RouteOptions {
  return {
    method: row.method,
    url: fastifyPath(row.path),
    config: { operation: row },
    // Before the body is read (and before a 100 Continue), so an upload of a client holding all
    // its upload slots already is refused before it is sent (a client key's on an operator row
    // was refused before this, by the /v1 scope: app.ts).
    onRequest:
      row.body === 'upload'
        ? async (request: FastifyRequest) => {
            deps.uploads.check(principalOf(request).clientId);
          }
        : undefined,
    handler: async (request, reply) => {
      const query = queryOf(row, request);
      const upload =
        row.body === 'upload'
          ? await receiving(deps.receiving, receiveHeldFile(request, principalOf(request).clientId, deps.uploads, deps.limits.uploadLimit, deps.uploadDir))
          : undefined;
      try {
        const body = row.body === 'json' || row.body === 'json-optional' ? jsonBody(request, row.body === 'json-optional') : {};
        const principal = principalOf(request);
        const req: RequestContext = {
          params: (request.params ?? {}) as Record<string, string>,
          query,
          body,
          principal,
          get backend() {
            return deps.base.forClient(principal.clientId);
          },
          reply,
          server: deps.state,
        };
        switch (handler.kind) {
          case 'read': {
            const value = await handler.run(req);
            if (value instanceof JsonText) return reply.code(row.status).type(JSON_TYPE).send(value.text);
            return sendJson(reply, row.status, value);
          }
          case 'download': {
            const file = await handler.run(req);
            // Whether the report is final: the CSV has no room for it (docs/settlements.md, "The collections report").
            if (row.periodState && file.periodState) reply.header(PERIOD_STATE_HEADER, formatPeriodStateHeader(file.periodState));
            return sendDownload(reply, file);
          }
          case 'write': {
            const work = handler.run(req);
            // What identifies the request for its Idempotency-Key: the JSON body as received ({} for an absent optional one), or the file.
            const hashBody = 'hashBody' in work ? work.hashBody : row.body === 'upload' ? null : body;
            return runWrite(request, reply, row, { args: work.args, hashBody }, upload, deps);
          }
        }
      } catch (e) {
        await upload?.remove();
        throw e;
      }
    },
  };
}

/** `reception`, counted in `set` until it settles (received whole, or refused with its file removed). */
function receiving<T>(set: Set<Promise<unknown>>, reception: Promise<T>): Promise<T> {
  const settled = reception.then(
    () => undefined,
    () => undefined,
  );
  set.add(settled);
  void settled.then(() => set.delete(settled));
  return reception;
}

/** The query as the row takes it. */
function queryOf(row: AnyOperation, request: FastifyRequest): Record<string, unknown> {
  const all = (request.query ?? {}) as Record<string, unknown>;
  if (row.query === 'none') {
    validateNoQuery(all);
    return {};
  }
  if (row.query === 'all') return all;
  const known: Record<string, unknown> = {};
  for (const name of row.query) if (Object.hasOwn(all, name)) known[name] = all[name];
  return known;
}

/**
 * Run a write as a job, off this thread where the store is a file, and answer with its outcome.
 * With an Idempotency-Key (the rows that take one) the first response is stored and a retry gets
 * it again. Where the row may be answered 202 and the client sends `Prefer: respond-async` (RFC
 * 7240), a job not done within its `wait` (default 0 s) is answered 202 with a Location to follow
 * (async-operations.ts); without it, the client gets the answer when the job is done, while the
 * server answers others meanwhile. The spooled upload is removed once the job has ended.
 */
async function runWrite(request: FastifyRequest, reply: FastifyReply, row: AnyOperation, work: Work, upload: ReceivedFile | undefined, deps: RouteDeps): Promise<FastifyReply> {
  const { base, jobs, state, limits, log, now } = deps;
  const principal = principalOf(request);
  const key = row.idempotent ? readIdempotencyKey(idempotencyKeyHeader(request)) : null;
  // The path without its query: query parameters of these routes are refused or ignored.
  const path = request.url.split('?', 1)[0]!;
  const spec: JobSpec = {
    clientId: principal.clientId,
    action: row.backend as JobAction,
    args: work.args,
    upload: upload ? { path: upload.path, name: upload.name, size: upload.size } : undefined,
    now: base.ctx.now().getTime(),
    status: row.status,
    idempotency:
      key === null
        ? undefined
        : {
            key,
            scope: row.storeWide === true ? base.admin.idempotency.storeScope : principal.clientId,
            hash: requestHash(request.method, path, work.hashBody, upload?.sha256, row.notIdentity),
            method: request.method,
            path,
            now: now().getTime(),
            owner: base.admin.idempotency.owner,
            inParts: row.commitsInParts === true,
          },
  };
  const preference = row.async ? respondAsync(request.headers.prefer) : null;
  const operations = state.operations;
  const op = preference ? operations.create(principal.clientId, request.method, path) : null;
  const ran = jobs.run(spec, op ? { onStart: () => operations.started(op), onProgress: (p) => operations.progressed(op, p) } : {});
  // The spooled file is removed before the outcome is told.
  const job = upload ? ran.finally(() => upload.remove()) : ran;
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
  const outcome = await finished;
  if (outcome.replayed) reply.header('idempotent-replayed', 'true');
  const created = outcome.status === 201 ? createdLocation(row, outcome.body) : null;
  if (created !== null) reply.header('location', created);
  return reply.code(outcome.status).type(JSON_TYPE).send(outcome.body);
}

/**
 * Where the resource a 201 made lives (RFC 9110: without a Location, a 201 names the request's
 * own URI, the collection): `/v1/policies/{id}`, `/v1/settlements/{id}`, from the body's `id`.
 * A replayed 201 gets it too, from its stored body.
 */
function createdLocation(row: AnyOperation, body: string): string | null {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' && id !== '' ? `/v1${row.path}/${encodeURIComponent(id)}` : null;
  } catch {
    return null;
  }
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

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new PremiaError('UNAUTHORIZED', 'Invalid or missing API key.');
  return request.principal;
}

/**
 * The JSON object body of a request. `optional`: a request without a body counts as `{}`.
 * Anything but a JSON object (an array, a string, a multipart form) is refused.
 */
function jsonBody(request: FastifyRequest, optional: boolean): Record<string, unknown> {
  if (request.isMultipart()) {
    throw unsupportedMediaType('json');
  }
  const body = request.body;
  if (body === undefined || (body === null && optional)) {
    if (optional) return {};
    throw validationError('The request needs a JSON object body (Content-Type: application/json).', [
      { field: 'body', code: 'REQUIRED', message: 'a JSON object body is required' },
    ]);
  }
  // A JSON `null` was sent (an empty body is undefined): the wrong type, not a missing body.
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError('The body must be a JSON object.', [
      { field: 'body', code: 'INVALID_TYPE', message: `expected a JSON object, got ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}` },
    ]);
  }
  return body as Record<string, unknown>;
}

/** A stored error body with the request id of this (replayed) request; the rest byte for byte. */
function withRequestId(body: string, requestId: string): string {
  return body.replace(/"request_id":"(?:[^"\\]|\\.)*"/, () => `"request_id":${JSON.stringify(requestId)}`);
}
