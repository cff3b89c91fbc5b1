/**
 * What a failed exchange means, as a PremiaError with the code, message and exit code that local
 * mode would give (the service's error body of spec section 7 carries them), plus what only a
 * remote user can hit: a refused key, a server without one of premia's extensions, a proxy's
 * error page, a connection that cannot be made.
 */
import { STATUS_CODES } from 'node:http';
import { ExitCode, exitCodeForStatus, PremiaError, receivedCode } from '../../domain/errors.js';
import { maskKey, redactText } from '../../lib/key-text.js';

// Masking a key has one home (lib/key-text.ts); remote mode's modules take it from here.
export { maskKey, redactText } from '../../lib/key-text.js';

export interface RouteInfo {
  /** The operation in words, for "this server does not offer …". */
  what: string;
  /** A premia extension, not one of the spec's endpoints. */
  extension: boolean;
  /** No resource in the path: a 404 there can only mean that the route itself is missing. */
  idless?: boolean;
  /** The request commits in parts (operations.ts commitsInParts): a 5xx to it is not resent. */
  inParts?: boolean;
  /** A reference in the path that premia also accepts as a number (policy or settlement). */
  ref?: { noun: 'policy' | 'settlement'; value: string };
  /**
   * The resource a spec route with an id names: on such a route, a 404 means that resource was
   * not found (NOT_FOUND, exit 5), whatever the body says.
   */
  item?: { noun: string; value: string };
  /**
   * For a write: what to check on the service when it is unknown whether the write was done
   * (a server that has not shown that it honours Idempotency-Key is never sent it again).
   */
  verify?: string;
}

export interface FailedResponse {
  status: number;
  contentType: string;
  text: string;
  requestId: string | null;
  /** The response carried premia's marker header. */
  premia: boolean;
  route: RouteInfo;
  baseUrl: string;
  keyHint?: string;
  location?: string | null;
  /** The base URL a redirect moves the API to (the same path below it), if it does. */
  movedTo?: string | null;
  /** The API key, removed from any text of the server's before it is shown. */
  apiKey?: string;
  /** How many attempts were made (said in the message when more than one). */
  attempts?: number;
  /** A Retry-After longer than premia waits, in milliseconds. */
  retryAfterMs?: number | null;
}

interface ErrorBody {
  code: string;
  message: string;
  request_id?: unknown;
  details?: unknown;
}

const UUID_SHAPED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function remoteError(message: string, requestId: string | null): PremiaError {
  return new PremiaError('REMOTE_ERROR', message, { requestId: requestId ?? undefined });
}

/** The base URL does not lead to the API (`why`: what shows it), exit 1. */
export function wrongBaseUrl(baseUrl: string, why: string, requestId: string | null): PremiaError {
  return remoteError(`The base URL ${baseUrl} does not lead to the API: ${why}. Check the base URL: it includes the version, e.g. http://host:8080/v1.`, requestId);
}

export function notSupported(what: string, requestId: string | null, hint = ''): PremiaError {
  return new PremiaError(
    'NOT_SUPPORTED',
    `This server does not offer ${what}: it is one of premia's own extensions, and the service at this URL implements only the spec's endpoints.${hint ? ` ${hint}` : ''}`,
    { requestId: requestId ?? undefined },
  );
}

