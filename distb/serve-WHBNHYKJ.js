import {
  LocalBackend,
  processIsAlive
} from "./chunk-UZFRA4BN.js";
import "./chunk-KZMX44YV.js";
import "./chunk-QFVJLG6N.js";
import "./chunk-V3ZTTVYI.js";
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
  validateSettlementRequest
} from "./chunk-HUXLOL7T.js";
import {
  validatePolicyInput,
  validatePolicyPatch
} from "./chunk-IVFONV4X.js";
import "./chunk-MRLEVLPO.js";
import "./chunk-F6XEBFEX.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import "./chunk-Z3CTVQDO.js";
import "./chunk-7L3A4ARV.js";
import "./chunk-MFYXJBV4.js";
import "./chunk-KIJGBPVL.js";
import {
  PERIOD_STATE_HEADER,
  formatPeriodStateHeader
} from "./chunk-FKNU4UUY.js";
import "./chunk-CXYRJJKB.js";
import {
  OPERATIONS,
  OPERATION_LIST,
  requestHash
} from "./chunk-GR6SVUMH.js";
import {
  stringifyJson
} from "./chunk-MHVTT2HV.js";
import "./chunk-JX2JAKWC.js";
import {
  plural
} from "./chunk-7BKCKV6J.js";
import {
  PremiaError,
  notFound,
  usageError,
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/server/app.js
import { randomUUID as randomUUID3 } from "node:crypto";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import Fastify from "fastify";
import multipart from "@fastify/multipart";
import rateLimit from "@fastify/rate-limit";

// dist/server/async-operations.js
import { randomUUID } from "node:crypto";
var OPERATION_TTL_MS = 60 * 60 * 1e3;
var MAX_OPERATIONS = 1e3;
var AsyncOperations = class {
  now;
  ops = /* @__PURE__ */ new Map();
  constructor(now) {
    this.now = now;
  }
  create(clientId, method, path) {
    this.prune();
    const op = {
      id: randomUUID(),
      clientId,
      method,
      path,
      state: "queued",
      createdAt: this.now(),
      completedAt: null,
      progress: null,
      days: [],
      result: null
    };
    this.ops.set(op.id, op);
    return op;
  }
  /** The operation of this client with this id (another client's is not found either). */
  get(clientId, id) {
    this.prune();
    const op = this.ops.get(id);
    return op && op.clientId === clientId ? op : void 0;
  }
  started(op) {
    if (op.state === "queued")
      op.state = "running";
  }
  progressed(op, p) {
    if (p.unit === "days") {
      op.days.push(p.day);
      op.progress = { unit: "days", done: p.done, total: p.total };
    } else {
      op.progress = { unit: "bytes", done: p.done, total: p.total, rows: p.rows };
    }
  }
  finished(op, outcome) {
    op.state = outcome.status < 400 ? "succeeded" : "failed";
    op.completedAt = this.now();
    op.result = { status: outcome.status, body: outcome.body, replayed: outcome.replayed };
  }
  /** Forget operations that ended more than an hour ago, and the oldest beyond the cap. */
  prune() {
    const now = this.now();
    for (const [id, op] of this.ops) {
      if (op.completedAt !== null && now - op.completedAt > OPERATION_TTL_MS)
        this.ops.delete(id);
    }
    for (const [id, op] of this.ops) {
      if (this.ops.size < MAX_OPERATIONS)
        break;
      if (op.completedAt !== null)
        this.ops.delete(id);
    }
  }
};
function operationJson(op) {
  const view = {
    id: op.id,
    status: op.state,
    request: { method: op.method, path: op.path },
    created_at: new Date(op.createdAt).toISOString(),
    completed_at: op.completedAt === null ? null : new Date(op.completedAt).toISOString(),
    progress: op.progress
  };
  if (op.progress?.unit === "days")
    view.days = op.days;
  const head = stringifyJson(view);
  const result = op.result === null ? "null" : `{"status":${op.result.status},"replayed":${op.result.replayed},"body":${op.result.body}}`;
  return `${head.slice(0, -1)},"result":${result}}`;
}

// dist/server/auth-limit.js
var DEFAULT_AUTH_FAILURES = 20;
var DEFAULT_AUTH_WINDOW_MS = 6e4;
var MAX_ADDRESSES = 1e4;
var MAX_GOOD_KEYS = 8;
var FailedAuthLimiter = class {
  max;
  windowMs;
  now;
  entries = /* @__PURE__ */ new Map();
  constructor(max, windowMs, now) {
    this.max = max;
    this.windowMs = windowMs;
    this.now = now;
  }
  /**
   * Before the lookup: the seconds this address must wait, or null to go on (it is not blocked,
   * or `digest` is a key that authenticated from it before).
   */
  blocked(address, digest) {
    const entry = this.current(address);
    if (!entry || entry.failures < this.max)
      return null;
    if (digest !== null && entry.good.includes(digest))
      return null;
    return Math.max(1, Math.ceil((entry.windowStart + this.windowMs - this.now()) / 1e3));
  }
  failed(address) {
    const entry = this.current(address) ?? { windowStart: this.now(), failures: 0, good: [] };
    if (entry.failures === 0)
      entry.windowStart = this.now();
    entry.failures++;
    this.touch(address, entry);
  }
  succeeded(address, digest) {
    const entry = this.current(address) ?? { windowStart: this.now(), failures: 0, good: [] };
    if (!entry.good.includes(digest)) {
      entry.good.push(digest);
      if (entry.good.length > MAX_GOOD_KEYS)
        entry.good.shift();
    }
    this.touch(address, entry);
  }
  /** The address's entry, its failures reset once their window has passed. */
  current(address) {
    const entry = this.entries.get(address);
    if (entry && entry.failures > 0 && this.now() >= entry.windowStart + this.windowMs)
      entry.failures = 0;
    return entry;
  }
  touch(address, entry) {
    this.entries.delete(address);
    this.entries.set(address, entry);
    if (this.entries.size > MAX_ADDRESSES)
      this.entries.delete(this.entries.keys().next().value);
  }
};

// dist/server/auth.js
import { createHash } from "node:crypto";
var WWW_AUTHENTICATE = 'ApiKey realm="premia", header="X-API-Key"';
var FORBIDDEN_MESSAGE = "This needs an operator key: the virtual clock and the simulated bank belong to the whole store, so a client key may only read the clock. The operator makes one with 'premia keys create --operator'.";
function forbidden() {
  return new PremiaError("FORBIDDEN", FORBIDDEN_MESSAGE);
}
var RateLimited = class extends PremiaError {
  retryAfter;
  constructor(retryAfter, what = "Too many requests for this API key") {
    super("RATE_LIMITED", `${what}; retry after ${plural(retryAfter, "second")}.`);
    this.retryAfter = retryAfter;
  }
};
function authenticator(admin, limiter) {
  return async (request) => {
    const presented = request.headers["x-api-key"];
    if (!limiter)
      return admin.keys.authenticate(presented);
    const address = request.ip;
    const digest = typeof presented === "string" && presented.length > 0 && presented.length <= 256 ? createHash("sha256").update(presented, "utf8").digest("hex") : null;
    const wait = limiter.blocked(address, digest);
    if (wait !== null)
      throw new RateLimited(wait, "Too many requests with a missing or invalid API key from this address");
    try {
      const principal = await admin.keys.authenticate(presented);
      limiter.succeeded(address, digest);
      return principal;
    } catch (e) {
      if (e instanceof PremiaError && e.code === "UNAUTHORIZED")
        limiter.failed(address);
      throw e;
    }
  };
}

// dist/server/http.js
import { Readable } from "node:stream";
var JSON_TYPE = "application/json; charset=utf-8";
function sendJson(reply, status, value) {
  return reply.code(status).type(JSON_TYPE).send(stringifyJson(value));
}
function errorBody(e, requestId) {
  return stringifyJson(e.toBody(requestId));
}
async function sendDownload(reply, download2) {
  const iterator = download2.body[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* rest() {
    try {
      if (first.done)
        return;
      yield toBuffer(first.value);
      for (; ; ) {
        const next = await iterator.next();
        if (next.done)
          return;
        yield toBuffer(next.value);
      }
    } finally {
      await iterator.return?.();
    }
  }
  reply.code(200).type(download2.contentType);
  if (download2.contentType.startsWith("text/csv")) {
    reply.header("content-disposition", `attachment; filename="${download2.filename.replace(/["\\\r\n]/g, "_")}"`);
  }
  return reply.send(Readable.from(rest(), { objectMode: false }));
}
function toBuffer(chunk) {
  return typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
function toPremiaError(e, ctx) {
  if (e instanceof PremiaError) {
    if (e.status >= 500 && e.code !== "NOT_SUPPORTED" && e.code !== SERVICE_UNAVAILABLE) {
      const message = e.code === "STORE_BUSY" ? "The store is busy (another process holds it); try again shortly." : "The service failed unexpectedly; the error was logged with this request id.";
      return { error: new PremiaError(e.code, message, { status: e.status }), internal: true };
    }
    return { error: e, internal: false };
  }
  const fe = e;
  const code = typeof fe.code === "string" ? fe.code : "";
  switch (code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return known(new PremiaError("PAYLOAD_TOO_LARGE", `The JSON body is larger than the limit of ${ctx.jsonLimit} bytes.`, {
        details: [{ field: "body", code: "TOO_LARGE", message: `at most ${ctx.jsonLimit} bytes`, limit: ctx.jsonLimit }]
      }));
    case "FST_REQ_FILE_TOO_LARGE":
      return known(uploadTooLarge(ctx.uploadLimit));
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_INVALID_MULTIPART_CONTENT_TYPE":
      return known(new PremiaError("UNSUPPORTED_MEDIA_TYPE", "This Content-Type is not accepted here: send JSON as application/json, and files as multipart/form-data."));
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return known(validationError("The body is empty; send a JSON object.", [{ field: "body", code: "REQUIRED", message: "the JSON body is empty" }]));
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return known(validationError("The Content-Length does not match the body.", [{ field: "body", code: "INVALID_LENGTH", message: "Content-Length and body differ" }]));
    case "FST_FILES_LIMIT":
    case "FST_PARTS_LIMIT":
    case "FST_FIELDS_LIMIT":
      return known(validationError("Send exactly one file, in a part named file; nothing was imported.", [
        { field: "file", code: "TOO_MANY_PARTS", message: "the form has more than one file or too many parts" }
      ]));
    case "FST_MP_PREMATURE_CLOSE":
      return known(validationError("The upload ended before the file was complete.", [{ field: "file", code: "INCOMPLETE", message: "the multipart body ended early" }]));
    case "FST_ERR_BAD_URL":
      return known(validationError("The URL has a malformed percent-escape (%XX); encode the path as UTF-8.", [
        { field: "path", code: "INVALID_ENCODING", message: "the path is not valid percent-encoded UTF-8" }
      ]));
    case "FST_ERR_MAX_PARAM_LENGTH":
      return known(validationError("A path segment is longer than 100 characters; no id or number is that long.", [
        { field: "path", code: "TOO_LONG", message: "a path segment is longer than 100 characters" }
      ]));
    case "FST_PROTO_VIOLATION":
      return known(validationError("A form field name is not allowed.", [{ field: "file", code: "INVALID_FIELD", message: "forbidden field name" }]));
    default:
      break;
  }
  const malformed = malformedMultipart(e);
  if (malformed)
    return known(malformed);
  const status = typeof fe.statusCode === "number" ? fe.statusCode : 500;
  if (status === 400 || e instanceof SyntaxError && status < 500) {
    const what = (fe.message ?? "bad request").slice(0, 200);
    return known(validationError(`The body is not valid JSON: ${what}.`, [{ field: "body", code: "INVALID_JSON", message: what }]));
  }
  if (status === 404)
    return known(new PremiaError("NOT_FOUND", "Not found."));
  if (status === 413)
    return known(new PremiaError("PAYLOAD_TOO_LARGE", "The request is too large."));
  if (status === 415)
    return known(new PremiaError("UNSUPPORTED_MEDIA_TYPE", "This Content-Type is not accepted here."));
  if (status > 400 && status < 500)
    return known(new PremiaError("VALIDATION_ERROR", (fe.message ?? "Bad request.").slice(0, 200), { status }));
  return {
    error: new PremiaError("INTERNAL", "The service failed unexpectedly; the error was logged with this request id."),
    internal: true
  };
}
function malformedMultipart(e) {
  if (!(e instanceof Error) || e.code !== void 0 || e instanceof PremiaError)
    return null;
  const m = e.message;
  if (/^Multipart: Boundary not found$|^Boundary required$|^The needle (cannot be an empty|cannot have a length bigger)/.test(m)) {
    return validationError("The multipart body has no usable boundary: send Content-Type: multipart/form-data; boundary=... with a body in that form (curl -F file=@policies.csv does both); nothing was imported.", [{ field: "file", code: "MALFORMED_MULTIPART", message: "the Content-Type has no usable multipart boundary" }]);
  }
  if (/^Unexpected end of multipart data$|terminated early due to unexpected end of multipart data$/.test(m)) {
    return validationError("The multipart body ended before its closing boundary: the upload is incomplete or not multipart/form-data; nothing was imported.", [
      { field: "file", code: "INCOMPLETE", message: "the multipart body ended before its closing boundary" }
    ]);
  }
  return null;
}
var SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE";
function known(error) {
  return { error, internal: false };
}
function uploadTooLarge(limit) {
  return new PremiaError("PAYLOAD_TOO_LARGE", `The file is larger than the upload limit of ${limit} bytes; nothing was imported.`, {
    details: [{ field: "file", code: "TOO_LARGE", message: `at most ${limit} bytes`, limit }]
  });
}

// dist/server/idempotency.js
var KEY_RE = /^[\x20-\x7e]{1,255}$/;
function readIdempotencyKey(header) {
  if (header === void 0)
    return null;
  if (Array.isArray(header)) {
    throw validationError("Send one Idempotency-Key header, not several.", [
      { field: "Idempotency-Key", code: "REPEATED", message: "Idempotency-Key was sent more than once" }
    ]);
  }
  if (!KEY_RE.test(header)) {
    throw validationError("The Idempotency-Key header must be 1\u2013255 printable ASCII characters.", [
      { field: "Idempotency-Key", code: "INVALID_FORMAT", message: "Idempotency-Key must be 1\u2013255 printable ASCII characters" }
    ]);
  }
  return header;
}

// dist/server/upload.js
import { createHash as createHash2, randomBytes, randomUUID as randomUUID2 } from "node:crypto";
import { createReadStream, createWriteStream, realpathSync } from "node:fs";
import { chmod, lstat, mkdir, readdir, rm } from "node:fs/promises";
import { dirname, basename, join, resolve } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
var PROCESS_TOKEN = randomBytes(8).toString("hex");
var UPLOAD_NAME = /^upload-(\d{1,10})-([0-9a-f]{16})-[0-9a-f-]{36}$/;
var STALE_AFTER_MS = 24 * 60 * 60 * 1e3;
function uploadDirectory(tmpDir, storePath) {
  let real = resolve(storePath);
  try {
    real = join(realpathSync(dirname(real)), basename(real));
  } catch {
  }
  return join(tmpDir, `premia-uploads-${createHash2("sha256").update(real).digest("hex").slice(0, 16)}`);
}
async function prepareUploadDirectory(tmpDir, storePath, log) {
  const dir = uploadDirectory(tmpDir, storePath);
  await ensureDirectory(dir);
  let removed = 0;
  const now = Date.now();
  for (const name of await readdir(dir)) {
    const m = UPLOAD_NAME.exec(name);
    if (!m)
      continue;
    const pid = Number(m[1]);
    const mine = pid === process.pid && m[2] === PROCESS_TOKEN;
    if (mine)
      continue;
    let stale = pid === process.pid || !processIsAlive(pid);
    if (!stale) {
      const mtime = await lstat(join(dir, name)).then((f) => f.mtimeMs, () => now);
      stale = now - mtime > STALE_AFTER_MS;
    }
    if (stale) {
      await rm(join(dir, name), { force: true });
      removed++;
    }
  }
  if (removed > 0)
    log(`${(/* @__PURE__ */ new Date()).toISOString()} removed ${removed} upload file${removed === 1 ? "" : "s"} left by servers that stopped (in ${dir})`);
  return dir;
}
async function ensureDirectory(dir) {
  await mkdir(dir, { mode: 448 }).catch((e) => {
    if (e.code !== "EEXIST")
      throw e;
  });
  const st = await lstat(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || uid !== void 0 && st.uid !== uid) {
    throw new PremiaError("INTERNAL", `${dir} is not a directory premia made (${st.isDirectory() ? "it belongs to another user" : "it is not a directory"}); uploads are not spooled there. Remove it, or point TMPDIR elsewhere.`);
  }
  if ((st.mode & 511) !== 448)
    await chmod(dir, 448);
}
async function receiveFile(request, limit, dir) {
  if (!request.isMultipart()) {
    throw new PremiaError("UNSUPPORTED_MEDIA_TYPE", "Send the file as multipart/form-data, in a part named file (curl -F file=@policies.csv).");
  }
  let received;
  try {
    const options = { limits: { fileSize: limit, files: 1, fields: 20, parts: 25 }, throwFileSizeLimit: true };
    const parts = request.parts(options);
    for await (const part of parts) {
      if (part.type !== "file")
        continue;
      if (received) {
        part.file.resume();
        throw tooManyParts();
      }
      if (part.fieldname !== "file") {
        part.file.resume();
        throw validationError(`The file part must be named file; got '${part.fieldname.slice(0, 64)}'.`, [
          { field: "file", code: "REQUIRED", message: `the file part is named '${part.fieldname.slice(0, 64)}', not file` }
        ]);
      }
      await ensureDirectory(dir);
      received = await spool(part.file, part.filename, limit, dir);
    }
  } catch (e) {
    await received?.remove();
    throw e;
  }
  if (!received) {
    throw validationError("The form has no file: send it in a part named file.", [
      { field: "file", code: "REQUIRED", message: "no file part in the form" }
    ]);
  }
  return received;
}
function tooManyParts() {
  return validationError("Send exactly one file, in a part named file; nothing was imported.", [
    { field: "file", code: "TOO_MANY_PARTS", message: "the form has more than one file or too many parts" }
  ]);
}
async function spool(file, filename, limit, dir) {
  const path = join(dir, `upload-${process.pid}-${PROCESS_TOKEN}-${randomUUID2()}`);
  const hash = createHash2("sha256");
  let size = 0;
  const remove = () => rm(path, { force: true });
  try {
    await pipeline(file, new Transform({
      transform(chunk, _encoding, callback) {
        hash.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      }
    }), createWriteStream(path, { flags: "wx", mode: 384 }));
  } catch (e) {
    await remove();
    throw e;
  }
  if (file.truncated || size > limit) {
    await remove();
    throw uploadTooLarge(limit);
  }
  const name = safeName(filename);
  return {
    path,
    name,
    size,
    sha256: hash.digest("hex"),
    open: () => ({ name, size, stream: createReadStream(path, { highWaterMark: 1 << 20 }) }),
    remove
  };
}
function safeName(filename) {
  const base = (filename ?? "").split(/[/\\]/).pop() ?? "";
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, "").slice(0, 100);
  return clean === "" ? "upload" : clean;
}

// dist/server/dispatch.js
var JsonText = class {
  text;
  constructor(text) {
    this.text = text;
  }
};
function read(run) {
  return { kind: "read", run };
}
function download(run) {
  return { kind: "download", run };
}
function write(run) {
  return { kind: "write", run };
}
function defineRoutes(resource, handlers) {
  const all = handlers;
  return {
    resource,
    handlers: all,
    plugin: async (app, deps) => {
      for (const [name, handler] of Object.entries(all)) {
        const row = OPERATIONS[name];
        if (!row || row.resource !== resource)
          throw new Error(`The route handler ${name} has no row of resource '${resource}' in the operations table.`);
        if (row.simulation && !deps.state.simulation)
          continue;
        app.route(routeOf(row, handler, deps));
      }
    }
  };
}
function checkRoutes(resources, rows = OPERATION_LIST) {
  const problems = [];
  const handled = /* @__PURE__ */ new Map();
  for (const { resource, handlers } of resources) {
    for (const [name, handler] of Object.entries(handlers)) {
      const row = rows.find((r) => r.name === name);
      if (!row)
        problems.push(`the handler ${name} (routes of ${resource}) has no row in the operations table`);
      else if (row.resource !== resource)
        problems.push(`the handler ${name} is in the routes of ${resource}, its row in those of ${row.resource}`);
      else if (handler.kind !== kindOf(row))
        problems.push(`the handler ${name} is a ${handler.kind}, its row a ${kindOf(row)}`);
      if (handled.has(name))
        problems.push(`the operation ${name} has two handlers (routes of ${handled.get(name)} and ${resource})`);
      handled.set(name, resource);
    }
  }
  for (const row of rows)
    if (!handled.has(row.name))
      problems.push(`the operation ${row.name} (${row.method} ${row.path}) has no route handler`);
  if (problems.length > 0)
    throw new Error(`The routes do not match the operations table: ${problems.join("; ")}.`);
}
function kindOf(row) {
  return row.job ? "write" : row.response === "download" ? "download" : "read";
}
function fastifyPath(path) {
  return path.replace(/\{(\w+)\}/g, ":$1");
}
function routeOf(row, handler, deps) {
  return {
    method: row.method,
    url: fastifyPath(row.path),
    config: { operation: row },
    // Before the body is read, so a client key's upload is refused before it is sent.
    onRequest: row.role === "operator" ? async (request) => {
      if (principalOf(request).role !== "operator")
        throw forbidden();
    } : void 0,
    handler: async (request, reply) => {
      const query = queryOf(row, request);
      const upload = row.body === "upload" ? await receiveFile(request, deps.limits.uploadLimit, deps.uploadDir) : void 0;
      try {
        const body = row.body === "json" || row.body === "json-optional" ? jsonBody(request, row.body === "json-optional") : {};
        const principal = principalOf(request);
        const req = {
          params: request.params ?? {},
          query,
          body,
          principal,
          get backend() {
            return deps.base.forClient(principal.clientId);
          },
          reply,
          server: deps.state
        };
        switch (handler.kind) {
          case "read": {
            const value = await handler.run(req);
            if (value instanceof JsonText)
              return reply.code(row.status).type(JSON_TYPE).send(value.text);
            return sendJson(reply, row.status, value);
          }
          case "download": {
            const file = await handler.run(req);
            if (row.periodState && file.periodState)
              reply.header(PERIOD_STATE_HEADER, formatPeriodStateHeader(file.periodState));
            return sendDownload(reply, file);
          }
          case "write": {
            const work = handler.run(req);
            const hashBody = "hashBody" in work ? work.hashBody : row.body === "upload" ? null : body;
            return runWrite(request, reply, row, { args: work.args, hashBody }, upload, deps);
          }
        }
      } catch (e) {
        await upload?.remove();
        throw e;
      }
    }
  };
}
function queryOf(row, request) {
  const all = request.query ?? {};
  if (row.query === "none") {
    validateNoQuery(all);
    return {};
  }
  if (row.query === "all")
    return all;
  const known2 = {};
  for (const name of row.query)
    if (Object.hasOwn(all, name))
      known2[name] = all[name];
  return known2;
}
async function runWrite(request, reply, row, work, upload, deps) {
  const { base, jobs, state, limits, log, now } = deps;
  const principal = principalOf(request);
  const key = row.idempotent ? readIdempotencyKey(request.headers["idempotency-key"]) : null;
  const path = request.url.split("?", 1)[0];
  const spec = {
    clientId: principal.clientId,
    action: row.backend,
    args: work.args,
    upload: upload ? { path: upload.path, name: upload.name, size: upload.size } : void 0,
    now: base.ctx.now().getTime(),
    status: row.status,
    idempotency: key === null ? void 0 : {
      key,
      hash: requestHash(request.method, path, work.hashBody, upload?.sha256),
      method: request.method,
      path,
      now: now().getTime(),
      owner: base.admin.idempotency.owner
    }
  };
  const preference = row.async ? respondAsync(request.headers.prefer) : null;
  const operations = state.operations;
  const op = preference ? operations.create(principal.clientId, request.method, path) : null;
  const ran = jobs.run(spec, op ? { onStart: () => operations.started(op), onProgress: (p) => operations.progressed(op, p) } : {});
  const job = upload ? ran.finally(() => upload.remove()) : ran;
  const finished = job.then((outcome2) => {
    if (!outcome2.kept)
      log(`${(/* @__PURE__ */ new Date()).toISOString()} warn ${request.id}: its Idempotency-Key was taken over by a retry while it ran; the retry's response is the one kept`);
    return outcome2.replayed && outcome2.status >= 400 ? { ...outcome2, body: withRequestId(outcome2.body, request.id) } : outcome2;
  });
  if (op && preference) {
    let answered202 = false;
    finished.then((outcome2) => operations.finished(op, outcome2), (e) => {
      const { error, internal } = toPremiaError(e, limits);
      if (internal && answered202)
        log(`${(/* @__PURE__ */ new Date()).toISOString()} error ${request.id}: ${e?.stack ?? String(e)}`);
      operations.finished(op, { status: error.status, body: errorBody(error, request.id), replayed: false, kept: true });
    });
    if (!await settlesWithin(finished, preference.waitMs)) {
      answered202 = true;
      return reply.code(202).header("location", `/v1/operations/${op.id}`).header("preference-applied", "respond-async").header("retry-after", "1").type(JSON_TYPE).send(operationJson(op));
    }
  }
  const outcome = await finished;
  if (outcome.replayed)
    reply.header("idempotent-replayed", "true");
  return reply.code(outcome.status).type(JSON_TYPE).send(outcome.body);
}
function respondAsync(header) {
  const text = [header ?? []].flat().join(",");
  let asked = false;
  let wait = 0;
  for (const token of text.split(/[,;]/)) {
    const [name, value] = token.split("=", 2).map((t) => t.trim().toLowerCase());
    if (name === "respond-async")
      asked = true;
    else if (name === "wait" && value !== void 0 && /^\d{1,6}$/.test(value.replace(/"/g, "")))
      wait = Math.min(60, Number(value.replace(/"/g, "")));
  }
  return asked ? { waitMs: wait * 1e3 } : null;
}
function settlesWithin(promise, ms) {
  return new Promise((resolve2) => {
    const timer = setTimeout(() => resolve2(false), ms);
    promise.then(() => {
      clearTimeout(timer);
      resolve2(true);
    }, () => {
      clearTimeout(timer);
      resolve2(true);
    });
  });
}
function principalOf(request) {
  if (!request.principal)
    throw new PremiaError("UNAUTHORIZED", "Invalid or missing API key.");
  return request.principal;
}
function jsonBody(request, optional) {
  if (request.isMultipart()) {
    throw new PremiaError("UNSUPPORTED_MEDIA_TYPE", "This endpoint takes a JSON body: send Content-Type: application/json.");
  }
  const body = request.body;
  if (body === void 0 || body === null) {
    if (optional)
      return {};
    throw validationError("The request needs a JSON object body (Content-Type: application/json).", [
      { field: "body", code: "REQUIRED", message: "a JSON object body is required" }
    ]);
  }
  if (typeof body !== "object" || Array.isArray(body)) {
    throw validationError("The body must be a JSON object.", [
      { field: "body", code: "INVALID_TYPE", message: `expected a JSON object, got ${Array.isArray(body) ? "an array" : typeof body}` }
    ]);
  }
  return body;
}
function withRequestId(body, requestId) {
  return body.replace(/"request_id":"(?:[^"\\]|\\.)*"/, () => `"request_id":${JSON.stringify(requestId)}`);
}

// dist/server/jobs.js
import { createReadStream as createReadStream2, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
var JOB_ACTIONS = [
  "createPolicy",
  "updatePolicy",
  "importPolicies",
  "executeCollections",
  "createSettlement",
  "markSettlementPaid",
  "disputeSettlement",
  "setClock",
  "advanceClock",
  "seedBank",
  "importBankTransactions"
];
async function runJob(base, backendFor, spec, onProgress) {
  const idem = spec.idempotency;
  const records = base.admin.idempotency;
  const action = () => invoke(backendFor(spec.clientId), spec, onProgress);
  if (!idem)
    return { status: spec.status, body: stringifyJson(await action()), replayed: false, kept: true };
  const claim = await records.claim({ clientId: spec.clientId, key: idem.key, hash: idem.hash, method: idem.method, path: idem.path, now: idem.now, owner: idem.owner });
  if (claim.kind === "replay")
    return { status: claim.response.status, body: claim.response.body, replayed: true, kept: true };
  let value;
  try {
    value = await action();
  } catch (e) {
    await records.release(spec.clientId, idem.key, idem.owner).catch(() => {
    });
    throw e;
  }
  const body = stringifyJson(value);
  let kept;
  try {
    kept = await records.complete(spec.clientId, idem.key, { status: spec.status, contentType: "application/json; charset=utf-8", body }, idem.owner);
  } catch (e) {
    await records.release(spec.clientId, idem.key, idem.owner).catch(() => {
    });
    throw e;
  }
  return { status: spec.status, body, replayed: false, kept };
}
var PROGRESS_EVERY_MS = 100;
function invoke(b, spec, onProgress) {
  switch (spec.action) {
    case "importPolicies":
    case "importBankTransactions": {
      const file = spec.upload;
      let last = 0;
      const options = {
        onProgress: (p) => {
          const at = Date.now();
          if (!onProgress || at - last < PROGRESS_EVERY_MS)
            return;
          last = at;
          onProgress({ unit: "bytes", done: p.bytes, total: file.size, rows: p.rows });
        }
      };
      return spec.action === "importPolicies" ? b.importPolicies(openUpload(file), options) : b.importBankTransactions(openUpload(file), options);
    }
    case "advanceClock":
      return b.advanceClock(spec.args[0], { onDay: (day, index, total) => onProgress?.({ unit: "days", done: index, total, day }) });
    default: {
      if (!JOB_ACTIONS.includes(spec.action))
        throw new PremiaError("INTERNAL", `Unknown job '${String(spec.action)}'.`);
      const method = b[spec.action];
      return method.apply(b, spec.args);
    }
  }
}
function openUpload(file) {
  return { name: file.name, size: file.size, stream: createReadStream2(file.path, { highWaterMark: 1 << 20 }) };
}
var InlineJobs = class {
  base;
  offloaded = false;
  running = /* @__PURE__ */ new Set();
  constructor(base) {
    this.base = base;
  }
  run(spec, hooks = {}) {
    hooks.onStart?.();
    const job = runJob(this.base, (clientId) => this.base.forClient(clientId), spec, hooks.onProgress);
    this.running.add(job);
    void job.catch(() => {
    }).finally(() => this.running.delete(job));
    return job;
  }
  async close() {
    await Promise.allSettled([...this.running]);
  }
};
function receivedError(s) {
  if (s.premia) {
    return new PremiaError(s.code, s.message, { status: s.status, exitCode: s.exitCode, details: s.details });
  }
  const e = new Error(s.message);
  if (s.stack)
    e.stack = s.stack;
  if (s.code)
    e.code = s.code;
  return e;
}
var WorkerJobs = class {
  module;
  storePath;
  log;
  offloaded = true;
  worker = null;
  pending = /* @__PURE__ */ new Map();
  nextId = 1;
  constructor(module, storePath, log) {
    this.module = module;
    this.storePath = storePath;
    this.log = log;
  }
  run(spec, hooks = {}) {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    let resolve2;
    let reject;
    const done = new Promise((res, rej) => {
      resolve2 = res;
      reject = rej;
    });
    this.pending.set(id, { resolve: resolve2, reject, hooks, done: done.catch(() => {
    }) });
    worker.postMessage({ type: "job", id, spec });
    return done;
  }
  async close() {
    await Promise.allSettled([...this.pending.values()].map((p) => p.done));
    const worker = this.worker;
    this.worker = null;
    if (!worker)
      return;
    const exited = new Promise((resolve2) => worker.once("exit", () => resolve2()));
    worker.ref();
    worker.postMessage({ type: "close" });
    const timer = setTimeout(() => void worker.terminate(), 1e4);
    await exited;
    clearTimeout(timer);
  }
  ensureWorker() {
    if (this.worker)
      return this.worker;
    const worker = new Worker(this.module, { workerData: { storePath: this.storePath } });
    worker.unref();
    worker.on("message", (m) => {
      const p = this.pending.get(m.id);
      if (!p)
        return;
      if (m.type === "start")
        p.hooks.onStart?.();
      else if (m.type === "progress")
        p.hooks.onProgress?.(m.progress);
      else {
        this.pending.delete(m.id);
        if (m.type === "done")
          p.resolve(m.outcome);
        else
          p.reject(receivedError(m.error));
      }
    });
    const fail = (why) => {
      if (this.worker !== worker)
        return;
      this.worker = null;
      if (this.pending.size > 0)
        this.log(`${(/* @__PURE__ */ new Date()).toISOString()} error: the job thread stopped (${why}); ${plural(this.pending.size, "job")} failed`);
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new Error(`The job thread stopped: ${why}`));
      }
    };
    worker.on("error", (e) => fail(e instanceof Error ? e.stack ?? e.message : String(e)));
    worker.on("exit", (code) => fail(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }
};
function jobWorkerModule() {
  if (process.env.PREMIA_SERVER_THREADS === "0")
    return null;
  const here = import.meta.url;
  const url = here.endsWith(".ts") ? new URL("../../dist/server/job-worker.js", here) : new URL("./job-worker.js", here);
  return existsSync(fileURLToPath(url)) ? url : null;
}
function createJobs(base, options) {
  const file = base.admin.sharedStoreFile;
  const module = jobWorkerModule();
  if (options.offload === false || file === null || module === null)
    return new InlineJobs(base);
  return new WorkerJobs(module, file, options.log);
}

// dist/server/json.js
function useJsonParser(app) {
  const defaultJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body;
    if (text.length === 0) {
      done(null, void 0);
      return;
    }
    void defaultJson(request, text, (err, value) => {
      if (err)
        return done(err, void 0);
      const depth = jsonDepth(text);
      if (depth > MAX_JSON_DEPTH)
        return done(tooDeepError(depth), void 0);
      const duplicate = duplicateKey(text);
      if (duplicate !== null)
        return done(duplicateKeyError(duplicate), void 0);
      done(null, value);
    });
  });
}
function duplicateKey(text) {
  const stack = [];
  const childPath = (parent) => {
    if (!parent)
      return "";
    if (parent.keys)
      return parent.path === "" ? parent.lastKey : `${parent.path}.${parent.lastKey}`;
    return `${parent.path}[${parent.index}]`;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let j = i + 1;
      while (text.charCodeAt(j) !== 34)
        j += text.charCodeAt(j) === 92 ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1));
        if (top.keys.has(key))
          return top.path === "" ? key : `${top.path}.${key}`;
        top.keys.add(key);
        top.expectKey = false;
        top.lastKey = key;
      }
      i = j;
    } else if (c === 123 || c === 91) {
      const path = childPath(stack[stack.length - 1]);
      stack.push({ keys: c === 123 ? /* @__PURE__ */ new Set() : null, path, expectKey: true, lastKey: "", index: 0 });
    } else if (c === 125 || c === 93) {
      stack.pop();
    } else if (c === 44) {
      const top = stack[stack.length - 1];
      if (top?.keys)
        top.expectKey = true;
      else if (top)
        top.index++;
    }
  }
  return null;
}
function duplicateKeyError(path) {
  const shown = path.length > 100 ? `${path.slice(0, 100)}\u2026` : path;
  return validationError(`The JSON body gives ${shown} more than once; send each field once.`, [
    { field: shown, code: "DUPLICATE_KEY", message: `${shown} appears more than once in the same object` }
  ]);
}
var MAX_JSON_DEPTH = 32;
function jsonDepth(text) {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 34)
        j += text.charCodeAt(j) === 92 ? 2 : 1;
      i = j;
    } else if (c === 123 || c === 91) {
      if (++depth > deepest)
        deepest = depth;
    } else if (c === 125 || c === 93) {
      depth--;
    }
  }
  return deepest;
}
function tooDeepError(depth) {
  return validationError(`The JSON body nests objects and lists ${depth} levels deep; at most ${MAX_JSON_DEPTH} are accepted (no request needs more than 3).`, [{ field: "body", code: "TOO_DEEP", message: `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels` }]);
}

