/**
 * What a failed exchange means, as a PremiaError with the code, message and exit code that local
 * mode would give (the service's error body of spec section 7 carries them), plus what only a
 * remote user can hit: a refused key, a server without one of premia's extensions, a proxy's
 * error page, a connection that cannot be made.
 */
import { PremiaError } from '../../domain/errors.js';

export interface RouteInfo {
  /** The operation in words, for "this server does not offer …". */
  what: string;
  /** A premia extension, not one of the spec's endpoints. */
  extension: boolean;
  /** No resource in the path: a 404 there can only mean that the route itself is missing. */
  idless?: boolean;
  /** A reference in the path that premia also accepts as a number (policy or settlement). */
  ref?: { noun: 'policy' | 'settlement'; value: string };
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
  const error = (value as { error?: unknown } | null)?.error as Partial<ErrorBody> | undefined;
  if (!error || typeof error !== 'object' || typeof error.code !== 'string' || typeof error.message !== 'string') return null;
  if (!/^[A-Z][A-Z0-9_]{0,63}$/.test(error.code)) return null;
  return error as ErrorBody;
}

export function errorFromResponse(r: FailedResponse): PremiaError {
  const body = r.contentType === 'application/json' || r.contentType.endsWith('+json') || r.contentType === '' ? parseErrorBody(r.text) : null;
  const requestId = typeof body?.request_id === 'string' && body.request_id !== '' ? body.request_id : r.requestId;

  if (r.status === 401) {
    const said = body ? ` (the service said: ${body.message})` : '';
    return new PremiaError(
      'UNAUTHORIZED',
      `The service at ${r.baseUrl} refused the API key${said}. ${r.keyHint ?? "Set PREMIA_API_KEY to a valid key, or run 'premia login' to save one."}`,
      { status: 401, requestId: requestId ?? undefined },
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
  if (r.status === 404 && !r.premia && r.route.ref && !UUID_SHAPED.test(r.route.ref.value)) {
    const { noun, value } = r.route.ref;
    return new PremiaError(
      'NOT_SUPPORTED',
      `This server does not offer a lookup by ${noun} number (a premia extension), and found no ${noun} with the id '${value}'. ` +
        `Give the ${noun}'s id as the service returned it.`,
      { requestId: requestId ?? undefined },
    );
  }

  if (body) {
    const details = Array.isArray(body.details) && body.details.every((d) => typeof d === 'object' && d !== null) ? (body.details as Record<string, unknown>[]) : undefined;
    return new PremiaError(body.code, body.message, { status: r.status, details, requestId: requestId ?? undefined });
  }

  // Not the spec's error body: something else answered (a proxy, a web server, another service).
  const what = `HTTP ${r.status}${r.contentType ? ` with ${r.contentType}` : ''}`;
  if (r.status >= 300 && r.status < 400) {
    return remoteError(
      `The service at ${r.baseUrl} answered with a redirect (${r.status}${r.location ? ` to ${r.location}` : ''}); premia does not follow redirects with your key. Use the final URL as the base URL.`,
      requestId,
    );
  }
  if (r.status === 404 || r.status === 405) {
    return remoteError(
      `The service at ${r.baseUrl} answered ${what}, not an API error: check the base URL (it includes the version, e.g. http://host:8080/v1).`,
      requestId,
    );
  }
  if (r.status >= 500) {
    return remoteError(
      `The service at ${r.baseUrl} failed (${what}, not an API error); a proxy or gateway in front of it may be down. Try again later.`,
      requestId,
    );
  }
  return remoteError(`The service at ${r.baseUrl} answered ${what}, which is not an API response premia understands.`, requestId);
}

const CONNECTION_WORDS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused (is the service running, and is the URL right?)',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed while sending',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection could not be made in time (raise it with --connect-timeout or PREMIA_CONNECT_TIMEOUT)',
  UND_ERR_SOCKET: 'the connection was closed by the other side before the answer was complete',
  UND_ERR_CLOSED: 'the connection was closed',
  ENOTFOUND: 'the host name is unknown',
  EAI_AGAIN: 'the host name could not be resolved',
  ENETUNREACH: 'the network is unreachable',
  EHOSTUNREACH: 'the host is unreachable',
  UND_ERR_HEADERS_TIMEOUT: 'no answer came in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stalled',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the answer was shorter than announced',
  CERT_HAS_EXPIRED: "the service's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the service's TLS certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the service's TLS certificate cannot be verified",
  ERR_TLS_CERT_ALTNAME_INVALID: "the service's TLS certificate is for another host name",
};

export function connectionError(
  e: unknown,
  info: { url: string; attempts: number; baseKey?: string; stdinStarted?: boolean; broken?: boolean },
): PremiaError {
  const err = e as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
  const code = typeof err?.code === 'string' ? err.code : typeof err?.cause?.code === 'string' ? err.cause.code : '';
  const words = CONNECTION_WORDS[code] ?? (typeof err?.message === 'string' ? err.message : 'the request failed');
  let message = `Cannot talk to the service at ${info.url}: ${words}${info.attempts > 1 ? ` (${info.attempts} attempts)` : ''}.`;
  if (info.stdinStarted) message += ' An upload from stdin cannot be sent again; give the file by name to let premia retry.';
  if (info.baseKey) {
    message += ` Whether the service acted on it is unknown: rerun the same command with --idempotency-key ${info.baseKey} to complete it without acting twice.`;
  }
  return new PremiaError('REMOTE_ERROR', message, { cause: e });
}