/** The spec's error body, when the text is one. */
export function parseErrorBody(text: string): ErrorBody | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const root = value as { error?: unknown; detail?: unknown } | null;
  // FastAPI's HTTPException answers what it is given under detail: a server that raises one with
  // the spec's body sends {"detail": {"error": {...}}}, which is that body all the same.
  const wrapped = root?.error === undefined && root?.detail !== null && typeof root?.detail === 'object' ? (root.detail as { error?: unknown }).error : undefined;
  const error = (root?.error ?? wrapped) as Partial<ErrorBody> | undefined;
  if (!error || typeof error !== 'object' || typeof error.code !== 'string' || typeof error.message !== 'string') return null;
  // The spec defines only UNAUTHORIZED: other servers spell their codes their own way (not_found, Collection.NotFound).
  if (!/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(error.code)) return null;
  // What premia prints of it: the message, the request id, each detail's message.
  const details = Array.isArray(error.details)
    ? (error.details as unknown[]).map((d) => (d !== null && typeof d === 'object' && typeof (d as { message?: unknown }).message === 'string' ? { ...d, message: withoutControls((d as { message: string }).message) } : d))
    : error.details;
  return {
    ...error,
    message: withoutControls(error.message),
    ...(typeof error.request_id === 'string' ? { request_id: withoutControls(error.request_id) } : {}),
    ...(details !== undefined ? { details } : {}),
  } as ErrorBody;
}

/**
 * A server's text as premia shows it on a terminal: control characters (escape sequences, a
 * carriage return that would overwrite the line) each run made one space. A terminal must not be
 * driven by a server's text.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it replaces
const withoutControls = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');

/** A parsed answer with every string in it (keys too) without control characters, in place. */
export function withoutControlsDeep(value: unknown): unknown {
  if (typeof value === 'string') return withoutControls(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = withoutControlsDeep(value[i]);
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(obj)) {
    const shown = withoutControls(k);
    if (shown !== k) delete obj[k];
    obj[shown] = withoutControlsDeep(v);
  }
  return obj;
}

const EXCERPT_LIMIT = 200;

function isHtml(contentType: string, text: string): boolean {
  return contentType === 'text/html' || contentType === 'application/xhtml+xml' || /^\s*<(!doctype|html|head|body)\b/i.test(text);
}

/**
 * What an error body of another shape says, in at most 200 characters: a JSON `message`,
 * problem+json `title`/`detail`, an `error` string or object (with its `errors`, listed or by
 * field), or plain text. Null for an HTML page or an empty body (an error page says nothing useful).
 */
export function excerptOf(text: string, contentType: string): string | null {
  if (text.trim() === '' || isHtml(contentType, text)) return null;
  let said: string | null = null;
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const v = value as Record<string, unknown>;
      const inner = v.error && typeof v.error === 'object' ? (v.error as Record<string, unknown>) : null;
      const parts = [
        typeof v.title === 'string' ? v.title : null,
        typeof v.detail === 'string' ? v.detail : null,
        typeof v.message === 'string' ? v.message : null,
        typeof v.error === 'string' ? v.error : null,
        typeof inner?.message === 'string' ? inner.message : null,
        typeof v.error_description === 'string' ? v.error_description : null,
      ].filter((p): p is string => p !== null && p.trim() !== '');
      // What a framework's validation error lists beside its title (ASP.NET's and Laravel's
      // `errors`, problem+json's `invalid-params`): the reason, which the title does not give.
      const listed = ['errors', 'invalid-params'].flatMap((k) => (v[k] !== null && typeof v[k] === 'object' && Object.keys(v[k]).length > 0 ? [JSON.stringify(v[k])] : []));
      const located = locatedDetails(v.detail);
      if (located !== null) said = parts.length > 0 ? `${[...new Set(parts), ...listed].join(': ')}: ${located}` : located;
      else said = parts.length > 0 ? [...new Set(parts), ...listed].join(': ') : JSON.stringify(value);
    } else {
      said = JSON.stringify(value);
    }
  } catch {
    said = text;
  }
  // One line, without control characters.
  const line = withoutControls(said).replace(/\s+/g, ' ').trim();
  if (line === '') return null;
  return line.length > EXCERPT_LIMIT ? `${line.slice(0, EXCERPT_LIMIT - 1)}…` : line;
}

/**
 * A validation error's `detail` list as FastAPI (pydantic) answers it, `[{loc, msg, type}]`, said
 * as `collection_amount: Input should be a valid number; product_code: Field required`: the field
 * from `loc` without the part of the request it is in (`body`, `query`, `path`). As JSON, each
 * entry's `input` and `type` used up the 200 characters and cut off the second field's reason.
 * Null when `detail` is not such a list.
 */