// dist/server/routes/bank.js
var bankRoutes = defineRoutes("bank", {
  seedBank: write(({ body }) => ({ args: [validateSeedRequest(body).seed] })),
  importBankTransactions: write(() => ({ args: [] })),
  showBankAccount: read(({ backend, params }) => backend.showBankAccount(params.customer_id))
});

// dist/server/routes/clock.js
var clockRoutes = defineRoutes("clock", {
  getClock: read(({ backend }) => backend.getClock()),
  setClock: write(({ body }) => ({ args: [validateClockSetRequest(body).date] })),
  // What POST /clock/advance would do (clock advance --dry-run, the CLI's confirmation).
  previewAdvance: read(({ backend, query }) => backend.previewAdvance(validateAdvanceQuery(query))),
  advanceClock: write(({ body }) => ({ args: [validateAdvanceRequest(body)] }))
});

// dist/server/routes/collections.js
var collectionsRoutes = defineRoutes("collections", {
  executeCollections: write(({ body }) => ({ args: [validateExecuteRequest(body)] })),
  listCollections: read(({ backend, query }) => backend.listCollections(validateCollectionListQuery(query))),
  getCollection: read(({ backend, params }) => backend.getCollection(params.id)),
  explainCollection: read(({ backend, params }) => backend.explainCollection(params.id)),
  getExecution: read(({ backend, params }) => backend.getExecution(params.id))
});

