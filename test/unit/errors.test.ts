import { describe, expect, it } from 'vitest';
import {
  conflict,
  ERROR_CODES,
  type ErrorCode,
  ExitCode,
  exitCodeForStatus,
  isPremiaError,
  notFound,
  PremiaError,
  receivedCode,
  usageError,
  validationError,
} from '../../src/domain/errors.js';
import { compileErrors } from '../helpers/compile.js';

describe('exit codes', () => {
  it('are the documented numbers', () => {
    expect(ExitCode).toEqual({ OK: 0, FAILURE: 1, USAGE: 2, PARTIAL: 3, AUTH: 4, NOT_FOUND: 5, CONFLICT: 6, CANCELLED: 130 });
  });
});

describe('every error code has its HTTP status and exit code', () => {
  // The whole table, written out: a code added to ERROR_CODES must be added here too.
  const expected: Record<string, [status: number, exit: number]> = {
    VALIDATION_ERROR: [400, 2],
    USAGE_ERROR: [400, 2],
    INVALID_FILE: [400, 2],
    UNAUTHORIZED: [401, 4],
    FORBIDDEN: [403, 4],
    NOT_FOUND: [404, 5],
    METHOD_NOT_ALLOWED: [405, 1],
    REQUEST_TIMEOUT: [408, 1],
    CONFLICT: [409, 6],
    DUPLICATE_POLICY: [409, 6],
    INVALID_TRANSITION: [409, 6],
    CLOCK_LOCKED: [409, 6],
    CLOCK_BACKWARDS: [409, 6],
    SEED_LOCKED: [409, 6],
    CALENDAR_LOCKED: [409, 6],
    PERIOD_CLOSED: [409, 6],
    PERIOD_OPEN: [409, 6],
    NO_COLLECTIONS: [409, 6],
    SETTLEMENT_EXISTS: [409, 6],
    DISPUTE_WINDOW_CLOSED: [409, 6],
    IDEMPOTENCY_IN_PROGRESS: [409, 6],
    IDEMPOTENCY_KEY_REUSED: [422, 6],
    PAYLOAD_TOO_LARGE: [413, 2],
    UNSUPPORTED_MEDIA_TYPE: [415, 2],
    RATE_LIMITED: [429, 1],
    HEADERS_TOO_LARGE: [431, 1],
    NOT_SUPPORTED: [501, 1],
    STORE_TOO_NEW: [500, 1],
    STORE_BUSY: [503, 1],
    STORE_UNAVAILABLE: [503, 1],
    SERVICE_UNAVAILABLE: [503, 1],
    REMOTE_ERROR: [502, 1],
    OUTCOME_UNKNOWN: [502, 1],
    CANCELLED: [500, 130],
    INTERNAL: [500, 1],
  };

  it('the table lists exactly the known codes', () => {
    expect(Object.keys(ERROR_CODES).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('%s → HTTP %j', (code, [status, exit]) => {
    const e = new PremiaError(code as ErrorCode, 'message');
    expect(e.status).toBe(status);
    expect(e.exitCode).toBe(exit);
    expect(ERROR_CODES[code as keyof typeof ERROR_CODES]).toEqual({ status, exit });
  });
});

describe('exitCodeForStatus (codes premia does not know)', () => {
  it.each([
    [400, 2],
    [413, 2],
    [415, 2],
    [401, 4],
    [403, 4],
    [404, 5],
    [409, 6],
    [422, 6],
    [429, 1],
    [500, 1],
    [502, 1],
    [503, 1],
    [418, 1],
  ])('HTTP %i → exit %i', (status, exit) => {
    expect(exitCodeForStatus(status)).toBe(exit);
  });

  it('an unknown code takes its exit code from its status, and is 500/1 without one', () => {
    expect(new PremiaError(receivedCode('SOMETHING_NEW'), 'x', { status: 404 }).exitCode).toBe(5);
    expect(new PremiaError(receivedCode('SOMETHING_NEW'), 'x', { status: 403 }).exitCode).toBe(4);
    const bare = new PremiaError(receivedCode('SOMETHING_NEW'), 'x');
    expect([bare.status, bare.exitCode]).toEqual([500, 1]);
  });

  it('explicit status and exit code win over the table', () => {
    const e = new PremiaError('NOT_FOUND', 'x', { status: 410, exitCode: ExitCode.FAILURE });
    expect([e.status, e.exitCode]).toEqual([410, 1]);
  });
});

describe('PremiaError', () => {
  it('is an Error with a name, a code, a cause and details', () => {
    const cause = new Error('disk');
    const e = new PremiaError('INTERNAL', 'It broke.', { cause, details: [{ field: 'x', code: 'Y', message: 'z' }] });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('PremiaError');
    expect(e.message).toBe('It broke.');
    expect(e.cause).toBe(cause);
    expect(isPremiaError(e)).toBe(true);
    expect(isPremiaError(new Error('x'))).toBe(false);
  });

  it('has no details when given an empty list', () => {
    expect(new PremiaError('INTERNAL', 'x', { details: [] }).details).toBeUndefined();
  });

  it('toBody is the API error body, with details only when there are some', () => {
    expect(new PremiaError('NOT_FOUND', 'Gone.').toBody('req_1')).toEqual({
      error: { code: 'NOT_FOUND', message: 'Gone.', request_id: 'req_1' },
    });
    expect(validationError('Bad.', [{ field: 'a', code: 'REQUIRED', message: 'a is required' }]).toBody(null)).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'Bad.', request_id: null, details: [{ field: 'a', code: 'REQUIRED', message: 'a is required' }] },
    });
  });

  it('helpers build the right codes', () => {
    const v = validationError('Bad.');
    expect([v.code, v.status, v.exitCode, v.details]).toEqual(['VALIDATION_ERROR', 400, 2, undefined]);
    const u = usageError('Wrong flags.');
    expect([u.code, u.status, u.exitCode]).toEqual(['USAGE_ERROR', 400, 2]);
    const n = notFound('Policy', 'POL-404');
    expect([n.code, n.status, n.exitCode, n.message]).toEqual([
      'NOT_FOUND',
      404,
      5,
      "Policy 'POL-404' was not found. Check the id or number and try again.",
    ]);
    const c = conflict('DUPLICATE_POLICY', 'Exists.', [{ field: 'policy_number', id: 'x' }]);
    expect([c.code, c.status, c.exitCode, c.details]).toEqual(['DUPLICATE_POLICY', 409, 6, [{ field: 'policy_number', id: 'x' }]]);
  });
});

describe('codes are checked by the compiler', () => {
  const compile = (snippet: string) =>
    compileErrors(`import { PremiaError, conflict, receivedCode, type FieldError } from './errors.js';\n${snippet}\n`);

  it('known codes compile; an unknown code, detail code or conflict code does not; a received code must say so', () => {
    expect(compile("new PremiaError('NOT_FOUND', 'x'); conflict('PERIOD_OPEN', 'x'); new PremiaError(receivedCode(String(1)), 'x');")).toEqual([]);
    const wrong = compile(
      [
        "new PremiaError('NOT_FUOND', 'x');",
        "conflict('SOMETHING_NEW', 'x');",
        "const d: FieldError = { field: 'a', code: 'NOT_A_DETAIL', message: 'm' };",
        "new PremiaError(String('FROM_THE_WIRE'), 'x');",
      ].join('\n'),
    );
    expect(wrong).toHaveLength(4);
    expect(wrong[0]).toContain('"NOT_FUOND"');
    expect(wrong[1]).toContain('"SOMETHING_NEW"');
    expect(wrong[2]).toContain('"NOT_A_DETAIL"');
    expect(wrong[3]).toContain("'string' is not assignable");
  });
});