function locatedDetails(detail: unknown): string | null {
  if (!Array.isArray(detail) || detail.length === 0) return null;
  const said: string[] = [];
  for (const d of detail as unknown[]) {
    if (d === null || typeof d !== 'object' || typeof (d as Record<string, unknown>).msg !== 'string') return null;
    const { loc, msg } = d as { loc?: unknown; msg: string };
    const path = Array.isArray(loc) ? (loc as unknown[]).map(String) : [];
    if (path.length > 1 && ['body', 'query', 'path', 'header'].includes(path[0]!)) path.shift();
    said.push(path.length > 0 ? `${path.join('.')}: ${msg}` : msg);
  }
  return said.join('; ');
}

/**
 * The error's details as premia shows them (a list of objects), from whatever the server sent: a
 * list as it is (strings wrapped as {message}), one object as a list of one, and fields of the
 * error beside code and message (`settlement_id`: the one pointer to an existing statement) as
 * one more entry, so `--json` loses nothing the server said.
 */
function detailsOf(body: ErrorBody): Record<string, unknown>[] | undefined {
  const out: Record<string, unknown>[] = [];
  const item = (d: unknown): Record<string, unknown> => (d !== null && typeof d === 'object' && !Array.isArray(d) ? (d as Record<string, unknown>) : { message: d });
  if (Array.isArray(body.details)) out.push(...(body.details as unknown[]).map(item));
  else if (body.details !== undefined && body.details !== null) out.push(item(body.details));
  const extra = Object.fromEntries(Object.entries(body).filter(([k]) => !['code', 'message', 'request_id', 'details'].includes(k)));
  if (Object.keys(extra).length > 0) out.push(extra);
  return out.length > 0 ? out : undefined;
}