// dist/server/openapi.js
import { readFile } from "node:fs/promises";
import { fileURLToPath as fileURLToPath2 } from "node:url";
var OPENAPI_PATH = fileURLToPath2(new URL("../../openapi.yaml", import.meta.url));
var cached;
function openApiDocument() {
  cached ??= (async () => {
    const { parse } = await import("yaml");
    return parse(await readFile(OPENAPI_PATH, "utf8"));
  })();
  cached.catch(() => {
    cached = void 0;
  });
  return cached;
}

// dist/server/routes/meta.js
var metaRoutes = defineRoutes("meta", {
  whoami: read(({ principal, server }) => ({ client: principal.clientName, key_id: principal.keyId, role: principal.role, simulation: server.simulation })),
  openapi: read(async () => new JsonText(JSON.stringify(await openApiDocument())))
});

// dist/server/routes/operations.js
var operationsRoutes = defineRoutes("operations", {
  getOperation: read(({ principal, params, reply, server }) => {
    const op = server.operations.get(principal.clientId, params.id);
    if (!op)
      throw notFound("Operation", params.id);
    if (op.result === null)
      reply.header("retry-after", "1");
    return new JsonText(operationJson(op));
  })
});

// dist/server/routes/policies.js
var policiesRoutes = defineRoutes("policies", {
  createPolicy: write(({ body }) => ({ args: [validatePolicyInput(body)] })),
  importPolicies: write(() => ({ args: [] })),
  listPolicies: read(({ backend, query }) => backend.listPolicies(validatePolicyListQuery(query))),
  getPolicy: read(({ backend, params }) => backend.getPolicy(params.id)),
  updatePolicy: write(({ body, params }) => ({ args: [params.id, validatePolicyPatch(body)] })),
  // What a cancellation would withdraw (the CLI's confirmation); changes nothing.
  previewCancellation: read(({ backend, params }) => backend.previewCancellation(params.id))
});

