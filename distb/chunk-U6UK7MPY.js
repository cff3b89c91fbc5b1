// dist/domain/errors.js
var ExitCode = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  PARTIAL: 3,
  AUTH: 4,
  NOT_FOUND: 5,
  CONFLICT: 6,
  CANCELLED: 130
};
var ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, exit: ExitCode.USAGE },
  USAGE_ERROR: { status: 400, exit: ExitCode.USAGE },
  INVALID_FILE: { status: 400, exit: ExitCode.USAGE },
  UNAUTHORIZED: { status: 401, exit: ExitCode.AUTH },
  FORBIDDEN: { status: 403, exit: ExitCode.AUTH },
  NOT_FOUND: { status: 404, exit: ExitCode.NOT_FOUND },
  METHOD_NOT_ALLOWED: { status: 405, exit: ExitCode.FAILURE },
  REQUEST_TIMEOUT: { status: 408, exit: ExitCode.FAILURE },
  CONFLICT: { status: 409, exit: ExitCode.CONFLICT },
  DUPLICATE_POLICY: { status: 409, exit: ExitCode.CONFLICT },
  INVALID_TRANSITION: { status: 409, exit: ExitCode.CONFLICT },
  CLOCK_LOCKED: { status: 409, exit: ExitCode.CONFLICT },
  CLOCK_BACKWARDS: { status: 409, exit: ExitCode.CONFLICT },
  SEED_LOCKED: { status: 409, exit: ExitCode.CONFLICT },
  CALENDAR_LOCKED: { status: 409, exit: ExitCode.CONFLICT },
  PERIOD_CLOSED: { status: 409, exit: ExitCode.CONFLICT },
  PERIOD_OPEN: { status: 409, exit: ExitCode.CONFLICT },
  NO_COLLECTIONS: { status: 409, exit: ExitCode.CONFLICT },
  SETTLEMENT_EXISTS: { status: 409, exit: ExitCode.CONFLICT },
  DISPUTE_WINDOW_CLOSED: { status: 409, exit: ExitCode.CONFLICT },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, exit: ExitCode.CONFLICT },
  IDEMPOTENCY_KEY_REUSED: { status: 422, exit: ExitCode.CONFLICT },
  PAYLOAD_TOO_LARGE: { status: 413, exit: ExitCode.USAGE },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, exit: ExitCode.USAGE },
  RATE_LIMITED: { status: 429, exit: ExitCode.FAILURE },
  HEADERS_TOO_LARGE: { status: 431, exit: ExitCode.FAILURE },
  NOT_SUPPORTED: { status: 501, exit: ExitCode.FAILURE },
  STORE_TOO_NEW: { status: 500, exit: ExitCode.FAILURE },
  STORE_BUSY: { status: 503, exit: ExitCode.FAILURE },
  /** A database server store that cannot be reached or refuses premia (down, wrong password, no such database). */
  STORE_UNAVAILABLE: { status: 503, exit: ExitCode.FAILURE },
  /** The server is shutting down; clients retry. */
  SERVICE_UNAVAILABLE: { status: 503, exit: ExitCode.FAILURE },
  REMOTE_ERROR: { status: 502, exit: ExitCode.FAILURE },
  /** Remote mode: a write may or may not have been done by the service, and was not resent. */
  OUTCOME_UNKNOWN: { status: 502, exit: ExitCode.FAILURE },
  /** Ctrl-C or a declined confirmation; the CLI's own, never answered by the service. */
  CANCELLED: { status: 500, exit: ExitCode.CANCELLED },
  INTERNAL: { status: 500, exit: ExitCode.FAILURE }
};
function receivedCode(code) {
  return code;
}
function isErrorCode(code) {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}
function exitCodeForStatus(status) {
  if (status === 400 || status === 413 || status === 415)
    return ExitCode.USAGE;
  if (status === 401 || status === 403)
    return ExitCode.AUTH;
  if (status === 404)
    return ExitCode.NOT_FOUND;
  if (status === 409 || status === 422)
    return ExitCode.CONFLICT;
  return ExitCode.FAILURE;
}
var PremiaError = class extends Error {
  code;
  status;
  exitCode;
  details;
  /** Set on errors that came back from a server. */
  requestId;
  constructor(code, message, options = {}) {
    super(message, options.cause === void 0 ? void 0 : { cause: options.cause });
    this.name = "PremiaError";
    this.code = code;
    const known = isErrorCode(code) ? ERROR_CODES[code] : void 0;
    this.status = options.status ?? known?.status ?? 500;
    this.exitCode = options.exitCode ?? known?.exit ?? exitCodeForStatus(this.status);
    if (options.details && options.details.length > 0)
      this.details = options.details;
    if (options.requestId)
      this.requestId = options.requestId;
  }
  /** The `error` object of the API body (spec section 7), without the request id. */
  toBody(requestId) {
    const error = { code: this.code, message: this.message, request_id: requestId };
    if (this.details)
      error.details = this.details;
    return { error };
  }
};
function validationError(message, details) {
  return new PremiaError("VALIDATION_ERROR", message, { details });
}
function usageError(message) {
  return new PremiaError("USAGE_ERROR", message);
}
function notFound(what, ref) {
  return new PremiaError("NOT_FOUND", `${what} '${ref}' was not found. Check the id or number and try again.`);
}
function conflict(code, message, details) {
  return new PremiaError(code, message, { details });
}

export {
  ExitCode,
  receivedCode,
  exitCodeForStatus,
  PremiaError,
  validationError,
  usageError,
  notFound,
  conflict
};