export function errorFromResponse(r: FailedResponse): PremiaError {
  const text = redactText(r.text, r.apiKey);
  // The spec's error body is read whatever its type: Express's res.send(text) labels it text/html,
  // Go's sniffing text/plain. A page of another kind never has its shape.
  const body = parseErrorBody(text);
  const requestId = typeof body?.request_id === 'string' && body.request_id !== '' ? body.request_id : r.requestId;
  const excerpt = body ? null : excerptOf(text, r.contentType);
  const said = body?.message ?? excerpt;
  const attempts = r.attempts !== undefined && r.attempts > 1 ? ` (${r.attempts} attempts)` : '';
  const waitNote =
    r.retryAfterMs !== undefined && r.retryAfterMs !== null
      ? ` The service asked to wait ${Math.ceil(r.retryAfterMs / 1000)} s before trying again, longer than premia waits (60 s): try again later.`
      : '';
  const finish = (e: PremiaError): PremiaError => {
    if (attempts || waitNote) e.message = `${e.message.replace(/\.$/, '')}${attempts}.${waitNote}`;
    return e;
  };

  if (r.status === 401) {
    return new PremiaError(
      'UNAUTHORIZED',
      `The service at ${r.baseUrl} refused the API key${said ? ` (the service said: ${said})` : ''}. ${r.keyHint ?? "Set PREMIA_API_KEY to a valid key, or run 'premia login' to save one."}`,
      { status: 401, requestId: requestId ?? undefined },
    );
  }

  // Another server's refusal ("Forbidden", often nothing more): where, with which key, and what
  // to check. (Some gateways answer 403, not 401, to a key they do not know.) A premia service's
  // FORBIDDEN says itself what the key may not do.
  if (r.status === 403 && !r.premia) {
    return finish(
      foreign(
        new PremiaError(
          receivedCode(body ? body.code : 'HTTP_403'),
          `The service at ${r.baseUrl} refused the request (HTTP 403, forbidden${said ? `: ${said}` : ''}): the API key ${maskKey(r.apiKey ?? '')} may not do this, ` +
            "or the service does not know it (some gateways answer 403 to an unknown key). Check the key, and ask the service's operator what it may do.",
          { status: 403, exitCode: exitCodeForStatus(403), details: body ? detailsOf(body) : undefined, requestId: requestId ?? undefined },
        ),
        r,
      ),
    );
  }

  // A route the server does not have: without premia's marker, or where nothing but the route can be missing.
  const missingRoute = r.status === 404 || r.status === 405 || r.status === 501;
  if (missingRoute && r.route.extension && (!r.premia || r.route.idless)) {
    if (r.premia) {
      return new PremiaError(
        'NOT_SUPPORTED',
        `This server does not offer ${r.route.what}. A premia service offers the clock and bank endpoints only while it runs on the simulated bank; ` +
          "without them, those commands are local-only (run them with --db on the service's store).",
        { requestId: requestId ?? undefined },
      );
    }
    // Not even an API error body: perhaps no API at all answers at this URL.
    const urlHint = body ? '' : ` (It answered HTTP ${r.status}${r.contentType ? ` with ${r.contentType}` : ''}; if every command fails like this, check the base URL: it includes the version, e.g. http://host:8080/v1.)`;
    return new PremiaError('NOT_SUPPORTED', `${notSupported(r.route.what, null).message}${urlHint}`, { requestId: requestId ?? undefined });
  }
  // A spec route with an id: a 404 is that resource not found (exit 5), whatever the body is.
  // The spec's ids are only "UUID-like", so any reference may be one; but one that does not look
  // like a UUID may be a number, which only premia's own service looks up (its 404 carries its
  // marker): the message says so.
  if (r.status === 404 && r.route.item && !r.route.extension) {
    const ref = !r.premia && r.route.ref && !UUID_SHAPED.test(r.route.ref.value) ? r.route.ref : null;
    const numberHint = ref
      ? ` If '${ref.value}' is the ${ref.noun}'s number: looking a ${ref.noun} up by number is a premia extension this server does not offer; give the ${ref.noun}'s id as the service returned it.`
      : '';
    if (body) {
      const said = numberHint && !/[.!?]$/.test(body.message.trim()) ? `${body.message.trim()}.` : body.message;
      return foreign(new PremiaError(receivedCode(body.code), `${said}${numberHint}`, { status: 404, exitCode: ExitCode.NOT_FOUND, details: detailsOf(body), requestId: requestId ?? undefined }), r);
    }
    const { noun, value } = r.route.item;
    const what = `HTTP 404${r.contentType ? ` with ${r.contentType}` : ''}`;
    return new PremiaError(
      'NOT_FOUND',
      `The service found no ${noun} with the id '${value}' (it answered ${what}${excerpt ? `: ${excerpt}` : ''}).` +
        (excerpt ? '' : ' If every command fails like this, check the base URL: it includes the version, e.g. http://host:8080/v1.') +
        numberHint,
      { status: 404, requestId: requestId ?? undefined },
    );
  }

  if (body) {
    return finish(foreign(new PremiaError(receivedCode(body.code), body.message, { status: r.status, details: detailsOf(body), requestId: requestId ?? undefined }), r));
  }

  // Not the spec's error body: something else answered (a proxy, a web server, another service).
  const what = `HTTP ${r.status}${r.contentType ? ` with ${r.contentType}` : ''}`;
  if (r.status >= 300 && r.status < 400) {
    return remoteError(
      `The service at ${r.baseUrl} answered with a redirect (${r.status}${r.location ? ` to ${r.location}` : ''}); premia does not follow redirects with your key. ` +
        (r.movedTo ? `If the service has moved there, use ${r.movedTo} as the base URL.` : 'Use the final URL as the base URL.') +
        // 307 and 308 ask for the same request elsewhere (nothing done); a 301, 302 or 303 to a
        // write may come after the server acted (a 303 "see what was made").
        (r.route.verify && r.status !== 307 && r.status !== 308 ? ` The service may have acted on the write before redirecting: ${r.route.verify.charAt(0).toLowerCase()}${r.route.verify.slice(1)} before running the command again.` : ''),
      requestId,
    );
  }
  if (r.status === 404 || r.status === 405) {
    return remoteError(
      `The service at ${r.baseUrl} answered ${what}${excerpt ? ` (${excerpt})` : ''}, not an API error: check the base URL (it includes the version, e.g. http://host:8080/v1).`,
      requestId,
    );
  }
  if (r.status >= 500) {
    return finish(
      remoteError(
        excerpt
          ? `The service at ${r.baseUrl} failed (HTTP ${r.status}): ${excerpt}`
          : `The service at ${r.baseUrl} failed (${what}, not an API error); a proxy or gateway in front of it may be down. Try again later.`,
        requestId,
      ),
    );
  }
  if (excerpt && r.status >= 400) {
    // Another server's own error: its words, and the exit code its status calls for.
    return finish(
      new PremiaError(receivedCode(`HTTP_${r.status}`), `The service answered HTTP ${r.status}: ${excerpt}`, {
        status: r.status,
        exitCode: exitCodeForStatus(r.status),
        requestId: requestId ?? undefined,
      }),
    );
  }
  if (r.status >= 400 && r.status < 500 && text.trim() === '') {
    // A refusal with no body at all (a rate limiter's bare 429, a 403 of a firewall): no words
    // of the server's to show, but its status still says what happened and sets the exit code.
    const name = statusName(r.status);
    const reason = r.status === 429 ? `${name}: the service is limiting the request rate; try again later` : name;
    return finish(
      new PremiaError(receivedCode(`HTTP_${r.status}`), `The service at ${r.baseUrl} answered HTTP ${r.status}${reason ? ` (${reason})` : ''} without an error body.`, {
        status: r.status,
        exitCode: exitCodeForStatus(r.status),
        requestId: requestId ?? undefined,
      }),
    );
  }
  // An HTML page (a proxy's or web server's refusal): not the API's answer, but its status's name
  // says what went wrong (an nginx 413 in front of an import).
  const reason = r.status >= 400 ? statusName(r.status) : undefined;
  return finish(
    remoteError(
      `The service at ${r.baseUrl} answered HTTP ${r.status}${reason ? ` (${reason})` : ''}${r.contentType ? ` with ${r.contentType}` : ''}, which is not an API response premia understands.`,
      requestId,
    ),
  );
}