// dist/server/routes/reports.js
var reportsRoutes = defineRoutes("reports", {
  collectionsReport: download(({ backend, query }) => {
    const q = validateReportQuery(query);
    return backend.collectionsReport(q.period_month, q.format);
  }),
  attemptsReport: download(({ backend, query }) => {
    const q = validateReportQuery(query);
    return backend.exportAttempts(q.period_month, q.format);
  })
});

// dist/server/routes/settlements.js
var settlementsRoutes = defineRoutes("settlements", {
  createSettlement: write(({ body }) => ({ args: [validateSettlementRequest(body).period_month] })),
  listSettlements: read(({ backend, query }) => backend.listSettlements(validateSettlementListQuery(query))),
  // The statement POST /settlements would make now (the CLI's confirmation); stores nothing.
  previewSettlement: read(({ backend, query }) => backend.previewSettlement(validateSettlementPreviewQuery(query).period_month)),
  getSettlement: read(({ backend, params }) => backend.getSettlement(params.id)),
  exportSettlement: download(({ backend, params, query }) => backend.exportSettlement(params.id, { lines: validateExportQuery(query).lines })),
  markSettlementPaid: write(({ body, params }) => ({ args: [params.id, validateMarkPaidRequest(body)] })),
  disputeSettlement: write(({ body, params }) => ({ args: [params.id, validateDisputeRequest(body).reason] }))
});

