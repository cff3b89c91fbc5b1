/**
 * The one error type of premia. Every failure that reaches a user carries a stable `code`,
 * the HTTP status the API answers with, and the exit code the CLI ends with. Messages say
 * what went wrong and what to do next; they never contain secrets.
 */

/** Exit codes of the CLI (documented in the README). */
export const ExitCode = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  PARTIAL: 3,
  AUTH: 4,
  NOT_FOUND: 5,
  CONFLICT: 6,
  CANCELLED: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface FieldError {
  field: string;
  code: string;
  message: string;
  /** 1-based line of a file, where the error comes from a file. */
  row?: number;
  [extra: string]: unknown;
}

interface CodeInfo {
  status: number;
  exit: ExitCode;
}

/** Every stable error code, with its HTTP status and CLI exit code. */
export const ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, exit: ExitCode.USAGE },
  USAGE_ERROR: { status: 400, exit: ExitCode.USAGE },
  INVALID_FILE: { status: 400, exit: ExitCode.USAGE },
  UNAUTHORIZED: { status: 401, exit: ExitCode.AUTH },
  FORBIDDEN: { status: 403, exit: ExitCode.AUTH },
  NOT_FOUND: { status: 404, exit: ExitCode.NOT_FOUND },
  CONFLICT: { status: 409, exit: ExitCode.CONFLICT },
  DUPLICATE_POLICY: { status: 409, exit: ExitCode.CONFLICT },
  INVALID_TRANSITION: { status: 409, exit: ExitCode.CONFLICT },
  CLOCK_LOCKED: { status: 409, exit: ExitCode.CONFLICT },
  CLOCK_BACKWARDS: { status: 409, exit: ExitCode.CONFLICT },
  SEED_LOCKED: { status: 409, exit: ExitCode.CONFLICT },
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
  NOT_SUPPORTED: { status: 501, exit: ExitCode.FAILURE },
  STORE_TOO_NEW: { status: 500, exit: ExitCode.FAILURE },
  STORE_BUSY: { status: 503, exit: ExitCode.FAILURE },
  REMOTE_ERROR: { status: 502, exit: ExitCode.FAILURE },
  INTERNAL: { status: 500, exit: ExitCode.FAILURE },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Map an HTTP status to the exit code a CLI user sees, for codes premia does not know. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status === 400 || status === 413 || status === 415) return ExitCode.USAGE;
  if (status === 401 || status === 403) return ExitCode.AUTH;
  if (status === 404) return ExitCode.NOT_FOUND;
  if (status === 409 || status === 422) return ExitCode.CONFLICT;
  return ExitCode.FAILURE;
}

export class PremiaError extends Error {
  readonly code: string;
  readonly status: number;
  readonly exitCode: ExitCode;
  readonly details?: FieldError[] | Record<string, unknown>[];
  /** Set on errors that came back from a server. */
  requestId?: string;

  constructor(
    code: string,
    message: string,
    options: {
      details?: FieldError[] | Record<string, unknown>[];
      status?: number;
      exitCode?: ExitCode;
      cause?: unknown;
      requestId?: string;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PremiaError';
    this.code = code;
    const known = (ERROR_CODES as Record<string, CodeInfo>)[code];
    this.status = options.status ?? known?.status ?? 500;
    this.exitCode = options.exitCode ?? known?.exit ?? exitCodeForStatus(this.status);
    if (options.details && options.details.length > 0) this.details = options.details;
    if (options.requestId) this.requestId = options.requestId;
  }

  /** The `error` object of the API body (spec section 7), without the request id. */
  toBody(requestId: string | null): { error: Record<string, unknown> } {
    const error: Record<string, unknown> = { code: this.code, message: this.message, request_id: requestId };
    if (this.details) error.details = this.details;
    return { error };
  }
}

/** A wrong value: malformed, out of range, or naming something that cannot be used (README, "Global options"). */
export function validationError(message: string, details?: FieldError[]): PremiaError {
  return new PremiaError('VALIDATION_ERROR', message, { details });
}

/** How the command line is put together: options that conflict or do not apply, one missing. Never for a value. */
export function usageError(message: string): PremiaError {
  return new PremiaError('USAGE_ERROR', message);
}

export function notFound(what: string, ref: string): PremiaError {
  return new PremiaError('NOT_FOUND', `${what} '${ref}' was not found. Check the id or number and try again.`);
}

export function conflict(code: ErrorCode, message: string, details?: Record<string, unknown>[]): PremiaError {
  return new PremiaError(code, message, { details });
}

export function isPremiaError(e: unknown): e is PremiaError {
  return e instanceof PremiaError;
}