/** An error of a server without premia's marker: the CLI shows its details as its message may not say them. */
function foreign(e: PremiaError, r: FailedResponse): PremiaError {
  if (!r.premia) e.foreignDetails = true;
  return e;
}

/** A status's name as HTTP gives it, in lower case ('payload too large'), if it has one. */
const statusName = (status: number): string | undefined => STATUS_CODES[status]?.toLowerCase();

/**
 * How to trust a certificate this machine does not: Node adds the certificates of the PEM file
 * NODE_EXTRA_CA_CERTS names to the authorities it trusts (read as the process starts). Never a
 * switch that turns checking off: a key sent to a service nobody verified is a key given away.
 */
const TRUST_HINT = (what: string) => `; to trust ${what}, name a PEM file holding it in NODE_EXTRA_CA_CERTS`;

const CONNECTION_WORDS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused (is the service running, and is the URL right?)',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed while sending',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection could not be made in time (raise it with --connect-timeout or PREMIA_CONNECT_TIMEOUT)',
  UND_ERR_SOCKET: 'the connection was closed by the other side before the answer was complete',
  // undici's word for the same cut when the answer said `Connection: close` (its parser is told the end).
  HPE_INVALID_EOF_STATE: 'the connection was closed by the other side before the answer was complete',
  UND_ERR_CLOSED: 'the connection was closed',
  ENOTFOUND: 'the host name is unknown',
  EAI_AGAIN: 'the host name could not be resolved',
  ENETUNREACH: 'the network is unreachable',
  EHOSTUNREACH: 'the host is unreachable',
  UND_ERR_HEADERS_TIMEOUT: 'no answer came in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stalled',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the answer was shorter than announced',
  CERT_HAS_EXPIRED: "the service's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: `the service's TLS certificate is self-signed${TRUST_HINT('it')}`,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the service's TLS certificate cannot be verified (is the service sending its intermediate certificates?)",
  ERR_TLS_CERT_ALTNAME_INVALID: "the service's TLS certificate is for another host name",
  SELF_SIGNED_CERT_IN_CHAIN: `the service's TLS certificate is signed by an authority this machine does not trust${TRUST_HINT("that authority's certificate")}`,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: `the service's TLS certificate is signed by an authority this machine does not trust${TRUST_HINT("that authority's certificate")}`,
  ERR_SSL_WRONG_VERSION_NUMBER: 'the other side does not speak TLS (is the service at http://, not https://?)',
};