// dist/server/routes/index.js
var RESOURCE_ROUTES = [
  operationsRoutes,
  metaRoutes,
  policiesRoutes,
  collectionsRoutes,
  reportsRoutes,
  settlementsRoutes,
  clockRoutes,
  bankRoutes
];

// dist/server/app.js
var DEFAULT_JSON_LIMIT = 1024 * 1024;
var DEFAULT_UPLOAD_LIMIT = 100 * 1024 * 1024;
var DEFAULT_RATE_LIMIT = 600;
var DEFAULT_RATE_WINDOW_MS = 6e4;
var SIMULATION_OFF_MESSAGE = "This service runs without simulation (premia serve --no-simulation): it has no virtual clock to read or move and no simulated bank.";
function clientErrorAnswer(code) {
  if (code === "HPE_HEADER_OVERFLOW") {
    return { status: 431, reason: "Request Header Fields Too Large", code: "HEADERS_TOO_LARGE", message: "The request headers are larger than the server accepts." };
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT" || code === "ERR_HTTP_HEADERS_TIMEOUT") {
    return { status: 408, reason: "Request Timeout", code: "REQUEST_TIMEOUT", message: "The request did not arrive in time." };
  }
  return { status: 400, reason: "Bad Request", code: "VALIDATION_ERROR", message: "The request is not valid HTTP (a malformed request line or header)." };
}
var REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
var MARKER_HEADER = "x-premia-version";
var VERSION = createRequire(import.meta.url)("../../package.json").version;
async function createServer(options) {
  const now = options.now ?? (() => /* @__PURE__ */ new Date());
  const resources = options.routes ?? RESOURCE_ROUTES;
  checkRoutes(resources);
  const base = options.backend;
  const admin = base.admin;
  const simulation = options.simulation ?? true;
  const jsonLimit = options.jsonLimit ?? DEFAULT_JSON_LIMIT;
  const uploadLimit = options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
  const rateMax = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const log = options.log ?? (() => {
  });
  const uploadDir = await prepareUploadDirectory(options.tmpDir ?? tmpdir(), admin.storePath, log);
  const jobs = createJobs(base, { offload: options.offload, log });
  const operations = new AsyncOperations(() => now().getTime());
  const limits = { jsonLimit, uploadLimit };
  const logLine = (method, url, status, ms, id) => log(`${(/* @__PURE__ */ new Date()).toISOString()} ${method} ${url.split("?", 1)[0]} ${status} ${ms.toFixed(1)}ms ${id}`);
  const app = Fastify({
    logger: false,
    bodyLimit: jsonLimit,
    // Take a caller's X-Request-Id when it is a sane token (tracing across services), else make one.
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID_RE.test(given) ? given : randomUUID3();
    },
    // While closing, new requests get premia's 503 (the onRequest hook below), not fastify's body.
    return503OnClosing: false,
    // A URL fastify's router cannot take (a bad percent-escape, an over-long parameter) still gets
    // the spec's error body and an X-Request-Id; it is answered before authentication.
    frameworkErrors: (err, request, reply) => {
      const { error } = toPremiaError(err, limits);
      const started = performance.now();
      reply.raw.once("finish", () => logLine(request.method, request.url, error.status, performance.now() - started, request.id));
      void reply.code(error.status).header("x-request-id", request.id).header(MARKER_HEADER, VERSION).type(JSON_TYPE).send(errorBody(error, request.id));
    },
    // What Node's HTTP parser refuses before there is a request at all (a malformed request line
    // or header, headers over the size limit, a request that took too long to arrive): a raw
    // response with the spec's body and a request id of its own, then the connection is closed.
    clientErrorHandler: (err, socket) => {
      const e = err;
      if (e.code === "ECONNRESET" || socket.destroyed)
        return;
      const id = randomUUID3();
      const answer = clientErrorAnswer(e.code);
      const pending = socket._httpMessage;
      if (socket.writable && !pending?.headersSent) {
        const body = errorBody(new PremiaError(answer.code, answer.message, { status: answer.status }), id);
        socket.write(`HTTP/1.1 ${answer.status} ${answer.reason}\r
Content-Type: ${JSON_TYPE}\r
Content-Length: ${Buffer.byteLength(body)}\r
X-Request-Id: ${id}\r
${MARKER_HEADER}: ${VERSION}\r
Connection: close\r
\r
${body}`);
        log(`${(/* @__PURE__ */ new Date()).toISOString()} - - ${answer.status} 0.0ms ${id} (${e.code ?? "client error"})`);
      }
      socket.destroy(err);
    }
  });
  app.decorateRequest("principal", null);
  app.removeContentTypeParser("text/plain");
  useJsonParser(app);
  await app.register(multipart, { limits: { fileSize: uploadLimit, files: 1 } });
  await app.register(rateLimit, { global: false });
  const limiter = rateMax > 0 ? app.createRateLimit({
    max: rateMax,
    timeWindow: options.rateLimitWindowMs ?? DEFAULT_RATE_WINDOW_MS,
    keyGenerator: (req) => `key:${req.principal?.keyRowId ?? 0}`
  }) : null;
  const authMax = options.authFailureLimit ?? DEFAULT_AUTH_FAILURES;
  const authenticateRequest = authenticator(admin, authMax > 0 ? new FailedAuthLimiter(authMax, options.authFailureWindowMs ?? DEFAULT_AUTH_WINDOW_MS, () => now().getTime()) : null);
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onClose", async () => {
    await jobs.close();
  });
  app.addHook("onRequest", async () => {
    if (closing) {
      throw new PremiaError(SERVICE_UNAVAILABLE, "The service is shutting down; retry in a moment (with the same Idempotency-Key).", { status: 503 });
    }
  });
  const routes = [];
  app.addHook("onRoute", (route) => {
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+")}$`);
    for (const method of [route.method].flat())
      routes.push({ method, pattern });
  });
  app.addHook("onSend", async (request, reply, payload) => {
    reply.header("x-request-id", request.id);
    reply.header(MARKER_HEADER, VERSION);
    if (closing)
      reply.header("connection", "close");
    return payload;
  });
  app.addHook("onResponse", async (request, reply) => {
    logLine(request.method, request.url, reply.statusCode, reply.elapsedTime, request.id);
  });
  app.setErrorHandler((err, request, reply) => {
    const { error, internal } = toPremiaError(err, limits);
    if (internal)
      log(`${(/* @__PURE__ */ new Date()).toISOString()} error ${request.id}: ${err?.stack ?? String(err)}`);
    if (err instanceof RateLimited)
      reply.header("retry-after", String(err.retryAfter));
    if (error.status === 401)
      reply.header("www-authenticate", WWW_AUTHENTICATE);
    return reply.code(error.status).type(JSON_TYPE).send(errorBody(error, request.id));
  });
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split("?", 1)[0];
    if (path === "/v1" || path.startsWith("/v1/"))
      request.principal = await authenticateRequest(request);
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))].sort();
    if (allowed.length > 0) {
      const error2 = new PremiaError("METHOD_NOT_ALLOWED", `${request.method} is not allowed on ${path}; it takes ${allowed.join(", ")}.`, { status: 405 });
      return reply.code(405).header("allow", allowed.join(", ")).type(JSON_TYPE).send(errorBody(error2, request.id));
    }
    const error = new PremiaError("NOT_FOUND", `There is no endpoint ${request.method} ${path}; see GET /v1/openapi.json for the endpoints.`);
    return reply.code(404).type(JSON_TYPE).send(errorBody(error, request.id));
  });
  const api = async (v1) => {
    v1.addHook("onRequest", async (request) => {
      request.principal = await authenticateRequest(request);
      if (limiter) {
        const verdict = await limiter(request);
        if (!verdict.isAllowed && verdict.isExceeded)
          throw new RateLimited(Math.max(1, verdict.ttlInSeconds));
      }
      if (request.method === "POST" || request.method === "PATCH" || request.method === "PUT") {
        const encoding = request.headers["content-encoding"];
        if (encoding !== void 0 && !/^\s*identity\s*$/i.test(encoding)) {
          throw new PremiaError("UNSUPPORTED_MEDIA_TYPE", `Content-Encoding '${encoding.slice(0, 40)}' is not accepted: send the body uncompressed.`, {
            details: [{ field: "Content-Encoding", code: "UNSUPPORTED_ENCODING", message: "only identity (no Content-Encoding) is accepted" }]
          });
        }
      }
      if (request.method === "POST" || request.method === "PATCH")
        readIdempotencyKey(request.headers["idempotency-key"]);
    });
    v1.addHook("onRoute", (route) => {
      if (!route.config?.operation && !route.config?.simulationOff) {
        throw new Error(`The route ${[route.method].flat().join(",")} ${route.url} has no row in the operations table (src/backend/operations.ts).`);
      }
    });
    const deps = { base, jobs, state: { simulation, operations }, limits, uploadDir, log, now };
    for (const resource of resources)
      await v1.register(resource.plugin, deps);
    if (!simulation) {
      const paths = new Set(OPERATION_LIST.filter((row) => row.simulation).map((row) => fastifyPath(row.path)));
      for (const path of paths) {
        v1.all(path, { config: { simulationOff: true } }, async () => {
          throw new PremiaError("NOT_FOUND", SIMULATION_OFF_MESSAGE);
        });
      }
    }
  };
  try {
    await app.register(api, { prefix: "/v1" });
  } catch (e) {
    await app.close();
    throw e;
  }
  return app;
}

