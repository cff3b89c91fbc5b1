import {
  PERIOD_STATE_HEADER,
  parsePeriodStateHeader
} from "./chunk-FKNU4UUY.js";
import "./chunk-CXYRJJKB.js";
import {
  OPERATIONS,
  buildRequest
} from "./chunk-GR6SVUMH.js";
import {
  requestKey
} from "./chunk-7UDSVXC4.js";
import {
  moneyToCents,
  stringifyJson
} from "./chunk-MHVTT2HV.js";
import "./chunk-JX2JAKWC.js";
import {
  ExitCode,
  PremiaError,
  exitCodeForStatus,
  receivedCode
} from "./chunk-U6UK7MPY.js";

// dist/backend/remote/errors.js
var UUID_SHAPED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function remoteError(message, requestId) {
  return new PremiaError("REMOTE_ERROR", message, { requestId: requestId ?? void 0 });
}
function notSupported(what, requestId, hint = "") {
  return new PremiaError("NOT_SUPPORTED", `This server does not offer ${what}: it is one of premia's own extensions, and the service at this URL implements only the spec's endpoints.${hint ? ` ${hint}` : ""}`, { requestId: requestId ?? void 0 });
}
function parseErrorBody(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const error = value?.error;
  if (!error || typeof error !== "object" || typeof error.code !== "string" || typeof error.message !== "string")
    return null;
  if (!/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(error.code))
    return null;
  return error;
}
function maskKey(key) {
  return key.length > 8 ? `\u2026${key.slice(-4)}` : "\u2026";
}
function redactText(text, key) {
  if (!key)
    return text;
  let out = text.split(key).join(maskKey(key));
  const encoded = encodeURIComponent(key);
  if (encoded !== key)
    out = out.split(encoded).join(maskKey(key));
  return out;
}
var EXCERPT_LIMIT = 200;
function isHtml(contentType, text) {
  return contentType === "text/html" || contentType === "application/xhtml+xml" || /^\s*<(!doctype|html|head|body)\b/i.test(text);
}
function excerptOf(text, contentType) {
  if (text.trim() === "" || isHtml(contentType, text))
    return null;
  let said = null;
  try {
    const value = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const v = value;
      const inner = v.error && typeof v.error === "object" ? v.error : null;
      const parts = [
        typeof v.title === "string" ? v.title : null,
        typeof v.detail === "string" ? v.detail : null,
        typeof v.message === "string" ? v.message : null,
        typeof v.error === "string" ? v.error : null,
        typeof inner?.message === "string" ? inner.message : null,
        typeof v.error_description === "string" ? v.error_description : null
      ].filter((p) => p !== null && p.trim() !== "");
      said = parts.length > 0 ? [...new Set(parts)].join(": ") : JSON.stringify(value);
    } else {
      said = JSON.stringify(value);
    }
  } catch {
    said = text;
  }
  const line = said.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").replace(/\s+/g, " ").trim();
  if (line === "")
    return null;
  return line.length > EXCERPT_LIMIT ? `${line.slice(0, EXCERPT_LIMIT - 1)}\u2026` : line;
}
function detailsOf(body) {
  return Array.isArray(body.details) && body.details.every((d) => typeof d === "object" && d !== null) ? body.details : void 0;
}
function errorFromResponse(r) {
  const text = redactText(r.text, r.apiKey);
  const isJson = r.contentType === "application/json" || r.contentType.endsWith("+json") || r.contentType === "" || r.contentType === "text/plain";
  const body = isJson ? parseErrorBody(text) : null;
  const requestId = typeof body?.request_id === "string" && body.request_id !== "" ? body.request_id : r.requestId;
  const excerpt = body ? null : excerptOf(text, r.contentType);
  const said = body?.message ?? excerpt;
  const attempts = r.attempts !== void 0 && r.attempts > 1 ? ` (${r.attempts} attempts)` : "";
  const waitNote = r.retryAfterMs !== void 0 && r.retryAfterMs !== null ? ` The service asked to wait ${Math.ceil(r.retryAfterMs / 1e3)} s before trying again, longer than premia waits (60 s): try again later.` : "";
  const finish = (e) => {
    if (attempts || waitNote)
      e.message = `${e.message.replace(/\.$/, "")}${attempts}.${waitNote}`;
    return e;
  };
  if (r.status === 401) {
    return new PremiaError("UNAUTHORIZED", `The service at ${r.baseUrl} refused the API key${said ? ` (the service said: ${said})` : ""}. ${r.keyHint ?? "Set PREMIA_API_KEY to a valid key, or run 'premia login' to save one."}`, { status: 401, requestId: requestId ?? void 0 });
  }
  const missingRoute = r.status === 404 || r.status === 405 || r.status === 501;
  if (missingRoute && r.route.extension && (!r.premia || r.route.idless)) {
    if (r.premia) {
      return new PremiaError("NOT_SUPPORTED", `This server does not offer ${r.route.what}. A premia service offers the clock and bank endpoints only while it runs on the simulated bank; without them, those commands are local-only (run them with --db on the service's store).`, { requestId: requestId ?? void 0 });
    }
    const urlHint = body ? "" : ` (It answered HTTP ${r.status}${r.contentType ? ` with ${r.contentType}` : ""}; if every command fails like this, check the base URL: it includes the version, e.g. http://host:8080/v1.)`;
    return new PremiaError("NOT_SUPPORTED", `${notSupported(r.route.what, null).message}${urlHint}`, { requestId: requestId ?? void 0 });
  }
  if (r.status === 404 && !r.premia && r.route.ref && !UUID_SHAPED.test(r.route.ref.value)) {
    const { noun, value } = r.route.ref;
    return new PremiaError("NOT_SUPPORTED", `This server does not offer a lookup by ${noun} number (a premia extension), and found no ${noun} with the id '${value}'. Give the ${noun}'s id as the service returned it.`, { requestId: requestId ?? void 0 });
  }
  if (r.status === 404 && r.route.item && !r.route.extension) {
    if (body)
      return new PremiaError(receivedCode(body.code), body.message, { status: 404, exitCode: ExitCode.NOT_FOUND, details: detailsOf(body), requestId: requestId ?? void 0 });
    const { noun, value } = r.route.item;
    const what2 = `HTTP 404${r.contentType ? ` with ${r.contentType}` : ""}`;
    return new PremiaError("NOT_FOUND", `The service found no ${noun} with the id '${value}' (it answered ${what2}${excerpt ? `: ${excerpt}` : ""}).` + (excerpt ? "" : " If every command fails like this, check the base URL: it includes the version, e.g. http://host:8080/v1."), { status: 404, requestId: requestId ?? void 0 });
  }
  if (body) {
    return finish(new PremiaError(receivedCode(body.code), body.message, { status: r.status, details: detailsOf(body), requestId: requestId ?? void 0 }));
  }
  const what = `HTTP ${r.status}${r.contentType ? ` with ${r.contentType}` : ""}`;
  if (r.status >= 300 && r.status < 400) {
    return remoteError(`The service at ${r.baseUrl} answered with a redirect (${r.status}${r.location ? ` to ${r.location}` : ""}); premia does not follow redirects with your key. Use the final URL as the base URL.`, requestId);
  }
  if (r.status === 404 || r.status === 405) {
    return remoteError(`The service at ${r.baseUrl} answered ${what}${excerpt ? ` (${excerpt})` : ""}, not an API error: check the base URL (it includes the version, e.g. http://host:8080/v1).`, requestId);
  }
  if (r.status >= 500) {
    return finish(remoteError(excerpt ? `The service at ${r.baseUrl} failed (HTTP ${r.status}): ${excerpt}` : `The service at ${r.baseUrl} failed (${what}, not an API error); a proxy or gateway in front of it may be down. Try again later.`, requestId));
  }
  if (excerpt && r.status >= 400) {
    return finish(new PremiaError(receivedCode(`HTTP_${r.status}`), `The service answered HTTP ${r.status}: ${excerpt}`, {
      status: r.status,
      exitCode: exitCodeForStatus(r.status),
      requestId: requestId ?? void 0
    }));
  }
  return finish(remoteError(`The service at ${r.baseUrl} answered ${what}, which is not an API response premia understands.`, requestId));
}
var CONNECTION_WORDS = {
  ECONNREFUSED: "the connection was refused (is the service running, and is the URL right?)",
  ECONNRESET: "the connection was reset",
  EPIPE: "the connection was closed while sending",
  ETIMEDOUT: "the connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "the connection could not be made in time (raise it with --connect-timeout or PREMIA_CONNECT_TIMEOUT)",
  UND_ERR_SOCKET: "the connection was closed by the other side before the answer was complete",
  UND_ERR_CLOSED: "the connection was closed",
  ENOTFOUND: "the host name is unknown",
  EAI_AGAIN: "the host name could not be resolved",
  ENETUNREACH: "the network is unreachable",
  EHOSTUNREACH: "the host is unreachable",
  UND_ERR_HEADERS_TIMEOUT: "no answer came in time",
  UND_ERR_BODY_TIMEOUT: "the answer stalled",
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "the answer was shorter than announced",
  CERT_HAS_EXPIRED: "the service's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the service's TLS certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the service's TLS certificate cannot be verified",
  ERR_TLS_CERT_ALTNAME_INVALID: "the service's TLS certificate is for another host name"
};
function connectionError(e, info) {
  let message = `Cannot talk to the service at ${info.url}: ${connectionWords(e)}${info.attempts > 1 ? ` (${info.attempts} attempts)` : ""}.`;
  if (info.stdinStarted)
    message += " An upload from stdin cannot be sent again; give the file by name to let premia retry.";
  if (info.neverSent)
    message += " The request was never sent, so nothing was done.";
  else if (info.baseKey) {
    message += ` Whether the service acted on it is unknown: rerun the same command with --idempotency-key ${info.baseKey} to complete it without acting twice.`;
  }
  return new PremiaError("REMOTE_ERROR", message, { cause: e });
}
function connectionWords(e) {
  const err = e;
  const code = typeof err?.code === "string" ? err.code : typeof err?.cause?.code === "string" ? err.cause.code : "";
  return CONNECTION_WORDS[code] ?? (typeof err?.message === "string" ? err.message : "the request failed");
}
function outcomeUnknown(info) {
  return new PremiaError("OUTCOME_UNKNOWN", `${info.what}: ${info.happened}, so ${info.done ? `the service at ${info.baseUrl} did it, but premia has not seen the result` : `the service at ${info.baseUrl} may or may not have done it`}. premia did not send it again, because this server has not shown that it honours Idempotency-Key and a second request could act twice. ${info.verify ?? "Check on the service whether it was done"} before running the command again.`, { status: 502, exitCode: ExitCode.FAILURE, requestId: info.requestId ?? void 0, cause: info.cause });
}