export function connectionError(
  e: unknown,
  info: { url: string; attempts: number; baseKey?: string; neverSent?: boolean; stdinStarted?: boolean; broken?: boolean },
): PremiaError {
  let message = `Cannot talk to the service at ${info.url}: ${connectionWords(e)}${info.attempts > 1 ? ` (${info.attempts} attempts)` : ''}.`;
  if (info.stdinStarted) message += ' An upload from stdin cannot be sent again; give the file by name to let premia retry.';
  if (info.neverSent) message += ' The request was never sent, so nothing was done.';
  else if (info.baseKey) {
    message += ` Whether the service acted on it is unknown: rerun the same command with --idempotency-key ${info.baseKey} to complete it without acting twice.`;
  }
  return new PremiaError('REMOTE_ERROR', message, { cause: e });
}

/**
 * The code of a failed request's error (undici's or the system's), or '' when it has none. undici
 * leaves its parser's errors without their code (it looks the number up in a table of names), so
 * the one that matters, a body cut off where a `Connection: close` answer's connection ended, is
 * told by llhttp's reason and given its code here.
 */
export function failureCode(e: unknown): string {
  const err = e as { name?: unknown; code?: unknown; cause?: { code?: unknown }; message?: unknown };
  if (typeof err?.code === 'string') return err.code;
  if (typeof err?.cause?.code === 'string') return err.cause.code;
  if (err?.name === 'HTTPParserError' && typeof err.message === 'string' && err.message.endsWith('(Invalid EOF state)')) return 'HPE_INVALID_EOF_STATE';
  return '';
}

export function connectionWords(e: unknown): string {
  const err = e as { message?: unknown };
  const code = failureCode(e);
  // One line: OpenSSL's messages end in a newline, and some hold several.
  const said = typeof err?.message === 'string' ? err.message.replace(/\s+/g, ' ').trim() : '';
  return CONNECTION_WORDS[code] ?? (said !== '' ? said : 'the request failed');
}

/**
 * A write that may have reached a server not known to honour Idempotency-Key, and whose outcome
 * is unknown: it is not sent again (that could act twice). Exit 1, code OUTCOME_UNKNOWN.
 */
export function outcomeUnknown(info: {
  what: string;
  baseUrl: string;
  happened: string;
  /** The service answered that it was done (the answer broke off). */
  done?: boolean;
  verify?: string;
  requestId?: string | null;
  cause?: unknown;
}): PremiaError {
  return new PremiaError(
    'OUTCOME_UNKNOWN',
    `${info.what}: ${info.happened}, so ${info.done ? `the service at ${info.baseUrl} did it, but premia has not seen the result` : `the service at ${info.baseUrl} may or may not have done it`}. ` +
      'premia did not send it again, because this server has not shown that it honours Idempotency-Key and a second request could act twice. ' +
      `${info.verify ?? 'Check on the service whether it was done'} before running the command again.`,
    { status: 502, exitCode: ExitCode.FAILURE, requestId: info.requestId ?? undefined, cause: info.cause },
  );
}