// dist/server/serve.js
async function serve(backend, options, io) {
  if (!(backend instanceof LocalBackend)) {
    throw usageError("'premia serve' serves a local store; give it --db (or PREMIA_DB), not a remote profile.");
  }
  const write2 = (line) => io.stderr.write(`${line}
`);
  let onTerm = () => {
  };
  let onInt = () => {
  };
  const stop = new Promise((resolve2) => {
    onTerm = () => resolve2("SIGTERM");
    onInt = () => resolve2("SIGINT");
  });
  io.signals.on("SIGTERM", onTerm);
  io.signals.on("SIGINT", onInt);
  try {
    const app = await createServer({
      backend,
      simulation: options.simulation ?? true,
      jsonLimit: options.jsonLimit,
      uploadLimit: options.uploadLimit,
      rateLimit: options.rateLimit,
      log: write2
    });
    try {
      await app.listen({ host: options.host, port: options.port });
    } catch (e) {
      await app.close();
      throw listenError(e, options);
    }
    const address = app.server.address();
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    const url = `http://${host}:${address.port}/v1`;
    if (!isLoopback(options.host)) {
      write2(`warning: listening on ${options.host}, reachable from other machines; anyone with a key can use the API over plain HTTP.`);
    }
    const simulation = options.simulation ?? true;
    write2(`premia: serving ${url} (store ${backend.admin.storePath}; ${simulation ? "simulated bank" : "no simulation: no clock or bank endpoints"}; SIGTERM or Ctrl-C stops)`);
    io.onListening?.(url);
    const signal = await stop;
    write2(`premia: ${signal} received; finishing requests in flight\u2026`);
    await app.close();
    write2("premia: stopped.");
    return 0;
  } finally {
    io.signals.off("SIGTERM", onTerm);
    io.signals.off("SIGINT", onInt);
  }
}
function listenError(e, options) {
  const code = e.code;
  if (code === "EADDRINUSE")
    return validationError(`Port ${options.port} on ${options.host} is already in use; choose another with --port.`);
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
    return validationError(`Cannot listen on ${options.host}: no such local address.`);
  if (code === "EACCES")
    return validationError(`Not allowed to listen on port ${options.port}; choose a port above 1023.`);
  return e;
}
function isLoopback(host) {
  const h = host.trim().toLowerCase();
  return h === "localhost" || h === "::1" || h === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
export {
  isLoopback,
  serve
};