// dist/backend/remote/http.js
import { randomInt } from "node:crypto";
import { createRequire } from "node:module";
import { Readable } from "node:stream";
import { Pool } from "undici";

// dist/backend/remote/multipart.js
import { randomBytes } from "node:crypto";
function newBoundary() {
  return `----premia-${randomBytes(18).toString("hex")}`;
}
function quotedName(name) {
  return name.replace(/["\\\r\n]/g, "_");
}
async function* multipartBody(boundary, name, source, state, onProgress) {
  yield Buffer.from(`--${boundary}\r
Content-Disposition: form-data; name="file"; filename="${quotedName(name)}"\r
Content-Type: text/csv\r
\r
`, "utf8");
  state.started = true;
  for await (const chunk of source) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    state.bytes += buf.length;
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1))
      state.lines++;
    onProgress?.({ bytes: state.bytes, rows: Math.max(0, state.lines - 1) });
    yield buf;
  }
  yield Buffer.from(`\r
--${boundary}--\r
`, "utf8");
}

// dist/backend/remote/http.js
var require2 = createRequire(import.meta.url);
var VERSION = require2("../../../package.json").version;
var PROBE_ID = "00000000-0000-4000-8000-000000000000";
var MARKER_HEADER = "x-premia-version";
var DEFAULT_CONNECT_TIMEOUT_MS = 1e4;
var DEFAULT_TIMEOUT_MS = 6e5;
var MAX_ATTEMPTS = 4;
var RETRY_BASE_MS = 250;
var RETRY_CAP_MS = 8e3;
var MAX_RETRY_AFTER_MS = 6e4;
var RETRY_STATUSES = /* @__PURE__ */ new Set([429, 502, 503, 504]);
var MAX_ERROR_BODY = 64 * 1024;
var FOLLOW_FIRST_MS = 250;
var FOLLOW_CAP_MS = 2e3;
var HttpClient = class {
  options;
  baseUrl;
  origin;
  basePath;
  pool;
  timeoutMs;
  maxAttempts;
  sleep;
  random;
  writes = 0;
  apiKey;
  /**
   * What the service is: its premia version once an answer carried the marker header; null once
   * an API answer came without it; undefined while nothing has told (a proxy's 5xx tells nothing).
   */
  premiaVersion;
  /** The answer of missingVersionHint, once asked. */
  versionHint;
  constructor(options) {
    this.options = options;
    const url = parseBaseUrl(options.baseUrl);
    this.apiKey = checkKey(options.apiKey);
    this.baseUrl = options.baseUrl;
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = options.random ?? (() => randomInt(0, 1 << 30) / (1 << 30));
    this.pool = new Pool(this.origin, {
      connect: { timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS },
      keepAliveTimeout: 1e4,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connections: 4
    });
  }
  /** A request whose answer is a JSON object: parsed, money fields turned into cents. */
  async json(call) {
    const answer = await this.exchange(call, "application/json", async (x) => {
      const body = await readJson(x, this.describe(call), this.apiKey);
      const location = headerText(x.headers.location);
      if (call.follow && x.status === 202 && x.premia && location && /\brespond-async\b/i.test(headerText(x.headers["preference-applied"]) ?? "")) {
        return new Accepted(location, body, retryAfterMs(headerText(x.headers["retry-after"]), Date.now()));
      }
      return body;
    });
    if (answer instanceof Accepted)
      return this.follow(call, answer);
    return answer;
  }
  /**
   * Follow an operation answered 202 until it has ended, waiting Retry-After between asks (or
   * 250 ms growing to 2 s), within the request's time limit; then its result is the answer.
   */
  async follow(call, accepted) {
    const path = this.pathOf(accepted.location);
    if (path === null) {
      throw remoteError(`${this.describe(call)} was accepted, but the service pointed to '${accepted.location.slice(0, 200)}' to follow it, outside ${this.baseUrl}.`, null);
    }
    const deadline = Date.now() + this.timeoutMs;
    const route = { what: "operations (GET /operations/{id})", extension: true };
    let op = accepted.operation;
    let retryAfter = accepted.retryAfterMs;
    for (let asked = 0; ; asked++) {
      call.follow?.onProgress?.(op);
      if (op.result !== null)
        break;
      const wait = retryAfter ?? Math.min(FOLLOW_CAP_MS, Math.round(FOLLOW_FIRST_MS * 1.5 ** asked));
      if (Date.now() + wait > deadline) {
        const seconds = Math.round(this.timeoutMs / 1e3);
        throw remoteError(`${this.describe(call)} is still running at the service after ${seconds} s (raise the limit with --timeout or PREMIA_TIMEOUT); it goes on there: see GET ${this.basePath}${path}, or rerun the same command with --idempotency-key ${this.options.idempotencyKey} to get its answer once it is done.`, null);
      }
      this.debug(`  operation ${op.id} ${op.status}; asking again in ${wait} ms`);
      await this.sleep(wait);
      if (call.signal?.aborted)
        throw this.cancelled(call);
      const next = await this.exchange({ method: "GET", path, route, signal: call.signal }, "application/json", async (x) => ({
        body: await readJson(x, `GET ${this.basePath}${path}`, this.apiKey),
        retryAfter: retryAfterMs(headerText(x.headers["retry-after"]), Date.now())
      }));
      op = next.body;
      retryAfter = next.retryAfter;
    }
    const result = op.result;
    if (result.status >= 400) {
      const text = JSON.stringify(result.body);
      const error = result.body?.error;
      const requestId = typeof error?.request_id === "string" ? error.request_id : null;
      throw this.failure(call, { status: result.status, headers: { "content-type": "application/json" }, requestId, premia: this.premiaVersion ?? "premia" }, text);
    }
    return result.body;
  }
  /** The path below the base URL of a Location on this service, or null when it leads elsewhere. */
  pathOf(location) {
    let url;
    try {
      url = new URL(location, this.origin);
    } catch {
      return null;
    }
    if (url.origin !== this.origin || !url.pathname.startsWith(`${this.basePath}/`))
      return null;
    return url.pathname.slice(this.basePath.length) + url.search;
  }
  /**
   * A probe: the final answer whatever its status (retries as for any request), the body read
   * and the key removed from it.
   */
  async probe(call) {
    return this.exchange({ ...call, raw: true }, "application/json", async (x) => {
      const text = x.text ?? await readBounded(x.body, MAX_ERROR_BODY);
      return {
        status: x.status,
        contentType: mediaType(x.headers["content-type"]),
        headers: x.headers,
        requestId: x.requestId,
        premia: x.premia,
        text: redactText(text, this.apiKey)
      };
    });
  }
  /**
   * A request whose answer is a file (CSV or JSON), streamed. The spec leaves the media types
   * open: a CSV may come as text/csv, text/plain, application/csv, application/octet-stream or
   * without a type; only what is clearly not the file is refused (an HTML page, or JSON when CSV
   * was asked). A JSON report is taken whatever its type when the body is JSON.
   */
  async download(call, format, defaultName) {
    return this.exchange(call, format === "csv" ? "text/csv" : "application/json", async (x) => {
      const type = mediaType(x.headers["content-type"]);
      const what = this.describe(call);
      const refuse = async (why) => {
        await x.body.dump().catch(() => void 0);
        throw remoteError(`${what} answered with ${why} instead of ${format === "csv" ? "a CSV file" : "a JSON report"}; is something other than the service answering at ${this.baseUrl}?`, x.requestId);
      };
      const html = type === "text/html" || type === "application/xhtml+xml";
      const json = type === "application/json" || type.endsWith("+json");
      if (html || format === "csv" && json)
        await refuse(type);
      const iterator = x.body[Symbol.asyncIterator]();
      const head = [];
      let seen = "";
      while (seen.trim().length < 16) {
        let next;
        try {
          next = await iterator.next();
        } catch (e) {
          throw remoteError(`${what}: the download broke off before it was complete (${errorCodeOf(e)}); nothing complete was received, run it again.`, x.requestId);
        }
        if (next.done)
          break;
        head.push(next.value);
        seen += next.value.toString("utf8");
      }
      const start = seen.replace(/^\uFEFF/, "").trimStart();
      if (/^<(!doctype|html|head|body)\b/i.test(start))
        await refuse(`an HTML page${type ? ` (${type})` : ""}`);
      if (format === "json" && start !== "" && !start.startsWith("{") && !start.startsWith("["))
        await refuse(`${type || "no content type"} that is not JSON`);
      if (format === "csv" && !json && /^\{\s*"/.test(start) && type !== "text/csv")
        await refuse(`JSON${type ? ` (${type})` : ""}`);
      const periodState = parsePeriodStateHeader(x.headers[PERIOD_STATE_HEADER]);
      return {
        filename: filenameOf(x.headers["content-disposition"]) ?? safeName(defaultName, format),
        contentType: String(x.headers["content-type"] ?? (format === "csv" ? "text/csv" : "application/json")),
        body: guardStream(head, iterator, what, x.requestId),
        ...periodState ? { periodState } : {}
      };
    });
  }
  async close() {
    await this.pool.destroy().catch(() => void 0);
  }
  describe(call) {
    return `${call.method} ${this.basePath}${call.path}`;
  }
  /**
   * Send the call, retrying what may be retried, and hand a successful (2xx) exchange to `take`
   * (a raw call: any final answer). Errors become PremiaErrors.
   *
   * A write (POST, PATCH) is sent again only when it cannot have reached the service (the
   * connection was never made, or a 429 refused it) or when the service is known to honour
   * Idempotency-Key (a premia service: its answers carry the marker header). Otherwise a write
   * whose outcome is unknown fails with OUTCOME_UNKNOWN instead of risking acting twice.
   */
  async exchange(call, accept, take) {
    const write = call.idempotencyKey === true;
    const key = write ? requestKey(this.options.idempotencyKey, ++this.writes) : void 0;
    const path = `${this.basePath}${call.path}${queryString(call.query)}`;
    const url = `${this.origin}${path}`;
    const controller = new AbortController();
    const deadline = Date.now() + this.timeoutMs;
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    timer.unref?.();
    const user = call.signal;
    if (user?.aborted)
      throw this.cancelled(call);
    const onUserAbort = () => controller.abort();
    user?.addEventListener("abort", onUserAbort, { once: true });
    const aborted = () => user?.aborted ? this.cancelled(call) : this.timeoutError(call, key);
    const bodyState = { started: false, bytes: 0, lines: 0 };
    const boundary = call.upload ? newBoundary() : "";
    let maybeSent = false;
    try {
      for (let attempt = 1; ; attempt++) {
        const headers = {
          accept,
          "user-agent": `premia/${VERSION}`
        };
        if (!call.noKey)
          headers["x-api-key"] = this.apiKey;
        let body;
        if (call.json !== void 0) {
          headers["content-type"] = "application/json";
          body = stringifyJson(call.json);
        } else if (call.upload) {
          let source = call.upload.file.stream;
          if (attempt > 1 && call.upload.file.reopen) {
            source.destroy?.();
            source = call.upload.file.reopen();
          }
          bodyState.started = false;
          bodyState.bytes = 0;
          bodyState.lines = 0;
          headers["content-type"] = `multipart/form-data; boundary=${boundary}`;
          body = Readable.from(multipartBody(boundary, call.upload.file.name, source, bodyState, call.upload.onProgress), { objectMode: false });
        }
        if (key !== void 0)
          headers["idempotency-key"] = key;
        if (call.prefer)
          headers.prefer = call.prefer;
        const started = performance.now();
        this.debug(`\u2192 ${call.method} ${url} (attempt ${attempt} of ${this.maxAttempts}${key ? `, Idempotency-Key ${key}` : ""}${call.noKey ? ", no X-API-Key" : `, X-API-Key ${maskKey(this.apiKey)}`})`);
        let response;
        try {
          response = await this.pool.request({ path, method: call.method, headers, body, signal: controller.signal });
        } catch (e) {
          if (controller.signal.aborted)
            throw aborted();
          if (!NEVER_SENT_CODES.has(errorCodeOf(e)))
            maybeSent = true;
          const canResend = !call.upload || !bodyState.started || call.upload.file.reopen !== void 0;
          const wait2 = this.backoff(attempt);
          const retry = retryableConnectionError(e) && canResend && attempt < this.maxAttempts && Date.now() + wait2 < deadline;
          this.debug(`\u2717 ${errorCodeOf(e)} after ${elapsed(started)}${retry ? `; retrying in ${wait2} ms` : ""}`);
          if (write && maybeSent && !await this.honoursKeys(deadline)) {
            throw outcomeUnknown({ what: this.describe(call), baseUrl: this.baseUrl, happened: `the connection failed before an answer came (${connectionWords(e)})`, verify: call.route.verify, cause: e });
          }
          if (retry) {
            await this.sleep(wait2);
            if (user?.aborted)
              throw aborted();
            continue;
          }
          throw connectionError(e, {
            url: this.baseUrl,
            attempts: attempt,
            baseKey: write && maybeSent ? this.options.idempotencyKey : void 0,
            neverSent: write && !maybeSent,
            stdinStarted: !!call.upload && bodyState.started && !call.upload.file.reopen
          });
        }
        maybeSent = true;
        const exchange = toExchange(response);
        this.noteServer(exchange);
        const unexpected = call.status !== void 0 && exchange.status >= 200 && exchange.status < 300 && exchange.status !== call.status && exchange.status !== 202;
        this.debug(`\u2190 ${exchange.status}${unexpected ? ` (premia answers ${call.status})` : ""} ${mediaType(exchange.headers["content-type"]) || "-"} in ${elapsed(started)}${exchange.requestId ? ` (request ${exchange.requestId})` : ""}${exchange.headers["idempotent-replayed"] === "true" ? " replayed" : ""}`);
        if (exchange.status >= 200 && exchange.status < 300) {
          try {
            return await take(exchange);
          } catch (e) {
            if (controller.signal.aborted)
              throw aborted();
            if (e instanceof PremiaError)
              throw e;
            const canResend = !call.upload || call.upload.file.reopen !== void 0;
            const retry = retryableConnectionError(e) && canResend && attempt < this.maxAttempts;
            if (write && !await this.honoursKeys(deadline)) {
              throw outcomeUnknown({
                what: this.describe(call),
                baseUrl: this.baseUrl,
                happened: `the service answered ${exchange.status}, but the answer broke off before it was complete (${connectionWords(e)})`,
                done: true,
                verify: call.route.verify,
                requestId: exchange.requestId,
                cause: e
              });
            }
            if (retry) {
              const wait2 = this.backoff(attempt);
              this.debug(`\u2717 the response broke off (${errorCodeOf(e)}); retrying in ${wait2} ms`);
              await this.sleep(wait2);
              if (user?.aborted)
                throw aborted();
              continue;
            }
            throw connectionError(e, { url: this.baseUrl, attempts: attempt, baseKey: key && this.options.idempotencyKey, broken: true });
          }
        }
        let text;
        try {
          text = await readBounded(exchange.body, MAX_ERROR_BODY);
        } catch {
          if (controller.signal.aborted)
            throw aborted();
          text = "";
        }
        const contentType = mediaType(exchange.headers["content-type"]);
        let wait = null;
        let longWait = null;
        if (RETRY_STATUSES.has(exchange.status)) {
          const after = retryAfterMs(headerText(exchange.headers["retry-after"]), Date.now());
          if (after !== null && after > MAX_RETRY_AFTER_MS)
            longWait = after;
          else
            wait = after ?? this.backoff(attempt);
        } else if (exchange.status === 409 && parseErrorBody(text)?.code === "IDEMPOTENCY_IN_PROGRESS" && attempt > 1) {
          wait = this.backoff(attempt + 1);
        }
        if (wait !== null && (attempt >= this.maxAttempts || Date.now() + wait >= deadline))
          wait = null;
        if (wait !== null && write && exchange.status !== 429 && !await this.honoursKeys(deadline)) {
          if (parseErrorBody(text) === null) {
            throw outcomeUnknown({
              what: this.describe(call),
              baseUrl: this.baseUrl,
              happened: `it answered HTTP ${exchange.status}${contentType ? ` with ${contentType}` : ""} (from a gateway, not the API)`,
              verify: call.route.verify,
              requestId: exchange.requestId
            });
          }
          wait = null;
        }
        if (wait !== null) {
          this.debug(`  retrying in ${wait} ms`);
          await this.sleep(wait);
          if (user?.aborted)
            throw aborted();
          continue;
        }
        if (call.raw) {
          return take({ ...exchange, text });
        }
        if ((exchange.status === 404 || exchange.status === 405) && !call.noKey) {
          const wrongBase = await this.missingVersionHint(deadline);
          if (wrongBase)
            throw wrongBase;
        }
        throw this.failure(call, exchange, text, attempt, longWait);
      }
    } finally {
      clearTimeout(timer);
      user?.removeEventListener("abort", onUserAbort);
    }
  }
  /** The error for an answer that is not a success. */
  failure(call, x, text, attempts = 1, longWait = null) {
    return errorFromResponse({
      status: x.status,
      contentType: mediaType(x.headers["content-type"]),
      text,
      requestId: x.requestId,
      premia: x.premia !== null,
      route: call.route,
      baseUrl: this.baseUrl,
      keyHint: this.options.keyHint,
      location: headerText(x.headers.location),
      apiKey: this.apiKey,
      attempts,
      retryAfterMs: longWait
    });
  }
  /** What the answers say of the server: premia's marker is remembered; a proxy's 5xx says nothing. */
  noteServer(x) {
    if (x.premia)
      this.premiaVersion = x.premia;
    else if (this.premiaVersion === void 0 && x.status < 500 && (x.status < 300 || x.status >= 400))
      this.premiaVersion = null;
  }
  /**
   * Whether the service is known to honour Idempotency-Key: a premia service (its answers carry
   * the marker header). When nothing has told yet, a GET /whoami (safe to send) asks.
   */
  async honoursKeys(deadline) {
    if (this.premiaVersion !== void 0)
      return this.premiaVersion !== null;
    const left = Math.min(DEFAULT_CONNECT_TIMEOUT_MS, deadline - Date.now());
    if (left <= 0)
      return false;
    try {
      const started = performance.now();
      const res = await this.pool.request({
        path: `${this.basePath}/whoami`,
        method: "GET",
        headers: { "x-api-key": this.apiKey, accept: "application/json", "user-agent": `premia/${VERSION}` },
        signal: AbortSignal.timeout(left)
      });
      await res.body.dump().catch(() => void 0);
      const marker = headerText(res.headers[MARKER_HEADER]);
      this.debug(`  does the service honour Idempotency-Key? GET ${this.basePath}/whoami \u2192 ${res.statusCode}${marker ? `, premia ${marker}: yes` : ", no premia marker: not known"} (${elapsed(started)})`);
      if (marker)
        this.premiaVersion = marker;
      return marker !== null;
    } catch (e) {
      this.debug(`  does the service honour Idempotency-Key? GET ${this.basePath}/whoami failed (${errorCodeOf(e)}): not known`);
      return false;
    }
  }
  /**
   * Whether the base URL lacks `/v1` while the API answers under it: the error that says so
   * (naming the corrected URL), or null. Asked once per client, after a 404 or 405, and only for
   * a base URL not already ending in a version: GET {base}/v1/whoami carrying premia's marker
   * (200, or 401 for a key it refuses) is a premia service; otherwise a service implementing the
   * spec answers 401 with the spec's error body to a request without a key at
   * {base}/v1/collections/{id}, which must not also be the answer at {base}/collections/{id}
   * (a server that checks keys on every path proves nothing).
   */
  missingVersionHint(deadline = Date.now() + DEFAULT_CONNECT_TIMEOUT_MS) {
    if (/\/v\d+$/.test(this.basePath))
      return Promise.resolve(null);
    this.versionHint ??= this.findVersionHint(deadline).catch(() => null);
    return this.versionHint;
  }
  async findVersionHint(deadline) {
    const base = this.baseUrl.replace(/\/+$/, "");
    const candidate = `${this.basePath}/v1`;
    const told = (evidence) => remoteError(`The base URL ${base} lacks the API version: the API answers at ${base}/v1 (${evidence}). Add /v1: --base-url ${base}/v1 (or PREMIA_BASE_URL, or premia login --base-url ${base}/v1).`, null);
    const who = await this.peek(`${candidate}/whoami`, true, deadline);
    if (who?.premia && (who.status === 200 || who.status === 401))
      return told(`a premia service, X-Premia-Version ${who.premia}, answers there`);
    const there = await this.peek(`${candidate}/collections/${PROBE_ID}`, false, deadline);
    if (there?.status !== 401 || parseErrorBody(there.text) === null)
      return null;
    const here = await this.peek(`${this.basePath}/collections/${PROBE_ID}`, false, deadline);
    if (here === null || here.status === 401)
      return null;
    return told(`a service implementing the spec: it answers 401 to a request without a key at ${base}/v1/collections/${PROBE_ID}, and HTTP ${here.status} at ${base}/collections/${PROBE_ID}`);
  }
  /** A GET outside the retry machinery (for the diagnosis above): status, marker and a bounded body; null on failure. */
  async peek(path, withKey, deadline) {
    const left = Math.min(DEFAULT_CONNECT_TIMEOUT_MS, deadline - Date.now());
    if (left <= 0)
      return null;
    try {
      const headers = { accept: "application/json", "user-agent": `premia/${VERSION}` };
      if (withKey)
        headers["x-api-key"] = this.apiKey;
      const res = await this.pool.request({ path, method: "GET", headers, signal: AbortSignal.timeout(left) });
      const text = await readBounded(res.body, MAX_ERROR_BODY);
      const premia = headerText(res.headers[MARKER_HEADER]);
      this.debug(`  is the API under /v1? GET ${path}${withKey ? "" : " (no X-API-Key)"} \u2192 ${res.statusCode}${premia ? `, premia ${premia}` : ""}`);
      return { status: res.statusCode, premia, text };
    } catch (e) {
      this.debug(`  is the API under /v1? GET ${path} failed (${errorCodeOf(e)})`);
      return null;
    }
  }
  /** Full jitter: a uniform wait in [0, min(cap, base·2^(attempt-1))). */
  backoff(attempt) {
    const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (attempt - 1));
    return Math.floor(this.random() * ceiling);
  }
  /** Ctrl-C: the request was abandoned (exit 130); a write may still be carried out by the service. */
  cancelled(call) {
    const write = call.method !== "GET";
    return new PremiaError("CANCELLED", `Stopped by Ctrl-C: premia stopped waiting for ${this.describe(call)}${write ? "; the service may still finish it" : ""}.`, { exitCode: ExitCode.CANCELLED });
  }
  timeoutError(call, key) {
    const seconds = Math.round(this.timeoutMs / 1e3);
    const happened = `${this.describe(call)} got no complete answer from ${this.baseUrl} within ${seconds} s (raise it with --timeout or PREMIA_TIMEOUT).`;
    if (!key)
      return remoteError(happened, null);
    if (this.premiaVersion) {
      return remoteError(`${happened} Whether it was done is unknown: rerun the same command with --idempotency-key ${this.options.idempotencyKey} to finish it safely.`, null);
    }
    return outcomeUnknown({ what: this.describe(call), baseUrl: this.baseUrl, happened: `no complete answer came within ${seconds} s (raise it with --timeout or PREMIA_TIMEOUT)`, verify: call.route.verify });
  }
  debug(line) {
    this.options.debug?.(line);
  }
};
var Accepted = class {
  location;
  operation;
  retryAfterMs;
  constructor(location, operation, retryAfterMs2) {
    this.location = location;
    this.operation = operation;
    this.retryAfterMs = retryAfterMs2;
  }
};
function parseBaseUrl(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    throw new PremiaError("VALIDATION_ERROR", `'${text.slice(0, 200)}' is not a URL; give the service's base URL, e.g. http://127.0.0.1:8080/v1.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new PremiaError("VALIDATION_ERROR", `The base URL must start with http:// or https://; got '${url.protocol}'.`);
  }
  if (url.username || url.password) {
    throw new PremiaError("VALIDATION_ERROR", "The base URL must not contain a user name or password; the API key goes in PREMIA_API_KEY or a profile.");
  }
  if (url.search || url.hash)
    throw new PremiaError("VALIDATION_ERROR", "The base URL must not have a query string or fragment.");
  return url;
}
function toExchange(response) {
  const headers = response.headers;
  return {
    status: response.statusCode,
    headers,
    body: response.body,
    requestId: headerText(headers["x-request-id"]),
    premia: headerText(headers[MARKER_HEADER])
  };
}
function headerText(value) {
  if (value === void 0)
    return null;
  return Array.isArray(value) ? value[0] ?? null : value;
}
function mediaType(value) {
  return (headerText(value) ?? "").split(";", 1)[0].trim().toLowerCase();
}
function queryString(query) {
  if (!query)
    return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== void 0)
      params.append(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : "";
}
async function readJson(x, what, apiKey) {
  const type = mediaType(x.headers["content-type"]);
  if (type !== "application/json" && !type.endsWith("+json")) {
    await x.body.dump().catch(() => void 0);
    throw remoteError(`${what} answered ${x.status} with ${type || "no content type"} instead of JSON; is something other than the service answering there?`, x.requestId);
  }
  const text = redactText(await x.body.text(), apiKey);
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    throw remoteError(text.length === 0 ? `${what} answered ${x.status} with an empty body instead of JSON.` : `${what} answered ${x.status} with a body that is not valid JSON (cut off?): ${text.length} bytes received.`, x.requestId);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw remoteError(`${what} answered ${x.status} with JSON that is not an object.`, x.requestId);
  }
  try {
    return moneyToCents(value);
  } catch (e) {
    throw remoteError(`${what} answered with an amount premia cannot read: ${e.message}.`, x.requestId);
  }
}
async function readBounded(body, limit) {
  const chunks = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < limit)
      chunks.push(chunk.subarray(0, limit - size));
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString("utf8");
}
async function* guardStream(head, rest, what, requestId) {
  yield* head;
  try {
    for (; ; ) {
      const next = await rest.next();
      if (next.done)
        return;
      yield next.value;
    }
  } catch (e) {
    if (e instanceof PremiaError)
      throw e;
    throw remoteError(`${what}: the download broke off before it was complete (${errorCodeOf(e)}); nothing complete was received, run it again.`, requestId);
  }
}
function filenameOf(value) {
  const text = headerText(value);
  if (!text)
    return null;
  const m = /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i.exec(text);
  if (!m)
    return null;
  const name = m[1] !== void 0 ? m[1].replace(/\\(.)/g, "$1") : m[2].trim();
  return isSafeName(name) ? name : null;
}
function isSafeName(name) {
  return name !== "" && !name.startsWith(".") && !/[/\\\u0000-\u001f\u007f]/.test(name) && Buffer.byteLength(name) <= 255;
}
function safeName(name, format) {
  return isSafeName(name) ? name : `download.${format}`;
}
function checkKey(key) {
  const trimmed = key.trim();
  if (trimmed === "" || /[^\x20-\x7e]/.test(trimmed)) {
    throw new PremiaError("UNAUTHORIZED", trimmed === "" ? "The API key is empty: set PREMIA_API_KEY to the key, or run premia login." : "The API key has characters an HTTP header cannot carry (control characters or non-ASCII): check where it was copied from.");
  }
  return trimmed;
}
function retryAfterMs(value, now) {
  if (value === null)
    return null;
  const text = value.trim();
  if (/^\d+$/.test(text))
    return Number(text) * 1e3;
  const at = Date.parse(text);
  if (Number.isNaN(at))
    return null;
  return Math.max(0, at - now);
}
var NEVER_SENT_CODES = /* @__PURE__ */ new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH", "ENETDOWN", "UND_ERR_CONNECT_TIMEOUT"]);
var RETRYABLE_CODES = /* @__PURE__ */ new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ENETDOWN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED"
]);
function errorCodeOf(e) {
  const err = e;
  if (typeof err?.code === "string")
    return err.code;
  if (typeof err?.cause?.code === "string")
    return err.cause.code;
  return typeof err?.message === "string" ? err.message : String(e);
}
function retryableConnectionError(e) {
  return RETRYABLE_CODES.has(errorCodeOf(e));
}
function elapsed(started) {
  return `${(performance.now() - started).toFixed(1)} ms`;
}

