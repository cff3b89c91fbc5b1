/**
 * The one error type of premia. Every failure that reaches a user carries a stable `code`,
 * the HTTP status the API answers with, and the exit code the CLI ends with. Messages say
 * what went wrong and what to do next; they never contain secrets.
 */

import { printable } from './identifiers.js';

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

/**
 * The codes of `details` entries: what is wrong with one field or one row, under an error code
 * that says what kind of failure it is (VALIDATION_ERROR, INVALID_FILE, …).
 */
export const DETAIL_CODES = [
  // a field of a request, a flag, a cell
  'REQUIRED',
  'TOO_LONG',
  'INVALID_FORMAT',
  'INVALID_VALUE',
  'INVALID_TYPE',
  'INVALID_AMOUNT',
  'AMOUNT_OUT_OF_RANGE',
  'INVALID_DATE',
  'DATE_IN_PAST',
  'UNKNOWN_FIELD',
  'REPEATED',
  'CONFLICTING_FIELDS',
  'UNKNOWN_SETTING',
  // policies named in a request
  'UNKNOWN_POLICY',
  'POLICY_NOT_ACTIVE',
  // rows of an imported file
  'WRONG_FIELD_COUNT',
  'MALFORMED_ROW',
  'DUPLICATE_POLICY',
  'DUPLICATE_IN_FILE',
  'DUPLICATE_TRANSACTION',
  'ACCOUNT_IN_USE',
  // whole files, uploads and bodies
  'INVALID_FILE',
  'INVALID_JSON',
  'INVALID_ENCODING',
  'UNSUPPORTED_ENCODING',
  'INVALID_LENGTH',
  'INVALID_FIELD',
  'INCOMPLETE',
  'TOO_LARGE',
  'TOO_MANY_PARTS',
  'MALFORMED_MULTIPART',
  'DUPLICATE_KEY',
  'INEXACT_NUMBER',
  'TOO_DEEP',
  'TOO_FAR_AHEAD',
  'FORBIDDEN_KEY',
  // paths on this machine
  'STORE_NOT_FOUND',
  'NOT_A_PREMIA_STORE',
  'DIRECTORY_NOT_FOUND',
  'IS_A_DIRECTORY',
  'WOULD_OVERWRITE',
  'STORE_READ_ONLY',
  'DISK_FULL',
  'NOT_A_DIRECTORY',
  'NOT_A_FILE',
  'SYMLINK_LOOP',
  'PERMISSION_DENIED',
] as const;
export type DetailCode = (typeof DETAIL_CODES)[number];

export interface FieldError {
  field: string;
  code: DetailCode;
  message: string;
  /** 1-based line of a file, where the error comes from a file. */
  row?: number;
  [extra: string]: unknown;
}

interface CodeInfo {
  status: number;
  exit: ExitCode;
}

/**
 * Every error code premia gives, with its HTTP status and CLI exit code: the one table. A code
 * missing here does not compile (`ErrorCode`); a code another server sent comes in as a
 * `ReceivedCode` (see receivedCode).
 */
export const ERROR_CODES = {
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
  INTERNAL: { status: 500, exit: ExitCode.FAILURE },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * A code as another server sent it (remote mode), passed on unchanged whatever it is: premia's
 * own codes, a spec server's, or `HTTP_<status>`. Made only by receivedCode, so a code written
 * in premia's source is always an ErrorCode.
 */
export type ReceivedCode = string & { readonly __receivedCode: true };

export function receivedCode(code: string): ErrorCode | ReceivedCode {
  return code as ReceivedCode;
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

/** Map an HTTP status to the exit code a CLI user sees, for codes premia does not know. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status === 400 || status === 413 || status === 415) return ExitCode.USAGE;
  if (status === 401 || status === 403) return ExitCode.AUTH;
  if (status === 404) return ExitCode.NOT_FOUND;
  if (status === 409 || status === 422) return ExitCode.CONFLICT;
  return ExitCode.FAILURE;
}

export class PremiaError extends Error {
  readonly code: ErrorCode | ReceivedCode;
  readonly status: number;
  readonly exitCode: ExitCode;
  readonly details?: FieldError[] | Record<string, unknown>[];
  /** Set on errors that came back from a server. */
  requestId?: string;
  /**
   * Another server's error (not premia's): its message may leave what is wrong to its details
   * ("Validation failed"), so the CLI shows a lone detail too, named by its field.
   */
  foreignDetails?: boolean;

  constructor(
    code: ErrorCode | ReceivedCode,
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
    // A received code premia does not know takes its exit code from the status it came with.
    const known: CodeInfo | undefined = isErrorCode(code) ? ERROR_CODES[code] : undefined;
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

/** A wrong value: malformed, out of range, or naming something that cannot be used (docs/cli.md, "Errors"). */
export function validationError(message: string, details?: FieldError[]): PremiaError {
  return new PremiaError('VALIDATION_ERROR', message, { details });
}

/** How the command line is put together: options that conflict or do not apply, one missing. Never for a value. */
export function usageError(message: string): PremiaError {
  return new PremiaError('USAGE_ERROR', message);
}

/**
 * `by`: what a lookup takes. Policies and settlements are found by id or number (and a
 * collection's lookup names the policy a number belongs to); executions, operations and API
 * keys have only an id, so their message does not send the caller looking for a number.
 */
export function notFound(what: string, ref: string, by: 'id or number' | 'id' = 'id or number'): PremiaError {
  return new PremiaError('NOT_FOUND', `${what} '${printable(ref)}' was not found. Check the ${by} and try again.`);
}

export function conflict(code: ErrorCode, message: string, details?: Record<string, unknown>[]): PremiaError {
  return new PremiaError(code, message, { details });
}

export function isPremiaError(e: unknown): e is PremiaError {
  return e instanceof PremiaError;
}