// dist/backend/remote/index.js
function openRemoteBackend(options) {
  return new RemoteBackend(options);
}
function parseObject(text) {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}
function wrongUrl(baseUrl, why, answer) {
  return new PremiaError("REMOTE_ERROR", `The base URL ${baseUrl} does not lead to the API: ${why}. Check the base URL: it includes the version, e.g. http://host:8080/v1.`, { requestId: answer.requestId ?? void 0 });
}
function callOf(row, args, extras = {}) {
  const request = buildRequest(row, ...args);
  const { signal, follow, ...route } = extras;
  const call = {
    method: request.method,
    path: request.path,
    status: request.status,
    idempotencyKey: request.idempotencyKey,
    prefer: request.prefer,
    route: { ...request.route, ...route }
  };
  if (request.query !== void 0)
    call.query = request.query;
  if (request.json !== void 0)
    call.json = request.json;
  if (signal !== void 0)
    call.signal = signal;
  if (follow !== void 0)
    call.follow = follow;
  return call;
}
var RemoteBackend = class _RemoteBackend {
  options;
  mode = "remote";
  http;
  constructor(options) {
    this.options = options;
    this.http = new HttpClient(options);
  }
  json(call) {
    return this.http.json(call);
  }
  /**
   * Before sending an extension field to a spec route (which another server might silently
   * ignore), make sure the service is premia: its answers carry the marker header.
   */
  async requirePremia(what) {
    if (this.http.premiaVersion === void 0) {
      try {
        await this.json(callOf(OPERATIONS.whoami, []));
      } catch (e) {
        if (!(e instanceof PremiaError) || e.code !== "NOT_SUPPORTED")
          throw e;
      }
    }
    if (!this.http.premiaVersion)
      throw notSupported(what, null);
  }
  /** "<what> (METHOD /path)" of a row, as messages name it. */
  static named(row) {
    return `${row.what} (${row.method} ${row.path})`;
  }
  /**
   * Who the key acts for, proving the key and the base URL: login and whoami must not accept a
   * wrong one of either.
   *
   * GET /whoami (premia's extension) answers on a premia service. A 404 there that carries
   * premia's marker means the URL is wrong (a premia service always has /whoami). Without
   * /whoami (another server), GET /collections/{id} with an id that cannot exist proves it: 401
   * is a refused key; any other answer is then checked by sending the same request without a
   * key: a server that implements the spec answers that with 401 (spec section 5), while at a
   * wrong URL nothing checks keys, so the answer does not change. Only then is the key taken as
   * accepted.
   */
  async describe() {
    let client = null;
    const whoami = callOf(OPERATIONS.whoami, []);
    const who = await this.http.probe(whoami);
    if (who.status >= 200 && who.status < 300 && who.premia) {
      const body = parseObject(who.text);
      if (!body)
        throw remoteError(`GET ${this.path("/whoami")} answered ${who.status} with ${who.contentType || "no content type"} that is not a JSON object; is something other than the service answering at ${this.options.baseUrl}?`, who.requestId);
      client = typeof body.client === "string" ? body.client : null;
    } else if (who.status === 401) {
      throw this.http.failure(whoami, who, who.text);
    } else if (who.premia && (who.status === 404 || who.status === 405)) {
      throw await this.http.missingVersionHint() ?? wrongUrl(this.options.baseUrl, `it is a premia service (X-Premia-Version ${who.premia}), but it has no GET ${this.path("/whoami")}`, who);
    } else if (who.status >= 300 && who.status < 400) {
      throw this.http.failure(whoami, who, who.text);
    } else if (who.status >= 500 && who.status !== 501) {
      throw this.http.failure(whoami, who, who.text);
    } else {
      await this.proveKey();
    }
    return {
      mode: "remote",
      base_url: this.options.baseUrl,
      profile: this.options.profile ?? null,
      api_key: maskKey(this.options.apiKey.trim()),
      client,
      server_version: this.http.premiaVersion ?? null
    };
  }
  /** On a server without /whoami: a spec GET of an id that cannot exist, with the key and then without. */
  async proveKey() {
    const call = callOf(OPERATIONS.getCollection, [PROBE_ID]);
    const withKey = await this.http.probe(call);
    if (withKey.status === 401 || withKey.status >= 300 && withKey.status < 400 || withKey.status >= 500 && withKey.status !== 501) {
      throw this.http.failure(call, withKey, withKey.text);
    }
    const without = await this.http.probe({ ...call, noKey: true });
    if (without.status === 401)
      return;
    throw await this.http.missingVersionHint() ?? wrongUrl(this.options.baseUrl, `GET ${this.path(`/collections/${PROBE_ID}`)} answered HTTP ${withKey.status}${withKey.contentType ? ` with ${withKey.contentType}` : ""} with the API key and HTTP ${without.status} without one, where a service implementing the spec answers 401 to a request without a key`, withKey);
  }
  path(p) {
    return `${new URL(this.options.baseUrl).pathname.replace(/\/+$/, "")}${p}`;
  }
  // -- policies (spec 4.1–4.3; get and list are extensions) ---------------------------------
  createPolicy(input) {
    return this.json(callOf(OPERATIONS.createPolicy, [input], {
      verify: `Check whether policy ${input.policy_number} exists at the service (a second create may be refused as a duplicate or make a second policy)`
    }));
  }
  importPolicies(file, options) {
    return this.json({
      ...callOf(OPERATIONS.importPolicies, [file, options], {
        signal: options?.signal,
        follow: {},
        verify: `Check which policies of ${file.name} exist at the service (an import sent twice may be refused as duplicates or make every policy twice)`
      }),
      upload: { file, onProgress: options?.onProgress }
    });
  }
  updatePolicy(ref, patch) {
    return this.json(callOf(OPERATIONS.updatePolicy, [ref, patch], {
      ref: { noun: "policy", value: ref },
      item: { noun: "policy", value: ref },
      verify: `Check policy ${ref} at the service (its amount and status)`
    }));
  }
  async previewCancellation(ref) {
    await this.requirePremia(_RemoteBackend.named(OPERATIONS.previewCancellation));
    return this.json(callOf(OPERATIONS.previewCancellation, [ref], { item: { noun: "policy", value: ref } }));
  }
  getPolicy(ref) {
    return this.json(callOf(OPERATIONS.getPolicy, [ref]));
  }
  listPolicies(query) {
    return this.json(callOf(OPERATIONS.listPolicies, [query]));
  }
  // -- the clock and the bank (simulation extensions) ---------------------------------------
  getClock() {
    return this.json(callOf(OPERATIONS.getClock, []));
  }
  setClock(date) {
    return this.json(callOf(OPERATIONS.setClock, [date]));
  }
  async advanceClock(target, options) {
    let told = 0;
    const tell = (days, total) => {
      for (; told < days.length; told++)
        options?.onDay?.(days[told], told + 1, total);
    };
    const result = await this.json(callOf(OPERATIONS.advanceClock, [target, options], {
      signal: options?.signal,
      follow: { onProgress: (op) => tell(op.days ?? [], op.progress?.total ?? 0) }
    }));
    tell(result.days, result.days.length);
    return result;
  }
  previewAdvance(target) {
    return this.json(callOf(OPERATIONS.previewAdvance, [target]));
  }
  seedBank(seed) {
    return this.json(callOf(OPERATIONS.seedBank, [seed]));
  }
  importBankTransactions(file, options) {
    return this.json({
      ...callOf(OPERATIONS.importBankTransactions, [file, options], { signal: options?.signal, follow: {} }),
      upload: { file, onProgress: options?.onProgress }
    });
  }
  showBankAccount(customerId) {
    return this.json(callOf(OPERATIONS.showBankAccount, [customerId]));
  }
  // -- collections (spec 4.4, 4.5; the rest are extensions) ---------------------------------
  async executeCollections(input) {
    if (input.strategy !== void 0)
      await this.requirePremia("collection strategies (--strategy)");
    return this.json(callOf(OPERATIONS.executeCollections, [input], {
      verify: `Check whether the ${input.period_month} run was queued (premia reports collections --period ${input.period_month})`
    }));
  }
  getCollection(id) {
    return this.json(callOf(OPERATIONS.getCollection, [id], { item: { noun: "collection", value: id } }));
  }
  listCollections(query) {
    return this.json(callOf(OPERATIONS.listCollections, [query]));
  }
  exportAttempts(period, format) {
    return this.http.download(callOf(OPERATIONS.attemptsReport, [period, format]), format, `attempts-${period}.${format}`);
  }
  explainCollection(id) {
    return this.json(callOf(OPERATIONS.explainCollection, [id]));
  }
  getExecution(id) {
    return this.json(callOf(OPERATIONS.getExecution, [id]));
  }
  // -- reports (spec 4.6) ----------------------------------------------------------------
  collectionsReport(period, format) {
    return this.http.download(callOf(OPERATIONS.collectionsReport, [period, format]), format, `collections-${period}.${format}`);
  }
  // -- settlements (spec 4.7–4.9; list, mark-paid and dispute are extensions) ---------------
  createSettlement(period) {
    return this.json(callOf(OPERATIONS.createSettlement, [period], { verify: `Check whether a settlement for ${period} exists at the service` }));
  }
  async previewSettlement(period) {
    await this.requirePremia(_RemoteBackend.named(OPERATIONS.previewSettlement));
    return this.json(callOf(OPERATIONS.previewSettlement, [period]));
  }
  getSettlement(ref) {
    return this.json(callOf(OPERATIONS.getSettlement, [ref], { ref: { noun: "settlement", value: ref }, item: { noun: "settlement", value: ref } }));
  }
  async exportSettlement(ref, options) {
    const lines = options?.lines === true;
    if (lines)
      await this.requirePremia("settlement lines (export --lines)");
    return this.http.download(callOf(OPERATIONS.exportSettlement, [ref, options], { ref: { noun: "settlement", value: ref }, item: { noun: "settlement", value: ref } }), "csv", lines ? `${ref}-lines.csv` : `${ref}.csv`);
  }
  listSettlements(query) {
    return this.json(callOf(OPERATIONS.listSettlements, [query]));
  }
  markSettlementPaid(ref, options) {
    return this.json(callOf(OPERATIONS.markSettlementPaid, [ref, options]));
  }
  disputeSettlement(ref, reason) {
    return this.json(callOf(OPERATIONS.disputeSettlement, [ref, reason]));
  }
  close() {
    return this.http.close();
  }
};
export {
  RemoteBackend,
  callOf,
  openRemoteBackend,
  parseBaseUrl
};
